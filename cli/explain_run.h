/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_EXPLAIN_RUN_H
#define LATSCOPE_CLI_EXPLAIN_RUN_H

#include <jansson.h>
#include <stdio.h>

#include "latscope/counters.h"
#include "latscope/explain_join.h"
#include "latscope/explain_session.h"
#include "latscope/validity.h"

/* --explain[=trace|counters] */
enum explain_choice {
	EXPLAIN_OFF,
	EXPLAIN_WITH_TRACE, /* tracepoints, with counters beside */
	EXPLAIN_WITH_COUNTERS, /* counters only */
};

/*
 * What noise and timer share of --explain: the counters of the measured
 * CPUs, the tracing session with one lane per measuring thread, its
 * horizons, and the way it ends, is printed and lands in the JSON. Each
 * command turns its own spikes into windows.
 */
struct explain_run {
	enum explain_choice choice;
	struct explain_session *session; /* NULL: counters only, or off */
	struct counters_run *counters;
	unsigned int nr_lanes;
	uint64_t *horizon; /* per lane, filled by the command before a pump */
	/* per lane after explain_run_finish(): every cause's trains and their
	 * company; explain_run_join_sources() adds the spike list's sources */
	struct explain_join **joins;
	bool virtual_machine; /* the CPU says it runs under a hypervisor */
	uint64_t run_ns; /* the run's length, from explain_run_finish() */
};

/**
 * explain_run_begin - start the counters and, for trace, the session
 * @x: receives the run; release with explain_run_release()
 * @choice: what --explain asked for
 * @root: where the counters are read
 * @cpus: the measured CPUs
 * @options: the session's lanes, mode, clock and captures
 *
 * Falls back to counters, with a warning, when tracing is impossible.
 * Returns 0 or -ENOMEM.
 */
int explain_run_begin(struct explain_run *x, enum explain_choice choice, struct sysroot *root,
		      const struct cpuset *cpus, const struct explain_session_options *options);

/* Feed the engines up to the horizons; warns when the trace cannot be read. */
void explain_run_pump(struct explain_run *x);

/* Take the counters' second reading: right when the measurement stopped. */
void explain_run_stop_counters(struct explain_run *x);

/**
 * explain_run_finish - after the last pump: end tracing (the kernel state
 * goes first) and attribute every window
 * Returns 0 or -ENOMEM.
 */
int explain_run_finish(struct explain_run *x, uint64_t end_ns, uint64_t run_ns);

/**
 * explain_run_join_sources - join a lane's causes with the periodic sources
 * of its spike list (after explain_run_finish())
 * @x: the run
 * @lane: the lane
 * @sources: the spike list's @nr_sources sources
 * @windows: per window tag below @nr_windows, its source and slot
 * Returns 0, or -ENOMEM (the lane keeps its causes' own trains).
 */
int explain_run_join_sources(struct explain_run *x, unsigned int lane,
			     const struct period_source *sources, unsigned int nr_sources,
			     const struct window_source *windows, size_t nr_windows);

/* After explain_run_finish(): the events lost and the reader's cost, into @v. */
void explain_run_validity(const struct explain_run *x, struct validity *v);

/*
 * What reading the trace cost, after explain_run_finish(): one line of
 * the report (nothing without tracing), and the document's "trace_reader"
 * (NULL without tracing; the caller owns it).
 */
void explain_run_report_reader(FILE *out, const struct explain_run *x);
json_t *explain_run_reader_json(const struct explain_run *x);

/* The join of a lane, or NULL without tracing. */
const struct explain_join *explain_run_join(const struct explain_run *x, unsigned int lane);

/* The engine of a lane, or NULL without tracing. */
const struct explain_cpu *explain_run_engine(const struct explain_run *x, unsigned int lane);

/* The explanation of one lane: its cause table and worst spikes, its CPU's counters. */
void explain_run_report(FILE *out, const struct explain_run *x, unsigned int lane, int cpu,
			const char *heading, const char *spike_word, uint64_t steal_ns,
			uint64_t origin_ns);

/* Add a lane's causes, worst spikes, lost events and its CPU's counters to @entry. */
void explain_run_json(const struct explain_run *x, unsigned int lane, int cpu, json_t *entry);

/* --trace-dir: <prefix><number>-spike<K>.txt per lane. Files written or -errno. */
int explain_run_write_captures(const struct explain_run *x, const char *dir, const char *prefix,
			       const unsigned int *numbers);

void explain_run_release(struct explain_run *x);

#endif
