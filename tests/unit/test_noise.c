// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/noise.h"
#include "latscope/noise_result.h"
#include "unit.h"

/* A run of one CPU as a measuring thread leaves it, without the thread. */
static struct noise_run run;
static struct noise_cpu *cpu;
static struct noise_gap *records;
static struct noise_block *block_records;

#define RING 256
/* the tests' clock: a block is 1000 ticks */
#define BLOCK 1000

static void setup(void)
{
	memset(&run, 0, sizeof(run));
	cpu = aligned_alloc(64, sizeof(*cpu));
	memset(cpu, 0, sizeof(*cpu));
	records = malloc(RING * sizeof(*records));
	run.nr_cpus = 1;
	run.cpus = cpu;
	run.params.max_gaps = 1000;
	cpu->cpu = 1;
	cpu->run = &run;
	record_ring_init(&cpu->ring, records, RING, sizeof(*records));
	block_records = malloc(NOISE_BLOCK_RING * sizeof(*block_records));
	record_ring_init(&cpu->block_ring, block_records, NOISE_BLOCK_RING, sizeof(*block_records));
	run.block_ticks = BLOCK;
}

static void teardown(void)
{
	free(cpu->gaps);
	free(cpu->blocks);
	free(cpu->throttled);
	free(cpu->hist);
	free(cpu);
	free(records);
	free(block_records);
}

/* What the thread does when a block ends. */
static void block(uint64_t index, uint64_t max_ns, uint64_t below_ns)
{
	struct noise_block b = { index, max_ns, below_ns };

	record_ring_push(&cpu->block_ring, &b);
}

/* The block maxima of the CPU's JSON entry, as the document holds them. */
static json_t *block_maxima_json(void)
{
	json_t *cpus, *maxima;

	cpu->hist = calloc(1, sizeof(*cpu->hist));
	hist_init(cpu->hist);
	cpus = noise_result_cpus(&run);
	maxima = json_incref(json_object_get(json_array_get(cpus, 0), "block_maxima"));
	json_decref(cpus);
	ck_assert_ptr_nonnull(maxima);
	return maxima;
}

/* What the thread does for a gap: push, then publish its stamp. */
static void gap(uint64_t stamp, uint64_t ns)
{
	struct noise_gap g = { stamp, ns };

	record_ring_push(&cpu->ring, &g);
	cpu->gap_count++;
	cpu->live.stamp = stamp + ns;
}

START_TEST(drained_gaps_are_stored_in_order)
{
	uint64_t i;

	for (i = 0; i < 200; i++)
		gap(1000 * i, 10 + i);
	ck_assert_uint_le(noise_drain(&run), NOISE_DRAIN_EVERY_NS);
	ck_assert_uint_eq(cpu->nr_gaps, 200);
	ck_assert_uint_eq(cpu->drained_stamp, 1000 * 199 + 10 + 199);
	for (i = 200; i < 400; i++)
		gap(1000 * i, 10 + i);
	noise_drain(&run);
	ck_assert_uint_eq(cpu->nr_gaps, 400);
	for (i = 0; i < 400; i++) {
		ck_assert_uint_eq(cpu->gaps[i].stamp, 1000 * i);
		ck_assert_uint_eq(cpu->gaps[i].duration_ns, 10 + i);
	}
	ck_assert_uint_eq(cpu->gaps_not_stored, 0);
}
END_TEST

/* More gaps than the ring holds between two drains: the excess is counted. */
START_TEST(outrun_drain_is_counted)
{
	uint64_t i;

	for (i = 0; i < RING + 44; i++)
		gap(1000 * i, 5);
	noise_drain(&run);
	ck_assert_uint_eq(cpu->nr_gaps, RING);
	ck_assert_uint_eq(cpu->gaps_outran, 44);
	ck_assert_uint_eq(cpu->gaps_over_cap, 0);
	ck_assert_uint_eq(cpu->gaps_not_stored, 44);
	ck_assert_uint_eq(cpu->nr_gaps + cpu->gaps_not_stored, cpu->gap_count);
	/* a drain that came soon enough to the next burst loses nothing */
	for (i = 0; i < RING; i++)
		gap(1000000 + 1000 * i, 5);
	noise_drain(&run);
	ck_assert_uint_eq(cpu->nr_gaps, 2 * RING);
	ck_assert_uint_eq(cpu->gaps_not_stored, 44);
}
END_TEST

