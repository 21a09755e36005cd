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
#include "latscope/record_ring.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/time_blocks.h"
#include "latscope/tsc.h"
#include "latscope/workers.h"

/*
 * OS noise: one thread per CPU reads the TSC back to back. Every
 * read-to-read delta goes into the CPU's histogram; every delta at or above
 * the threshold is a gap, recorded with when it started. A busy CPU that
 * loses time to an interrupt, another task, firmware or the hypervisor
 * shows it as a gap.
 *
 * Gaps travel from each measuring thread through its own record ring to
 * the main thread, which drains the rings a few times a second
 * (noise_drain()) into storage that grows as gaps come, up to max_gaps per
 * CPU. A gap is not stored only when the thread outran the drain (its ring
 * was full) or the cap was reached; both are counted apart.
 */
struct noise_params {
	struct cpuset cpus;
	uint64_t duration_ns;
	uint64_t threshold_ns;
	enum rt_policy policy;
	int priority;
	size_t max_gaps; /* stored per CPU at most; later ones are counted */
	bool use_tsc; /* false: CLOCK_MONOTONIC_RAW */
};

struct noise_gap {
	uint64_t stamp; /* raw clock value of the last read before the gap */
	uint64_t duration_ns;
};

/*
 * Block maxima, for compare's extreme-value fit: the largest delta of each
 * NOISE_BLOCK_NS of a CPU's run, blocks counted from its first read and a
 * delta belonging to the block it began in. The loop keeps them on its
 * slow path only (deltas at or above the fast path's limit of at most
 * SHORT_TICKS, a few hundred ns): the fast path is untouched. It notices a
 * block's end at the next slow delta or within PUBLISH_EVERY loops (about
 * 30 ms), and hands the block through a ring of NOISE_BLOCK_RING records
 * (over four minutes of blocks) that noise_drain() empties.
 *
 * A block with no delta on the slow path (none above a few hundred ns in a
 * whole second: no interrupt, not even a tick) has no known maximum: it is
 * left out and counted as quiet. A block no delta began in (covered by a
 * gap that began in an earlier block, which holds it) has none either and
 * is left out, as is the block still open at the end. With RT throttling
 * classified, a block whose largest delta was the throttle takes its
 * largest other delta: the largest stored gap that was not throttling, or
 * the largest delta below the threshold.
 */
#define NOISE_BLOCK_NS 1000000000ULL
#define NOISE_BLOCK_RING 256
#define NOISE_MAX_BLOCKS (31U * 86400U)

/*
 * Time blocks (time_blocks.h): the histogram of every TIME_BLOCK_NS of a
 * CPU's deltas, blocks counted from its first read and a delta belonging
 * to the block it began in. The loop counts short deltas by tick as ever;
 * a block's end is noticed at the next slow delta or within
 * NOISE_BLOCK_CHECK_EVERY loops (about half a millisecond), and then the
 * thread folds the short counts into the block's buckets and hands the
 * block over through a ring of NOISE_TIME_RING chunks that noise_drain()
 * empties. That bookkeeping, a microsecond or less ten times a second, is
 * not measured: the loop reads the clock afresh after it, so it is no gap,
 * and the time it took is left out of the CPU's run time (unmeasured_ns).
 */
#define NOISE_BLOCK_CHECK_EVERY (1U << 14)
#define NOISE_TIME_RING 1024

struct noise_block {
	uint64_t index; /* blocks since the CPU's first read */
	uint64_t max_ns; /* its largest delta on the slow path; 0: none */
	uint64_t below_ns; /* the largest of those below the gap threshold; 0: none */
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
	struct record_ring ring; /* gaps on their way to the main thread */
	struct record_ring block_ring; /* closed blocks on their way */
	/* the main thread's while the run goes (one cache line) */
	struct noise_gap *gaps; /* stored by noise_drain(): grows, up to max_gaps */
	size_t nr_gaps;
	unsigned int gaps_capacity;
	uint64_t gaps_not_stored; /* the two below */
	uint64_t gaps_outran; /* the ring was full: the thread outran the drain */
	uint64_t gaps_over_cap; /* max_gaps was reached (or memory ran out) */
	uint64_t cap_stamp; /* raw stamp of the first gap over the cap; 0: none */
	/* raw stamp before which every gap the thread found has been drained */
	uint64_t drained_stamp;
	/* the thread's (one cache line) */
	uint64_t gap_count; /* stored or not */
	uint64_t lost_ns; /* sum of the gaps */
	uint64_t first_stamp, last_stamp;
	uint64_t unmeasured; /* clock units the loop spent handing blocks over */
	uint64_t block_end; /* raw stamp at which the open block ends */
	uint64_t block_index, block_max_ns, block_below_ns; /* the open block */
	uint64_t steal_ns; /* steal time during the run */
	/* after noise_classify_throttling: which stored gaps were throttling */
	uint8_t *throttled;
	uint64_t throttled_count, throttled_ns;
	/*
	 * optional, set before noise_find_periods by --explain: per stored
	 * gap, the causes that took part in it (struct period_event's causes)
	 */
	uint64_t *gap_causes;
	/* after noise_find_periods */
	struct period_source periodic[PERIOD_MAX_SOURCES];
	int nr_periodic;
	uint8_t *gap_source; /* per stored gap: its periodic source, or PERIOD_UNASSIGNED */
	/* time blocks: the short counts of the closed blocks, the open block and its ring */
	uint64_t *short_closed; /* short deltas by tick, of every closed block */
	struct time_block_builder time_builder;
	struct record_ring time_ring;
	struct time_blocks time_blocks; /* what noise_drain() took (main thread) */
	/* the block maxima noise_drain() collected, in time order (main thread) */
	struct noise_block *blocks;
	size_t nr_blocks;
	unsigned int blocks_capacity;
	uint64_t blocks_outran; /* closed but not kept: the ring was full */
	uint64_t blocks_lost; /* closed but not kept: no room, or throttled and unknown */
	uint64_t blocks_quiet; /* no delta on the slow path: no known maximum */
	/* written by the thread with relaxed atomics, on lines of its own */
	struct noise_live live __attribute__((aligned(64)));
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
	uint64_t block_ticks; /* NOISE_BLOCK_NS in the clock's unit */
	uint64_t time_block_ticks; /* TIME_BLOCK_NS in the clock's unit */
	uint64_t last_drain_ns; /* CLOCK_MONOTONIC of the last noise_drain() */
};

