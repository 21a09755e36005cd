/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TIMER_H
#define LATSCOPE_TIMER_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "latscope/clock.h"
#include "latscope/hist.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/time_blocks.h"

/*
 * Timer wake-up latency, measured the way cyclictest does: a thread asks to
 * be woken at an absolute CLOCK_MONOTONIC time, reads the clock when it runs
 * again, and the difference is the latency. Kept in ns, with what cyclictest
 * lacks: percentiles, missed periods (wake-ups so late that the next expiry
 * had already passed), the ten largest spikes, and a record of every sample
 * above a threshold with its absolute expiry, so that a later pass can match
 * it with trace events recorded with trace_clock=mono.
 *
 * Use: timer_start(), then the caller waits (timer_wait) and may read live
 * values (timer_read_live, timer_drain_samples) while threads measure;
 * timer_stop() ends the run; the per-thread results (timer_result) stay
 * valid until timer_free().
 */

/* How a thread waits for its next period. */
enum timer_wait_mode {
	TIMER_WAIT_ABSOLUTE, /* clock_nanosleep(TIMER_ABSTIME): the default */
	TIMER_WAIT_RELATIVE, /* clock_nanosleep of one interval from "now" (-r) */
	TIMER_WAIT_POSIX_TIMER, /* a periodic timer_create() timer and sigwaitinfo (-x) */
};

/* the clock every time of this module is read from */
#define TIMER_CLOCK CLOCK_MONOTONIC

#define TIMER_TOP_SPIKES 10

/*
 * Block maxima (params.block_maxima): the largest latency of each block of
 * TIMER_BLOCK_NS (or of TIMER_BLOCK_MIN_WAKEUPS periods, when that is
 * longer), for compare's extreme-value fit. The measuring thread keeps the
 * running maximum of its block and, when a sample's expiry falls into a
 * later block, puts the block's maximum into a ring of TIMER_BLOCK_RING
 * entries, once per block: no allocation and no system call in its loop.
 * The main thread collects the ring into growing storage
 * (timer_collect_blocks) at least every TIMER_BLOCK_COLLECT_MS; at
 * 1 s blocks the ring holds over four minutes of blocks. A run keeps at
 * most TIMER_MAX_BLOCKS per thread (31 days of 1 s blocks, 21 MB); later
 * ones are counted, not kept.
 */
#define TIMER_BLOCK_NS 1000000000ULL
#define TIMER_BLOCK_MIN_WAKEUPS 100
#define TIMER_BLOCK_RING 256
#define TIMER_BLOCK_COLLECT_MS 1000
#define TIMER_MAX_BLOCKS (31U * 86400U)

/*
 * Time blocks (params.time_blocks): the histogram of every TIME_BLOCK_NS
 * of each thread, by expiry, for compare's block bootstrap
 * (time_blocks.h). A block of 10 wake-ups at least: a period above
 * TIME_BLOCK_NS / 10 gets blocks of TIME_BLOCK_NS times the next power of
 * two. The thread hands a closed block to the main thread through a ring
 * of TIMER_TIME_RING chunks (128 KiB), which the main thread empties with
 * timer_collect_blocks() at least every TIMER_BLOCK_COLLECT_MS: room for a
 * second of blocks of 290 distinct buckets each.
 */
#define TIMER_TIME_RING 2048

struct timer_spike;

/* One thread's place and period. */
struct timer_thread_params {
	int cpu; /* -1: not pinned, the scheduler places it */
	int priority; /* 1-99 for FIFO/RR; 0 otherwise */
	uint64_t interval_ns;
};

struct timer_params {
	unsigned int nr_threads;
	const struct timer_thread_params *threads; /* nr_threads entries, caller's */
	enum rt_policy policy;
	enum timer_wait_mode mode;
	uint64_t duration_ns; /* each thread stops this long after it started; 0: no limit */
	uint64_t loops; /* each thread stops after this many wake-ups; 0: no limit */
	/*
	 * Stop every thread at the first latency above break_above_ns
	 * (0: never). With tracemark, the thread that saw it writes
	 * "hit latency threshold (X > Y)" to the trace_marker and 0 to
	 * tracing_on, X and Y in units of unit_ns.
	 */
	uint64_t break_above_ns;
	bool tracemark;
	/*
	 * every sample with latency >= spike_threshold_ns is recorded, up to
	 * spike_capacity; the one that breaks the run (break_above_ns) always
	 */
	uint64_t spike_threshold_ns;
	size_t spike_capacity;
	/*
	 * cyclictest's histogram (-h): buckets of unit_ns (1 us, or 1 ns
	 * with -N) from 0 to histogram_buckets - 1, and the cycle numbers of
	 * the first histogram_buckets samples beyond it. 0: none.
	 */
	unsigned int histogram_buckets;
	uint64_t unit_ns;
	/* a ring of the last samples for live printing (-v); a power of two or 0 */
	size_t sample_ring;
	/* where tracefs and its mount table are found */
	struct sysroot *root;
	/*
	 * Called on the measuring thread after each wake-up is accounted and
	 * before the horizon moves past it, with the sample and the periods
	 * skipped at that wake-up: a consumer that measures for weeks keeps
	 * its own bounded accounting (latscope monitor). NULL: none. It must
	 * not block or allocate.
	 */
	void (*on_sample)(void *context, unsigned int thread, const struct timer_spike *sample,
			  uint64_t skipped);
	void *on_sample_context;
	/* each thread's stack, locked under mlockall; 0: the workers' default */
	size_t stack_bytes;
	/* record the maximum of every block (see TIMER_BLOCK_NS) */
	bool block_maxima;
	/* record the histogram of every time block (see TIMER_TIME_RING) */
	bool time_blocks;
};

