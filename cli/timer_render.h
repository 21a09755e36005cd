/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_TIMER_RENDER_H
#define LATSCOPE_CLI_TIMER_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/timer.h"

/* What latscope timer prints the way cyclictest prints it (timer_render.c). */

/* One cyclictest status line, values already in the unit printed. */
struct timer_line {
	unsigned int thread;
	int tid;
	int priority;
	uint64_t interval_us;
	uint64_t cycles;
	uint64_t min;
	uint64_t act;
	uint64_t avg;
	uint64_t max;
};

/**
 * timer_line_from_live - a status line from a thread's live values
 * @line: receives the line
 * @thread: the thread's index
 * @live: its values in ns
 * @tid: its id
 * @config: its priority and interval
 * @unit_ns: 1000 for us, 1 for ns (-N)
 */
void timer_line_from_live(struct timer_line *line, unsigned int thread,
			  const struct timer_live *live, int tid,
			  const struct timer_thread_params *config, uint64_t unit_ns);

/* "T: 0 ( 3621) P:90 I:1000 C: ..." and a newline, as cyclictest prints it */
void timer_render_line(FILE *out, const struct timer_line *line, bool nsecs);

/**
 * timer_render_histogram - cyclictest's -h/-H dump: one line per bucket,
 * then # Total, # Min/Avg/Max Latencies, # Histogram Overflows and the
 * cycle numbers of the overflows
 * @out: where to write
 * @threads: the threads' results, each with a cyclictest histogram
 * @nr_threads: how many
 * @sum_column: -H: add a column summing all threads (with 2 threads or more)
 */
void timer_render_histogram(FILE *out, const struct timer_stats *const *threads,
			    unsigned int nr_threads, bool sum_column);

/**
 * timer_render_summary - what cyclictest does not print: percentiles,
 * missed periods and the largest spikes, as '#' comment lines so that
 * scripts reading cyclictest's output skip them
 * @out: where to write
 * @threads: the threads' results
 * @nr_threads: how many
 * @origin_ns: the run's start (timer_origin_ns), spike times count from it
 */
void timer_render_summary(FILE *out, const struct timer_stats *const *threads,
			  unsigned int nr_threads, uint64_t origin_ns);

#endif
