// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/array.h"
#include "latscope/clock.h"
#include "latscope/cpu_times.h"
#include "latscope/log.h"
#include "latscope/noise.h"
#include "latscope/parse.h"

/* deltas below this many clock ticks are counted by tick in the hot loop */
#define SHORT_TICKS 512
/* how often (in loops) a thread publishes its loop count without a gap */
#define PUBLISH_EVERY (1U << 20)

/* For the live view: cheap stores, no work that would show as a delta. */
static void publish(struct noise_cpu *c, uint64_t count, uint64_t max, uint64_t now)
{
	__atomic_store_n(&c->live.stamp, now, __ATOMIC_RELEASE);
	__atomic_store_n(&c->live.loops, count, __ATOMIC_RELAXED);
	__atomic_store_n(&c->live.max_ns, max, __ATOMIC_RELAXED);
	__atomic_store_n(&c->live.gaps, c->gap_count, __ATOMIC_RELAXED);
	__atomic_store_n(&c->live.lost_ns, c->lost_ns, __ATOMIC_RELAXED);
}

/*
 * Fold the loop's counts into the histogram at the end: the short deltas
 * it counted by clock tick (all of them in short_closed by then), converted
 * once per tick value here (the same rounding as converting each read), and
 * min/max from the ticks where the loop only tracked the long ones.
 */
static void sync_hist(struct noise_cpu *c, uint64_t count, uint64_t long_min, uint64_t long_max,
		      uint64_t overflow, uint64_t last)
{
	const struct tsc_clock *clock = &c->run->clock;
	struct hist *h = c->hist;
	uint64_t ticks, ns;

	h->count = count;
	h->overflow = overflow;
	h->min = long_min;
	h->max = long_max;
	for (ticks = 0; ticks < c->short_limit; ticks++) {
		if (!c->short_closed[ticks])
			continue;
		ns = tsc_delta_ns(clock, ticks);
		h->buckets[hist_bucket_of(ns)] += c->short_closed[ticks];
		if (ns < h->min)
			h->min = ns;
		if (ns > h->max)
			h->max = ns;
	}
	/* every delta adds up to the span but the bookkeeping: exact, with no per-read rounding */
	h->sum = tsc_delta_ns(clock, last - c->first_stamp - c->unmeasured);
}

/*
 * The short deltas counted since the last time block closed go into the
 * open block's buckets (and the run's short counts): the same conversion
 * as sync_hist's.
 */
static void fold_short_counts(struct noise_cpu *c)
{
	const struct tsc_clock *clock = &c->run->clock;
	uint64_t ticks, n;

	for (ticks = 0; ticks < c->short_limit; ticks++) {
		n = c->short_counts[ticks];
		if (!n)
			continue;
		c->short_counts[ticks] = 0;
		c->short_closed[ticks] += n;
		time_block_builder_count(&c->time_builder,
					 hist_bucket_of(tsc_delta_ns(clock, ticks)), (uint32_t)n);
	}
}

/*
 * The open time block ended before @stamp: its short counts into its
 * buckets, the block to the main thread, and the block that holds @stamp
 * opened. Returns a fresh clock read: the loop measures on from there, so
 * that this bookkeeping shows as no delta (it is counted as unmeasured).
 */
static __attribute__((noinline)) uint64_t close_time_block(struct noise_cpu *c, uint64_t stamp,
							   uint64_t now)
{
	uint64_t fresh;

	fold_short_counts(c);
	time_block_builder_close(&c->time_builder, &c->time_ring, stamp);
	fresh = c->run->clock.use_tsc ? tsc_read_raw() : tsc_monotonic_raw_ns();
	c->unmeasured += fresh > now ? fresh - now : 0;
	return fresh;
}

/*
 * The open block ended before @stamp: hand it to the main thread and open
 * the block that holds @stamp (blocks no delta began in are skipped: they
 * have no maximum). Once a second at most: kept out of the loop's code.
 */
static __attribute__((noinline)) void close_block(struct noise_cpu *c, uint64_t stamp)
{
	struct noise_block block = { c->block_index, c->block_max_ns, c->block_below_ns };
	uint64_t later = (stamp - c->block_end) / c->run->block_ticks + 1;

	/* a full ring counts the block as dropped: the main thread reads that */
	record_ring_push(&c->block_ring, &block);
	c->block_index += later;
	c->block_end += later * c->run->block_ticks;
	c->block_max_ns = 0;
	c->block_below_ns = 0;
}

