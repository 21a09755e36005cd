/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CPU_TIMES_H
#define LATSCOPE_CPU_TIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/sysroot.h"

/*
 * Each CPU's time since boot from /proc/stat, in clock ticks: what it spent
 * busy (user, nice, system, irq, softirq, steal), in all (idle and iowait
 * besides), and the steal alone. Two readings give a CPU's load between them.
 */
struct cpu_times {
	bool listed; /* /proc/stat has a line for the CPU */
	uint64_t busy;
	uint64_t total;
	uint64_t steal;
};

/**
 * cpu_times_parse - the per-CPU lines of a /proc/stat text
 * @text: the text
 * @times: @nr_cpus entries, zeroed then filled for the CPUs listed
 * @nr_cpus: size of @times; CPUs beyond it are ignored
 */
void cpu_times_parse(const char *text, struct cpu_times *times, unsigned int nr_cpus);

/**
 * cpu_times_read - read /proc/stat into @times (@nr_cpus entries)
 * Returns 0 or a negative errno code.
 */
int cpu_times_read(struct sysroot *root, struct cpu_times *times, unsigned int nr_cpus);

/**
 * cpu_times_read_steal - per-CPU steal time from /proc/stat: the hypervisor
 * ran something else on the vCPU
 * @root: where to read
 * @steal_ns: @nr_cpus entries; receives each CPU's steal time in ns since
 *	      boot, 0 for CPUs /proc/stat does not list
 * @nr_cpus: size of @steal_ns
 *
 * Returns 0 or a negative errno code.
 */
int cpu_times_read_steal(struct sysroot *root, uint64_t *steal_ns, unsigned int nr_cpus);

/**
 * cpu_times_busy_share - the share of the time between two readings of one
 * CPU that it was busy, 0 to 1; -1 when either reading lacks the CPU or no
 * tick passed
 */
double cpu_times_busy_share(const struct cpu_times *before, const struct cpu_times *after);

#endif
