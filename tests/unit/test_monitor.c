// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_MONITOR /* white-box: reaches into lib/monitor/ */

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/monitor.h"
#include "lib/monitor/monitor_audit.h"
#include "latscope/monitor_cpu.h"
#include "latscope/monitor_explain.h"
#include "latscope/monitor_state.h"
#include "latscope/result.h"
#include "latscope/window_ring.h"
#include "latscope/window_text.h"
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

/* The windows a ring holds, from @first of sample_window() on, all of them. */
static void assert_ring_holds(const struct window_ring *ring, uint64_t first, uint64_t nr)
{
	struct window_ring_cursor cursor;
	struct monitor_window w, want;
	uint64_t n = 0;

	ck_assert_uint_eq(window_ring_count(ring), nr);
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
	ck_assert_uint_eq(n, nr);
}

/*
 * A copy holds the same windows in order, whether the ring has wrapped or
 * not, copied into again after the ring moved on or after a shorter ring,
 * and the ring appended to after the copy leaves the copy as it was.
 */
START_TEST(window_ring_copy_is_the_same_windows)
{
	struct window_ring *ring = window_ring_new(1000), *copy = window_ring_new(1000);
	struct window_ring *short_ring = window_ring_new(1000), *other = window_ring_new(50);
	struct monitor_window w;
	uint64_t i;

	for (i = 0; i < 700; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
	}
	ck_assert_int_eq(window_ring_copy(copy, ring), 0);
	w = sample_window(700);
	ck_assert_int_eq(window_ring_append(ring, &w), 0);
	assert_ring_holds(copy, 0, 700);
	/* wrapped: its oldest blocks dropped, the first slot no longer the oldest */
	for (i = 701; i < 3000; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
	}
	ck_assert_int_eq(window_ring_copy(copy, ring), 0);
	assert_ring_holds(copy, 3000 - window_ring_count(ring), window_ring_count(ring));
	/* a shorter ring into the same copy: nothing of the longer one stays */
	for (i = 0; i < 3; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(short_ring, &w), 0);
	}
	ck_assert_int_eq(window_ring_copy(copy, short_ring), 0);
	assert_ring_holds(copy, 0, 3);
	/* the copy appended to goes on from its own last window */
	w = sample_window(3);
	ck_assert_int_eq(window_ring_append(copy, &w), 0);
	assert_ring_holds(copy, 0, 4);
	ck_assert_int_eq(window_ring_copy(other, ring), -EINVAL);
	window_ring_free(ring);
	window_ring_free(copy);
	window_ring_free(short_ring);
	window_ring_free(other);
}
END_TEST

START_TEST(window_ring_keeps_at_least_its_capacity_in_order)
{
	struct window_ring *ring = window_ring_new(10080);
	struct window_ring_cursor cursor;
	struct monitor_window w;
	uint64_t i;

	for (i = 0; i < 30000; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
		ck_assert_uint_ge(window_ring_count(ring), i + 1 < 10080 ? i + 1 : 10080);
		ck_assert_uint_lt(window_ring_count(ring), 10080 + 2 * 256);
	}
	assert_ring_holds(ring, 30000 - window_ring_count(ring), window_ring_count(ring));
	/* the compact form: under 10 bytes a window even when each differs */
	ck_assert_uint_lt(window_ring_bytes(ring) / window_ring_count(ring), 10);
	window_ring_free(ring);
	/* and 4 bytes a usual one: the next index, as many samples, the same p99 */
	ring = window_ring_new(10080);
	for (i = 0; i < 10080; i++) {
		w = (struct monitor_window){ 6000000 + i, 300000, 30000 + (i * 7919) % 20000,
					     1500,	  0,	  false };
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
	}
	ck_assert_uint_le(window_ring_bytes(ring), 10080 * 4 + 4096);
	window_ring_begin(ring, &cursor);
	for (i = 0; window_ring_next(&cursor, &w); i++)
		ck_assert(w.index == 6000000 + i && w.count == 300000 &&
			  w.max_ns == 30000 + (i * 7919) % 20000 && w.p99_slot == 1500 &&
			  !w.missed && !w.partial);
	ck_assert_uint_eq(i, 10080);
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

/*
 * A ring's blocks: a copy has the same serials, another ring none of them,
 * and a block is full, never to change, at 256 windows.
 */
START_TEST(window_ring_blocks_are_known_by_their_serials)
{
	struct window_ring *ring = window_ring_new(1000), *copy = window_ring_new(1000);
	struct window_ring *other = window_ring_new(1000);
	struct window_ring_block b, c;
	struct window_ring_cursor cursor;
	struct monitor_window w, first;
	size_t i, k;

	for (i = 0; i < 600; i++) {
		w = sample_window(i);
		ck_assert_int_eq(window_ring_append(ring, &w), 0);
		ck_assert_int_eq(window_ring_append(other, &w), 0);
	}
	ck_assert_int_eq(window_ring_copy(copy, ring), 0);
	ck_assert_uint_eq(window_ring_blocks(ring), 3);
	ck_assert_uint_eq(window_ring_blocks(copy), 3);
	for (i = 0; i < 3; i++) {
		b = window_ring_block(ring, i);
		c = window_ring_block(copy, i);
		ck_assert_uint_eq(b.serial, c.serial);
		ck_assert_uint_eq(b.nr, i < 2 ? 256 : 600 - 512);
		ck_assert_int_eq(b.full, i < 2);
		for (k = 0; k < 3; k++)
			ck_assert_uint_ne(b.serial, window_ring_block(other, k).serial);
		if (i)
			ck_assert_uint_gt(b.serial, window_ring_block(ring, i - 1).serial);
		/* a cursor at a block begins at its first window */
		window_ring_begin_block(ring, i, &cursor);
		ck_assert(window_ring_next(&cursor, &first));
		ck_assert_uint_eq(first.index, sample_window(256 * i).index);
	}
	window_ring_free(ring);
	window_ring_free(copy);
	window_ring_free(other);
}
END_TEST

/* A column of the ring's windows as the state has it, made here with printf. */
/* @ring's @column as the state writes it, made by printf: numbers, or runs */
static char *expected_column(const struct window_ring *ring, unsigned int column)
{
	unsigned int step = state_window_column_step(column);
	struct window_ring_cursor cursor;
	struct monitor_window w;
	uint64_t run_value = 0, run_windows = 0;
	const char *comma = "";
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(f);
	fputc('[', f);
	window_ring_begin(ring, &cursor);
	while (window_ring_next(&cursor, &w)) {
		const uint64_t values[STATE_WINDOW_COLUMNS] = {
			w.index, w.count, w.max_ns, monitor_window_p99_ns(&w), w.missed, w.partial,
		};
		uint64_t value = values[column];

		if (!state_window_column_in_runs(column)) {
			fprintf(f, "%s%" PRIu64, comma, value);
			comma = ",";
			continue;
		}
		if (run_windows && value == run_value + step * run_windows) {
			run_windows++;
			continue;
		}
		if (run_windows) {
			fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", comma, run_value, run_windows);
			comma = ",";
		}
		run_value = value;
		run_windows = 1;
	}
	if (run_windows)
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", comma, run_value, run_windows);
	fputc(']', f);
	fclose(f);
	return text;
}

static void assert_text_is(const struct window_text *text, const struct window_ring *ring)
{
	unsigned int column;

	for (column = 0; column < STATE_WINDOW_COLUMNS; column++) {
		char *want = expected_column(ring, column), *got = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&got, &size);

		ck_assert_ptr_nonnull(f);
		window_text_put(text, column, f);
		fclose(f);
		ck_assert_msg(!strcmp(got, want), "column %u: %.200s, want %.200s", column, got,
			      want);
		free(got);
		free(want);
	}
}

