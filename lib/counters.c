// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/counters.h"

/* /proc/stat "cpuN user nice system idle iowait irq softirq steal ..." */
#define STEAL_FIELD 8

int counters_read_steal(struct sysroot *root, uint64_t *steal_ns, unsigned int nr_cpus)
{
	long ticks_per_second = sysconf(_SC_CLK_TCK);
	char *text, *line, *next;
	int ret;

	if (ticks_per_second <= 0)
		ticks_per_second = 100;
	memset(steal_ns, 0, nr_cpus * sizeof(*steal_ns));
	ret = sysroot_read_alloc(root, &text, NULL, "/proc/stat");
	if (ret)
		return ret;
	for (line = text; line && *line; line = next) {
		unsigned long long value = 0;
		unsigned long cpu;
		char *p;
		int field;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		cpu = strtoul(line + 3, &p, 10);
		for (field = 1; field <= STEAL_FIELD && *p; field++)
			value = strtoull(p, &p, 10);
		if (field > STEAL_FIELD && cpu < nr_cpus)
			steal_ns[cpu] =
				value * (1000000000ULL / (unsigned long long)ticks_per_second);
	}
	free(text);
	return 0;
}
