// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/blocks_text.h"
#include "latscope/hist.h"
#include "latscope/monitor_blocks.h"
#include "latscope/monitor_state.h"
#include "unit.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
/* a wall-clock time 50 ms into a 100 ms block */
#define T0 (1790000000ULL * SEC + 50 * MS)

/* one CPU measured by the monitor's own accounting, read as the housekeeper reads it */
struct measured {
	struct monitor_cpu *cpu;
	struct monitor_cpu_reading reading;
	uint64_t expiry;
};

static void measured_init(struct measured *m)
{
	m->cpu = calloc(1, sizeof(*m->cpu));
	m->reading.counts = calloc(NATIVE_SLOTS, sizeof(uint64_t));
	ck_assert_ptr_nonnull(m->cpu);
	ck_assert_ptr_nonnull(m->reading.counts);
	monitor_cpu_init(m->cpu, 1, 300 * SEC);
	m->expiry = SEC;
}

static void measured_free(struct measured *m)
{
	free(m->cpu);
	free(m->reading.counts);
}

/* @n wake-ups of latencies spread over several octaves, then a reading */
static void wake(struct measured *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t latency = 2000 + (uint64_t)(i * 7919 % 97) * 1000;
		struct timer_spike s = { .expiry_ns = m->expiry,
					 .wakeup_ns = m->expiry + latency,
					 .latency_ns = latency };

		monitor_cpu_add(m->cpu, &s, 0);
		m->expiry += MS;
	}
	monitor_cpu_read(m->cpu, &m->reading);
}

/* a run begun at T0 that read @blocks blocks of @per wake-ups, at each block's end */
static void measure_blocks(struct monitor_blocks *b, struct measured *m, unsigned int blocks,
			   unsigned int per)
{
	unsigned int i;

	measured_init(m);
	monitor_blocks_init(b);
	monitor_blocks_begin(b, &m->reading, T0);
	for (i = 1; i <= blocks; i++) {
		wake(m, per);
		ck_assert_int_eq(monitor_blocks_fold(b, &m->reading, T0 + i * 100 * MS), 0);
	}
}

static uint64_t block_count(const struct monitor_blocks *b, unsigned int i)
{
	return i < b->store.nr ? b->store.blocks[i].count : 0;
}

/* @text's blocks as jansson lays out time_blocks_json()'s "histograms", compact. */
static void assert_blocks_text_is(const struct blocks_text *text, const struct time_blocks *tb)
{
	json_t *doc = time_blocks_json(tb, 0);
	char *want = json_dumps(json_object_get(doc, "histograms"), JSON_COMPACT), *got = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&got, &size);

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(f);
	blocks_text_put(text, f);
	fclose(f);
	ck_assert_msg(!strcmp(got, want), "%.300s, want %.300s", got, want);
	free(got);
	free(want);
	json_decref(doc);
}

/*
 * The text kept from one update to the next is the blocks' as jansson
 * writes them, read from copies as a checkpoint reads them: blocks added
 * to in order, an older block added to again (a wall clock set back), an
 * empty block between two, the blocks halved when they outgrow 256, a
 * count removed; and a text of other blocks keeps nothing of them.
 */
START_TEST(blocks_text_kept_is_the_text_made_anew)
{
	struct time_blocks tb, copy, other;
	struct time_block_entry *entries = NULL, e[3];
	struct blocks_text *kept = blocks_text_new();
	unsigned int cap = 0, step;
	uint64_t index = 0;

	ck_assert_ptr_nonnull(kept);
	time_blocks_init(&tb, TIME_BLOCK_NS);
	time_blocks_init(&other, TIME_BLOCK_NS);
	tb.layout = other.layout = TIME_BLOCK_NATIVE_COARSE;
	for (step = 0; step < 40; step++) {
		unsigned int n;

		for (n = 0; n < 30; n++, index++) {
			e[0] = (struct time_block_entry){ .bucket = 3, .count = 1 + index % 7 };
			e[1] = (struct time_block_entry){ .bucket = 9 + index % 5, .count = 1000 };
			e[2] = (struct time_block_entry){ .bucket = 40, .count = 10 };
			/* every 11th block skipped: an empty block between two */
			if (index % 11 != 10)
				ck_assert_int_eq(time_blocks_add(&tb, index, e, 3), 0);
		}
		if (step % 5 == 4) {
			/* an older block again */
			ck_assert_int_eq(time_blocks_add(&tb, index / 2, e, 2), 0);
		}
		if (step % 7 == 6) {
			/* a count taken out of the last block, as noise does */
			e[0] = (struct time_block_entry){ .bucket = hist_bucket_of(5), .count = 2 };
			ck_assert_int_eq(time_blocks_add(&tb, index - 1, e, 1), 0);
			ck_assert_int_eq(blocks_text_update(kept, &tb), 0);
			ck_assert_int_eq(time_blocks_remove(&tb, index - 1, 5), 0);
		}
		ck_assert_int_eq(time_blocks_copy(&copy, &tb, &entries, &cap), 0);
		ck_assert_int_eq(blocks_text_update(kept, &copy), 0);
		assert_blocks_text_is(kept, &tb);
	}
	/* 1200 measured blocks: halved three times */
	ck_assert_uint_ge(tb.shift, 2);
	ck_assert_int_eq(time_blocks_add(&other, 0, e, 3), 0);
	ck_assert_int_eq(blocks_text_update(kept, &other), 0);
	assert_blocks_text_is(kept, &other);
	ck_assert_int_eq(blocks_text_update(kept, &tb), 0);
	assert_blocks_text_is(kept, &tb);
	blocks_text_free(kept);
	free(entries);
	time_blocks_release(&tb);
	time_blocks_release(&other);
}
END_TEST