/*
 * The hot loop. Inlined twice with use_tsc constant so the clock read is a
 * bare rdtsc (or a vDSO call) with no branch around it. A short delta (the
 * common case: below SHORT_TICKS and the threshold) costs a count and one
 * increment indexed by the raw tick difference, with no conversion; longer
 * ones are converted, bucketed, tracked for min/max and the block's
 * maximum, and gaps pushed into the ring the main thread drains.
 */
static inline __attribute__((always_inline)) void spin(struct noise_cpu *c, bool use_tsc)
{
	const struct tsc_clock *clock = &c->run->clock;
	const uint64_t threshold = c->run->params.threshold_ns, short_limit = c->short_limit;
	uint64_t *deadline = &c->deadline, *buckets = c->hist->buckets;
	uint64_t *short_counts = c->short_counts;
	uint64_t count = 0, long_min = UINT64_MAX, long_max = 0, overflow = 0;
	uint64_t prev, now, delta, ns;

	prev = use_tsc ? tsc_read_raw() : tsc_monotonic_raw_ns();
	c->first_stamp = prev;
	c->block_end = prev + c->run->block_ticks;
	time_block_builder_start(&c->time_builder, prev);
	/* unless stopped already: each thread measures the full duration */
	__atomic_compare_exchange_n(deadline, &(uint64_t){ UINT64_MAX },
				    prev + c->run->duration_ticks, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	for (;;) {
		now = use_tsc ? tsc_read_raw() : tsc_monotonic_raw_ns();
		/* reads are not serialised; a read that runs ahead is no gap */
		delta = now > prev ? now - prev : 0;
		count++;
		if (__builtin_expect(delta < short_limit, 1)) {
			short_counts[delta]++;
		} else {
			ns = tsc_delta_ns(clock, delta);
			if (ns <= HIST_MAX_NS)
				buckets[hist_bucket_of(ns)]++;
			else
				overflow++;
			if (ns < long_min)
				long_min = ns;
			if (ns > long_max)
				long_max = ns;
			/* the delta began at prev: in the open block, or a later one */
			if (__builtin_expect(prev >= c->block_end, 0))
				close_block(c, prev);
			if (__builtin_expect(prev >= c->time_builder.end, 0))
				now = close_time_block(c, prev, now);
			time_block_builder_count(
				&c->time_builder,
				ns <= HIST_MAX_NS ? hist_bucket_of(ns) : TIME_BLOCK_OVERFLOW, 1);
			if (ns > c->block_max_ns)
				c->block_max_ns = ns;
			if (ns >= threshold) {
				struct noise_gap gap = { prev, ns };

				/* pushed before publish() moves the stamp past it */
				record_ring_push(&c->ring, &gap);
				c->gap_count++;
				c->lost_ns += ns;
				publish(c, count, long_max, now);
			} else if (ns > c->block_below_ns) {
				c->block_below_ns = ns;
			}
		}
		if (__builtin_expect(!(count % NOISE_BLOCK_CHECK_EVERY), 0)) {
			/* a block without a slow delta ends too */
			if (now >= c->time_builder.end)
				now = close_time_block(c, now, now);
			if (!(count % PUBLISH_EVERY)) {
				publish(c, count, long_max, now);
				if (now >= c->block_end)
					close_block(c, now);
			}
		}
		if (__builtin_expect(now >= __atomic_load_n(deadline, __ATOMIC_RELAXED), 0))
			break;
		prev = now;
	}
	c->last_stamp = now;
	/* the last time block is partial: it ends with the run */
	fold_short_counts(c);
	time_block_builder_flush(&c->time_builder, &c->time_ring);
	sync_hist(c, count, long_min, long_max, overflow, now);
	/* nothing more will come from this thread */
	publish(c, count, c->hist->max, UINT64_MAX);
}

static void noise_thread_run(struct worker *worker)
{
	struct noise_cpu *c = worker->data;

	if (c->run->clock.use_tsc)
		spin(c, true);
	else
		spin(c, false);
}

/*
 * The longest delta the fast path takes: below SHORT_TICKS and always
 * shorter than the gap threshold once converted.
 */
static uint64_t short_limit_for(const struct noise_run *run)
{
	uint64_t limit = (uint64_t)((double)run->params.threshold_ns * run->clock.cycles_per_ns);

	if (limit > SHORT_TICKS)
		limit = SHORT_TICKS;
	while (limit && tsc_delta_ns(&run->clock, limit - 1) >= run->params.threshold_ns)
		limit--;
	return limit;
}

#define RING_BYTES (NOISE_RING_RECORDS * sizeof(struct noise_gap))
#define BLOCK_RING_BYTES (NOISE_BLOCK_RING * sizeof(struct noise_block))
#define TIME_RING_BYTES (NOISE_TIME_RING * sizeof(struct time_block_chunk))
#define SHORT_BYTES (SHORT_TICKS * sizeof(uint64_t))

uint64_t noise_memory_estimate(const struct noise_params *params)
{
	/*
	 * Per CPU, allocated and locked before the first read: the record
	 * ring, the histogram, the short-gap counts and the stack of the
	 * measuring thread. The stored gaps grow as they come; a growth that
	 * fails is counted as not stored, not refused up front.
	 */
	uint64_t per_cpu = RING_BYTES + BLOCK_RING_BYTES + TIME_RING_BYTES +
			   time_block_builder_bytes() + sizeof(struct hist) + 2 * SHORT_BYTES +
			   WORKER_STACK_BYTES;

	return per_cpu * cpuset_count(&params->cpus);
}

/* In the thread, after pinning: what it writes on its own node. */
static int noise_thread_setup(struct worker *worker)
{
	struct noise_cpu *c = worker->data;
	void *records = rt_alloc_local(RING_BYTES), *blocks = rt_alloc_local(BLOCK_RING_BYTES);
	void *chunks = rt_alloc_local(TIME_RING_BYTES);
	void *counts = rt_alloc_local(time_block_builder_bytes());

	c->hist = rt_alloc_local(sizeof(*c->hist));
	c->short_counts = rt_alloc_local(SHORT_BYTES);
	c->short_closed = rt_alloc_local(SHORT_BYTES);
	if (!c->hist || !records || !blocks || !chunks || !counts || !c->short_counts ||
	    !c->short_closed) {
		rt_free_local(records, RING_BYTES);
		rt_free_local(blocks, BLOCK_RING_BYTES);
		rt_free_local(chunks, TIME_RING_BYTES);
		rt_free_local(counts, time_block_builder_bytes());
		return -ENOMEM;
	}
	record_ring_init(&c->ring, records, NOISE_RING_RECORDS, sizeof(struct noise_gap));
	record_ring_init(&c->block_ring, blocks, NOISE_BLOCK_RING, sizeof(struct noise_block));
	record_ring_init(&c->time_ring, chunks, NOISE_TIME_RING, sizeof(struct time_block_chunk));
	time_block_builder_init(&c->time_builder, counts, c->run->time_block_ticks);
	hist_init(c->hist);
	c->short_limit = short_limit_for(c->run);
	return 0;
}

static void free_cpu_buffers(struct noise_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++) {
		struct noise_cpu *c = &run->cpus[i];

		rt_free_local(c->hist, sizeof(*c->hist));
		rt_free_local(c->short_counts, SHORT_BYTES);
		c->short_counts = NULL;
		rt_free_local(c->short_closed, SHORT_BYTES);
		c->short_closed = NULL;
		rt_free_local(c->time_ring.slots, TIME_RING_BYTES);
		c->time_ring.slots = NULL;
		rt_free_local(c->time_builder.counts, time_block_builder_bytes());
		c->time_builder.counts = NULL;
		time_blocks_release(&c->time_blocks);
		rt_free_local(c->ring.slots, RING_BYTES);
		c->ring.slots = NULL;
		rt_free_local(c->block_ring.slots, BLOCK_RING_BYTES);
		c->block_ring.slots = NULL;
		free(c->blocks);
		c->blocks = NULL;
		c->nr_blocks = 0;
		c->blocks_capacity = 0;
		free(c->gaps);
		free(c->throttled);
		free(c->gap_source);
		free(c->gap_causes);
		c->hist = NULL;
		c->gaps = NULL;
		c->nr_gaps = 0;
		c->gaps_capacity = 0;
		c->throttled = NULL;
		c->gap_source = NULL;
		c->gap_causes = NULL;
	}
}