/*
 * The text kept from one update to the next is the text made anew, as
 * printf makes it: the ring empty, in its first block, at a block's end,
 * wrapped (its oldest blocks dropped), with windows partial or not, and
 * read from copies of the ring as a checkpoint reads it; a text of another
 * ring keeps nothing of it.
 */
START_TEST(window_text_kept_is_the_text_made_anew)
{
	static const size_t steps[] = { 0, 1, 255, 1, 256, 300, 700, 2, 1200 };
	struct window_ring *ring = window_ring_new(1000), *copy = window_ring_new(1000);
	struct window_ring *complete = window_ring_new(1000);
	struct window_text *kept = window_text_new(), *fresh;
	struct monitor_window w;
	size_t step, i, n = 0;

	ck_assert_ptr_nonnull(kept);
	for (step = 0; step < sizeof(steps) / sizeof(steps[0]); step++) {
		for (i = 0; i < steps[step]; i++, n++) {
			w = sample_window(n);
			ck_assert_int_eq(window_ring_append(ring, &w), 0);
			/* every window complete: the partial column one run */
			w.partial = false;
			ck_assert_int_eq(window_ring_append(complete, &w), 0);
		}
		ck_assert_int_eq(window_ring_copy(copy, ring), 0);
		ck_assert_int_eq(window_text_update(kept, copy), 0);
		assert_text_is(kept, ring);
		fresh = window_text_new();
		ck_assert_int_eq(window_text_update(fresh, complete), 0);
		assert_text_is(fresh, complete);
		window_text_free(fresh);
	}
	ck_assert_uint_lt(window_ring_count(ring), n);
	/* another ring: its own text, none of the first's */
	ck_assert_int_eq(window_text_update(kept, complete), 0);
	assert_text_is(kept, complete);
	ck_assert_int_eq(window_text_update(kept, ring), 0);
	assert_text_is(kept, ring);
	window_text_free(kept);
	window_ring_free(ring);
	window_ring_free(copy);
	window_ring_free(complete);
}
END_TEST

/* ---- the state file ---- */

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/latscope-state-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	unit_remove_tree(tmpdir);
}

static void state_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", tmpdir, name);
}

