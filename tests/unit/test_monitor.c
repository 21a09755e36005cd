// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/monitor_cpu.h"
#include "latscope/window_ring.h"
#include "unit.h"

#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL

static struct monitor_cpu *new_cpu(uint64_t window_ns)
{
	struct monitor_cpu *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	monitor_cpu_init(c, 1, window_ns);
	return c;
}

static void add(struct monitor_cpu *c, uint64_t expiry, uint64_t latency, uint64_t skipped)
{
	struct timer_spike s = { expiry, expiry + latency, latency, c->count };

	monitor_cpu_add(c, &s, skipped);
}

static uint64_t *buffer(void)
{
	uint64_t *b = calloc(NATIVE_SLOTS, sizeof(uint64_t));

	ck_assert_ptr_nonnull(b);
	return b;
}

START_TEST(counts_are_exact_at_every_bound)
{
	struct monitor_cpu *c = new_cpu(3600 * SEC);
	struct monitor_cpu_reading r = { .counts = buffer() };
	uint64_t t = 1000 * SEC, total = 0, cumulative = 0;
	unsigned int i, slot;

	for (i = 0; i < METRICS_CLASSIC_BOUNDS; i++) {
		add(c, t += MS, metrics_classic_bound_ns[i], 0);
		add(c, t += MS, metrics_classic_bound_ns[i] + 1, 0);
	}
	add(c, t += MS, 0, 0);
	add(c, t += MS, 14, 0);
	monitor_cpu_read(c, &r);
	ck_assert_uint_eq(r.count, 2 * METRICS_CLASSIC_BOUNDS + 2);
	/* le bucket i holds its bound and the one ns above the previous bound */
	ck_assert_uint_eq(r.classic[0], 3);
	for (i = 1; i < METRICS_CLASSIC_BOUNDS; i++)
		ck_assert_uint_eq(r.classic[i], 2);
	ck_assert_uint_eq(r.classic[METRICS_CLASSIC_BOUNDS], 1);
	ck_assert_uint_eq(r.zero_count, 2);
	for (i = 0; i <= METRICS_CLASSIC_BOUNDS; i++)
		cumulative += r.classic[i];
	ck_assert_uint_eq(cumulative, r.count);
	/* the native counts hold every sample in its own slot */
	for (i = 0; i < r.nr; i++)
		total += r.counts[i];
	ck_assert_uint_eq(total + r.zero_count, r.count);
	slot = native_slot_of(metrics_classic_bound_ns[5]);
	ck_assert_uint_ge(r.counts[slot - r.first], 1);
	ck_assert_uint_eq(r.max_ns, metrics_classic_bound_ns[METRICS_CLASSIC_BOUNDS - 1] + 1);
	free(r.counts);
	free(c);
}
END_TEST

START_TEST(windows_roll_over_on_the_wall_clock_grid)
{
	struct monitor_cpu *c = new_cpu(SEC);
	struct monitor_window w;
	uint64_t t;

	c->realtime_offset_ns = 500 * MS; /* realtime = monotonic + 0.5 s */
	/* monotonic 10.2 s is realtime 10.7 s: window 10, ending at monotonic 10.5 s */
	for (t = 10200 * MS; t < 10500 * MS; t += MS)
		add(c, t, 2 * US, 0);
	ck_assert(!monitor_cpu_take_window(c, &w));
	add(c, 10500 * MS, 50 * US, 3); /* window 11 begins */
	ck_assert(monitor_cpu_take_window(c, &w));
	ck_assert_uint_eq(w.index, 10);
	ck_assert_uint_eq(w.count, 300);
	ck_assert_uint_eq(w.max_ns, 2 * US);
	ck_assert_uint_eq(w.missed, 0);
	ck_assert(w.partial); /* the run began inside it */
	ck_assert_uint_eq(w.p99_slot, native_slot_of(2 * US));
	for (t = 10501 * MS; t < 11500 * MS; t += MS)
		add(c, t, 3 * US, 0);
	add(c, 13700 * MS, 4 * US, 0); /* two windows later */
	ck_assert(monitor_cpu_take_window(c, &w));
	ck_assert_uint_eq(w.index, 11);
	ck_assert_uint_eq(w.count, 1000);
	ck_assert_uint_eq(w.max_ns, 50 * US);
	ck_assert_uint_eq(w.missed, 3);
	ck_assert(!w.partial);
	ck_assert(!monitor_cpu_take_window(c, &w));
	ck_assert(c->has_closed && c->last_closed.index == 11);
	/* stopping closes the open window as partial */
	ck_assert(monitor_cpu_close_window(c));
	ck_assert(monitor_cpu_take_window(c, &w));
	ck_assert_uint_eq(w.index, 14);
	ck_assert_uint_eq(w.count, 1);
	ck_assert(w.partial);
	ck_assert(!monitor_cpu_close_window(c));
	free(c);
}
END_TEST