static int read_steal(struct noise_run *run, uint64_t *steal)
{
	int ret = cpu_times_read_steal(run->root, steal, run->nr_possible);

	if (ret)
		log_warning("cannot read steal time from /proc/stat: %s", strerror(-ret));
	return ret;
}

void noise_params_default(struct noise_params *params)
{
	memset(params, 0, sizeof(*params));
	params->duration_ns = 10 * NS_PER_SEC;
	params->threshold_ns = NS_PER_US;
	params->policy = RT_POLICY_OTHER;
	/* 16 MiB a CPU at most, allocated as gaps come */
	params->max_gaps = 1U << 20;
	params->use_tsc = true;
}

uint64_t noise_read_cost_ns(bool use_tsc)
{
	struct tsc_clock probe;

	/* calibrated as noise_prepare() calibrates: cycles become ns as in the run */
	tsc_calibrate_begin(&probe, use_tsc, 100000000ULL);
	return tsc_read_cost_ns(&probe);
}

bool noise_threshold_resolved(uint64_t threshold_ns, uint64_t read_cost_ns)
{
	/*
	 * Every delta holds one read, and reads vary about their median: at
	 * one read's cost every delta is a gap, and within two a read that was
	 * merely slow would be taken for time the CPU lost.
	 */
	return threshold_ns > 2 * read_cost_ns;
}

