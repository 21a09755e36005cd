// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/time_blocks.h"
#include "unit.h"

/* A builder with its memory and a ring of @capacity chunks, as a thread has them. */
struct producer {
	struct time_block_builder builder;
	void *memory;
	struct record_ring ring;
	struct time_block_chunk *slots;
};

static void producer_init(struct producer *p, size_t capacity, uint64_t length)
{
	p->memory = calloc(1, time_block_builder_bytes());
	p->slots = calloc(capacity, sizeof(*p->slots));
	ck_assert_ptr_nonnull(p->memory);
	ck_assert_ptr_nonnull(p->slots);
	time_block_builder_init(&p->builder, p->memory, length);
	ck_assert_int_eq(record_ring_init(&p->ring, p->slots, capacity, sizeof(*p->slots)), 0);
}

static void producer_free(struct producer *p)
{
	free(p->memory);
	free(p->slots);
}

/* a sample at time @at (in the builder's unit) of @ns */
static void sample(struct producer *p, uint64_t at, uint64_t ns)
{
	time_block_builder_at(&p->builder, &p->ring, at);
	time_block_builder_add(&p->builder, ns);
}

static uint64_t count_in(const struct time_block *b, uint64_t ns)
{
	unsigned int bucket = ns <= HIST_MAX_NS ? hist_bucket_of(ns) : TIME_BLOCK_OVERFLOW, i;

	for (i = 0; i < b->nr; i++)
		if (b->entries[i].bucket == bucket)
			return b->entries[i].count;
	return 0;
}

static void assert_ascending(const struct time_block *b)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		if (i)
			ck_assert_uint_lt(b->entries[i - 1].bucket, b->entries[i].bucket);
		ck_assert_uint_gt(b->entries[i].count, 0);
		sum += b->entries[i].count;
	}
	ck_assert_uint_eq(sum, b->count);
}

/* Samples land in the block of their time; a block with none stays empty. */
START_TEST(samples_go_to_their_block)
{
	struct producer p;
	struct time_blocks tb;

	producer_init(&p, 64, 100);
	time_blocks_init(&tb, 100);
	time_block_builder_start(&p.builder, 1000);
	sample(&p, 1000, 5000);
	sample(&p, 1099, 5000);
	sample(&p, 1099, 70000);
	sample(&p, 1100, 5000); /* block 1 */
	sample(&p, 1350, 20000000000ULL); /* block 3, overflow; block 2 has none */
	time_block_builder_flush(&p.builder, &p.ring);
	ck_assert_int_eq(time_blocks_take(&tb, &p.ring), 0);
	ck_assert_uint_eq(tb.nr, 4);
	ck_assert_uint_eq(tb.blocks[0].count, 3);
	ck_assert_uint_eq(count_in(&tb.blocks[0], 5000), 2);
	ck_assert_uint_eq(count_in(&tb.blocks[0], 70000), 1);
	ck_assert_uint_eq(tb.blocks[1].count, 1);
	ck_assert_uint_eq(tb.blocks[2].count, 0);
	ck_assert_uint_eq(count_in(&tb.blocks[3], 20000000000ULL), 1);
	ck_assert_uint_eq(tb.blocks[3].entries[0].bucket, TIME_BLOCK_OVERFLOW);
	ck_assert_uint_eq(tb.lost, 0);
	assert_ascending(&tb.blocks[0]);
	time_blocks_release(&tb);
	producer_free(&p);
}
END_TEST

/* A block of many buckets travels in several chunks and arrives whole. */
START_TEST(wide_block_in_chunks)
{
	struct producer p;
	struct time_blocks tb;
	uint64_t ns;

	producer_init(&p, 256, 1000);
	time_blocks_init(&tb, 1000);
	time_block_builder_start(&p.builder, 0);
	for (ns = 1; ns <= 100; ns++)
		sample(&p, 10, ns * 7);
	time_block_builder_flush(&p.builder, &p.ring);
	/* taken in two goes: a block half in the ring waits for the rest */
	ck_assert_int_eq(time_blocks_take(&tb, &p.ring), 0);
	ck_assert_uint_eq(tb.nr, 1);
	ck_assert_uint_eq(tb.blocks[0].count, 100);
	ck_assert_uint_eq(tb.blocks[0].nr, 100);
	assert_ascending(&tb.blocks[0]);
	time_blocks_release(&tb);
	producer_free(&p);
}
END_TEST