/* How many files of the scratch directory begin with @prefix. */
static unsigned int files_named(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* One CPU with samples, windows and explained spikes, and its parts as views. */
struct cpu_fixture {
	struct monitor_cpu *c;
	struct monitor_cpu_reading reading;
	struct window_ring *ring;
	struct monitor_explained explained;
};

static void make_cpu(struct cpu_fixture *f, unsigned int cpu)
{
	static const char *const kinds[] = { "thread", "vector", "timer_delay" };
	static const char *const labels[] = { "kworker/1:2", "local_timer", "timer irq delay" };
	const uint64_t parts[] = { 30000, 2000, 500 };
	struct monitor_window w;
	unsigned int i;

	f->c = new_cpu(SEC);
	for (i = 0; i < 5000; i++)
		add(f->c, 100 * SEC + i * MS, 1500 + (i * 7919) % 40000 + cpu, i % 97 == 0);
	f->ring = window_ring_new(100);
	while (monitor_cpu_take_window(f->c, &w))
		ck_assert_int_eq(window_ring_append(f->ring, &w), 0);
	f->reading.counts = buffer();
	monitor_cpu_read(f->c, &f->reading);
	memset(&f->explained, 0, sizeof(f->explained));
	monitor_explained_count(&f->explained, 1700000000ULL * SEC, 32500, false, kinds, labels,
				parts, 3);
	monitor_explained_count(&f->explained, 1700000001ULL * SEC, 2500, true, kinds + 1,
				labels + 1, parts + 1, 2);
	f->explained.lost_events = 42 + cpu;
}

static void free_cpu(struct cpu_fixture *f)
{
	free(f->c);
	free(f->reading.counts);
	window_ring_free(f->ring);
}

static json_t *fixture_header(const char *cpus)
{
	return json_pack("{sssss{sssIsI}s{sssI}}", "schema", "latscope/1", "command", "monitor",
			 "params", "cpus", cpus, "interval_ns", (json_int_t)MS, "window_ns",
			 (json_int_t)SEC, "state", "began", "2026-01-31T12:00:00.000Z", "restarts",
			 (json_int_t)4);
}

static void write_fixture_as(const char *path, struct cpu_fixture *f, unsigned int n,
			     const char *cpus, enum result_layout layout)
{
	json_t *header = fixture_header(cpus);
	struct state_writer *w;
	unsigned int i;

	ck_assert_int_eq(state_writer_open(&w, path, header, layout), 0);
	for (i = 0; i < n; i++) {
		struct state_cpu cpu = { .cpu = 2 + i,
					 .reading = &f[i].reading,
					 .window_ns = SEC,
					 .windows = f[i].ring,
					 .explained = &f[i].explained };

		ck_assert_int_eq(state_writer_cpu(w, &cpu), 0);
	}
	ck_assert_int_eq(state_writer_close(w), 0);
	json_decref(header);
}

static void write_fixture(const char *path, struct cpu_fixture *f, unsigned int n, const char *cpus)
{
	write_fixture_as(path, f, n, cpus, RESULT_LAYOUT_COMPACT);
}

static char *slurp(const char *path)
{
	FILE *file = fopen(path, "r");
	char *text = calloc(1, 1 << 22);
	size_t n;

	ck_assert_ptr_nonnull(file);
	ck_assert_ptr_nonnull(text);
	n = fread(text, 1, (1 << 22) - 1, file);
	ck_assert_uint_lt(n, (1 << 22) - 1);
	fclose(file);
	return text;
}

/*
 * The streamed document has the bytes result_write_as() gives the same
 * document, compact and indented: --json-compact and a terminal mean the
 * same for monitor as for every command. With no CPU too.
 */
static void assert_laid_out_as_result_write(struct cpu_fixture *f, unsigned int n)
{
	static const enum result_layout layouts[] = { RESULT_LAYOUT_COMPACT, RESULT_LAYOUT_PRETTY };
	char streamed[128], written[128];
	char *a, *b;
	unsigned int i;
	json_t *doc;

	state_path(streamed, sizeof(streamed), "streamed.json");
	state_path(written, sizeof(written), "written.json");
	for (i = 0; i < 2; i++) {
		write_fixture_as(streamed, f, n, "2-3", layouts[i]);
		doc = json_load_file(streamed, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert_uint_eq(json_array_size(json_object_get(doc, "cpus")), n);
		ck_assert_int_eq(result_write_as(doc, written, layouts[i]), 0);
		json_decref(doc);
		a = slurp(streamed);
		b = slurp(written);
		ck_assert_str_eq(a, b);
		/* one line, or the CPUs indented at their depth */
		if (layouts[i] == RESULT_LAYOUT_COMPACT)
			ck_assert_ptr_eq(strchr(a, '\n'), a + strlen(a) - 1);
		else
			ck_assert_ptr_nonnull(
				strstr(a, n ? "\n    {\n      \"cpu\": " : "\"cpus\": []"));
		free(a);
		free(b);
	}
}

START_TEST(state_layouts_are_result_write_layouts)
{
	struct cpu_fixture f[2];

	make_tmpdir();
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	assert_laid_out_as_result_write(f, 2);
	assert_laid_out_as_result_write(f, 0);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

struct read_back {
	unsigned int nr;
	struct cpu_fixture *want;
	bool header_seen;
};

static int header_ok(void *context, json_t *header, char *why, size_t size)
{
	struct read_back *r = context;

	(void)why;
	(void)size;
	r->header_seen = true;
	ck_assert_str_eq(json_string_value(json_object_get(header, "command")), "monitor");
	return 0;
}

/* @got read back as @want was written: every count, the first slot where there are counts. */
static void assert_same_reading(const struct monitor_cpu_reading *got,
				const struct monitor_cpu_reading *want)
{
	ck_assert_uint_eq(got->count, want->count);
	ck_assert_uint_eq(got->sum_ns, want->sum_ns);
	ck_assert_uint_eq(got->max_ns, want->max_ns);
	ck_assert_uint_eq(got->missed, want->missed);
	ck_assert_mem_eq(got->classic, want->classic, sizeof(got->classic));
	ck_assert_uint_eq(got->zero_count, want->zero_count);
	ck_assert_uint_eq(got->nr, want->nr);
	if (got->nr) {
		ck_assert_uint_eq(got->first, want->first);
		ck_assert_mem_eq(got->counts, want->counts, got->nr * sizeof(uint64_t));
	}
}

/* The same windows in the same order. */
static void assert_same_windows(const struct window_ring *got, const struct window_ring *want)
{
	struct window_ring_cursor a, b;
	struct monitor_window wa, wb;

	ck_assert_uint_eq(window_ring_count(got), window_ring_count(want));
	window_ring_begin(got, &a);
	window_ring_begin(want, &b);
	while (window_ring_next(&b, &wb)) {
		ck_assert(window_ring_next(&a, &wa));
		ck_assert_uint_eq(wa.index, wb.index);
		ck_assert_uint_eq(wa.count, wb.count);
		ck_assert_uint_eq(wa.max_ns, wb.max_ns);
		ck_assert_uint_eq(wa.p99_slot, wb.p99_slot);
		ck_assert_uint_eq(wa.missed, wb.missed);
		ck_assert_int_eq(wa.partial, wb.partial);
	}
}

static int header_any(void *context, json_t *header, char *why, size_t size)
{
	(void)context;
	(void)header;
	(void)why;
	(void)size;
	return 0;
}

static int compare_cpu(void *context, struct jsondoc *doc, json_t *object, char *why, size_t size)
{
	struct read_back *r = context;
	struct cpu_fixture *want = &r->want[r->nr];
	struct monitor_cpu_reading got = { .counts = buffer() };
	struct window_ring *ring = window_ring_new(100);
	struct monitor_explained x;
	struct monitor_blocks blocks;
	int ret = state_cpu_parse(doc, object, &got, ring, SEC, &x, &blocks, why, size);

	monitor_blocks_release(&blocks);

	if (ret)
		return ret;
	ck_assert_uint_eq(json_integer_value(json_object_get(object, "cpu")), 2 + r->nr);
	assert_same_reading(&got, &want->reading);
	assert_same_windows(ring, want->ring);
	ck_assert(got.has_closed);
	ck_assert_uint_eq(x.nr_causes, want->explained.nr_causes);
	ck_assert_str_eq(x.causes[0].name, "kworker/1:2");
	ck_assert_uint_eq(x.causes[0].spikes, 1);
	ck_assert_uint_eq(x.causes[1].spikes, 1);
	ck_assert_uint_eq(x.causes[1].ns, 4000);
	ck_assert_uint_eq(x.nr_worst, 2);
	ck_assert_uint_eq(x.worst[0].latency_ns, 32500);
	ck_assert_uint_eq(x.worst[0].nr_parts, 3);
	ck_assert_uint_eq(x.worst[1].parts[0].cause, 1);
	ck_assert(x.worst[1].incomplete);
	ck_assert_uint_eq(x.lost_events, 42 + r->nr);
	free(got.counts);
	window_ring_free(ring);
	r->nr++;
	return 0;
}

START_TEST(state_round_trip)
{
	struct cpu_fixture f[2];
	struct read_back r = { .want = f };
	char path[128], why[256];

	make_tmpdir();
	state_path(path, sizeof(path), "state.json");
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	ck_assert_uint_gt(window_ring_count(f[0].ring), 3);
	write_fixture(path, f, 2, "2-3");
	ck_assert_int_eq(state_read(path, header_ok, compare_cpu, &r, why, sizeof(why)),
			 STATE_CONTINUED);
	ck_assert(r.header_seen);
	ck_assert_uint_eq(r.nr, 2);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

static int accept_cpu(void *context, struct jsondoc *doc, json_t *object, char *why, size_t size)
{
	struct monitor_cpu_reading got = { .counts = calloc(NATIVE_SLOTS, sizeof(uint64_t)) };
	struct window_ring *ring = window_ring_new(100);
	struct monitor_explained x;
	struct monitor_blocks blocks;
	int ret = state_cpu_parse(doc, object, &got, ring, SEC, &x, &blocks, why, size);

	monitor_blocks_release(&blocks);

	(void)context;
	free(got.counts);
	window_ring_free(ring);
	return ret;
}

/* Cut anywhere, the state is refused as corrupt, never half taken. */
START_TEST(truncated_state_is_corrupt)
{
	struct cpu_fixture f[1];
	char path[128], cut[128], why[256];
	struct read_back r = { .want = f };
	struct stat st;
	off_t at;

	make_tmpdir();
	state_path(path, sizeof(path), "state.json");
	state_path(cut, sizeof(cut), "cut.json");
	make_cpu(&f[0], 0);
	write_fixture(path, f, 1, "2");
	ck_assert_int_eq(stat(path, &st), 0);
	for (at = 0; at < st.st_size - 1; at += st.st_size / 97 + 1) {
		char command[512];

		snprintf(command, sizeof(command), "head -c %lld %s > %s", (long long)at, path,
			 cut);
		ck_assert_int_eq(system(command), 0);
		r.header_seen = false;
		ck_assert_int_eq(state_read(cut, header_ok, accept_cpu, &r, why, sizeof(why)),
				 STATE_CORRUPT);
		ck_assert_msg(why[0], "no reason at %lld", (long long)at);
	}
	/* the last byte is the newline: without it the state is whole */
	ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
	ck_assert_int_eq(state_read(path, header_ok, accept_cpu, &r, why, sizeof(why)),
			 STATE_CONTINUED);
	state_path(cut, sizeof(cut), "absent.json");
	ck_assert_int_eq(state_read(cut, header_ok, accept_cpu, &r, why, sizeof(why)),
			 STATE_ABSENT);
	free_cpu(&f[0]);
	remove_tmpdir();
}
END_TEST

static char last_warning[1024];

static void keep_warning(enum log_level level, const char *message)
{
	if (level <= LATSCOPE_LOG_WARNING)
		snprintf(last_warning, sizeof(last_warning), "%s", message);
}

/* A monitor on the fixture box (isolated 2-7), measuring cpus 2-3, not started. */
static struct monitor *fixture_monitor(struct sysroot **root, struct topology *topo,
				       const char *path, uint64_t interval)
{
	struct monitor_params p;
	struct monitor *m;

	*root = sysroot_new(FIXTURE("check-rt-box"));
	ck_assert_ptr_nonnull(*root);
	ck_assert_int_eq(topology_load(*root, topo), 0);
	monitor_params_default(&p);
	cpuset_add(&p.cpus, 2);
	cpuset_add(&p.cpus, 3);
	p.interval_ns = interval;
	p.window_ns = SEC;
	p.explain = true;
	p.state_path = path;
	p.root = *root;
	m = monitor_new(&p, topo);
	ck_assert_ptr_nonnull(m);
	return m;
}

static const struct metrics_cpu *collected_cpu(const struct metrics *metrics, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < metrics->nr_cpus; i++)
		if (metrics->cpus[i].cpu == cpu)
			return &metrics->cpus[i];
	return NULL;
}

START_TEST(monitor_continues_a_matching_state)
{
	struct cpu_fixture f[2];
	struct sysroot *root;
	struct topology topo;
	enum state_outcome outcome;
	struct metrics *metrics;
	struct monitor *m;
	char path[128];

	make_tmpdir();
	state_path(path, sizeof(path), "monitor.json");
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	write_fixture(path, f, 2, "2-3");
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_CONTINUED);
	metrics = monitor_collect(m);
	ck_assert_uint_eq(collected_cpu(metrics, 3)->count, f[1].reading.count);
	ck_assert_uint_eq(collected_cpu(metrics, 3)->missed, f[1].reading.missed);
	ck_assert(collected_cpu(metrics, 2)->has_window);
	ck_assert_uint_eq(collected_cpu(metrics, 2)->nr_causes, 3);
	ck_assert_uint_eq(collected_cpu(metrics, 2)->lost_events, 42);
	metrics_free(metrics);
	/* its own checkpoint reads back the same */
	ck_assert_int_eq(monitor_checkpoint(m), 0);
	monitor_free(m);
	topology_release(&topo);
	sysroot_free(root);
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_CONTINUED);
	metrics = monitor_collect(m);
	ck_assert_uint_eq(collected_cpu(metrics, 3)->count, f[1].reading.count);
	ck_assert_uint_eq(collected_cpu(metrics, 3)->sum_ns, f[1].reading.sum_ns);
	metrics_free(metrics);
	monitor_free(m);
	topology_release(&topo);
	sysroot_free(root);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

/* --json: the state's document elsewhere, the command's members after the header's */
START_TEST(monitor_writes_its_result_elsewhere)
{
	struct cpu_fixture f[2];
	struct sysroot *root;
	struct topology topo;
	enum state_outcome outcome;
	struct timer_live live;
	struct monitor *m;
	char path[128], result[128];
	unsigned int cpu;
	json_t *doc, *extra, *cpus;
	const char *key;
	size_t at = 0, end_at = 0, cpus_at = 0;
	json_t *value;

	make_tmpdir();
	state_path(path, sizeof(path), "monitor.json");
	state_path(result, sizeof(result), "result.json");
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	write_fixture(path, f, 2, "2-3");
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_uint_eq(monitor_nr_cpus(m), 2);
	/* nothing measured in this run before it starts */
	ck_assert(!monitor_read_run(m, 0, &cpu, &live));
	extra = json_pack("{ss}", "end", "stopped");
	ck_assert_int_eq(monitor_write_result(m, result, extra, RESULT_LAYOUT_COMPACT), 0);
	json_decref(extra);
	doc = json_load_file(result, JSON_DECODE_ANY, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "command")), "monitor");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "end")), "stopped");
	cpus = json_object_get(doc, "cpus");
	ck_assert_uint_eq(json_array_size(cpus), 2);
	ck_assert_uint_eq(json_integer_value(json_object_get(json_array_get(cpus, 1), "count")),
			  f[1].reading.count);
	json_object_foreach(doc, key, value)
	{
		at++;
		if (!strcmp(key, "end"))
			end_at = at;
		if (!strcmp(key, "cpus"))
			cpus_at = at;
	}
	ck_assert_uint_gt(end_at, 0);
	ck_assert_uint_eq(cpus_at, at);
	json_decref(doc);
	monitor_free(m);
	topology_release(&topo);
	sysroot_free(root);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

