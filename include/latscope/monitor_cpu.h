/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_CPU_H
#define LATSCOPE_MONITOR_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/metrics.h"
#include "latscope/native_hist.h"
#include "latscope/timer.h"

/*
 * What one measuring thread of the monitor publishes: cumulative counts
 * (classic and native buckets, exact: each sample is counted against both
 * on the measuring thread), the current window and the last closed one,
 * closed windows for the housekeeping thread, and the spikes --explain
 * wants. The thread is the only writer. Readers (scrapes, checkpoints,
 * explain) copy under a sequence count and retry when the thread wrote
 * meanwhile: they never take a lock the thread could wait for.
 *
 * Windows follow the wall clock: window N covers [N * window_ns,
 * (N + 1) * window_ns) of CLOCK_REALTIME, so windows of every CPU and of
 * every restart line up. A sample belongs to the window of its expiry.
 * When a sample's expiry passes the window's end, the thread closes the
 * window: its p99 is read from the window's own native counts (a walk down
 * from the max, usually a few buckets) and the touched counts are cleared:
 * a few microseconds once a window, after the sample is taken and long
 * before the next expiry.
 */
#define MONITOR_CLOSED_QUEUE 16
#define MONITOR_SPIKE_RING 128
/* a window's native counts are 32-bit: it may not hold more samples */
#define MONITOR_MAX_SAMPLES_PER_WINDOW 0xffffffffULL
/*
 * The largest a counter or a sum may be: the state keeps them as JSON
 * integers, which are int64. The sum saturates there (at 1 ms of latency a
 * wake-up, in 292 years); anything above is refused when a state is read.
 */
#define MONITOR_COUNTER_MAX ((uint64_t)INT64_MAX)

/* One closed window. */
struct monitor_window {
	uint64_t index; /* start = index * window_ns on CLOCK_REALTIME */
	uint64_t count;
	uint64_t max_ns;
	uint32_t p99_slot; /* native slot of the p99; its value: monitor_window_p99_ns() */
	uint64_t missed;
	bool partial; /* the measurement began or ended inside it */
};

/* The p99 of a window in ns: its slot's middle, at most the window's max. */
uint64_t monitor_window_p99_ns(const struct monitor_window *window);

struct monitor_cpu {
	/* set before the thread starts */
	unsigned int cpu;
	uint64_t window_ns;
	/* written by readers, read by the thread */
	int64_t realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t spike_threshold_ns; /* samples at or above it go to the spike ring */
	/* written by the thread only; read under seq */
	uint32_t seq;
	uint64_t count, sum_ns, max_ns, missed;
	uint64_t classic[METRICS_CLASSIC_BOUNDS + 1];
	unsigned int native_lo, native_hi; /* touched slots (lo > hi: none) */
	bool started; /* the thread opened a window already */
	bool window_open;
	uint64_t window_index;
	uint64_t window_end_ns; /* CLOCK_MONOTONIC */
	uint64_t window_count, window_max_ns, window_missed;
	bool window_partial;
	unsigned int window_lo, window_hi;
	bool has_closed;
	struct monitor_window last_closed;
	/* closed windows for the housekeeping thread (single producer, single consumer) */
	uint64_t closed_head; /* written by the thread */
	uint64_t closed_tail; /* written by the reader */
	uint64_t closed_dropped; /* the reader fell more than the queue behind */
	struct monitor_window closed[MONITOR_CLOSED_QUEUE];
	/* spikes for --explain, a ring */
	uint64_t spike_head; /* written by the thread */
	struct timer_spike spikes[MONITOR_SPIKE_RING];
	/* the big arrays last */
	uint64_t native[NATIVE_SLOTS];
	uint32_t window_native[NATIVE_SLOTS];
};

/**
 * monitor_cpu_init - prepare a CPU's state before its thread starts
 * @c: the state (zeroed memory, e.g. on the CPU's NUMA node)
 * @cpu: the CPU
 * @window_ns: the window length
 */
void monitor_cpu_init(struct monitor_cpu *c, unsigned int cpu, uint64_t window_ns);

/**
 * monitor_cpu_add - account one wake-up, on the measuring thread
 * @c: the CPU's state
 * @sample: the sample (expiry and wake-up on CLOCK_MONOTONIC)
 * @skipped: periods skipped at this wake-up
 */
void monitor_cpu_add(struct monitor_cpu *c, const struct timer_spike *sample, uint64_t skipped);

/**
 * monitor_cpu_close_window - close the open window (the thread stopped):
 * only when no thread writes @c any more
 * Returns true when a window was open; it is then in the closed queue.
 */
bool monitor_cpu_close_window(struct monitor_cpu *c);

/* A copy of a CPU's cumulative counts, taken without stopping its thread. */
struct monitor_cpu_reading {
	uint64_t count, sum_ns, max_ns, missed;
	uint64_t classic[METRICS_CLASSIC_BOUNDS + 1];
	uint64_t zero_count;
	unsigned int first, nr; /* counts[0..nr) are slots first.. */
	uint64_t *counts; /* the caller's buffer of NATIVE_SLOTS */
	bool has_closed;
	struct monitor_window last_closed;
};

/**
 * monitor_cpu_read - copy the cumulative counts
 * @c: the CPU's state
 * @reading: receives the copy; reading->counts must point at NATIVE_SLOTS
 *	     uint64_t the caller owns
 */
void monitor_cpu_read(const struct monitor_cpu *c, struct monitor_cpu_reading *reading);

/**
 * monitor_cpu_reading_percentile - a percentile of a reading, the zero
 * bucket included, as native_percentile() reads it
 */
uint64_t monitor_cpu_reading_percentile(const struct monitor_cpu_reading *reading, double percent);

/**
 * monitor_cpu_restore - start from counts kept in a state file, before the
 * thread starts: counters continue where they were
 */
void monitor_cpu_restore(struct monitor_cpu *c, const struct monitor_cpu_reading *reading);

/**
 * monitor_cpu_take_window - the next closed window, for the housekeeping
 * thread (the only consumer)
 * Returns true and fills @window, or false when none is waiting.
 */
bool monitor_cpu_take_window(struct monitor_cpu *c, struct monitor_window *window);

/**
 * monitor_cpu_take_spikes - spikes published since @next, for --explain
 * @c: the CPU's state
 * @next: the first spike number not taken yet; start at 0, updated
 * @spikes: receives up to @max spikes in order
 * @lost: incremented by the spikes the ring overwrote before they were taken
 * Returns how many were copied.
 */
unsigned int monitor_cpu_take_spikes(const struct monitor_cpu *c, uint64_t *next,
				     struct timer_spike *spikes, unsigned int max, uint64_t *lost);

#endif