/* A ring without room for all of a block's chunks takes none of them. */
START_TEST(full_ring_loses_whole_blocks)
{
	struct producer p;
	struct time_blocks tb;
	uint64_t ns, lost;

	producer_init(&p, 4, 100);
	time_blocks_init(&tb, 100);
	time_block_builder_start(&p.builder, 0);
	for (ns = 1; ns <= 21; ns++) /* three chunks */
		sample(&p, 0, ns);
	sample(&p, 100, 1); /* block 0 handed over: 3 of 4 slots */
	for (ns = 1; ns <= 14; ns++) /* two chunks: no room */
		sample(&p, 150, ns);
	sample(&p, 200, 1);
	lost = __atomic_load_n(&p.builder.lost, __ATOMIC_RELAXED);
	ck_assert_uint_eq(lost, 1);
	ck_assert_int_eq(time_blocks_take(&tb, &p.ring), 0);
	time_block_builder_flush(&p.builder, &p.ring);
	ck_assert_int_eq(time_blocks_take(&tb, &p.ring), 0);
	ck_assert_uint_eq(tb.blocks[0].count, 21);
	ck_assert_uint_eq(tb.blocks[1].count, 0);
	ck_assert_uint_eq(tb.blocks[2].count, 1);
	ck_assert_uint_eq(tb.nr, 3);
	time_blocks_release(&tb);
	producer_free(&p);
}
END_TEST

/*
 * A run that outgrows TIME_BLOCKS_MAX merges adjacent blocks: the block
 * length doubles and every count stays, in the block that covers its time.
 */
START_TEST(merging_doubles_the_length)
{
	struct time_blocks tb;
	struct time_block_entry e[2];
	uint64_t i, total = 0;
	unsigned int k;

	time_blocks_init(&tb, 10);
	for (i = 0; i < 1000; i++) {
		e[0] = (struct time_block_entry){ (uint32_t)(i % 7), 1 };
		e[1] = (struct time_block_entry){ 100, i + 1 };
		ck_assert_int_eq(time_blocks_add(&tb, i, e, 2), 0);
		total += i + 2;
	}
	/* 1000 blocks of 10: two merges make 250 blocks of 40 */
	ck_assert_uint_eq(tb.shift, 2);
	ck_assert_uint_eq(time_blocks_length(&tb), 40);
	ck_assert_uint_eq(tb.nr, 250);
	for (i = 0, k = 0; k < tb.nr; k++) {
		assert_ascending(&tb.blocks[k]);
		i += tb.blocks[k].count;
	}
	ck_assert_uint_eq(i, total);
	/* block 3 holds measured blocks 12..15: bucket 100 counts 13+14+15+16 */
	ck_assert_uint_eq(tb.blocks[3].entries[tb.blocks[3].nr - 1].bucket, 100);
	ck_assert_uint_eq(tb.blocks[3].entries[tb.blocks[3].nr - 1].count, 13 + 14 + 15 + 16);
	for (k = tb.nr; k < TIME_BLOCKS_MAX; k++)
		ck_assert_uint_eq(tb.blocks[k].count, 0);
	time_blocks_release(&tb);
}
END_TEST

/*
 * A copy has every stored block's entries, in one buffer kept for the next
 * copy; the store going on (a merge frees and remakes its blocks) leaves
 * the copy as it was.
 */
