// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "latscope/timer.h"
#include "latscope/workers.h"
#include "unit.h"

#define US 1000ULL
#define MS 1000000ULL
/* a plausible CLOCK_MONOTONIC value: 1000 s after boot */
#define T0 (1000ULL * 1000 * MS)

static struct timer_thread_params one_thread = { .cpu = -1, .priority = 0, .interval_ns = MS };

static struct timer_params synthetic_params(void)
{
	struct timer_params params = {
		.nr_threads = 1,
		.threads = &one_thread,
		.mode = TIMER_WAIT_ABSOLUTE,
		.spike_threshold_ns = 100 * US,
		.spike_capacity = 4,
		.unit_ns = 1000,
	};

	return params;
}

static struct timer_stats *new_stats(const struct timer_params *params)
{
	struct timer_stats *stats = timer_stats_new(params, 0);

	ck_assert_ptr_nonnull(stats);
	return stats;
}

START_TEST(on_time_wakeups_miss_nothing)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);
	uint64_t expiry = T0, next;
	int i;

	for (i = 0; i < 100; i++) {
		next = timer_stats_add(stats, expiry, expiry + 20 * US + (uint64_t)i, 0);
		ck_assert_uint_eq(next, expiry + MS);
		expiry = next;
	}
	ck_assert_uint_eq(stats->missed, 0);
	ck_assert_uint_eq(stats->max_overrun_ns, 0);
	ck_assert_uint_eq(stats->live.cycles, 100);
	ck_assert_uint_eq(stats->live.min_ns, 20 * US);
	ck_assert_uint_eq(stats->live.max_ns, 20 * US + 99);
	ck_assert_uint_eq(stats->live.act_ns, 20 * US + 99);
	ck_assert_uint_eq(stats->live.sum_ns, 100 * 20 * US + 99 * 100 / 2);
	ck_assert_uint_eq(stats->hist.count, 100);
	ck_assert_uint_eq(stats->nr_spikes, 0);
	timer_stats_free(stats);
}
END_TEST

START_TEST(late_wakeup_skips_and_counts_periods)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);
	uint64_t next;

	/* 3.5 ms late: the expiries at +1, +2 and +3 ms have passed */
	next = timer_stats_add(stats, T0, T0 + 3500 * US, 0);
	ck_assert_uint_eq(next, T0 + 4 * MS);
	ck_assert_uint_eq(stats->missed, 3);
	/* how far past the first missed expiry (+1 ms) it came */
	ck_assert_uint_eq(stats->max_overrun_ns, 2500 * US);

	/* exactly on the next expiry: that one is not missed */
	next = timer_stats_add(stats, next, next + MS, 0);
	ck_assert_uint_eq(next, T0 + 5 * MS);
	ck_assert_uint_eq(stats->missed, 3);

	/* exactly on the one after: one missed, the next expiry is "now" */
	next = timer_stats_add(stats, next, next + 2 * MS, 0);
	ck_assert_uint_eq(next, T0 + 7 * MS);
	ck_assert_uint_eq(stats->missed, 4);
	ck_assert_uint_eq(stats->max_overrun_ns, 2500 * US);

	/* one ns past the next expiry */
	next = timer_stats_add(stats, next, next + MS + 1, 0);
	ck_assert_uint_eq(next, T0 + 9 * MS);
	ck_assert_uint_eq(stats->missed, 5);
	ck_assert_uint_eq(stats->hist.max, 3500 * US);
	timer_stats_free(stats);
}
END_TEST

START_TEST(a_long_stall_is_counted_without_looping)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	struct timer_thread_params fast = { .cpu = -1, .interval_ns = 1 * US };
	uint64_t next;

	params.threads = &fast;
	stats = new_stats(&params);
	/* a vCPU descheduled for 951 ms at a 1 us interval */
	next = timer_stats_add(stats, T0, T0 + 951 * MS, 0);
	/* the expiry at the wake-up itself has not passed: it is next */
	ck_assert_uint_eq(next, T0 + 951 * MS);
	ck_assert_uint_eq(stats->missed, 951 * MS / US - 1);
	ck_assert_uint_eq(stats->max_overrun_ns, 951 * MS - 1 * US);
	timer_stats_free(stats);
}
END_TEST