uint64_t noise_threshold_least(uint64_t read_cost_ns)
{
	/*
	 * Three reads, not just above two: the cost is measured afresh by
	 * every run, and the next one may find a read a little dearer.
	 * Rounded up to 5 ns: a value to type, not a measurement's digits.
	 */
	return (3 * read_cost_ns + 4) / 5 * 5;
}

int noise_prepare(struct noise_run *run, struct sysroot *root, const struct noise_params *params)
{
	unsigned int i = 0;
	int cpu;

	memset(run, 0, sizeof(*run));
	run->params = *params;
	run->root = root;
	run->nr_cpus = cpuset_count(&params->cpus);
	cpuset_for_each(cpu, &params->cpus)
		run->nr_possible = (unsigned int)cpu + 1;
	if (!run->nr_cpus)
		return -EINVAL;
	if (posix_memalign((void **)&run->cpus, 64, run->nr_cpus * sizeof(*run->cpus)))
		return -ENOMEM;
	memset(run->cpus, 0, run->nr_cpus * sizeof(*run->cpus));
	run->workers = calloc(run->nr_cpus, sizeof(*run->workers));
	run->steal_before = calloc(run->nr_possible, sizeof(*run->steal_before));
	if (!run->workers || !run->steal_before) {
		noise_release(run);
		return -ENOMEM;
	}
	cpuset_for_each(cpu, &params->cpus) {
		run->cpus[i].cpu = (unsigned int)cpu;
		run->cpus[i].run = run;
		run->workers[i].cpu = (unsigned int)cpu;
		run->workers[i].policy = params->policy;
		run->workers[i].priority = params->priority;
		run->workers[i].setup = noise_thread_setup;
		run->workers[i].run = noise_thread_run;
		run->workers[i].data = &run->cpus[i];
		i++;
	}
	tsc_calibrate_begin(&run->clock, params->use_tsc, 100000000ULL);
	/* each thread's clock starts at its first read, not while it sets up */
	run->duration_ticks = (uint64_t)((double)params->duration_ns * run->clock.cycles_per_ns);
	run->block_ticks = (uint64_t)((double)NOISE_BLOCK_NS * run->clock.cycles_per_ns);
	run->time_block_ticks = (uint64_t)((double)TIME_BLOCK_NS * run->clock.cycles_per_ns);
	for (i = 0; i < run->nr_cpus; i++) {
		run->cpus[i].deadline = UINT64_MAX;
		time_blocks_init(&run->cpus[i].time_blocks, TIME_BLOCK_NS);
	}
	return 0;
}

int noise_start(struct noise_run *run)
{
	int ret;

	read_steal(run, run->steal_before);
	run->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	run->last_drain_ns = run->start_mono_ns;
	ret = worker_group_start(&run->group, run->workers, run->nr_cpus);
	if (ret) {
		free_cpu_buffers(run);
		return ret;
	}
	return 0;
}

