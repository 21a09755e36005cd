// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cyclictest option set of latscope timer: the input is the words of a
 * command line, separated by NUL bytes.
 */
#include "fuzz.h"
#include "timer_options.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *argv[MAX_WORDS + 2];
	struct cpuset online, allowed;
	/* a cpuset wider than where the process runs, as under isolcpus= */
	struct cpuset affinity;
	struct timer_machine machine = { &online, &allowed, &affinity };
	struct timer_options opts;
	int argc = 1, status;
	size_t at = 0;

	argv[0] = "timer";
	while (at < size && argc < MAX_WORDS + 1) {
		argv[argc++] = text + at;
		at += strlen(text + at) + 1;
	}
	argv[argc] = NULL;
	cpuset_clear(&online);
	cpuset_clear(&allowed);
	cpuset_add(&online, 0);
	cpuset_add(&online, 1);
	cpuset_add(&online, 3);
	cpuset_add(&allowed, 1);
	cpuset_add(&allowed, 3);
	cpuset_clear(&affinity);
	cpuset_add(&affinity, 1);
	if (timer_options_parse(argc, argv, &machine, &opts, &status))
		timer_options_release(&opts);
	free(text);
	return 0;
}