/* Storage grows up to max_gaps; later gaps are counted with when it began. */
START_TEST(cap_is_counted_with_its_time)
{
	uint64_t i;

	for (i = 0; i < 1200; i++) {
		gap(1000 * (i + 1), 7);
		if (i % 100 == 99)
			noise_drain(&run);
	}
	ck_assert_uint_eq(cpu->nr_gaps, 1000);
	ck_assert_uint_eq(cpu->gaps_over_cap, 200);
	ck_assert_uint_eq(cpu->gaps_outran, 0);
	ck_assert_uint_eq(cpu->cap_stamp, 1000 * 1001);
	ck_assert_uint_eq(cpu->gaps[999].stamp, 1000 * 1000);
	ck_assert_uint_eq(cpu->nr_gaps + cpu->gaps_not_stored, cpu->gap_count);
}
END_TEST

/* Closed blocks reach storage in order; one without a slow delta is quiet. */
START_TEST(blocks_are_drained_in_order)
{
	json_t *maxima;

	block(0, 5000, 800);
	block(1, 0, 0);
	block(2, 7000, 900);
	noise_drain(&run);
	block(4, 6000, 0);
	noise_drain(&run);
	ck_assert_uint_eq(cpu->nr_blocks, 3);
	ck_assert_uint_eq(cpu->blocks[0].index, 0);
	ck_assert_uint_eq(cpu->blocks[1].max_ns, 7000);
	ck_assert_uint_eq(cpu->blocks[2].index, 4);
	ck_assert_uint_eq(cpu->blocks_quiet, 1);
	maxima = block_maxima_json();
	ck_assert_int_eq(json_integer_value(json_object_get(maxima, "block_ns")),
			 (json_int_t)NOISE_BLOCK_NS);
	ck_assert_uint_eq(json_array_size(json_object_get(maxima, "max_ns")), 3);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(maxima, "max_ns"), 2)),
			 6000);
	ck_assert_int_eq(json_integer_value(json_object_get(maxima, "quiet")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(maxima, "lost")), 0);
	json_decref(maxima);
}
END_TEST

/* A thread that outran the drain loses the blocks the ring had no room for. */
START_TEST(blocks_that_outran_the_drain_are_lost)
{
	json_t *maxima;
	uint64_t i;

	for (i = 0; i < NOISE_BLOCK_RING + 3; i++)
		block(i, 1000 + i, 0);
	noise_drain(&run);
	ck_assert_uint_eq(cpu->nr_blocks, NOISE_BLOCK_RING);
	ck_assert_uint_eq(cpu->blocks[NOISE_BLOCK_RING - 1].max_ns, 1000 + NOISE_BLOCK_RING - 1);
	maxima = block_maxima_json();
	ck_assert_int_eq(json_integer_value(json_object_get(maxima, "lost")), 3);
	json_decref(maxima);
}
END_TEST

/*
 * FIFO with the RT limit active: the throttle (here 50 ms) is no noise, so a
 * block whose maximum it was takes its largest other delta.
 */