START_TEST(posix_timer_overruns_come_from_the_kernel)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	uint64_t next;

	params.mode = TIMER_WAIT_POSIX_TIMER;
	stats = new_stats(&params);
	/* the kernel could not deliver +1 and +2 ms: the next signal is +3 */
	next = timer_stats_add(stats, T0, T0 + 2500 * US, 2);
	ck_assert_uint_eq(next, T0 + 3 * MS);
	ck_assert_uint_eq(stats->missed, 2);
	ck_assert_uint_eq(stats->max_overrun_ns, 1500 * US);
	/*
	 * late without an overrun: the +4 ms signal is pending and will be
	 * measured as late; skipping it would misplace every later sample
	 */
	next = timer_stats_add(stats, next, next + 1200 * US, 0);
	ck_assert_uint_eq(next, T0 + 4 * MS);
	ck_assert_uint_eq(stats->missed, 2);
	timer_stats_free(stats);
}
END_TEST

START_TEST(relative_mode_has_no_periods_to_miss)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;

	params.mode = TIMER_WAIT_RELATIVE;
	stats = new_stats(&params);
	ck_assert(!stats->count_missed);
	timer_stats_add(stats, T0, T0 + 5 * MS, 0);
	ck_assert_uint_eq(stats->missed, 0);
	ck_assert_uint_eq(stats->hist.max, 5 * MS);
	timer_stats_free(stats);
}
END_TEST

START_TEST(early_wakeup_counts_as_zero)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);

	timer_stats_add(stats, T0, T0 - 5, 0);
	ck_assert_uint_eq(stats->hist.min, 0);
	ck_assert_uint_eq(stats->live.act_ns, 0);
	timer_stats_free(stats);
}
END_TEST

static int by_latency_then_cycle(const void *a, const void *b)
{
	const struct timer_spike *x = a, *y = b;

	if (x->latency_ns != y->latency_ns)
		return x->latency_ns < y->latency_ns ? 1 : -1;
	return x->cycle < y->cycle ? -1 : x->cycle > y->cycle;
}

START_TEST(keeps_the_ten_largest_not_the_first)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);
	struct timer_spike *all = calloc(5000, sizeof(*all));
	uint64_t expiry = T0;
	unsigned int i;

	srandom(7);
	for (i = 0; i < 5000; i++) {
		/* few distinct values, so that ties are common */
		uint64_t latency = (uint64_t)(random() % 200) * 100;

		all[i] = (struct timer_spike){ expiry, expiry + latency, latency, i };
		expiry = timer_stats_add(stats, expiry, expiry + latency, 0);
	}
	qsort(all, 5000, sizeof(*all), by_latency_then_cycle);
	ck_assert_uint_eq(stats->nr_top, TIMER_TOP_SPIKES);
	for (i = 0; i < TIMER_TOP_SPIKES; i++) {
		ck_assert_uint_eq(stats->top[i].latency_ns, all[i].latency_ns);
		ck_assert_uint_eq(stats->top[i].cycle, all[i].cycle);
		ck_assert_uint_eq(stats->top[i].expiry_ns, all[i].expiry_ns);
		ck_assert_uint_eq(stats->top[i].wakeup_ns, all[i].wakeup_ns);
	}
	free(all);
	timer_stats_free(stats);
}
END_TEST

START_TEST(fewer_samples_than_ten)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);

	timer_stats_add(stats, T0, T0 + 30 * US, 0);
	timer_stats_add(stats, T0 + MS, T0 + MS + 50 * US, 0);
	timer_stats_add(stats, T0 + 2 * MS, T0 + 2 * MS + 10 * US, 0);
	ck_assert_uint_eq(stats->nr_top, 3);
	ck_assert_uint_eq(stats->top[0].latency_ns, 50 * US);
	ck_assert_uint_eq(stats->top[1].latency_ns, 30 * US);
	ck_assert_uint_eq(stats->top[2].latency_ns, 10 * US);
	ck_assert_uint_eq(stats->top[2].cycle, 2);
	timer_stats_free(stats);
}
END_TEST

