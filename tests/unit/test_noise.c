// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/noise.h"
#include "unit.h"

/* A run of one CPU as a measuring thread leaves it, without the thread. */
static struct noise_run run;
static struct noise_cpu *cpu;
static struct noise_gap *records;

#define RING 256

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
}

static void teardown(void)
{
	free(cpu->gaps);
	free(cpu);
	free(records);
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

int main(void)
{
	Suite *s = suite_create("noise");
	TCase *tc = tcase_create("drain");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, drained_gaps_are_stored_in_order);
	tcase_add_test(tc, outrun_drain_is_counted);
	tcase_add_test(tc, cap_is_counted_with_its_time);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
