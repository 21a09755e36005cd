/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_EXPLAIN_H
#define LATSCOPE_MONITOR_EXPLAIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "latscope/explain_session.h"
#include "latscope/metrics.h"
#include "latscope/monitor_cpu.h"

/*
 * --explain for as long as the monitor runs: one tracing session on the
 * measured CPUs (lib/explain/explain_session.c, the engine `timer --explain` uses),
 * fed from the housekeeping thread. Each spike (a sample at or above the
 * CPU's p99, followed as the run goes, or --explain-above) becomes a window;
 * as each window closes its split is counted per cause, the cause named
 * without pids so that series stay stable ("kworker/1:2", "irq 36
 * virtio1-req.0", "local_timer", "timer irq delay"), at most
 * METRICS_CAUSES_PER_CPU causes per CPU and the rest as "other". The worst
 * spikes are kept with their split. The engines forget their own cause
 * tables after every pump, so memory stays bounded for weeks.
 */
#define MONITOR_WORST_SPIKES 20
#define MONITOR_SPIKE_PARTS 8
/* the p99 of fewer samples says little: no adaptive spike before this many */
#define MONITOR_MIN_SAMPLES_FOR_P99 200

struct monitor_spike_part {
	uint32_t cause; /* index into the CPU's causes */
	uint64_t ns;
};

/* One of the worst spikes of a CPU, with its split. */
struct monitor_spike {
	uint64_t time_ns; /* the expiry on CLOCK_REALTIME */
	uint64_t latency_ns;
	bool incomplete; /* the trace lost events during it */
	unsigned int nr_parts; /* largest first */
	struct monitor_spike_part parts[MONITOR_SPIKE_PARTS];
	uint64_t rest_ns; /* the parts beyond MONITOR_SPIKE_PARTS */
};

/* What is kept per CPU; restored from and saved to the state. */
struct monitor_explained {
	struct metrics_cause causes[METRICS_CAUSES_PER_CPU + 1]; /* + "other" */
	unsigned int nr_causes;
	struct monitor_spike worst[MONITOR_WORST_SPIKES]; /* largest first */
	unsigned int nr_worst;
	uint64_t lost_events; /* trace events lost, earlier runs included */
	uint64_t spikes_missed; /* spikes the ring dropped before they were read */
};

struct monitor_explain;

/**
 * monitor_explain_start - start tracing the measured CPUs (before they measure)
 * @cpus: the measured CPUs, one lane each (copied)
 * @nr_cpus: how many
 * @explain_above_ns: spikes are samples at or above it; 0: each CPU's p99
 *
 * Returns the explainer to free with monitor_explain_free(), or NULL
 * (logged: no tracefs, not root).
 */
struct monitor_explain *monitor_explain_start(const unsigned int *cpus, unsigned int nr_cpus,
					      uint64_t explain_above_ns);

/* Start from what a state file kept for lane @lane. */
void monitor_explain_restore(struct monitor_explain *x, unsigned int lane,
			     const struct monitor_explained *kept);

/**
 * monitor_explain_set_thresholds - which samples are spikes: the fixed
 * threshold, or each CPU's p99 once it has MONITOR_MIN_SAMPLES_FOR_P99
 * @x: the explainer
 * @cpus: the measured CPUs' states, one per lane
 */
void monitor_explain_set_thresholds(struct monitor_explain *x, struct monitor_cpu *const *cpus);

/**
 * monitor_explain_pump - turn new spikes into windows and feed the trace
 * @x: the explainer
 * @cpus: the measured CPUs' states, one per lane
 * @tids: the measuring threads' ids, one per lane
 * @horizons: per lane, the time before which every spike was published;
 *	      UINT64_MAX after the measurement stopped
 * @realtime_offset_ns: CLOCK_REALTIME - CLOCK_MONOTONIC, for spike times
 *
 * Returns 0 or a negative errno code (the trace could not be read).
 */
int monitor_explain_pump(struct monitor_explain *x, struct monitor_cpu *const *cpus,
			 const pid_t *tids, const uint64_t *horizons, int64_t realtime_offset_ns);

/**
 * monitor_explain_finish - after the last pump: end tracing (the kernel's
 * tracing instance goes first) and close every window
 * Returns 0 or -ENOMEM.
 */
int monitor_explain_finish(struct monitor_explain *x, uint64_t end_ns);

/**
 * monitor_explain_read - a copy of what one lane kept, safe while the
 * housekeeping thread pumps
 */
void monitor_explain_read(struct monitor_explain *x, unsigned int lane,
			  struct monitor_explained *kept);

/**
 * monitor_explain_cause_label - a cause's kind and label with no pid in it
 * @engine: the engine the cause belongs to
 * @names: the names its records use
 * @cause: the cause
 * @kind: receives "irq", "vector", "thread", ... (16 bytes)
 * @label: receives "kworker/1:2", "irq 36 virtio1-req.0" (METRICS_LABEL_SIZE)
 */
void monitor_explain_cause_label(const struct explain_cpu *engine, const struct names *names,
				 const struct explain_cause *cause, char *kind, char *label);

/**
 * monitor_explained_count - count one explained spike into a CPU's table
 * (the pure part of the window hook, for tests)
 * @kept: the CPU's table
 * @time_ns: the spike's time on CLOCK_REALTIME
 * @latency_ns: its length
 * @incomplete: the trace lost events during it
 * @kinds: @nr kinds, largest part first
 * @labels: @nr labels
 * @ns: @nr part lengths
 */
void monitor_explained_count(struct monitor_explained *kept, uint64_t time_ns, uint64_t latency_ns,
			     bool incomplete, const char *const *kinds, const char *const *labels,
			     const uint64_t *ns, unsigned int nr);

void monitor_explain_free(struct monitor_explain *x);

#endif