START_TEST(monitor_keeps_other_states_aside)
{
	struct cpu_fixture f[1];
	struct sysroot *root;
	struct topology topo;
	enum state_outcome outcome;
	struct metrics *metrics;
	struct monitor *m;
	char path[128], aside[160];
	struct stat st;

	make_tmpdir();
	log_set_hook(keep_warning);
	state_path(path, sizeof(path), "monitor.json");
	make_cpu(&f[0], 0);
	/* another run's cpus */
	write_fixture(path, f, 1, "2");
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_MISMATCH);
	ck_assert_msg(strstr(last_warning, "it measured cpus 2, this run measures 2-3") &&
			      strstr(last_warning, "kept as ") && strstr(last_warning, ".old.20"),
		      "%s", last_warning);
	/* kept with the time it was set aside: "monitor.json.old.20260131T120000Z" */
	snprintf(aside, sizeof(aside), "%s", strstr(last_warning, "kept as ") + 8);
	*strchr(aside, ',') = '\0';
	ck_assert_int_eq(stat(aside, &st), 0);
	ck_assert_int_eq(stat(path, &st), -1);
	ck_assert_uint_eq(files_named("monitor.json.old."), 1);
	metrics = monitor_collect(m);
	ck_assert_uint_eq(collected_cpu(metrics, 2)->count, 0);
	metrics_free(metrics);
	monitor_free(m);
	/* another interval */
	write_fixture(path, f, 1, "2-3");
	topology_release(&topo);
	sysroot_free(root);
	m = fixture_monitor(&root, &topo, path, 2 * MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_MISMATCH);
	ck_assert_ptr_nonnull(strstr(last_warning, "interval"));
	/* the first one set aside is still there: no history is lost to a second change */
	ck_assert_uint_eq(files_named("monitor.json.old."), 2);
	monitor_free(m);
	/* the right header, a cpu missing: corrupt, and nothing of it taken */
	write_fixture(path, f, 1, "2-3");
	topology_release(&topo);
	sysroot_free(root);
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_CORRUPT);
	ck_assert_ptr_nonnull(strstr(last_warning, "cpu 3 is missing"));
	ck_assert_uint_eq(files_named("monitor.json.corrupt."), 1);
	metrics = monitor_collect(m);
	ck_assert_uint_eq(collected_cpu(metrics, 2)->count, 0);
	ck_assert_uint_eq(collected_cpu(metrics, 2)->nr_causes, 0);
	metrics_free(metrics);
	monitor_free(m);
	/* garbage */
	{
		FILE *g = fopen(path, "w");

		fputs("{\"schema\": \"latscope/1\", \"command\": \"mon", g);
		fclose(g);
	}
	topology_release(&topo);
	sysroot_free(root);
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_CORRUPT);
	ck_assert_ptr_nonnull(strstr(last_warning, "is corrupt"));
	ck_assert_uint_eq(files_named("monitor.json.corrupt."), 2);
	ck_assert_uint_eq(files_named("monitor.json.old."), 2);
	monitor_free(m);
	log_set_hook(NULL);
	topology_release(&topo);
	sysroot_free(root);
	free_cpu(&f[0]);
	remove_tmpdir();
}
END_TEST

