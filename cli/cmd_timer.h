/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_CMD_TIMER_H
#define LATSCOPE_CLI_CMD_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/cpuset.h"
#include "explain_run.h"
#include "latscope/timer.h"

/* cyclictest's defaults and limits */
#define TIMER_DEFAULT_INTERVAL_US 1000
#define TIMER_DEFAULT_DISTANCE_US 500
#define TIMER_HISTOGRAM_MAX_US 1000000
/* threads per online CPU beyond which -t needs --force */
#define TIMER_THREADS_PER_CPU 4
/* samples kept for --explain and the JSON spike records */
#define TIMER_SPIKE_THRESHOLD_NS (100 * 1000ULL)
#define TIMER_SPIKE_CAPACITY 4096
/* -v: 65536 samples a thread, 65 s at 1 ms between two drains */
#define TIMER_SAMPLE_RING 65536
/* --explain: spike records a thread keeps (1% of 6.5 M wake-ups) */
#define TIMER_EXPLAIN_SPIKE_CAPACITY 65536

/* Everything `latscope timer` was asked to do, checked. */
struct timer_options {
	struct timer_params params; /* params.threads points at threads */
	struct timer_thread_params *threads; /* owned */
	/* how it was asked for, for the JSON and the output */
	unsigned int interval_us;
	unsigned int distance_us;
	int priority; /* of thread 0 */
	bool priospread;
	bool pinned; /* -a or -S: every thread on one CPU */
	struct cpuset measured; /* the CPUs of pinned threads */
	bool main_affinity_given;
	struct cpuset main_affinity;
	bool mlockall;
	bool pm_qos; /* hold /dev/cpu_dma_latency (not with --default-system) */
	int latency_us;
	uint64_t break_us; /* -b; 0 when not given */
	uint64_t fail_above_ns;
	bool quiet;
	bool verbose;
	bool nsecs;
	bool unbuffered;
	bool refresh_on_max;
	bool histofall;
	const char *histfile;
	const char *json_path;
	enum explain_choice explain;
	uint64_t explain_above_ns; /* 0: above the run's p99, adaptively */
	const char *trace_dir;
	bool force; /* more threads than TIMER_THREADS_PER_CPU per online CPU */
	bool help;
};

/**
 * timer_options_parse - parse cyclictest-style options
 * @argc: number of words, the command's name first
 * @argv: the words
 * @online: the online CPUs (-a, --mainaffinity must name online CPUs)
 * @allowed: the CPUs this process may run on (bare -a, -t, -S use them)
 * @opts: receives the options; release with timer_options_release()
 *
 * Prints a usage error naming the bad option and value.
 * Returns 0 or EXIT_USAGE.
 */
int timer_options_parse(int argc, char **argv, const struct cpuset *online,
			const struct cpuset *allowed, struct timer_options *opts);
/* Free what timer_options_parse() allocated (the threads); safe to repeat. */
void timer_options_release(struct timer_options *opts);

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
