/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_TIMER_EXPLAIN_H
#define LATSCOPE_CLI_TIMER_EXPLAIN_H

#include <jansson.h>
#include <stdio.h>

#include "timer_options.h"
#include "explain_run.h"
#include "latscope/hist.h"

/*
 * --explain for a timer run: each spike, from its programmed expiry to the
 * wake-up, becomes a window of its thread's lane, and its latency is split
 * into the timer interrupt's delay, interference by other interrupts,
 * softirqs and NMIs, the thread that blocked the wake-up, and the way
 * through the scheduler.
 */
struct timer_explain {
	struct explain_run run;
	uint64_t explain_above_ns; /* 0: the run's p99, followed */
	unsigned int nr_threads;
	size_t *next_spike; /* per thread: first spike not yet a window */
	uint64_t *next_cycle; /* per thread: the sample ring's reader */
	struct hist *seen; /* per thread: every sample, for the p99 */
};

/* Before timer_start(): trace the measured CPUs. Falls back to counters. */
int timer_explain_begin(struct timer_explain *x, const struct timer_options *opts,
			struct sysroot *root);

/* While the run goes: follow the p99, turn new spikes into windows. */
void timer_explain_pump(struct timer_explain *x, struct timer_run *run);

/* After timer_stop(): read the rest, end tracing, attribute. */
int timer_explain_end(struct timer_explain *x, struct timer_run *run);

/* The explanation of each thread, after cyclictest's output. */
void timer_explain_report(FILE *out, const struct timer_explain *x, const struct timer_run *run,
			  const struct timer_options *opts);

/*
 * The explanation of the spike that broke a -b run (contributions and
 * timeline), or NULL when there is none: no break, or no trace.
 */
json_t *timer_explain_break_json(const struct timer_explain *x, const struct timer_run *run);

/* Add causes, worst spikes and counters to the JSON threads. */
void timer_explain_json(const struct timer_explain *x, const struct timer_options *opts,
			json_t *threads);

/* --trace-dir: thread<N>-spike<K>.txt. Returns files written or -errno. */
int timer_explain_write_captures(const struct timer_explain *x, const char *dir);

void timer_explain_release(struct timer_explain *x);

#endif