START_TEST(copy_is_the_same_blocks)
{
	struct time_blocks tb, copy;
	struct time_block_entry e[2], *entries = NULL;
	unsigned int cap = 0, k, i;
	uint64_t index;

	time_blocks_init(&tb, 10);
	for (index = 0; index < 200; index++) {
		e[0] = (struct time_block_entry){ (uint32_t)(index % 5), 1 };
		e[1] = (struct time_block_entry){ 100, index + 1 };
		ck_assert_int_eq(time_blocks_add(&tb, index, e, 2), 0);
	}
	ck_assert_int_eq(time_blocks_copy(&copy, &tb, &entries, &cap), 0);
	ck_assert_ptr_nonnull(entries);
	ck_assert_uint_eq(copy.nr, tb.nr);
	ck_assert_uint_eq(copy.shift, tb.shift);
	ck_assert_uint_eq(time_blocks_length(&copy), time_blocks_length(&tb));
	for (k = 0; k < tb.nr; k++) {
		ck_assert_uint_eq(copy.blocks[k].nr, tb.blocks[k].nr);
		ck_assert_uint_eq(copy.blocks[k].count, tb.blocks[k].count);
		ck_assert_ptr_ne(copy.blocks[k].entries, tb.blocks[k].entries);
		for (i = 0; i < tb.blocks[k].nr; i++) {
			ck_assert_uint_eq(copy.blocks[k].entries[i].bucket,
					  tb.blocks[k].entries[i].bucket);
			ck_assert_uint_eq(copy.blocks[k].entries[i].count,
					  tb.blocks[k].entries[i].count);
		}
	}
	/* past TIME_BLOCKS_MAX the store merges: the copy keeps its own */
	for (; index < 600; index++) {
		e[0] = (struct time_block_entry){ 100, 1 };
		ck_assert_int_eq(time_blocks_add(&tb, index, e, 1), 0);
	}
	ck_assert_uint_eq(copy.shift, 0);
	ck_assert_uint_eq(copy.blocks[0].entries[copy.blocks[0].nr - 1].count, 1);
	/* copied again into the same buffer, the merged store's */
	ck_assert_int_eq(time_blocks_copy(&copy, &tb, &entries, &cap), 0);
	ck_assert_uint_eq(copy.shift, tb.shift);
	for (k = 0; k < tb.nr; k++)
		ck_assert_uint_eq(copy.blocks[k].count, tb.blocks[k].count);
	free(entries);
	time_blocks_release(&tb);
}
END_TEST

/* A block that holds no count (none measured in it) has no entry array: copied as such. */
START_TEST(copy_of_a_block_without_entries)
{
	struct time_blocks tb, copy;
	struct time_block_entry e = { 7, 1 }, *entries = NULL;
	unsigned int cap = 0;

	time_blocks_init(&tb, 10);
	ck_assert_int_eq(time_blocks_add(&tb, 0, &e, 0), 0);
	ck_assert_int_eq(time_blocks_add(&tb, 1, &e, 1), 0);
	ck_assert_int_eq(time_blocks_copy(&copy, &tb, &entries, &cap), 0);
	ck_assert_uint_eq(copy.nr, tb.nr);
	ck_assert_uint_eq(time_blocks_length(&copy), time_blocks_length(&tb));
	free(entries);
	time_blocks_release(&tb);
}
END_TEST

/* Counts added to a block twice (an index seen again) add up. */
START_TEST(same_block_twice_adds)
{
	struct time_blocks tb;
	struct time_block_entry a[2] = { { 9, 2 }, { 3, 1 } }, b[2] = { { 3, 4 }, { 5, 1 } };

	time_blocks_init(&tb, 10);
	ck_assert_int_eq(time_blocks_add(&tb, 2, a, 2), 0);
	ck_assert_int_eq(time_blocks_add(&tb, 2, b, 2), 0);
	ck_assert_uint_eq(tb.nr, 3);
	ck_assert_uint_eq(tb.blocks[2].nr, 3);
	ck_assert_uint_eq(tb.blocks[2].entries[0].bucket, 3);
	ck_assert_uint_eq(tb.blocks[2].entries[0].count, 5);
	ck_assert_uint_eq(tb.blocks[2].count, 8);
	time_blocks_release(&tb);
}
END_TEST