/* A second monitor on the same state is refused, naming the first; the first's state stays. */
START_TEST(one_monitor_per_state)
{
	struct cpu_fixture f[2];
	struct sysroot *root, *root2;
	struct topology topo, topo2;
	enum state_outcome outcome;
	struct monitor *first, *second;
	char path[128], want[64];

	make_tmpdir();
	log_set_hook(keep_warning);
	state_path(path, sizeof(path), "monitor.json");
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	write_fixture(path, f, 2, "2-3");
	first = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(first, &outcome), 0);
	second = fixture_monitor(&root2, &topo2, path, MS);
	ck_assert_int_eq(monitor_load_state(second, &outcome), -EBUSY);
	snprintf(want, sizeof(want), "is in use by pid %d (another latscope monitor",
		 (int)getpid());
	ck_assert_msg(strstr(last_warning, want), "%s", last_warning);
	monitor_free(second);
	ck_assert_uint_eq(files_named("monitor.json.lock"), 1);
	ck_assert_int_eq(monitor_checkpoint(first), 0);
	monitor_free(first);
	/* released with the monitor, and its file removed */
	ck_assert_uint_eq(files_named("monitor.json.lock"), 0);
	topology_release(&topo2);
	sysroot_free(root2);
	second = fixture_monitor(&root2, &topo2, path, MS);
	ck_assert_int_eq(monitor_load_state(second, &outcome), 0);
	ck_assert_int_eq(outcome, STATE_CONTINUED);
	monitor_free(second);
	log_set_hook(NULL);
	topology_release(&topo);
	topology_release(&topo2);
	sysroot_free(root);
	sysroot_free(root2);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

