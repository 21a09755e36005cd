/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_METRICS_H
#define LATSCOPE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/native_hist.h"

/*
 * What the monitor exports, as plain values: one snapshot taken for a
 * scrape or a textfile, rendered by the exporters (Prometheus text 0.0.4,
 * OpenMetrics 1.0, protobuf with native histograms). The names, types and
 * labels of the metrics are a contract documented in latscope-monitor(1).
 */

/*
 * The classic buckets of latscope_timer_latency_seconds: 1-2-5 steps per
 * decade from 1 us to 100 ms. Each bound is an integer ns and a sample is
 * counted against the bounds in the measuring thread, so every bucket count
 * is exact (nothing is read back from a coarser histogram).
 */
#define METRICS_CLASSIC_BOUNDS 16
extern const uint64_t metrics_classic_bound_ns[METRICS_CLASSIC_BOUNDS];
/* the bounds as Prometheus writes them in the le label ("1e-06", "0.0001") */
extern const char *const metrics_classic_le[METRICS_CLASSIC_BOUNDS];

/* The classic bucket of a latency: 0..15, or 16 above 100 ms (+Inf only). */
static inline unsigned int metrics_classic_slot_of(uint64_t ns)
{
	unsigned int slot = 0;

	while (slot < METRICS_CLASSIC_BOUNDS && ns > metrics_classic_bound_ns[slot])
		slot++;
	return slot;
}

/* At most this many causes get their own series per CPU; the rest are "other". */
#define METRICS_CAUSES_PER_CPU 20
#define METRICS_LABEL_SIZE 64

/* One cause of spikes on one CPU (latscope_spikes_total, latscope_spike_seconds_total). */
struct metrics_cause {
	char kind[16]; /* "irq", "vector", "softirq", "thread", "timer_delay", ..., "other" */
	char name[METRICS_LABEL_SIZE]; /* "irq 36 virtio1-req.0", "kworker/1:2", "local_timer" */
	uint64_t spikes; /* spikes whose largest part it was */
	uint64_t ns; /* time it took in spikes, all parts */
};

/* Interrupts of one kind that arrived on a measured CPU since boot. */
struct metrics_interrupt {
	char irq[16]; /* "36", or a vector's row name: "LOC" */
	char name[METRICS_LABEL_SIZE]; /* "virtio1-req.0", "Local timer interrupts" */
	uint64_t count;
};

struct metrics_cpu {
	unsigned int cpu;
	uint64_t count; /* samples */
	uint64_t sum_ns;
	uint64_t max_ns; /* since the state began */
	uint64_t missed; /* periods skipped */
	/* per bucket, not cumulative; [METRICS_CLASSIC_BOUNDS]: above the last bound */
	uint64_t classic[METRICS_CLASSIC_BOUNDS + 1];
	struct native_counts native; /* counts owned by the snapshot */
	bool has_window; /* a window was closed */
	uint64_t window_max_ns; /* the max of the last closed window */
	bool explained; /* --explain ran: the next fields mean something */
	uint64_t lost_events; /* trace events lost */
	struct metrics_cause *causes;
	unsigned int nr_causes;
	struct metrics_interrupt *interrupts;
	unsigned int nr_interrupts;
};

/* An audit rule that fails (latscope_check_failed). */
struct metrics_rule {
	char id[METRICS_LABEL_SIZE];
	char severity[16];
};

struct metrics {
	const char *version; /* a static string */
	double start_time; /* Unix time in s the process started */
	struct metrics_cpu *cpus;
	unsigned int nr_cpus;
	struct metrics_rule *failed;
	unsigned int nr_failed;
};

/**
 * metrics_new - an empty snapshot for @nr_cpus CPUs (all fields zero)
 * Returns a snapshot to free with metrics_free(), or NULL.
 */
struct metrics *metrics_new(unsigned int nr_cpus);

/* true when --explain ran on some CPU: the cause families are written */
bool metrics_any_explained(const struct metrics *metrics);

/* Free a snapshot and every array its CPUs own; NULL is ignored. */
void metrics_free(struct metrics *metrics);

/**
 * metrics_copy_label - copy a label value, keeping it valid UTF-8
 * @dst: receives the text, always NUL-terminated
 * @size: size of @dst
 * @src: the text, any bytes (a task's comm may hold anything)
 *
 * Bytes that are not UTF-8 become '?'; a character that does not fit whole
 * is left out. Prometheus rejects a scrape with an invalid label value.
 */
void metrics_copy_label(char *dst, size_t size, const char *src);

#endif