/* A sample kept for later: all times absolute, on TIMER_CLOCK. */
struct timer_spike {
	uint64_t expiry_ns; /* when the thread asked to wake up */
	uint64_t wakeup_ns; /* when it read the clock after waking */
	uint64_t latency_ns; /* wakeup_ns - expiry_ns */
	uint64_t cycle; /* 0-based number of the sample in its thread */
};

/* A closed block: its number since the thread began and its largest latency. */
struct timer_block {
	uint64_t index;
	uint64_t max_ns;
};

/* What the caller may read while the thread measures (timer_read_live). */
struct timer_live {
	/*
	 * Every sample whose expiry is before this time is counted and, when
	 * a spike, published: the next expiry (or the last wake-up in
	 * relative mode, where the next expiry is not known yet).
	 */
	uint64_t horizon_ns;
	uint64_t cycles;
	uint64_t min_ns; /* 0 before the first sample */
	uint64_t act_ns; /* the last sample */
	uint64_t max_ns;
	uint64_t sum_ns;
};

/*
 * One thread's statistics. Written only by its measuring thread; complete
 * once timer_stop() has returned.
 */
struct timer_stats {
	/* identity */
	unsigned int thread;
	int cpu; /* -1 when not pinned */
	int priority;
	pid_t tid;
	uint64_t interval_ns;
	uint64_t start_ns; /* the clock when the thread began (first expiry - interval) */
	/* read with relaxed atomic loads while the thread runs */
	struct timer_live live;
	struct hist hist;
	/* wake-ups after which one or more expiries had already passed */
	enum timer_wait_mode mode;
	bool count_missed; /* false in relative mode: there is no grid to miss */
	uint64_t missed; /* periods skipped in total */
	uint64_t max_overrun_ns; /* how far past the first skipped expiry a wake-up came */
	/* the largest samples, largest first (earliest first among equals) */
	struct timer_spike top[TIMER_TOP_SPIKES];
	unsigned int nr_top;
	/*
	 * every sample >= spike_threshold_ns, in order, while room lasts; and
	 * the sample above break_above_ns that breaks the run, always
	 */
	uint64_t spike_threshold_ns;
	uint64_t break_above_ns;
	struct timer_spike *spikes;
	size_t nr_spikes;
	size_t spike_capacity;
	uint64_t spikes_dropped;
	/* cyclictest's histogram, when asked for */
	uint64_t unit_ns;
	unsigned int nr_buckets;
	uint64_t *buckets;
	uint64_t bucket_overflows; /* samples beyond the last bucket */
	uint64_t *overflow_cycles; /* the first nr_buckets of them */
	/* ring of samples for -v */
	uint64_t *samples;
	size_t sample_mask;
	/* block maxima: the block being measured, and the ring of closed ones */
	uint64_t block_ns; /* 0: not recorded */
	uint64_t block_end_ns; /* the open block ends here (absolute expiry time) */
	uint64_t block_index;
	uint64_t block_max_ns;
	bool block_sampled; /* the open block has a sample */
	struct timer_block *block_ring; /* TIMER_BLOCK_RING entries */
	uint64_t blocks_closed; /* published with release: ring entries written */
	/* time blocks: the open block's histogram and the ring of closed ones */
	struct time_block_builder time_builder; /* counts NULL: not recorded */
	struct record_ring time_ring;
	/* private */
	size_t alloc_size;
	timer_t posix_timer;
	bool has_posix_timer;
	int error;
};

/**
 * timer_stats_new - allocate one thread's statistics on the calling
 * thread's NUMA node, every buffer zeroed and prefaulted
 * @params: the run's parameters (sizes of the spike, histogram and sample
 *	    buffers, the spike threshold, the wait mode)
 * @thread: the thread's index in @params->threads
 *
 * Returns statistics to free with timer_stats_free(), or NULL (logged).
 */