START_TEST(records_samples_above_the_threshold_until_full)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats = new_stats(&params);
	static const uint64_t latencies[] = { 20, 100, 99, 250, 400, 20, 150, 900, 120 };
	uint64_t expiry = T0;
	size_t i;

	for (i = 0; i < sizeof(latencies) / sizeof(latencies[0]); i++)
		expiry = timer_stats_add(stats, expiry, expiry + latencies[i] * US, 0);
	/* >= 100 us: 100, 250, 400, 150 kept; 900 and 120 did not fit */
	ck_assert_uint_eq(stats->nr_spikes, 4);
	ck_assert_uint_eq(stats->spikes_dropped, 2);
	ck_assert_uint_eq(stats->spikes[0].latency_ns, 100 * US);
	ck_assert_uint_eq(stats->spikes[0].cycle, 1);
	ck_assert_uint_eq(stats->spikes[0].expiry_ns, T0 + MS);
	ck_assert_uint_eq(stats->spikes[0].wakeup_ns, T0 + MS + 100 * US);
	ck_assert_uint_eq(stats->spikes[3].latency_ns, 150 * US);
	ck_assert_uint_eq(stats->spikes[3].cycle, 6);
	ck_assert_uint_eq(stats->spikes[3].expiry_ns, T0 + 6 * MS);
	/* the largest is kept among the top ones even when the buffer is full */
	ck_assert_uint_eq(stats->top[0].latency_ns, 900 * US);
	ck_assert_uint_eq(stats->top[0].cycle, 7);
	timer_stats_free(stats);
}
END_TEST

START_TEST(cyclictest_histogram_buckets_and_overflows)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	static const uint64_t latencies_ns[] = { 500, 9999, 10000, 3000, 12000, 11000, 15000 };
	uint64_t expiry = T0;
	size_t i;

	params.histogram_buckets = 10;
	stats = new_stats(&params);
	for (i = 0; i < sizeof(latencies_ns) / sizeof(latencies_ns[0]); i++)
		expiry = timer_stats_add(stats, expiry, expiry + latencies_ns[i], 0);
	ck_assert_uint_eq(stats->buckets[0], 1);
	ck_assert_uint_eq(stats->buckets[9], 1);
	ck_assert_uint_eq(stats->buckets[3], 1);
	ck_assert_uint_eq(stats->bucket_overflows, 4);
	ck_assert_uint_eq(stats->overflow_cycles[0], 2);
	ck_assert_uint_eq(stats->overflow_cycles[1], 4);
	ck_assert_uint_eq(stats->overflow_cycles[3], 6);
	timer_stats_free(stats);
}
END_TEST

START_TEST(overflow_cycles_are_bounded)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	uint64_t expiry = T0;
	int i;

	params.histogram_buckets = 3;
	stats = new_stats(&params);
	for (i = 0; i < 10; i++)
		expiry = timer_stats_add(stats, expiry, expiry + 50 * US, 0);
	ck_assert_uint_eq(stats->bucket_overflows, 10);
	ck_assert_uint_eq(stats->overflow_cycles[2], 2);
	timer_stats_free(stats);
}
END_TEST

START_TEST(sample_ring_must_be_a_power_of_two)
{
	struct timer_params params = synthetic_params();

	params.sample_ring = 1000;
	ck_assert_ptr_null(timer_stats_new(&params, 0));
}
END_TEST

/* -b: the breaking sample is a spike before any threshold is set, and when the records are full */
START_TEST(the_break_sample_is_always_a_spike)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	unsigned int i;

	params.spike_threshold_ns = UINT64_MAX; /* an adaptive threshold before its warm-up */
	params.break_above_ns = 500 * US;
	stats = new_stats(&params);
	for (i = 0; i < 10; i++)
		timer_stats_add(stats, T0 + i * MS, T0 + i * MS + 100 * US, 0);
	ck_assert_uint_eq(stats->nr_spikes, 0);
	timer_stats_add(stats, T0 + 10 * MS, T0 + 10 * MS + 600 * US, 0);
	ck_assert_uint_eq(stats->nr_spikes, 1);
	ck_assert_uint_eq(stats->spikes[0].latency_ns, 600 * US);
	ck_assert_uint_eq(stats->spikes[0].cycle, 10);
	timer_stats_free(stats);

	params.spike_threshold_ns = 0; /* every sample recorded: the 4 slots fill */
	stats = new_stats(&params);
	for (i = 0; i < 6; i++)
		timer_stats_add(stats, T0 + i * MS, T0 + i * MS + 100 * US, 0);
	ck_assert_uint_eq(stats->nr_spikes, 4);
	ck_assert_uint_eq(stats->spikes_dropped, 2);
	timer_stats_add(stats, T0 + 6 * MS, T0 + 6 * MS + 700 * US, 0);
	ck_assert_uint_eq(stats->nr_spikes, 5);
	ck_assert_uint_eq(stats->spikes[4].cycle, 6);
	ck_assert_uint_eq(stats->spikes_dropped, 2);
	timer_stats_free(stats);
}
END_TEST