void noise_read_live(const struct noise_cpu *cpu, struct noise_live *live)
{
	live->loops = __atomic_load_n(&cpu->live.loops, __ATOMIC_RELAXED);
	live->max_ns = __atomic_load_n(&cpu->live.max_ns, __ATOMIC_RELAXED);
	live->gaps = __atomic_load_n(&cpu->live.gaps, __ATOMIC_RELAXED);
	live->lost_ns = __atomic_load_n(&cpu->live.lost_ns, __ATOMIC_RELAXED);
	live->stamp = __atomic_load_n(&cpu->live.stamp, __ATOMIC_ACQUIRE);
}

#define DRAIN_BATCH 512

/*
 * Room for @n more gaps within the cap. Once a gap was left out (the cap,
 * or memory ran out) every later one is too: the stored gaps stay one
 * stretch of time from the start.
 */
static size_t make_room(const struct noise_run *run, struct noise_cpu *c, size_t n)
{
	size_t room = !c->gaps_over_cap && run->params.max_gaps > c->nr_gaps ?
			      run->params.max_gaps - c->nr_gaps :
			      0;
	struct noise_gap *grown;

	if (n > room)
		n = room;
	if (!n)
		return 0;
	grown = c->nr_gaps + n <= UINT32_MAX ?
			array_grow(c->gaps, &c->gaps_capacity, (unsigned int)(c->nr_gaps + n),
				   sizeof(*grown)) :
			NULL;
	if (!grown) {
		log_warning("cpu %u: out of memory storing gaps: later gaps are counted only",
			    c->cpu);
		return 0;
	}
	c->gaps = grown;
	return n;
}

/* What the CPU's ring holds now (not what comes meanwhile); returns how many gaps it took. */
static uint64_t drain_cpu(const struct noise_run *run, struct noise_cpu *c)
{
	struct noise_gap left_out[DRAIN_BATCH];
	struct noise_live live;
	size_t waiting, room, n, total;

	if (!c->ring.slots)
		return 0;
	/* the stamp first: every gap before it is in the ring by then */
	noise_read_live(c, &live);
	waiting = record_ring_waiting(&c->ring);
	/* straight into storage while there is room, the rest counted only */
	room = make_room(run, c, waiting);
	total = room ? record_ring_take(&c->ring, c->gaps + c->nr_gaps, room) : 0;
	c->nr_gaps += total;
	while (total < waiting) {
		n = waiting - total < DRAIN_BATCH ? waiting - total : DRAIN_BATCH;
		n = record_ring_take(&c->ring, left_out, n);
		if (!n)
			break;
		if (!c->gaps_over_cap)
			c->cap_stamp = left_out[0].stamp;
		c->gaps_over_cap += n;
		total += n;
	}
	c->gaps_outran = record_ring_dropped(&c->ring);
	c->gaps_not_stored = c->gaps_outran + c->gaps_over_cap;
	if (live.stamp > c->drained_stamp)
		c->drained_stamp = live.stamp;
	return total;
}

/*
 * The blocks the CPU's thread closed, into its storage: those with a
 * maximum kept (up to NOISE_MAX_BLOCKS), the quiet ones counted.
 */
static void drain_blocks(struct noise_cpu *c)
{
	struct noise_block batch[NOISE_BLOCK_RING];
	struct noise_block *grown;
	size_t n, i;

	if (!c->block_ring.slots)
		return;
	while ((n = record_ring_take(&c->block_ring, batch, NOISE_BLOCK_RING))) {
		for (i = 0; i < n; i++) {
			if (!batch[i].max_ns) {
				c->blocks_quiet++;
				continue;
			}
			grown = c->nr_blocks < NOISE_MAX_BLOCKS ?
					array_grow(c->blocks, &c->blocks_capacity,
						   (unsigned int)c->nr_blocks + 1, sizeof(*grown)) :
					NULL;
			if (!grown) {
				c->blocks_lost++;
				continue;
			}
			c->blocks = grown;
			c->blocks[c->nr_blocks++] = batch[i];
		}
	}
	c->blocks_outran = record_ring_dropped(&c->block_ring);
}

uint64_t noise_drain(struct noise_run *run)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC), next = NOISE_DRAIN_EVERY_NS, wait, taken;
	uint64_t elapsed = now - run->last_drain_ns;
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++) {
		drain_blocks(&run->cpus[i]);
		if (run->cpus[i].time_ring.slots &&
		    time_blocks_take(&run->cpus[i].time_blocks, &run->cpus[i].time_ring))
			log_warning("cpu %u: out of memory keeping its time blocks",
				    run->cpus[i].cpu);
		taken = drain_cpu(run, &run->cpus[i]);
		wait = record_ring_drain_interval(&run->cpus[i].ring, taken, elapsed,
						  NOISE_DRAIN_EVERY_NS);
		if (wait < next)
			next = wait;
	}
	run->last_drain_ns = now;
	return next;
}

