/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_RUN_H
#define LATSCOPE_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/jsondoc.h"
#include "latscope/time_blocks.h"

/*
 * The result model: what any input of report, compare and doctor becomes
 * (import.h reads the files). One struct run per input file: its kind, the
 * host it ran on, its command line and times, and one struct run_series per
 * measured CPU or thread.
 *
 * Missing data is explicit: a number the input does not have is RUN_NONE
 * (RUN_NO_TIME for wall-clock times, NAN for averages and shares), a string
 * is NULL, a list has no items and a histogram has present == false. Never
 * read RUN_NONE as a measurement; use run_has().
 *
 * Durations are in ns, times of events in ns since the start of the run,
 * wall-clock times in ns since the Unix epoch (UTC).
 *
 * Everything a run points to belongs to the run and is freed by run_free().
 */

#define RUN_NONE UINT64_MAX
#define RUN_NO_TIME INT64_MIN

static inline bool run_has(uint64_t value)
{
	return value != RUN_NONE;
}

/* which program and command wrote the input */
enum run_kind {
	RUN_NOISE, /* latscope noise */
	RUN_TIMER, /* latscope timer */
	RUN_CHECK, /* latscope check (audit) */
	RUN_IRQ, /* latscope irq show / plan / apply (see run.subcommand) */
	RUN_MONITOR, /* latscope monitor state */
	RUN_COMPARE, /* latscope compare */
	RUN_DOCTOR, /* latscope doctor; its parts are in run.parts */
	RUN_CYCLICTEST, /* rt-tests cyclictest --json or -h text */
	RUN_OSLAT, /* rt-tests oslat --json */
};

/* the file format the input was read from */
enum run_format {
	RUN_FORMAT_LATSCOPE, /* latscope JSON, schema latscope/1, /2 or /3 */
	RUN_FORMAT_CYCLICTEST_JSON, /* cyclictest --json (rt-tests 2.x, file_version 1) */
	RUN_FORMAT_OSLAT_JSON, /* oslat --json (rt-tests 2.x, file_version 1) */
	RUN_FORMAT_CYCLICTEST_TEXT, /* cyclictest -h N output (OSADL's "output" file) */
};

/* what a series measures */
enum run_measure {
	RUN_MEASURE_TIMER, /* timer wake-up latency (cyclictest, timer, monitor) */
	RUN_MEASURE_NOISE, /* OS noise: gaps a busy loop lost (oslat, noise) */
};

/* one bucket of a histogram: @count values in [low_ns, high_ns], both included */
struct run_bucket {
	uint64_t low_ns;
	uint64_t high_ns;
	uint64_t count;
};

/*
 * A histogram in any bucket layout: latscope's log-linear ns buckets and
 * the peers' 1 us buckets both fit. Buckets are ascending, do not overlap,
 * and only non-empty ones are kept.
 */
struct run_histogram {
	bool present;
	struct run_bucket *buckets;
	unsigned int nr_buckets;
	/* values not in any bucket, all at or above overflow_from_ns */
	uint64_t overflow;
	uint64_t overflow_from_ns; /* RUN_NONE when the input does not say */
	uint64_t total; /* sum of the bucket counts and the overflow */
};

/* a gap (noise) or latency (timer) above the run's threshold, with its time */
struct run_event {
	uint64_t t_ns; /* since the start of the run */
	uint64_t ns; /* its size */
};

/* a recurring gap found by the periodicity search */
struct run_periodic {
	uint64_t period_ns;
	uint64_t phase_ns;
	uint64_t duration_ns;
	uint64_t max_duration_ns;
	uint64_t jitter_ns;
	uint64_t seen;
	uint64_t expected;
	char *cause; /* the cause it was attributed to, NULL when none */
};