/* Readings at each block's end: each block holds what came in it, and they add up. */
START_TEST(readings_fill_their_blocks)
{
	struct monitor_blocks b;
	struct measured m;

	measured_init(&m);
	monitor_blocks_init(&b);
	monitor_blocks_begin(&b, &m.reading, T0);
	ck_assert_uint_eq(b.start_ns, T0 - 50 * MS);
	ck_assert_uint_eq(monitor_blocks_next_end(&b, T0), T0 + 50 * MS);
	wake(&m, 40);
	ck_assert_int_eq(monitor_blocks_fold(&b, &m.reading, T0 + 52 * MS), 0);
	wake(&m, 100);
	ck_assert_int_eq(monitor_blocks_fold(&b, &m.reading, T0 + 151 * MS), 0);
	/* a checkpoint inside a block, then its end */
	wake(&m, 30);
	ck_assert_int_eq(monitor_blocks_fold(&b, &m.reading, T0 + 180 * MS), 0);
	wake(&m, 70);
	ck_assert_int_eq(monitor_blocks_fold(&b, &m.reading, T0 + 250 * MS), 0);
	ck_assert_uint_eq(b.store.nr, 3);
	ck_assert_uint_eq(block_count(&b, 0), 40);
	ck_assert_uint_eq(block_count(&b, 1), 100);
	ck_assert_uint_eq(block_count(&b, 2), 100);
	ck_assert(monitor_blocks_add_up(&b, &m.reading));
	/* one wake-up more than the blocks hold: they no longer add up */
	wake(&m, 1);
	ck_assert(!monitor_blocks_add_up(&b, &m.reading));
	monitor_blocks_release(&b);
	measured_free(&m);
}
END_TEST

/* Weeks of blocks: neighbours merge, the length doubles, the sum stays whole. */
START_TEST(merging_keeps_every_count)
{
	struct monitor_blocks b;
	struct measured m;

	measure_blocks(&b, &m, 1000, 3);
	ck_assert_uint_le(b.store.nr, TIME_BLOCKS_MAX);
	ck_assert_uint_eq(time_blocks_length(&b.store), 400 * MS);
	ck_assert(monitor_blocks_add_up(&b, &m.reading));
	ck_assert_uint_eq(b.store.lost, 0);
	monitor_blocks_release(&b);
	measured_free(&m);
}
END_TEST

/* the state of one CPU written to @path with @blocks (NULL: none, as before blocks) */
static void write_state(const char *path, struct measured *m, const struct monitor_blocks *blocks)
{
	struct window_ring *ring = window_ring_new(10);
	json_t *header = json_pack("{ssss}", "schema", "latscope/3", "command", "monitor");
	struct state_cpu cpu = { .cpu = 1,
				 .reading = &m->reading,
				 .window_ns = 300 * SEC,
				 .windows = ring,
				 .blocks = blocks };
	struct state_writer *w;

	ck_assert_ptr_nonnull(ring);
	ck_assert_int_eq(state_writer_open(&w, path, header, RESULT_LAYOUT_COMPACT), 0);
	ck_assert_int_eq(state_writer_cpu(w, &cpu), 0);
	ck_assert_int_eq(state_writer_close(w), 0);
	json_decref(header);
	window_ring_free(ring);
}

struct read_back {
	struct monitor_blocks blocks;
	struct monitor_cpu_reading reading;
};

static int accept_header(void *context, json_t *header, char *why, size_t size)
{
	(void)context, (void)header, (void)why, (void)size;
	return 0;
}

static int take_cpu(void *context, struct jsondoc *doc, json_t *object, char *why, size_t size)
{
	struct read_back *r = context;
	struct window_ring *ring = window_ring_new(10);
	struct monitor_explained x;
	int ret;

	ret = state_cpu_parse(doc, object, &r->reading, ring, 300 * SEC, &x, &r->blocks, why, size);
	window_ring_free(ring);
	return ret;
}