uint64_t noise_stamp_ns(const struct noise_run *run, uint64_t stamp)
{
	if (stamp == UINT64_MAX)
		return UINT64_MAX;
	return tsc_to_ns_since_start(&run->clock, stamp);
}

/* the last deadline of all threads; UINT64_MAX while one has not started */
static uint64_t last_deadline(const struct noise_run *run)
{
	uint64_t last = 0, deadline;
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++) {
		deadline = __atomic_load_n(&run->cpus[i].deadline, __ATOMIC_RELAXED);
		if (deadline > last)
			last = deadline;
	}
	return last;
}

bool noise_running(const struct noise_run *run)
{
	return tsc_now(&run->clock) < last_deadline(run);
}

uint64_t noise_remaining_ns(const struct noise_run *run)
{
	uint64_t now = tsc_now(&run->clock), deadline = last_deadline(run);

	if (deadline == UINT64_MAX)
		return run->params.duration_ns;
	return now < deadline ? tsc_delta_ns(&run->clock, deadline - now) : 0;
}

uint64_t noise_gap_start_ns(const struct noise_run *run, const struct noise_cpu *cpu,
			    const struct noise_gap *gap)
{
	return gap->stamp > cpu->first_stamp ?
		       tsc_delta_ns(&run->clock, gap->stamp - cpu->first_stamp) :
		       0;
}

uint64_t noise_cpu_run_ns(const struct noise_run *run, const struct noise_cpu *cpu)
{
	return cpu->last_stamp > cpu->first_stamp ?
		       tsc_delta_ns(&run->clock, cpu->last_stamp - cpu->first_stamp) :
		       0;
}

void noise_stop(struct noise_run *run)
{
	uint64_t *steal_after;
	unsigned int i;

	if (!run->group.nr_started)
		return;
	for (i = 0; i < run->nr_cpus; i++)
		__atomic_store_n(&run->cpus[i].deadline, 0, __ATOMIC_RELAXED);
	worker_group_join(&run->group);
	run->end_mono_ns = clock_ns(CLOCK_MONOTONIC);
	/* the threads are gone: what their rings hold is all there is */
	noise_drain(run);
	run->elapsed_ns = run->end_mono_ns - run->start_mono_ns;
	/* the long span of the run gives the exact TSC rate */
	tsc_calibrate_end(&run->clock);
	steal_after = calloc(run->nr_possible, sizeof(*steal_after));
	if (steal_after && !read_steal(run, steal_after)) {
		for (i = 0; i < run->nr_cpus; i++) {
			unsigned int cpu = run->cpus[i].cpu;

			run->cpus[i].steal_ns = steal_after[cpu] - run->steal_before[cpu];
		}
	}
	free(steal_after);
}

/* The largest delta the histogram holds, when the largest was taken out. */
static uint64_t remaining_max(const struct noise_cpu *c)
{
	uint64_t max = 0;
	size_t i;
	int b;

	for (i = 0; i < c->nr_gaps; i++)
		if (!c->throttled[i] && c->gaps[i].duration_ns > max)
			max = c->gaps[i].duration_ns;
	if (max)
		return max;
	for (b = HIST_BUCKETS - 1; b >= 0; b--)
		if (c->hist->buckets[b])
			return hist_bucket_high((unsigned int)b);
	return 0;
}

bool noise_gap_is_throttling(const struct noise_run *run, const struct rt_throttling *limit,
			     uint64_t duration_ns)
{
	uint64_t throttle_ns;

	if (!rt_policy_is_realtime(run->params.policy) || !rt_throttling_active(limit))
		return false;
	/* the throttle lasts the rest of the period; the fair server may hand
	 * part of it back, so allow a margin */
	throttle_ns = (uint64_t)(limit->period_us - limit->runtime_us) * 1000ULL;
	return duration_ns >= throttle_ns / 2 && duration_ns <= throttle_ns + throttle_ns / 2;
}

/*
 * The blocks whose maximum was the throttle take their largest other
 * delta: the largest stored gap that began in the block and was not the
 * throttle, or the largest delta below the threshold. Both gap lists and
 * blocks are in time order, so one pass over each.
 */