/* what a cause is, for colour and grouping */
enum run_cause_kind {
	RUN_CAUSE_TIMER_DELAY, /* the timer interrupt came late */
	RUN_CAUSE_IRQ, /* a device interrupt handler */
	RUN_CAUSE_VECTOR, /* a system vector (local timer, IPI, ...) */
	RUN_CAUSE_SOFTIRQ,
	RUN_CAUSE_NMI,
	RUN_CAUSE_THREAD, /* another thread ran */
	RUN_CAUSE_SCHEDULING, /* switch-in and return to user */
	RUN_CAUSE_THROTTLING, /* RT throttling */
	RUN_CAUSE_UNEXPLAINED, /* nothing the OS saw: firmware, hypervisor */
	RUN_CAUSE_OTHER,
	RUN_CAUSE_KINDS,
};

/* an explained cause with its totals over the run */
struct run_cause {
	enum run_cause_kind kind;
	char *kind_name; /* as the input wrote it ("irq", "thread", ...) */
	char *label; /* "irq 36 virtio1-req.0", "cc1:16615", "timer irq delay" */
	uint64_t spikes; /* spikes it took part in */
	uint64_t total_ns; /* time it took from them */
	uint64_t max_ns;
	double share; /* of all explained time, 0..1; NAN when absent */
	uint64_t period_ns; /* when it recurs; RUN_NONE otherwise */
	uint64_t period_duration_ns;
};

/* one cause's part of a spike */
struct run_part {
	enum run_cause_kind kind;
	char *label;
	uint64_t ns;
	uint64_t offset_ns; /* from the start of the spike; RUN_NONE in a split */
};

/* a spike with its anatomy: the split by cause and the timeline */
struct run_spike {
	uint64_t t_ns; /* since the start of the run; RUN_NONE when unknown */
	uint64_t duration_ns;
	bool incomplete; /* the trace did not cover all of it */
	struct run_part *split; /* contributions by cause, largest first */
	unsigned int nr_split;
	struct run_part *timeline; /* in order of time, with offsets */
	unsigned int nr_timeline;
};

/* a closed monitor window */
struct run_window {
	int64_t end_ns; /* wall clock */
	uint64_t max_ns;
	uint64_t p99_ns;
	uint64_t count;
	uint64_t missed;
	bool partial; /* the monitor ran for part of it only */
};

/* a named count, e.g. interrupts by source during the run */
struct run_counter {
	char *name;
	uint64_t count;
};

/* one percentile as the input gave it */
struct run_percentile {
	double percent; /* 99.9 */
	uint64_t ns;
};

/* one measured CPU or thread */
struct run_series {
	char *label; /* "cpu 1", "thread 0 (cpu 0)" */
	int cpu; /* -1 when not pinned or unknown */
	int thread; /* thread number, -1 for per-CPU series */
	enum run_measure measure;
	uint64_t interval_ns; /* timer: the wake-up period */
	uint64_t run_ns; /* how long it measured */

	uint64_t count; /* samples (loops, cycles) */
	uint64_t min_ns;
	uint64_t max_ns;
	double avg_ns;
	struct run_percentile *percentiles; /* as written, ascending */
	unsigned int nr_percentiles;
	struct run_histogram histogram;

	/* gaps or latencies above threshold_ns, in time order */
	struct run_event *events;
	size_t nr_events;
	uint64_t threshold_ns; /* events at or above it were recorded */
	bool events_complete; /* every one above the threshold is listed */
	uint64_t events_above; /* how many were above it, listed or not */
	uint64_t lost_ns; /* noise: time lost to gaps */
	uint64_t missed; /* timer: missed periods */

	struct run_periodic *periodic;
	unsigned int nr_periodic;
	struct run_cause *causes; /* largest total first */
	unsigned int nr_causes;
	uint64_t explained_ns; /* time of all explained spikes */
	struct run_spike *worst; /* the worst spikes with their anatomy */
	unsigned int nr_worst;
	struct run_counter *interrupts; /* interrupts and vectors during the run */
	unsigned int nr_interrupts;
	struct run_counter *softirqs;
	unsigned int nr_softirqs;

	/* the maximum per block (1 s, or a monitor window) for extreme values */
	uint64_t block_ns; /* RUN_NONE when the input has no block maxima */
	uint64_t *block_max_ns;
	size_t nr_blocks;