START_TEST(window_p99_is_the_rank_of_the_window)
{
	struct monitor_cpu *c = new_cpu(SEC);
	struct monitor_window w;
	uint64_t t = 5 * SEC;
	int i;

	for (i = 0; i < 990; i++)
		add(c, t++, 5 * US, 0);
	for (i = 0; i < 10; i++)
		add(c, t++, 100 * US, 0);
	add(c, 6 * SEC, 1, 0);
	ck_assert(monitor_cpu_take_window(c, &w));
	/* rank 990 of 1000 is the last 5 us sample */
	ck_assert_uint_eq(w.p99_slot, native_slot_of(5 * US));
	ck_assert_uint_le(monitor_window_p99_ns(&w), native_slot_high[w.p99_slot]);
	ck_assert_uint_ge(monitor_window_p99_ns(&w), native_slot_low(w.p99_slot));
	/* (the 1 ns sample at 6 s opened this window) one more slow sample
	 * moves rank 990 into the 100 us slot */
	for (i = 0; i < 988; i++)
		add(c, 6 * SEC + 1 + i, 5 * US, 0);
	for (i = 0; i < 11; i++)
		add(c, 6 * SEC + 2000 + i, 100 * US, 0);
	add(c, 7 * SEC, 1, 0);
	ck_assert(monitor_cpu_take_window(c, &w));
	ck_assert_uint_eq(w.count, 1000);
	ck_assert_uint_eq(w.p99_slot, native_slot_of(100 * US));
	ck_assert_uint_eq(monitor_window_p99_ns(&w), 100 * US); /* clamped to the max */
	free(c);
}
END_TEST

START_TEST(a_slow_reader_loses_windows_it_is_told_of)
{
	struct monitor_cpu *c = new_cpu(SEC);
	struct monitor_window w;
	unsigned int i, taken = 0;

	for (i = 0; i < MONITOR_CLOSED_QUEUE + 5; i++)
		add(c, (uint64_t)(i + 10) * SEC, US, 0);
	while (monitor_cpu_take_window(c, &w))
		ck_assert_uint_eq(w.index, 10 + taken++);
	ck_assert_uint_eq(taken, MONITOR_CLOSED_QUEUE);
	ck_assert_uint_eq(c->closed_dropped, 4);
	free(c);
}
END_TEST

START_TEST(spikes_above_the_threshold_come_in_order)
{
	struct monitor_cpu *c = new_cpu(SEC);
	struct timer_spike spikes[8];
	uint64_t next = 0, lost = 0;
	unsigned int i, n;

	add(c, SEC, 500 * US, 0); /* no threshold yet: nothing */
	c->spike_threshold_ns = 100 * US;
	add(c, SEC + 1 * MS, 99 * US, 0);
	add(c, SEC + 2 * MS, 100 * US, 0);
	add(c, SEC + 3 * MS, 300 * US, 0);
	n = monitor_cpu_take_spikes(c, &next, spikes, 8, &lost);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(spikes[0].latency_ns, 100 * US);
	ck_assert_uint_eq(spikes[1].expiry_ns, SEC + 3 * MS);
	ck_assert_uint_eq(lost, 0);
	/* the ring laps a reader that does not come */
	for (i = 0; i < MONITOR_SPIKE_RING + 10; i++)
		add(c, 2 * SEC + i * MS, 200 * US, 0);
	n = monitor_cpu_take_spikes(c, &next, spikes, 8, &lost);
	ck_assert_uint_eq(lost, 10);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(spikes[0].expiry_ns, 2 * SEC + 10 * MS);
	free(c);
}
END_TEST

struct writer_args {
	struct monitor_cpu *c;
	volatile int stop;
	uint64_t written;
};

static void *writer(void *arg)
{
	struct writer_args *a = arg;
	uint64_t t = 1000 * SEC;

	while (!a->stop) {
		/* spread over slots and windows, so every field moves */
		add(a->c, t, 1000 + (a->written * 7919) % 200000, a->written % 5 == 0);
		t += 1 * MS;
		a->written++;
	}
	return NULL;
}

/* A reader never sees a half-written sample, however often it reads. */
START_TEST(readings_are_consistent_while_the_thread_writes)
{
	struct writer_args args = { .c = new_cpu(SEC) };
	struct monitor_cpu_reading r = { .counts = buffer() };
	uint64_t last = 0, classic, native;
	pthread_t thread;
	unsigned int i, k;

	ck_assert_int_eq(pthread_create(&thread, NULL, writer, &args), 0);
	for (i = 0; i < 20000; i++) {
		monitor_cpu_read(args.c, &r);
		classic = native = 0;
		for (k = 0; k <= METRICS_CLASSIC_BOUNDS; k++)
			classic += r.classic[k];
		for (k = 0; k < r.nr; k++)
			native += r.counts[k];
		ck_assert_uint_eq(classic, r.count);
		ck_assert_uint_eq(native + r.zero_count, r.count);
		ck_assert_uint_eq(r.missed, (r.count + 4) / 5);
		ck_assert_uint_ge(r.count, last);
		last = r.count;
	}
	args.stop = 1;
	pthread_join(thread, NULL);
	ck_assert_uint_gt(last, 0);
	free(r.counts);
	free(args.c);
}
END_TEST

