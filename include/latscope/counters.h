/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COUNTERS_H
#define LATSCOPE_COUNTERS_H

#include <stdint.h>

#include "latscope/sysroot.h"

/*
 * Cheap kernel counters read before and after a run, to put numbers beside
 * what the measurement saw: steal time (the hypervisor ran something else on
 * this vCPU), and in later modules interrupts and softirqs per CPU.
 */

/**
 * counters_read_steal - per-CPU steal time from /proc/stat
 * @root: where to read
 * @steal_ns: @nr_cpus entries; receives each CPU's steal time in ns since
 *	      boot, 0 for CPUs /proc/stat does not list
 * @nr_cpus: size of @steal_ns
 *
 * Returns 0 or a negative errno code.
 */
int counters_read_steal(struct sysroot *root, uint64_t *steal_ns, unsigned int nr_cpus);

#endif