/* A state whose text is changed by @edit: how a monitor takes it. */
/* The fixture's state with text @from replaced by @to, and then @from2 by @to2 unless NULL. */
static enum state_outcome load_edited(struct cpu_fixture *f, const char *from, const char *to,
				      const char *from2, const char *to2)
{
	const char *edits[2][2] = { { from, to }, { from2, to2 } };
	struct sysroot *root;
	struct topology topo;
	enum state_outcome outcome;
	struct monitor *m;
	char path[128], *text, *at, *edited;
	unsigned int e;
	FILE *file;

	state_path(path, sizeof(path), "edited.json");
	write_fixture(path, f, 2, "2-3");
	text = slurp(path);
	for (e = 0; e < 2 && edits[e][0]; e++) {
		at = strstr(text, edits[e][0]);
		ck_assert_msg(at != NULL, "'%s' is not in the state", edits[e][0]);
		ck_assert_int_ge(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, edits[e][1],
					  at + strlen(edits[e][0])),
				 0);
		free(text);
		text = edited;
	}
	file = fopen(path, "w");
	ck_assert_ptr_nonnull(file);
	fputs(text, file);
	fclose(file);
	free(text);
	m = fixture_monitor(&root, &topo, path, MS);
	ck_assert_int_eq(monitor_load_state(m, &outcome), 0);
	monitor_free(m);
	topology_release(&topo);
	sysroot_free(root);
	return outcome;
}