START_TEST(throttled_blocks_take_their_largest_other_delta)
{
	struct rt_throttling limit = { 950000, 1000000 };
	const uint64_t throttle = 50000000;

	run.params.policy = RT_POLICY_FIFO;
	cpu->hist = calloc(1, sizeof(*cpu->hist));
	hist_init(cpu->hist);
	cpu->first_stamp = 100;
	/* block 0: a 3 us gap and the throttle; block 1: the throttle alone,
	 * nothing below the threshold on the slow path; block 2: the throttle and
	 * 900 ns below the threshold; block 3: noise larger than any throttle */
	gap(100 + 10, 3000);
	gap(100 + 500, throttle);
	block(0, throttle, 700);
	gap(100 + BLOCK + 20, throttle);
	block(1, throttle, 0);
	gap(100 + 2 * BLOCK + 5, throttle);
	block(2, throttle, 900);
	gap(100 + 3 * BLOCK + 5, 2 * throttle);
	block(3, 2 * throttle, 0);
	noise_drain(&run);
	hist_add(cpu->hist, 3000);
	noise_classify_throttling(&run, &limit);
	ck_assert_uint_eq(cpu->throttled_count, 3);
	ck_assert_uint_eq(cpu->nr_blocks, 3);
	ck_assert_uint_eq(cpu->blocks[0].max_ns, 3000);
	ck_assert_uint_eq(cpu->blocks[1].index, 2);
	ck_assert_uint_eq(cpu->blocks[1].max_ns, 900);
	ck_assert_uint_eq(cpu->blocks[2].max_ns, 2 * throttle);
	ck_assert_uint_eq(cpu->blocks_quiet, 1);
	ck_assert_uint_eq(cpu->blocks_lost, 0);
}
END_TEST

/* Without every gap stored, the largest other delta of a throttled block is unknown. */
START_TEST(throttled_blocks_without_their_gaps_are_lost)
{
	struct rt_throttling limit = { 950000, 1000000 };
	const uint64_t throttle = 50000000;

	run.params.policy = RT_POLICY_FIFO;
	cpu->hist = calloc(1, sizeof(*cpu->hist));
	hist_init(cpu->hist);
	gap(10, throttle);
	block(0, throttle, 700);
	block(1, 4000, 700);
	noise_drain(&run);
	cpu->gaps_outran = cpu->gaps_not_stored = 1;
	noise_classify_throttling(&run, &limit);
	ck_assert_uint_eq(cpu->nr_blocks, 1);
	ck_assert_uint_eq(cpu->blocks[0].max_ns, 4000);
	ck_assert_uint_eq(cpu->blocks_lost, 1);
}
END_TEST

/*
 * The rule latscope noise refuses a threshold by, and doctor chooses one
 * by: a gap must be longer than two reads; the advice is three reads,
 * rounded up to 5 ns.
 */
START_TEST(threshold_resolved_above_two_reads)
{
	ck_assert(noise_threshold_resolved(1000, 499));
	ck_assert(!noise_threshold_resolved(1000, 500));
	ck_assert(!noise_threshold_resolved(1000, 1000));
	ck_assert_uint_eq(noise_threshold_least(600), 1800);
	ck_assert_uint_eq(noise_threshold_least(347), 1045);
	ck_assert(noise_threshold_resolved(noise_threshold_least(347), 347));
	ck_assert_uint_eq(noise_threshold_least(1), 5);
	ck_assert(noise_threshold_resolved(noise_threshold_least(1), 1));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("noise");
	TCase *tc = tcase_create("drain");
	TCase *threshold = tcase_create("threshold");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, drained_gaps_are_stored_in_order);
	tcase_add_test(tc, outrun_drain_is_counted);
	tcase_add_test(tc, cap_is_counted_with_its_time);
	tcase_add_test(tc, blocks_are_drained_in_order);
	tcase_add_test(tc, blocks_that_outran_the_drain_are_lost);
	tcase_add_test(tc, throttled_blocks_take_their_largest_other_delta);
	tcase_add_test(tc, throttled_blocks_without_their_gaps_are_lost);
	suite_add_tcase(s, tc);
	tcase_add_test(threshold, threshold_resolved_above_two_reads);
	suite_add_tcase(s, threshold);
	return unit_run(s);
}
