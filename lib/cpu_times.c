// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-CPU busy and idle ticks from /proc/stat. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/cpu_times.h"

/* "cpuN user nice system idle iowait irq softirq steal guest guest_nice":
 * guest time is counted in user already */
enum { USER = 1, NICE, SYSTEM, IDLE, IOWAIT, IRQ, SOFTIRQ, STEAL, NR_FIELDS = STEAL };

void cpu_times_parse(const char *text, struct cpu_times *times, unsigned int nr_cpus)
{
	const char *line, *next;

	memset(times, 0, nr_cpus * sizeof(*times));
	for (line = text; line && *line; line = next) {
		unsigned long long field[NR_FIELDS + 1] = { 0 };
		unsigned long cpu;
		char *p;
		int i;

		next = strchr(line, '\n');
		if (next)
			next++;
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		cpu = strtoul(line + 3, &p, 10);
		/* older kernels stop before steal: what is missing is 0 */
		for (i = USER; i <= NR_FIELDS && *p && *p != '\n'; i++)
			field[i] = strtoull(p, &p, 10);
		if (cpu >= nr_cpus || i <= IDLE)
			continue;
		times[cpu].listed = true;
		times[cpu].busy = field[USER] + field[NICE] + field[SYSTEM] + field[IRQ] +
				  field[SOFTIRQ] + field[STEAL];
		times[cpu].total = times[cpu].busy + field[IDLE] + field[IOWAIT];
		times[cpu].steal = field[STEAL];
	}
}

int cpu_times_read(struct sysroot *root, struct cpu_times *times, unsigned int nr_cpus)
{
	char *text;
	int ret;

	ret = sysroot_read_alloc(root, &text, NULL, "/proc/stat");
	if (ret)
		return ret;
	cpu_times_parse(text, times, nr_cpus);
	free(text);
	return 0;
}

double cpu_times_busy_share(const struct cpu_times *before, const struct cpu_times *after)
{
	uint64_t total, busy;

	if (!before->listed || !after->listed || after->total <= before->total ||
	    after->busy < before->busy)
		return -1;
	total = after->total - before->total;
	busy = after->busy - before->busy;
	return busy >= total ? 1 : (double)busy / (double)total;
}

int cpu_times_read_steal(struct sysroot *root, uint64_t *steal_ns, unsigned int nr_cpus)
{
	long ticks_per_second = sysconf(_SC_CLK_TCK);
	struct cpu_times *times = calloc(nr_cpus ? nr_cpus : 1, sizeof(*times));
	unsigned int cpu;
	int ret;

	if (!times)
		return -ENOMEM;
	if (ticks_per_second <= 0)
		ticks_per_second = 100;
	memset(steal_ns, 0, nr_cpus * sizeof(*steal_ns));
	ret = cpu_times_read(root, times, nr_cpus);
	for (cpu = 0; !ret && cpu < nr_cpus; cpu++)
		steal_ns[cpu] =
			times[cpu].steal * (1000000000ULL / (unsigned long long)ticks_per_second);
	free(times);
	return ret;
}