/* Values no monitor writes are refused on load, each with its reason. */
START_TEST(impossible_values_are_refused)
{
	static const struct {
		const char *from, *to, *why;
	} cases[] = {
		{ "\"began\":\"2026-01-31T12:00:00.000Z\"", "\"began\":\"yesterday\"",
		  "began or restarts" },
		{ "\"restarts\":4", "\"restarts\":-1", "began or restarts" },
		{ "\"restarts\":4", "\"restarts\":9223372036854775808", "" },
		{ "MAX", "\"max_ns\":40000", "highest bucket" },
		{ "MAX", "\"max_ns\":4150000", "highest bucket" },
		{ "\"sum_ns\":", "\"sum_ns\":9223372036854775807,\"x\":", "sum_ns" },
		{ "\"index\":[[100,", "\"index\":[[4611686018427387904,", "index" },
		{ "\"index\":[[100,4]]", "\"index\":[[101,1],[101,3]]", "index" },
		{ "\"index\":[[100,4]]", "\"index\":[100,101,102,102]", "index" },
		/* runs that are not [value, windows >= 1], or stand for too many windows */
		{ "\"count\":[[1000,4]]", "\"count\":[[1000,0],[1000,4]]", "not a number" },
		{ "\"count\":[[1000,4]]", "\"count\":[[-1,4]]", "not a number" },
		{ "\"count\":[[1000,4]]", "\"count\":[[1000,4,1]]", "not a number" },
		{ "\"count\":[[1000,4]]", "\"count\":[[1000,3]]", "differ in length" },
		{ "\"count\":[[1000,4]]", "\"count\":[[1000,3],1000]", "not a number" },
		{ "\"index\":[[100,4]]", "\"index\":[[100,3024001]]", "differ in length" },
		{ "\"index\":[[100,4]]", "\"index\":[[9223372036854775807,4]]", "not a number" },
		/* keys given twice, in the header and in a CPU: which one counts is not defined */
		{ "\"command\":\"monitor\"", "\"command\":\"monitor\",\"command\":\"monitor\"",
		  "\"command\" is given twice" },
		{ "\"restarts\":4", "\"restarts\":4,\"restarts\":4", "duplicate" },
		{ "MAX", "\"max_ns\":1,\"max_ns\":1", "\"max_ns\" given twice" },
	};
	struct cpu_fixture f[2];
	unsigned int i;
	char max[64];

	make_tmpdir();
	log_set_hook(keep_warning);
	make_cpu(&f[0], 0);
	make_cpu(&f[1], 1);
	/* the first CPU's own max */
	snprintf(max, sizeof(max), "\"max_ns\":%llu", (unsigned long long)f[0].reading.max_ns);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *from = strcmp(cases[i].from, "MAX") ? cases[i].from : max;

		ck_assert_msg(load_edited(f, from, cases[i].to, NULL, NULL) == STATE_CORRUPT,
			      "taken: %s", cases[i].to);
		ck_assert_msg(strstr(last_warning, cases[i].why), "%s: %s", cases[i].to,
			      last_warning);
	}
	/* unedited, it is continued */
	ck_assert_int_eq(load_edited(f, "\"restarts\":4", "\"restarts\":4", NULL, NULL),
			 STATE_CONTINUED);
	/*
	 * two partial windows of one index: a run stopped inside the window
	 * and the next began inside it (a restart within a window once made
	 * the next load set the state aside as corrupt)
	 */
	ck_assert_int_eq(load_edited(f, "\"index\":[[100,4]]", "\"index\":[[100,1],[100,3]]",
				     "\"partial\":[[1,1],[0,3]]", "\"partial\":[[1,2],[0,2]]"),
			 STATE_CONTINUED);
	/* the form a number a window, as states before runs were written, is read as well */
	ck_assert_int_eq(load_edited(f, "\"index\":[[100,4]]", "\"index\":[100,101,102,103]",
				     "\"missed\":[[11,1],[10,2],[11,1]]",
				     "\"missed\":[11,10,10,11]"),
			 STATE_CONTINUED);
	log_set_hook(NULL);
	free_cpu(&f[0]);
	free_cpu(&f[1]);
	remove_tmpdir();
}
END_TEST

/* A small deterministic generator: the same states every run. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A latency as the test wants them: zero, tiny, anything up to minutes, or huge. */
static uint64_t random_latency(uint64_t *rng)
{
	switch (next_random(rng) % 8) {
	case 0:
		return next_random(rng) % 15; /* the zero bucket */
	case 1:
		return 32 * SEC + next_random(rng) % (100 * SEC); /* above the last bucket */
	case 2:
		return (1ULL << 61) + next_random(rng) % SEC; /* the sum saturates */
	default:
		/* log-uniform over 15 ns .. 15 s */
		return 15 + next_random(rng) % (1ULL << (4 + next_random(rng) % 30));
	}
}

struct property {
	struct monitor_cpu_reading want;
	struct window_ring *ring;
	unsigned int cpus;
};

static int same_as_written(void *context, struct jsondoc *doc, json_t *object, char *why,
			   size_t size)
{
	struct property *p = context;
	struct monitor_cpu_reading got = { .counts = buffer() };
	struct window_ring *ring = window_ring_new(1000);
	struct monitor_explained x;
	struct monitor_blocks blocks;
	int ret = state_cpu_parse(doc, object, &got, ring, SEC, &x, &blocks, why, size);

	monitor_blocks_release(&blocks);

	ck_assert_msg(!ret, "not read back: %s", why);
	assert_same_reading(&got, &p->want);
	assert_same_windows(ring, p->ring);
	free(got.counts);
	window_ring_free(ring);
	p->cpus++;
	return 0;
}

/*
 * Whatever a CPU measured, the state written of it reads back the same:
 * random latencies from the zero bucket to past the last one, sums that
 * saturate, restored counts continued, windows of every shape.
 */