	/*
	 * The histogram of each time block (latscope/3), whose counts add up
	 * to the histogram's; NULL when the input has none, or when they did
	 * not add up (a note says so).
	 */
	struct time_blocks *time_blocks;

	/* monitor: closed windows, oldest first */
	uint64_t window_ns;
	struct run_window *windows;
	size_t nr_windows;
};

/* facts about the machine, from the input's host section or sysinfo */
struct run_host {
	char *nodename;
	char *kernel; /* uname release */
	char *kernel_version; /* uname version */
	char *machine;
	char *cpu_model;
	char *cmdline;
	char *virtualization; /* "none", "KVMKVMKVM", ... */
	char *clocksource;
	bool has_cpus; /* the four sets below were given */
	struct cpuset online;
	struct cpuset isolated;
	struct cpuset nohz_full;
	struct cpuset housekeeping;
	bool preempt_rt_known;
	bool preempt_rt;
};

struct run {
	char *path; /* the file as named by the caller */
	enum run_format format;
	enum run_kind kind;
	char *command; /* "noise", "cyclictest", ... */
	char *subcommand; /* irq: "show", "plan", "apply"; else NULL */
	unsigned int schema; /* latscope/N: N; 0 for the peers' files */
	char *tool_version; /* latscope or rt-tests version */
	char *command_line; /* as one line, words separated by spaces */
	int64_t start_ns; /* wall clock, RUN_NO_TIME when absent */
	int64_t end_ns;
	bool stopped; /* ended by a signal, -b, or not complete */
	struct run_host host;

	struct run_series *series;
	unsigned int nr_series;

	/* for the parts only a page reads (audit findings, the IRQ plan):
	 * the parsed document, NULL for text input */
	struct jsondoc *doc;
	json_t *json; /* the document's top object (borrowed from doc) */

	/* a doctor result holds the results of its parts; they are owned by
	 * it and their "json" points into its document */
	struct run **parts;
	unsigned int nr_parts;

	/* what the import noticed and the reader should know, one line each */
	char **notes;
	unsigned int nr_notes;
};

/* free a run and everything it points to (its parts and document too); NULL is fine */
void run_free(struct run *run);

/* "noise", "timer", "check", "irq", "monitor", "compare", "doctor",
 * "cyclictest", "oslat" */
const char *run_kind_name(enum run_kind kind);
/* "latscope JSON", "cyclictest JSON", "oslat JSON", "cyclictest -h text" */
const char *run_format_name(enum run_format format);
/* "timer irq delay", "irq", ... */
const char *run_cause_kind_name(enum run_cause_kind kind);
/* the kind for a kind name as latscope writes it ("timer_delay", "irq") */
enum run_cause_kind run_cause_kind_of(const char *name);

/* true for the kinds that measure latency or noise (noise, timer, monitor, the peers) */
bool run_kind_measures(enum run_kind kind);

/* true when the run measured latency or noise and has series to plot */
bool run_is_measurement(const struct run *run);

/**
 * run_histogram_quantile - the value at or below which @fraction of the
 * values lie, read from a histogram
 * @h: the histogram
 * @fraction: 0 < fraction <= 1
 * @ns: receives the upper bound of the bucket that holds that rank (an
 *	upper bound of the true quantile, exact to the bucket's width)
 *
 * Returns 0, -ENODATA for an empty histogram, or -ERANGE when the rank
 * falls among the overflowed values (then *ns is overflow_from_ns).
 */
int run_histogram_quantile(const struct run_histogram *h, double fraction, uint64_t *ns);

/**
 * run_histogram_above - how many values of a histogram are above @ns
 * @h: the histogram
 * @ns: the threshold
 * @exact: receives false when the count is an upper bound: a bucket holds
 *	   @ns between its bounds, or @ns is at or above the overflow bound
 *	   (overflowed values are then all counted as above)
 *
 * Returns the count; values in buckets entirely above @ns and overflowed
 * values count as above.
 */
uint64_t run_histogram_above(const struct run_histogram *h, uint64_t ns, bool *exact);

#endif