/* What a run allocates is what the estimate said, and the estimate scales. */
START_TEST(memory_estimate_covers_the_buffers)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	uint64_t one, two;

	params.histogram_buckets = 1000;
	params.sample_ring = 64;
	params.block_maxima = true;
	params.break_above_ns = 1;
	stats = new_stats(&params);
	one = timer_memory_estimate(&params);
	ck_assert_uint_ge(one, stats->alloc_size + WORKER_STACK_BYTES);
	timer_stats_free(stats);
	params.nr_threads = 2;
	two = timer_memory_estimate(&params);
	ck_assert_uint_ge(two, 2 * one - 4096);
	/* -t 1000 -h 1000000: the 16 GB the run would have taken */
	params.nr_threads = 1000;
	params.histogram_buckets = 1000000;
	ck_assert_uint_ge(timer_memory_estimate(&params), 16000000000ULL);
}
END_TEST

/* ---- real runs: SCHED_OTHER, unpinned, a few ms; no privilege needed ---- */

static struct timer_run *run_briefly(enum timer_wait_mode mode, uint64_t loops,
				     uint64_t interval_ns, unsigned int nr)
{
	static struct timer_thread_params threads[4];
	struct timer_params params = synthetic_params();
	struct timer_run *run;
	unsigned int i;

	for (i = 0; i < nr; i++)
		threads[i] = (struct timer_thread_params){ -1, 0, interval_ns + i * 100 * US };
	params.nr_threads = nr;
	params.threads = threads;
	params.mode = mode;
	params.loops = loops;
	params.policy = RT_POLICY_OTHER;
	params.sample_ring = 64;
	ck_assert_int_eq(timer_start(&run, &params), 0);
	return run;
}

static void check_complete_run(enum timer_wait_mode mode)
{
	struct timer_run *run = run_briefly(mode, 20, MS, 2);
	unsigned int i;

	while (!timer_wait(run, 1000, NULL))
		;
	ck_assert_int_eq(timer_stop(run), 0);
	ck_assert_int_eq(timer_end_reason(run), TIMER_END_COMPLETE);
	for (i = 0; i < 2; i++) {
		const struct timer_stats *stats = timer_result(run, i);

		ck_assert_uint_eq(stats->hist.count, 20);
		ck_assert_uint_eq(stats->live.cycles, 20);
		ck_assert_int_gt(stats->tid, 0);
		ck_assert_uint_ge(stats->start_ns, timer_origin_ns(run));
		ck_assert_uint_eq(stats->interval_ns, MS + i * 100 * US);
	}
	timer_free(run);
}

struct hook_counts {
	uint64_t calls[2], skipped[2], last_cycle[2];
	bool in_order;
};

static void count_hook(void *context, unsigned int thread, const struct timer_spike *sample,
		       uint64_t skipped)
{
	struct hook_counts *counts = context;

	if (sample->cycle != counts->calls[thread] ||
	    sample->latency_ns != sample->wakeup_ns - sample->expiry_ns)
		counts->in_order = false;
	counts->calls[thread]++;
	counts->skipped[thread] += skipped;
}