struct timer_stats *timer_stats_new(const struct timer_params *params, unsigned int thread);
/* Free statistics from timer_stats_new(); NULL is ignored. */
void timer_stats_free(struct timer_stats *stats);

/**
 * timer_stats_add - account one wake-up
 * @stats: the thread's statistics
 * @expiry_ns: the expiry the thread slept until
 * @wakeup_ns: the clock read after it woke (a wake-up before the expiry,
 *	       which the kernel never does, counts as 0 ns)
 * @overruns: expiries the kernel itself counted as missed (POSIX timers'
 *	      si_overrun); 0 for clock_nanosleep
 *
 * Updates the statistics and returns the next expiry on the period grid:
 * one interval later, or when that has passed already, the first one after
 * @wakeup_ns; the periods skipped are counted in missed.
 */
uint64_t timer_stats_add(struct timer_stats *stats, uint64_t expiry_ns, uint64_t wakeup_ns,
			 uint64_t overruns);

/* The clock every expiry and wake-up is read from, in ns. */
static inline uint64_t timer_clock_ns(void)
{
	return clock_ns(TIMER_CLOCK);
}

struct timer_run;

/**
 * timer_memory_estimate - the memory a run with @params takes, in bytes
 * @params: the run's parameters
 *
 * Every thread's statistics, spike records, histogram and sample ring,
 * rounded to pages as they are mapped, and its locked stack: what a caller
 * checks against rt_memory_limit() before timer_start() allocates it.
 */
uint64_t timer_memory_estimate(const struct timer_params *params);

/**
 * timer_start - start one measuring thread per params->threads entry
 * @run: receives the run; end it with timer_stop(), free it with timer_free()
 * @params: the parameters; copied, the caller's threads array included
 *
 * Returns 0 once every thread measures, or a negative errno code (logged):
 * then no thread runs and nothing is left to free.
 */
int timer_start(struct timer_run **run, const struct timer_params *params);

/**
 * timer_wait - wait until the run is over or @timeout_ms has passed
 * @run: the run
 * @timeout_ms: the longest wait; -1 for no limit
 * @sigmask: the signal mask during the wait (ppoll), or NULL to keep the
 *	     caller's; a caller that blocks its stop signals and passes the
 *	     mask without them cannot miss one that comes before the wait
 *
 * A signal handled by the caller ends the wait early.
 * Returns true when the run is over (every thread ended, or one broke or
 * failed), false on a timeout or a signal.
 */
bool timer_wait(struct timer_run *run, int timeout_ms, const sigset_t *sigmask);

/**
 * timer_stop - end the run: stop the threads that still measure and wait
 * for them
 * @run: the run
 *
 * Returns 0, or the first error of a measuring thread (logged).
 */
int timer_stop(struct timer_run *run);

/* Free a run stopped with timer_stop() and everything it owns. */
void timer_free(struct timer_run *run);

/* number of threads of the run */
/**
 * timer_thread_tid - a measuring thread's id, known from timer_start() on
 * (its stats' tid is set only once it measures)
 */
pid_t timer_thread_tid(const struct timer_run *run, unsigned int thread);
unsigned int timer_nr_threads(const struct timer_run *run);

/**
 * timer_read_live - the live values of one thread, safe while it measures
 * @run: the run
 * @thread: the thread's index
 * @live: receives the values
 * @tid: receives the thread's id, or NULL
 */
void timer_read_live(const struct timer_run *run, unsigned int thread, struct timer_live *live,
		     pid_t *tid);

/**
 * timer_drain_samples - hand the samples recorded since the last call to
 * @emit, for -v
 * @run: a run started with a sample ring
 * @thread: the thread's index
 * @next_cycle: the first cycle not handed out yet; start at 0, updated
 * @emit: called with each sample's cycle and latency
 * @context: passed to @emit
 *
 * Returns the number of samples that were overwritten before they could be
 * handed out (the caller drained too seldom).
 */
uint64_t timer_drain_samples(const struct timer_run *run, unsigned int thread, uint64_t *next_cycle,
			     void (*emit)(void *context, unsigned int thread, uint64_t cycle,
					  uint64_t latency_ns),
			     void *context);

/**
 * timer_result - one thread's statistics
 * Valid after timer_stop() until timer_free(); owned by the run.
 */
const struct timer_stats *timer_result(const struct timer_run *run, unsigned int thread);

/**
 * timer_spikes_published - the spikes a thread recorded so far
 * @run: the run
 * @thread: the thread
 * @spikes: receives the thread's spike array; entries below the returned
 *	    count are complete and do not change
 * Returns the count (read with acquire ordering: safe while it runs).
 */
size_t timer_spikes_published(const struct timer_run *run, unsigned int thread,
			      const struct timer_spike **spikes);