static void unthrottle_blocks(const struct noise_run *run, const struct rt_throttling *limit,
			      struct noise_cpu *c)
{
	size_t b, g = 0, kept = 0;
	uint64_t other, block;

	for (b = 0; b < c->nr_blocks; b++) {
		struct noise_block k = c->blocks[b];

		if (noise_gap_is_throttling(run, limit, k.max_ns)) {
			/* a gap not stored may have been the largest other one */
			if (c->gaps_not_stored || !c->throttled) {
				c->blocks_lost++;
				continue;
			}
			other = k.below_ns;
			for (; g < c->nr_gaps; g++) {
				block = (c->gaps[g].stamp - c->first_stamp) / run->block_ticks;
				if (block > k.index)
					break;
				if (block == k.index && !c->throttled[g] &&
				    c->gaps[g].duration_ns > other)
					other = c->gaps[g].duration_ns;
			}
			if (!other) {
				c->blocks_quiet++;
				continue;
			}
			k.max_ns = other;
		}
		c->blocks[kept++] = k;
	}
	c->nr_blocks = kept;
}

void noise_classify_throttling(struct noise_run *run, const struct rt_throttling *limit)
{
	unsigned int i;
	size_t g;

	if (!rt_policy_is_realtime(run->params.policy) || !rt_throttling_active(limit))
		return;
	for (i = 0; i < run->nr_cpus; i++) {
		struct noise_cpu *c = &run->cpus[i];
		bool max_removed = false;

		c->throttled = calloc(c->nr_gaps ? c->nr_gaps : 1, 1);
		if (!c->throttled) {
			unthrottle_blocks(run, limit, c);
			continue;
		}
		for (g = 0; g < c->nr_gaps; g++) {
			uint64_t d = c->gaps[g].duration_ns;

			if (!noise_gap_is_throttling(run, limit, d))
				continue;
			c->throttled[g] = 1;
			c->throttled_count++;
			c->throttled_ns += d;
			c->lost_ns -= d;
			c->gap_count--;
			hist_remove(c->hist, d);
			if (run->time_block_ticks)
				time_blocks_remove(&c->time_blocks,
						   (c->gaps[g].stamp - c->first_stamp) /
							   run->time_block_ticks,
						   d);
			max_removed |= d == c->hist->max;
		}
		if (max_removed)
			c->hist->max = remaining_max(c);
		unthrottle_blocks(run, limit, c);
	}
}

int noise_find_periods(struct noise_run *run)
{
	unsigned int i;
	size_t g, n;

	for (i = 0; i < run->nr_cpus; i++) {
		struct noise_cpu *c = &run->cpus[i];
		struct period_params params = { .run_ns = noise_cpu_run_ns(run, c) };
		size_t size = c->nr_gaps ? c->nr_gaps : 1;
		struct period_event *events = malloc(size * sizeof(*events));
		uint8_t *assignment = malloc(size);
		size_t *index = malloc(size * sizeof(*index));
		int found;

		free(c->gap_source);
		c->gap_source = malloc(size);
		if (!events || !assignment || !index || !c->gap_source) {
			free(events);
			free(assignment);
			free(index);
			return -ENOMEM;
		}
		memset(c->gap_source, PERIOD_UNASSIGNED, size);
		for (g = 0, n = 0; g < c->nr_gaps; g++) {
			if (c->throttled && c->throttled[g])
				continue;
			events[n].t_ns = noise_gap_start_ns(run, c, &c->gaps[g]);
			events[n].duration_ns = c->gaps[g].duration_ns;
			events[n].causes = c->gap_causes ? c->gap_causes[g] : 0;
			index[n++] = g;
		}
		found = period_detect(events, n, &params, c->periodic, PERIOD_MAX_SOURCES,
				      assignment);
		for (g = 0; found > 0 && g < n; g++)
			c->gap_source[index[g]] = assignment[g];
		free(events);
		free(assignment);
		free(index);
		if (found < 0)
			return found;
		c->nr_periodic = found;
	}
	return 0;
}

void noise_release(struct noise_run *run)
{
	if (run->cpus)
		free_cpu_buffers(run);
	free(run->cpus);
	free(run->workers);
	free(run->steal_before);
	run->cpus = NULL;
	run->workers = NULL;
	run->steal_before = NULL;
}
