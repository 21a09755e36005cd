// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cpu lists ("0-3,8") and masks ("ff,00000001"), from users and /sys
 * (where a mask never allocated reads "(null)").
 * What parses must survive a round trip through the formatter.
 */
#include "fuzz.h"
#include "latscope/cpuset.h"

static void round_trip_list(const struct cpuset *set)
{
	static char text[CPUSET_MAX_CPUS * 6];
	struct cpuset again;

	cpuset_format_list(set, text, sizeof(text));
	if (cpuset_parse_list(text, &again) || !cpuset_equal(set, &again))
		abort();
}

static void round_trip_mask(const struct cpuset *set)
{
	static char text[CPUSET_MAX_CPUS / 4 + CPUSET_MAX_CPUS / 32 + 16];
	struct cpuset again;

	cpuset_format_mask(set, CPUSET_MAX_CPUS, text, sizeof(text));
	if (cpuset_parse_mask(text, &again) || !cpuset_equal(set, &again))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct cpuset set;

	if (!cpuset_parse_list(text, &set)) {
		round_trip_list(&set);
		round_trip_mask(&set);
	}
	if (!cpuset_parse_mask(text, &set))
		round_trip_list(&set);
	/* a kernel file's list: the user's rule, or "(null)" for no CPU */
	if (!cpuset_parse_kernel_list(text, &set))
		round_trip_list(&set);
	free(text);
	return 0;
}