/**
 * timer_set_spike_threshold - change which samples become spikes from now on
 * (an adaptive threshold: the caller follows the run's p99). Safe while the
 * thread runs.
 */
void timer_set_spike_threshold(struct timer_run *run, unsigned int thread, uint64_t ns);

/* The length of a block for a wake-up period: TIMER_BLOCK_NS, or TIMER_BLOCK_MIN_WAKEUPS periods. */
uint64_t timer_block_ns(uint64_t interval_ns);

/**
 * timer_collect_blocks - move the blocks the threads closed (their maxima
 * and their time blocks) into the run's storage
 * @run: a run started with params.block_maxima or params.time_blocks
 *	 (else nothing happens)
 *
 * Call from one thread (the main one) at least every
 * TIMER_BLOCK_COLLECT_MS while the threads measure; timer_stop() calls it
 * a last time, after the open blocks were closed. Returns 0 or -ENOMEM
 * (logged; the blocks stay in the ring until the next call, or are
 * counted as lost).
 */
int timer_collect_blocks(struct timer_run *run);

/**
 * timer_time_blocks - one thread's time blocks collected so far
 * @run: the run
 * @thread: the thread
 * @builder_lost: receives the blocks the thread could not hand over (its
 *		  ring was full), or NULL
 *
 * Returns the store (owned by the run, valid until the next collection),
 * or NULL when the run does not record time blocks.
 */
const struct time_blocks *timer_time_blocks(const struct timer_run *run, unsigned int thread,
					    uint64_t *builder_lost);

/* The length of a time block for a wake-up period (see TIMER_TIME_RING). */
uint64_t timer_time_block_ns(uint64_t interval_ns);

/**
 * timer_block_maxima - one thread's block maxima collected so far
 * @run: the run
 * @thread: the thread
 * @nr: receives how many, in time order
 * @lost: receives how many closed blocks were not kept (the ring was not
 *	  collected in time, or TIMER_MAX_BLOCKS was reached); NULL if not wanted
 *
 * A block in which the thread had no expiry (a stall of a whole block, or
 * a period longer than the block) has no maximum and is left out; the
 * block still open when the run ended is partial and left out too.
 * Returns the maxima (owned by the run, valid until the next collection),
 * or NULL when there are none.
 */
const uint64_t *timer_block_maxima(const struct timer_run *run, unsigned int thread, size_t *nr,
				   uint64_t *lost);

/* The earliest thread start on TIMER_CLOCK: spike times are relative to it. */
uint64_t timer_origin_ns(const struct timer_run *run);

/* Why the run ended. */
enum timer_end {
	TIMER_END_RUNNING, /* not over yet */
	TIMER_END_COMPLETE, /* every thread reached its duration or loop count */
	TIMER_END_STOPPED, /* timer_stop() before that */
	TIMER_END_BREAK, /* a latency above break_above_ns */
	TIMER_END_ERROR, /* a thread failed */
};

/**
 * timer_end_reason - why the run ended
 * @run: the run
 *
 * Returns TIMER_END_RUNNING until timer_stop() has returned.
 */
enum timer_end timer_end_reason(const struct timer_run *run);
/* "complete", "stopped", "break", "error" or "running" (static strings) */
const char *timer_end_name(enum timer_end end);

/**
 * timer_break - the sample that stopped the run (break_above_ns)
 * @run: the run
 * @thread: receives the thread's index
 * @spike: receives the sample
 *
 * Returns true when a thread broke the run.
 */
bool timer_break(const struct timer_run *run, unsigned int *thread, struct timer_spike *spike);

/* true when the break wrote 0 to tracing_on (tracemark) */
bool timer_tracing_stopped(const struct timer_run *run);

/*
 * One thread's statistics as JSON, the fields of a "threads" entry below
 * but the blocks (a run's): for a caller that fills timer_stats of its
 * own (latscope attach). Returns a new reference, or NULL.
 */
json_t *timer_stats_json(const struct timer_stats *stats, uint64_t origin_ns);

/**
 * timer_result_threads - the per-thread results as the JSON "threads" array
 * @run: a stopped run
 *
 * Each entry: thread, cpu (null when not pinned), tid, priority,
 * interval_ns, cycles, min_ns, avg_ns, max_ns, percentiles, missed,
 * max_overrun_ns, spikes (the largest, with t_ns since timer_origin_ns(),
 * latency_ns, expiry_ns, wakeup_ns, cycle), spike_records, histogram,
 * with params.block_maxima block_maxima {block_ns, max_ns: [...], lost}
 * and, with a cyclictest histogram, cyclictest_histogram.
 * Returns a new reference, or NULL.
 */
json_t *timer_result_threads(const struct timer_run *run);

#endif