START_TEST(restored_counts_continue)
{
	struct monitor_cpu *c = new_cpu(SEC), *d = new_cpu(SEC);
	struct monitor_cpu_reading r = { .counts = buffer() }, s = { .counts = buffer() };
	unsigned int i;

	for (i = 0; i < 100; i++)
		add(c, SEC + i * MS, 1000 + i * 100, i == 3);
	monitor_cpu_read(c, &r);
	monitor_cpu_restore(d, &r);
	add(d, 9 * SEC, 5000, 0);
	monitor_cpu_read(d, &s);
	ck_assert_uint_eq(s.count, 101);
	ck_assert_uint_eq(s.missed, 1);
	ck_assert_uint_eq(s.max_ns, 10900);
	ck_assert_uint_eq(s.sum_ns, r.sum_ns + 5000);
	ck_assert_uint_eq(s.first, r.first);
	free(r.counts);
	free(s.counts);
	free(c);
	free(d);
}
END_TEST

static struct monitor_window sample_window(uint64_t i)
{
	struct monitor_window w = {
		.index = 5000000 + i + (i > 100 ? 7 : 0), /* a gap, as after a restart */
		.count = 300000 - (i % 3),
		.max_ns = 20000 + (i * 7919) % 900000,
		.p99_slot = (uint32_t)(1000 + i % 50),
		.missed = i % 11 == 0 ? 123456789 : 0,
		.partial = i % 17 == 0,
	};

	return w;
}

START_TEST(window_ring_keeps_at_least_its_capacity_in_order)
{
	struct window_ring *ring = window_ring_new(10080);
	struct window_ring_cursor cursor;
	struct monitor_window w, want;
	uint64_t i, first, n = 0;

	for (i = 0; i < 30000; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
		ck_assert_uint_ge(window_ring_count(ring), i + 1 < 10080 ? i + 1 : 10080);
		ck_assert_uint_lt(window_ring_count(ring), 10080 + 2 * 256);
	}
	first = 30000 - window_ring_count(ring);
	window_ring_begin(ring, &cursor);
	while (window_ring_next(&cursor, &w)) {
		want = sample_window(first + n++);
		ck_assert_uint_eq(w.index, want.index);
		ck_assert_uint_eq(w.count, want.count);
		ck_assert_uint_eq(w.max_ns, want.max_ns);
		ck_assert_uint_eq(w.p99_slot, want.p99_slot);
		ck_assert_uint_eq(w.missed, want.missed);
		ck_assert_int_eq(w.partial, want.partial);
	}
	ck_assert_uint_eq(n, window_ring_count(ring));
	/* the compact form: about 8 bytes a window, not 40 */
	ck_assert_uint_lt(window_ring_bytes(ring) / window_ring_count(ring), 12);
	window_ring_free(ring);
}
END_TEST

START_TEST(window_ring_empty_and_small)
{
	struct window_ring *ring = window_ring_new(3);
	struct window_ring_cursor cursor;
	struct monitor_window w = sample_window(1);

	window_ring_begin(ring, &cursor);
	ck_assert(!window_ring_next(&cursor, &w));
	ck_assert_int_eq(window_ring_append(ring, &w), 0);
	window_ring_begin(ring, &cursor);
	ck_assert(window_ring_next(&cursor, &w));
	ck_assert_uint_eq(w.index, sample_window(1).index);
	ck_assert(!window_ring_next(&cursor, &w));
	window_ring_free(ring);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("monitor");
	TCase *cpu = tcase_create("cpu"), *ring = tcase_create("ring");

	tcase_set_timeout(cpu, 30);
	tcase_add_test(cpu, counts_are_exact_at_every_bound);
	tcase_add_test(cpu, windows_roll_over_on_the_wall_clock_grid);
	tcase_add_test(cpu, window_p99_is_the_rank_of_the_window);
	tcase_add_test(cpu, a_slow_reader_loses_windows_it_is_told_of);
	tcase_add_test(cpu, spikes_above_the_threshold_come_in_order);
	tcase_add_test(cpu, readings_are_consistent_while_the_thread_writes);
	tcase_add_test(cpu, restored_counts_continue);
	tcase_add_test(ring, window_ring_keeps_at_least_its_capacity_in_order);
	tcase_add_test(ring, window_ring_empty_and_small);
	suite_add_tcase(suite, cpu);
	suite_add_tcase(suite, ring);
	return unit_run(suite);
}