START_TEST(sample_hook_sees_every_wakeup)
{
	static struct timer_thread_params threads[2] = { { -1, 0, MS }, { -1, 0, 2 * MS } };
	struct hook_counts counts = { .in_order = true };
	struct timer_params params = synthetic_params();
	struct timer_run *run;
	unsigned int i;

	params.nr_threads = 2;
	params.threads = threads;
	params.loops = 30;
	params.policy = RT_POLICY_OTHER;
	params.on_sample = count_hook;
	params.on_sample_context = &counts;
	ck_assert_int_eq(timer_start(&run, &params), 0);
	while (!timer_wait(run, 1000, NULL))
		;
	ck_assert_int_eq(timer_stop(run), 0);
	ck_assert(counts.in_order);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(counts.calls[i], 30);
		ck_assert_uint_eq(counts.calls[i], timer_result(run, i)->hist.count);
		ck_assert_uint_eq(counts.skipped[i], timer_result(run, i)->missed);
	}
	timer_free(run);
}
END_TEST

START_TEST(absolute_run_completes)
{
	check_complete_run(TIMER_WAIT_ABSOLUTE);
}
END_TEST

START_TEST(relative_run_completes)
{
	check_complete_run(TIMER_WAIT_RELATIVE);
}
END_TEST

START_TEST(posix_timer_run_completes)
{
	check_complete_run(TIMER_WAIT_POSIX_TIMER);
}
END_TEST

START_TEST(stop_ends_a_long_sleep_at_once)
{
	struct timer_run *run = run_briefly(TIMER_WAIT_ABSOLUTE, 0, 3600ULL * 1000 * MS, 1);
	uint64_t before = timer_clock_ns();

	ck_assert(!timer_wait(run, 10, NULL));
	ck_assert_int_eq(timer_stop(run), 0);
	ck_assert_uint_lt(timer_clock_ns() - before, 1000 * MS);
	ck_assert_int_eq(timer_end_reason(run), TIMER_END_STOPPED);
	ck_assert_uint_eq(timer_result(run, 0)->hist.count, 0);
	timer_free(run);
}
END_TEST

START_TEST(posix_timer_stop_ends_a_long_wait)
{
	struct timer_run *run = run_briefly(TIMER_WAIT_POSIX_TIMER, 0, 3600ULL * 1000 * MS, 2);

	ck_assert(!timer_wait(run, 10, NULL));
	ck_assert_int_eq(timer_stop(run), 0);
	ck_assert_int_eq(timer_end_reason(run), TIMER_END_STOPPED);
	timer_free(run);
}
END_TEST

START_TEST(break_stops_every_thread)
{
	static struct timer_thread_params threads[2] = { { -1, 0, MS },
							 { -1, 0, 3600ULL * 1000 * MS } };
	struct timer_params params = synthetic_params();
	struct timer_spike spike;
	struct timer_run *run;
	unsigned int thread;

	params.nr_threads = 2;
	params.threads = threads;
	params.break_above_ns = 1; /* every wake-up is later than 1 ns */
	ck_assert_int_eq(timer_start(&run, &params), 0);
	while (!timer_wait(run, 1000, NULL))
		;
	ck_assert_int_eq(timer_stop(run), 0);
	ck_assert_int_eq(timer_end_reason(run), TIMER_END_BREAK);
	ck_assert(timer_break(run, &thread, &spike));
	ck_assert_uint_eq(thread, 0);
	ck_assert_uint_eq(spike.cycle, 0);
	ck_assert_uint_gt(spike.latency_ns, 1);
	ck_assert_uint_eq(spike.wakeup_ns - spike.expiry_ns, spike.latency_ns);
	ck_assert_uint_eq(timer_result(run, 0)->hist.count, 1);
	ck_assert(!timer_tracing_stopped(run));
	timer_free(run);
}
END_TEST

static void count_sample(void *context, unsigned int thread, uint64_t cycle, uint64_t latency_ns)
{
	uint64_t *seen = context;

	(void)thread;
	(void)latency_ns;
	ck_assert_uint_eq(cycle, *seen);
	(*seen)++;
}