/* Gaps a measuring thread's ring holds for the main thread (16 bytes each). */
#define NOISE_RING_RECORDS (1U << 16)
/* The longest the main thread waits between two drains. */
#define NOISE_DRAIN_EVERY_NS 250000000ULL

/**
 * noise_memory_estimate - the memory a run with @params allocates and locks
 * before its first read, in bytes (every CPU's record rings, histogram and
 * stack; stored gaps and block maxima grow later, up to max_gaps and
 * NOISE_MAX_BLOCKS); what a caller checks against rt_memory_limit() first
 */
uint64_t noise_memory_estimate(const struct noise_params *params);

/**
 * noise_params_default - what a noise run measures unless told otherwise
 * @params: receives 10 s at SCHED_OTHER, gaps from 1 us, 2^20 gaps stored
 *	    per CPU, the TSC as the clock, and no CPU (the caller picks them)
 */
void noise_params_default(struct noise_params *params);

/**
 * noise_read_cost_ns - what one read of the loop's clock costs here, in ns
 * @use_tsc: the clock the loop will read (params.use_tsc, after tsc_usable())
 *
 * Calibrates the clock as a run does (100 ms for the TSC), then takes the
 * median of back-to-back reads (tsc_read_cost_ns()). At least 1.
 */
uint64_t noise_read_cost_ns(bool use_tsc);

/**
 * noise_threshold_resolved - whether the loop tells a gap of @threshold_ns
 * from the cost of its own reads
 * @threshold_ns: the gap threshold asked for
 * @read_cost_ns: what one read costs (noise_read_cost_ns())
 *
 * The one rule for a threshold: latscope noise refuses one that is not
 * resolved, and latscope doctor never gives its noise part one.
 */
bool noise_threshold_resolved(uint64_t threshold_ns, uint64_t read_cost_ns);

/**
 * noise_threshold_least - the least threshold to advise for a read cost
 * @read_cost_ns: what one read costs (noise_read_cost_ns())
 *
 * Resolved for @read_cost_ns with a margin for the next run's own
 * measurement of it, and a round number of ns.
 */
uint64_t noise_threshold_least(uint64_t read_cost_ns);

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

/**
 * noise_drain - move the gaps and the closed blocks the threads found into
 * the run's storage
 * @run: a started run; only one thread (the main thread) drains
 *
 * Afterwards each CPU's gaps[0..nr_gaps) hold every gap stored so far and
 * drained_stamp tells up to when that list is complete; blocks[0..nr_blocks)
 * the blocks closed so far that have a maximum. Returns the ns to
 * wait before the next drain: NOISE_DRAIN_EVERY_NS, less when gaps come
 * fast enough to fill a quarter of a ring sooner.
 */
uint64_t noise_drain(struct noise_run *run);

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
 * noise_stop - stop the threads (early or at the deadline), join them,
 * drain what their rings still hold and refine the clock's calibration
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
 * apart, and taken out of the histogram and the lost time. A block whose
 * maximum was the throttle takes its largest other delta (see
 * NOISE_BLOCK_NS); when gaps were not stored, which one that is cannot be
 * known and the block counts as lost.
 */
void noise_classify_throttling(struct noise_run *run, const struct rt_throttling *limit);

/**
 * noise_find_periods - run the periodicity detector on each CPU's gaps
 *
 * Fills each CPU's periodic sources and gap_source (which source each
 * stored gap belongs to); with gap_causes, gaps of one train that differ in
 * their causes can make sources of their own. Returns 0 or -ENOMEM.
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