START_TEST(what_is_written_reads_back)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL, sum;
	char path[128], why[256];
	unsigned int round, i, n, saturated = 0;

	make_tmpdir();
	state_path(path, sizeof(path), "property.json");
	for (round = 0; round < 200; round++) {
		struct monitor_cpu *c = new_cpu(SEC);
		struct property p = { .want = { .counts = buffer() },
				      .ring = window_ring_new(1000) };
		uint64_t expiry = 100 * SEC;
		json_t *header = fixture_header("2");
		struct state_cpu cpu = {
			.cpu = 2, .reading = &p.want, .window_ns = SEC, .windows = p.ring
		};
		struct state_writer *w;
		struct monitor_window win;

		n = (unsigned int)(next_random(&rng) % 3000);
		for (i = 0; i < n; i++) {
			if (round % 4 == 1 && i == n / 2) {
				/* a restart from a state whose sum is near its bound */
				monitor_cpu_read(c, &p.want);
				sum = MONITOR_COUNTER_MAX - next_random(&rng) % SEC;
				/* as a state may hold it: a mean no higher than the max */
				if (p.want.count && sum / p.want.count <= p.want.max_ns)
					p.want.sum_ns = sum;
				monitor_cpu_restore(c, &p.want);
			}
			expiry += next_random(&rng) % (next_random(&rng) % 4 ? 50 * MS : 3 * SEC);
			add(c, expiry, random_latency(&rng), next_random(&rng) % 9 ? 0 : 3);
		}
		monitor_cpu_close_window(c);
		while (monitor_cpu_take_window(c, &win))
			ck_assert_int_eq(window_ring_append(p.ring, &win), 0);
		monitor_cpu_read(c, &p.want);
		ck_assert_uint_le(p.want.sum_ns, MONITOR_COUNTER_MAX);
		saturated += p.want.sum_ns == MONITOR_COUNTER_MAX;
		ck_assert_int_eq(state_writer_open(&w, path, header, RESULT_LAYOUT_COMPACT), 0);
		ck_assert_int_eq(state_writer_cpu(w, &cpu), 0);
		ck_assert_int_eq(state_writer_close(w), 0);
		json_decref(header);
		ck_assert_int_eq(
			state_read(path, header_any, same_as_written, &p, why, sizeof(why)),
			STATE_CONTINUED);
		ck_assert_uint_eq(p.cpus, 1);
		free(p.want.counts);
		window_ring_free(p.ring);
		free(c);
	}
	ck_assert_uint_gt(saturated, 10);
	remove_tmpdir();
}
END_TEST

START_TEST(audit_reports_the_failing_rules)
{
	struct sysroot *root = sysroot_new(FIXTURE("check-rt-box"));
	struct monitor_audit *audit = monitor_audit_start(root, NULL, 3600 * SEC, NULL);
	struct metrics_rule *rules;
	unsigned int nr, i;
	json_t *doc;

	ck_assert_ptr_nonnull(audit);
	monitor_audit_wait_first(audit);
	ck_assert_int_eq(monitor_audit_failed(audit, &rules, &nr), 0);
	doc = monitor_audit_json(audit);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "failed")), nr);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "rt_cpus")), "2-7");
	for (i = 0; i < nr; i++) {
		ck_assert(rules[i].id[0]);
		ck_assert(!strcmp(rules[i].severity, "fatal") ||
			  !strcmp(rules[i].severity, "high") ||
			  !strcmp(rules[i].severity, "medium") ||
			  !strcmp(rules[i].severity, "low") || !strcmp(rules[i].severity, "info"));
	}
	free(rules);
	json_decref(doc);
	/* the thread ends at once, in the middle of its hour */
	monitor_audit_free(audit);
	sysroot_free(root);
}
END_TEST

START_TEST(systemd_hears_ready_and_stopping)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char message[256];
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	/* without $NOTIFY_SOCKET: nothing, and no error */
	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(monitor_notify_ready("measuring"), 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "/tmp/latscope-notify-%d", (int)getpid());
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	setenv("NOTIFY_SOCKET", addr.sun_path, 1);
	ck_assert_int_eq(monitor_notify_ready("measuring cpus 2-3"), 0);
	n = recv(fd, message, sizeof(message) - 1, 0);
	ck_assert_int_gt(n, 0);
	message[n] = '\0';
	ck_assert_str_eq(message, "READY=1\nSTATUS=measuring cpus 2-3");
	ck_assert_int_eq(monitor_notify_stopping(), 0);
	n = recv(fd, message, sizeof(message) - 1, 0);
	message[n > 0 ? n : 0] = '\0';
	ck_assert_str_eq(message, "STOPPING=1");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(addr.sun_path);
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
	tcase_add_test(ring, window_ring_copy_is_the_same_windows);
	tcase_add_test(ring, window_ring_empty_and_small);
	tcase_add_test(ring, window_ring_blocks_are_known_by_their_serials);
	tcase_add_test(ring, window_text_kept_is_the_text_made_anew);
	TCase *state = tcase_create("state");

	tcase_set_timeout(state, 60);
	tcase_add_test(state, state_round_trip);
	tcase_add_test(state, state_layouts_are_result_write_layouts);
	tcase_add_test(state, truncated_state_is_corrupt);
	tcase_add_test(state, monitor_continues_a_matching_state);
	tcase_add_test(state, monitor_keeps_other_states_aside);
	tcase_add_test(state, one_monitor_per_state);
	tcase_add_test(state, impossible_values_are_refused);
	tcase_add_test(state, what_is_written_reads_back);
	tcase_add_test(state, monitor_writes_its_result_elsewhere);
	tcase_add_test(state, audit_reports_the_failing_rules);
	tcase_add_test(state, systemd_hears_ready_and_stopping);
	suite_add_tcase(suite, cpu);
	suite_add_tcase(suite, ring);
	suite_add_tcase(suite, state);
	return unit_run(suite);
}