START_TEST(drained_samples_come_in_order_and_lost_ones_are_counted)
{
	struct timer_run *run = run_briefly(TIMER_WAIT_ABSOLUTE, 100, 100 * US, 1);
	uint64_t next = 0, seen = 0, lost;

	while (!timer_wait(run, 1000, NULL))
		;
	ck_assert_int_eq(timer_stop(run), 0);
	/* a ring of 64 held the last 64 of 100 */
	lost = timer_drain_samples(run, 0, &next, count_sample, &(uint64_t){ 36 });
	ck_assert_uint_eq(lost, 36);
	ck_assert_uint_eq(next, 100);
	lost = timer_drain_samples(run, 0, &next, count_sample, &seen);
	ck_assert_uint_eq(lost, 0);
	timer_free(run);
}
END_TEST

START_TEST(json_has_the_fields_the_issue_lists)
{
	static const char *const fields[] = {
		"thread", "cpu",       "tid",	 "priority",	"interval_ns", "cycles",
		"min_ns", "avg_ns",    "max_ns", "percentiles", "missed",      "max_overrun_ns",
		"spikes", "histogram",
	};
	struct timer_run *run = run_briefly(TIMER_WAIT_ABSOLUTE, 5, MS, 1);
	json_t *threads, *spike;
	size_t i;

	while (!timer_wait(run, 1000, NULL))
		;
	timer_stop(run);
	threads = timer_result_threads(run);
	ck_assert_uint_eq(json_array_size(threads), 1);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		ck_assert_msg(json_object_get(json_array_get(threads, 0), fields[i]), "no %s",
			      fields[i]);
	ck_assert(json_is_null(json_object_get(json_array_get(threads, 0), "cpu")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(threads, 0), "cycles")),
			 5);
	spike = json_array_get(json_object_get(json_array_get(threads, 0), "spikes"), 0);
	ck_assert(json_is_integer(json_object_get(spike, "t_ns")));
	ck_assert(json_is_integer(json_object_get(spike, "latency_ns")));
	ck_assert(json_is_integer(json_object_get(spike, "expiry_ns")));
	json_decref(threads);
	timer_free(run);
}
END_TEST

/* one entry per closed block, written once; blocks without an expiry have none */
START_TEST(block_maxima_close_once_per_block)
{
	struct timer_params params = synthetic_params();
	struct timer_stats *stats;
	uint64_t i, latency;

	params.block_maxima = true;
	stats = new_stats(&params);
	ck_assert_uint_eq(stats->block_ns, 1000 * MS);
	for (i = 0; i < 3500; i++) {
		/* block b's largest wake-up is its 123rd: (b + 1) * 100 us */
		latency = i % 1000 == 123 ? (i / 1000 + 1) * 100 * US : 20 * US + i % 7;
		timer_stats_add(stats, T0 + i * MS, T0 + i * MS + latency, 0);
	}
	/* blocks 0-2 are closed; block 3 stays open until an expiry lies beyond it */
	ck_assert_uint_eq(stats->blocks_closed, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(stats->block_ring[i].index, i);
		ck_assert_uint_eq(stats->block_ring[i].max_ns, (i + 1) * 100 * US);
	}
	/* a stall: the next expiry is in block 6; 4 and 5 had none */
	timer_stats_add(stats, T0 + 6200 * MS, T0 + 6200 * MS + 30 * US, 0);
	ck_assert_uint_eq(stats->blocks_closed, 4);
	ck_assert_uint_eq(stats->block_ring[3].index, 3);
	ck_assert_uint_eq(stats->block_ring[3].max_ns, 400 * US);
	timer_stats_add(stats, T0 + 7000 * MS, T0 + 7000 * MS + 10 * US, 0);
	ck_assert_uint_eq(stats->blocks_closed, 5);
	ck_assert_uint_eq(stats->block_ring[4].index, 6);
	ck_assert_uint_eq(stats->block_ring[4].max_ns, 30 * US);
	timer_stats_free(stats);
	/* blocks hold 100 wake-ups at least */
	ck_assert_uint_eq(timer_block_ns(10 * MS), 1000 * MS);
	ck_assert_uint_eq(timer_block_ns(20 * MS), 2000 * MS);
	/* without block maxima nothing is kept */
	params.block_maxima = false;
	stats = new_stats(&params);
	ck_assert_uint_eq(stats->block_ns, 0);
	ck_assert_ptr_null(stats->block_ring);
	timer_stats_free(stats);
}
END_TEST