/* A value taken back leaves its block; one never counted says the store no longer matches. */
START_TEST(remove_takes_a_value_back)
{
	struct time_blocks tb;
	struct time_block_entry e[2] = { { 0, 0 }, { 0, 0 } };

	e[0] = (struct time_block_entry){ hist_bucket_of(950000000), 1 };
	e[1] = (struct time_block_entry){ hist_bucket_of(3000), 2 };
	time_blocks_init(&tb, 10);
	ck_assert_int_eq(time_blocks_add(&tb, 3, e, 2), 0);
	ck_assert_int_eq(time_blocks_remove(&tb, 3, 950000000), 0);
	ck_assert_uint_eq(tb.blocks[3].nr, 1);
	ck_assert_uint_eq(tb.blocks[3].count, 2);
	ck_assert_int_eq(time_blocks_remove(&tb, 3, 3000), 0);
	ck_assert_uint_eq(tb.blocks[3].count, 1);
	ck_assert_uint_eq(tb.lost, 0);
	ck_assert_int_eq(time_blocks_remove(&tb, 2, 3000), -ENOENT);
	ck_assert_int_eq(time_blocks_remove(&tb, 900, 3000), -ENOENT);
	ck_assert_uint_eq(tb.lost, 2);
	time_blocks_release(&tb);
}
END_TEST

START_TEST(json_round_trip)
{
	struct time_blocks tb, back;
	struct time_block_entry e[3] = { { 300, 5 }, { 17, 2 }, { TIME_BLOCK_OVERFLOW, 1 } };
	char why[200];
	json_t *o;
	char *text;
	unsigned int i;

	time_blocks_init(&tb, TIME_BLOCK_NS);
	ck_assert_int_eq(time_blocks_add(&tb, 0, e, 2), 0);
	ck_assert_int_eq(time_blocks_add(&tb, 4, e, 3), 0);
	o = time_blocks_json(&tb, 2);
	text = json_dumps(o, JSON_COMPACT);
	ck_assert_str_eq(text, "{\"block_ns\":100000000,\"buckets\":\"log-linear\",\"histograms\":"
			       "[[17,2,300,5],[],[],[],[17,2,300,5,3584,1]],\"lost\":2}");
	ck_assert_int_eq(time_blocks_from_json(NULL, o, &back, why, sizeof(why)), 0);
	ck_assert_uint_eq(back.nr, 5);
	ck_assert_uint_eq(back.lost, 2);
	ck_assert_uint_eq(time_blocks_length(&back), TIME_BLOCK_NS);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_eq(back.blocks[i].count, tb.blocks[i].count);
		ck_assert_uint_eq(back.blocks[i].nr, tb.blocks[i].nr);
	}
	free(text);
	json_decref(o);
	time_blocks_release(&back);
	time_blocks_release(&tb);
}
END_TEST

static void assert_refused(const char *text, const char *reason_part)
{
	struct time_blocks tb;
	json_t *o = json_loads(text, 0, NULL);
	char why[200] = "";

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(time_blocks_from_json(NULL, o, &tb, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, reason_part), "'%s' lacks '%s'", why, reason_part);
	time_blocks_release(&tb);
	json_decref(o);
}

START_TEST(malformed_json_refused)
{
	assert_refused("{\"block_ns\":0,\"buckets\":\"log-linear\",\"histograms\":[]}", "block_ns");
	assert_refused("{\"block_ns\":10,\"buckets\":\"us\",\"histograms\":[]}", "layout");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":[[1]]}",
		       "pairs");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":[[5,1,5,1]]}",
		       "out of order");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":[[3585,1]]}",
		       "beyond");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":[[5,0]]}",
		       "count of 0");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":"
		       "[[1,9223372036854775807,2,9223372036854775807,3,9223372036854775807]]}",
		       "overflow");
	assert_refused("{\"block_ns\":10,\"buckets\":\"log-linear\",\"histograms\":[[1,1]],"
		       "\"lost\":-1}",
		       "lost");
}
END_TEST

static Suite *time_blocks_suite(void)
{
	Suite *s = suite_create("time_blocks");
	TCase *tc = tcase_create("time_blocks");

	tcase_add_test(tc, samples_go_to_their_block);
	tcase_add_test(tc, wide_block_in_chunks);
	tcase_add_test(tc, full_ring_loses_whole_blocks);
	tcase_add_test(tc, merging_doubles_the_length);
	tcase_add_test(tc, copy_is_the_same_blocks);
	tcase_add_test(tc, copy_of_a_block_without_entries);
	tcase_add_test(tc, same_block_twice_adds);
	tcase_add_test(tc, remove_takes_a_value_back);
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, malformed_json_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(time_blocks_suite());
}