static int read_state(const char *path, struct read_back *r, char *why, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->reading.counts = calloc(NATIVE_SLOTS, sizeof(uint64_t));
	ck_assert_ptr_nonnull(r->reading.counts);
	return state_read(path, accept_header, take_cpu, r, why, size);
}

static void read_back_free(struct read_back *r)
{
	monitor_blocks_release(&r->blocks);
	free(r->reading.counts);
}

/*
 * A restart: the blocks read back from the state go on where they were,
 * the time the monitor was down as empty blocks, and still add up.
 */
START_TEST(restart_continues_after_empty_blocks)
{
	char path[] = "/tmp/latscope-test-blocks-XXXXXX", why[256] = "";
	struct monitor_blocks b;
	struct read_back r;
	struct measured m;
	unsigned int i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	measure_blocks(&b, &m, 5, 50);
	write_state(path, &m, &b);

	/* down for 2 s, then the next run reads the state and measures on */
	ck_assert_int_eq(read_state(path, &r, why, sizeof(why)), STATE_CONTINUED);
	ck_assert_uint_eq(r.blocks.start_ns, b.start_ns);
	ck_assert_uint_eq(r.blocks.store.nr, b.store.nr);
	ck_assert(monitor_blocks_add_up(&r.blocks, &r.reading));
	monitor_blocks_begin(&r.blocks, &r.reading, T0 + 2500 * MS);
	for (i = 1; i <= 3; i++) {
		wake(&m, 50);
		ck_assert_int_eq(
			monitor_blocks_fold(&r.blocks, &m.reading, T0 + 2550 * MS + i * 100 * MS),
			0);
	}
	ck_assert(monitor_blocks_add_up(&r.blocks, &m.reading));
	/* blocks 1-5 the first run's (it began in block 0), 6-25 down, then the second run's */
	for (i = 0; i < r.blocks.store.nr; i++)
		ck_assert_uint_eq(block_count(&r.blocks, i) != 0, (i >= 1 && i <= 5) || i >= 26);
	ck_assert_uint_eq(r.blocks.store.nr, 29);
	write_state(path, &m, &r.blocks);
	read_back_free(&r);

	ck_assert_int_eq(read_state(path, &r, why, sizeof(why)), STATE_CONTINUED);
	ck_assert_uint_eq(r.blocks.store.nr, 29);
	ck_assert_uint_eq(r.blocks.store.lost, 0);
	read_back_free(&r);
	monitor_blocks_release(&b);
	measured_free(&m);
	unlink(path);
}
END_TEST

/*
 * A state written before blocks still loads: its history is in no block,
 * which the blocks say (lost) so that import leaves them out; blocks that
 * do not add up are refused as corrupt.
 */
START_TEST(old_state_loads_and_wrong_blocks_are_refused)
{
	char path[] = "/tmp/latscope-test-blocks-XXXXXX", why[256] = "", text[65536];
	struct monitor_blocks b;
	struct read_back r;
	struct measured m;
	char *at;
	FILE *f;
	size_t n;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	measured_init(&m);
	wake(&m, 20);
	write_state(path, &m, NULL);
	ck_assert_int_eq(read_state(path, &r, why, sizeof(why)), STATE_CONTINUED);
	ck_assert_uint_eq(r.blocks.store.nr, 0);
	ck_assert_uint_eq(r.blocks.store.lost, 1);
	read_back_free(&r);

	/* blocks from the first wake-up on, as a new state has them */
	monitor_blocks_init(&b);
	monitor_blocks_begin(&b, &(struct monitor_cpu_reading){ 0 }, T0);
	wake(&m, 20);
	ck_assert_int_eq(monitor_blocks_fold(&b, &m.reading, T0 + 60 * MS), 0);
	ck_assert(monitor_blocks_add_up(&b, &m.reading));
	write_state(path, &m, &b);
	/* one count of the one block made larger */
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, "\"histograms\":[[");
	ck_assert_ptr_nonnull(at);
	at = strchr(at + strlen("\"histograms\":[["), ',');
	memmove(at + 2, at + 1, strlen(at + 1) + 1);
	at[1] = '9';
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(read_state(path, &r, why, sizeof(why)), STATE_CORRUPT);
	ck_assert_ptr_nonnull(strstr(why, "do not add up"));
	read_back_free(&r);
	monitor_blocks_release(&b);
	measured_free(&m);
	unlink(path);
}
END_TEST

static Suite *monitor_blocks_suite(void)
{
	Suite *s = suite_create("monitor_blocks");
	TCase *tc = tcase_create("monitor_blocks");

	tcase_add_test(tc, readings_fill_their_blocks);
	tcase_add_test(tc, merging_keeps_every_count);
	tcase_add_test(tc, restart_continues_after_empty_blocks);
	tcase_add_test(tc, old_state_loads_and_wrong_blocks_are_refused);
	tcase_add_test(tc, blocks_text_kept_is_the_text_made_anew);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(monitor_blocks_suite());
}