START_TEST(block_maxima_reach_the_json)
{
	static struct timer_thread_params thread = { -1, 0, MS };
	struct timer_params params = synthetic_params();
	const json_t *blocks;
	struct timer_run *run;
	const uint64_t *max_ns;
	uint64_t lost;
	size_t nr, i;
	json_t *threads;

	params.threads = &thread;
	params.loops = 2300;
	params.policy = RT_POLICY_OTHER;
	params.block_maxima = true;
	ck_assert_int_eq(timer_start(&run, &params), 0);
	while (!timer_wait(run, 1000, NULL))
		ck_assert_int_eq(timer_collect_blocks(run), 0);
	ck_assert_int_eq(timer_stop(run), 0);
	/* 2.3 s: two whole blocks (a stall may have skipped one), the third partial */
	max_ns = timer_block_maxima(run, 0, &nr, &lost);
	ck_assert_uint_ge(nr, 1);
	ck_assert_uint_le(nr, 2);
	ck_assert_uint_eq(lost, 0);
	for (i = 0; i < nr; i++)
		ck_assert_uint_le(max_ns[i], timer_result(run, 0)->hist.max);
	threads = timer_result_threads(run);
	blocks = json_object_get(json_array_get(threads, 0), "block_maxima");
	ck_assert_int_eq(json_integer_value(json_object_get(blocks, "block_ns")), 1000 * MS);
	ck_assert_uint_eq(json_array_size(json_object_get(blocks, "max_ns")), nr);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(blocks, "max_ns"), 0)),
			 max_ns[0]);
	ck_assert_int_eq(json_integer_value(json_object_get(blocks, "lost")), 0);
	json_decref(threads);
	timer_free(run);
}
END_TEST

START_TEST(bad_params_are_refused)
{
	struct timer_thread_params zero = { -1, 0, 0 };
	struct timer_params params = synthetic_params();
	struct timer_run *run;

	params.threads = &zero;
	ck_assert_int_eq(timer_start(&run, &params), -EINVAL);
	ck_assert_ptr_null(run);
	params.nr_threads = 0;
	ck_assert_int_eq(timer_start(&run, &params), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("timer");
	TCase *stats = tcase_create("stats"), *runs = tcase_create("runs");

	tcase_add_test(stats, on_time_wakeups_miss_nothing);
	tcase_add_test(stats, late_wakeup_skips_and_counts_periods);
	tcase_add_test(stats, a_long_stall_is_counted_without_looping);
	tcase_add_test(stats, posix_timer_overruns_come_from_the_kernel);
	tcase_add_test(stats, relative_mode_has_no_periods_to_miss);
	tcase_add_test(stats, early_wakeup_counts_as_zero);
	tcase_add_test(stats, keeps_the_ten_largest_not_the_first);
	tcase_add_test(stats, fewer_samples_than_ten);
	tcase_add_test(stats, records_samples_above_the_threshold_until_full);
	tcase_add_test(stats, cyclictest_histogram_buckets_and_overflows);
	tcase_add_test(stats, overflow_cycles_are_bounded);
	tcase_add_test(stats, sample_ring_must_be_a_power_of_two);
	tcase_add_test(stats, the_break_sample_is_always_a_spike);
	tcase_add_test(stats, memory_estimate_covers_the_buffers);
	tcase_add_test(stats, block_maxima_close_once_per_block);
	tcase_add_test(runs, absolute_run_completes);
	tcase_add_test(runs, sample_hook_sees_every_wakeup);
	tcase_add_test(runs, relative_run_completes);
	tcase_add_test(runs, posix_timer_run_completes);
	tcase_add_test(runs, stop_ends_a_long_sleep_at_once);
	tcase_add_test(runs, posix_timer_stop_ends_a_long_wait);
	tcase_add_test(runs, break_stops_every_thread);
	tcase_add_test(runs, drained_samples_come_in_order_and_lost_ones_are_counted);
	tcase_add_test(runs, json_has_the_fields_the_issue_lists);
	tcase_add_test(runs, block_maxima_reach_the_json);
	tcase_add_test(runs, bad_params_are_refused);
	tcase_set_timeout(runs, 20);
	suite_add_tcase(suite, stats);
	suite_add_tcase(suite, runs);
	return unit_run(suite);
}
