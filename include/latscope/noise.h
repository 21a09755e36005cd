/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_NOISE_H
#define LATSCOPE_NOISE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/hist.h"
#include "latscope/period.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/tsc.h"
#include "latscope/workers.h"

/*
 * OS noise: one thread per CPU reads the TSC back to back. Every
 * read-to-read delta goes into the CPU's histogram; every delta at or above
 * the threshold is a gap, recorded with when it started. A busy CPU that
 * loses time to an interrupt, another task, firmware or the hypervisor
 * shows it as a gap.
 */
struct noise_params {
	struct cpuset cpus;
	uint64_t duration_ns;
	uint64_t threshold_ns;
	enum rt_policy policy;
	int priority;
	size_t max_gaps; /* stored per CPU; more are counted */
	bool use_tsc; /* false: CLOCK_MONOTONIC_RAW */
};

struct noise_gap {
	uint64_t stamp; /* raw clock value of the last read before the gap */
	uint64_t duration_ns;
};

/* What a CPU's thread publishes while it runs, for the live view. */
struct noise_live {
	/* a raw timestamp at which the thread was running: every gap that
	 * started before it is published; UINT64_MAX once the thread ended */
	uint64_t stamp;
	uint64_t loops;
	uint64_t max_ns;
	uint64_t gaps;
	uint64_t lost_ns;
};

/* Each CPU's state sits on its own cache lines: threads never share one. */
struct noise_cpu {
	unsigned int cpu;
	struct hist *hist; /* every delta, complete once the thread ended */
	uint64_t *short_counts; /* the loop's counts of short deltas, by tick */
	uint64_t short_limit; /* deltas below this many ticks are counted there */
	struct noise_gap *gaps; /* max_gaps entries, NUMA-local */
	size_t nr_gaps;
	uint64_t gap_count; /* stored or not */
	uint64_t gaps_not_stored;
	uint64_t lost_ns; /* sum of the gaps */
	uint64_t first_stamp, last_stamp;
	uint64_t steal_ns; /* steal time during the run */
	/* after noise_classify_throttling: which stored gaps were throttling */
	uint8_t *throttled;
	uint64_t throttled_count, throttled_ns;
	/* after noise_find_periods */
	struct period_source periodic[PERIOD_MAX_SOURCES];
	int nr_periodic;
	struct noise_live live; /* written by the thread with relaxed atomics */
	struct noise_run *run;
	/* raw timestamp the thread stops at: its first read plus the duration;
	 * the main thread sets it to 0 to stop it early */
	uint64_t deadline;
} __attribute__((aligned(64)));

struct noise_run {
	struct noise_params params;
	struct tsc_clock clock;
	struct sysroot *root;
	unsigned int nr_cpus;
	struct noise_cpu *cpus;
	struct worker *workers;
	struct worker_group group;
	uint64_t start_mono_ns, end_mono_ns; /* CLOCK_MONOTONIC */
	uint64_t elapsed_ns;
	uint64_t *steal_before;
	unsigned int nr_possible;
	uint64_t duration_ticks; /* the duration in the clock's unit */
};

/**
 * noise_params_default - what a noise run measures unless told otherwise
 * @params: receives 10 s at SCHED_OTHER, gaps from 1 us, 2^17 gaps stored
 *	    per CPU, the TSC as the clock, and no CPU (the caller picks them)
 */
void noise_params_default(struct noise_params *params);

/**
 * noise_prepare - allocate the run and calibrate its clock
 * @run: receives the run state; release it with noise_release()
 * @root: where /proc is read (steal time); must outlive the run
 * @params: what to measure
 *
 * After it, run->clock converts timestamps (to set up tracing on the same
 * timeline before the threads start). Returns 0 or a negative errno.
 */
int noise_prepare(struct noise_run *run, struct sysroot *root, const struct noise_params *params);

/**
 * noise_start - start measuring
 * Returns 0 once every thread is spinning, or a negative errno (logged);
 * on failure nothing is left running.
 */
int noise_start(struct noise_run *run);

/* Gaps stored and complete so far (any thread may ask). */
size_t noise_gaps_published(const struct noise_cpu *cpu);

/* A raw timestamp as ns since the clock's calibration start (the timeline
 * --explain uses); UINT64_MAX stays UINT64_MAX. */
uint64_t noise_stamp_ns(const struct noise_run *run, uint64_t stamp);

/* Read a CPU's live counters (from any thread). */
void noise_read_live(const struct noise_cpu *cpu, struct noise_live *live);

/* true while the threads run, i.e. the duration has not passed */
bool noise_running(const struct noise_run *run);

/* ns until the threads stop by themselves (0 when they have) */
uint64_t noise_remaining_ns(const struct noise_run *run);

/**
 * noise_stop - stop the threads (early or at the deadline), join them and
 * turn raw timestamps into ns since the run's start
 */
void noise_stop(struct noise_run *run);

/* Whether a gap of that length is the RT throttle of this run's policy. */
bool noise_gap_is_throttling(const struct noise_run *run, const struct rt_throttling *limit,
			     uint64_t duration_ns);

/**
 * noise_classify_throttling - label the gaps RT throttling explains
 * @run: a stopped run
 * @limit: the kernel's RT bandwidth limit read before the run
 *
 * With a FIFO/RR policy and an active limit, a gap of about
 * (period - runtime) is the throttle, not noise: it is labelled, counted
 * apart, and taken out of the histogram and the lost time.
 */
void noise_classify_throttling(struct noise_run *run, const struct rt_throttling *limit);

/**
 * noise_find_periods - run the periodicity detector on each CPU's gaps
 * Returns 0 or -ENOMEM.
 */
int noise_find_periods(struct noise_run *run);

/* When a stored gap started, in ns since its CPU's first read. */
uint64_t noise_gap_start_ns(const struct noise_run *run, const struct noise_cpu *cpu,
			    const struct noise_gap *gap);

/* Length of a CPU's measurement in ns. */
uint64_t noise_cpu_run_ns(const struct noise_run *run, const struct noise_cpu *cpu);

/* Free everything the run holds. */
void noise_release(struct noise_run *run);

#endif
