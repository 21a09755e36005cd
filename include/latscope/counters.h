/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COUNTERS_H
#define LATSCOPE_COUNTERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

/*
 * What interrupted each measured CPU during a run, from counters alone: the
 * deltas of /proc/interrupts (device IRQs by name, LOC, RES, CAL, TLB, ...)
 * and /proc/softirqs, and SMIs counted by the msr PMU where it offers them.
 * It costs two reads of each file: --explain=counters, and a line beside
 * every traced explanation.
 */
struct counters_run;

/**
 * counters_begin - take the first reading
 * @root: where to read
 * @cpus: the measured CPUs
 * Returns a run to free with counters_free(), or NULL (logged).
 */
struct counters_run *counters_begin(struct sysroot *root, const struct cpuset *cpus);

/* Take the second reading. Returns 0 or a negative errno code (logged). */
int counters_end(struct counters_run *run);

/* A nonzero delta of one counter on one CPU. */
struct counter_delta {
	char name[96]; /* "36:virtio1-req.0", "LOC", "TIMER" */
	const char *group; /* "interrupts" or "softirqs" */
	uint64_t count;
};

/**
 * counters_deltas - the nonzero deltas of a CPU, largest first
 * @run: a run after counters_end()
 * @cpu: a measured CPU
 * @deltas: receives up to @max deltas
 * Returns how many.
 */
unsigned int counters_deltas(const struct counters_run *run, unsigned int cpu,
			     struct counter_delta *deltas, unsigned int max);

/**
 * counters_smi - SMIs counted on a CPU during the run
 * @count: receives the count
 * @why: receives why there is no count (static string) when false
 * Returns true when the PMU counted them.
 */
bool counters_smi(const struct counters_run *run, unsigned int cpu, uint64_t *count,
		  const char **why);

/*
 * counters_have_interrupts - whether the run has the deltas of /proc/interrupts
 * @run: a run after counters_end()
 *
 * False when the file could not be read at either end, or an IRQ or a CPU
 * came or went between the readings: counters_deltas() then lists no
 * interrupt, which says nothing about what arrived.
 */
bool counters_have_interrupts(const struct counters_run *run);

/* true when SMIs were counted inside a guest: the guest's view only */
bool counters_smi_in_guest(const struct counters_run *run);

/* {"interrupts": {name: n}, "softirqs": {name: n}, "smi": n or null,
 * "smi_note": text} for one CPU (new reference) */
json_t *counters_result_cpu(const struct counters_run *run, unsigned int cpu);

void counters_free(struct counters_run *run);

#endif
