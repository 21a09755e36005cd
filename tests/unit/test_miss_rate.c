// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <errno.h>
#include <jansson.h>
#include <math.h>

#include "lib/compare/compare_json.h"
#include "latscope/miss_rate.h"
#include "unit.h"

/* 1 us buckets as cyclictest writes them, plus 2 overflows up to 250 us */
static void cyclictest_like(struct bucket_hist *h)
{
	bucket_hist_init(h);
	bucket_hist_add(h, 3000, 3999, 600000);
	bucket_hist_add(h, 4000, 4999, 390000);
	bucket_hist_add(h, 10000, 10999, 9990);
	bucket_hist_add(h, 50000, 50999, 8);
	ck_assert_int_eq(bucket_hist_finish(h, 2, 99999, 3001, 250000), 0);
}

START_TEST(budget_on_a_bucket_edge_is_exact)
{
	struct bucket_hist h;
	struct miss_rate m;
	double lo, hi;

	cyclictest_like(&h);
	ck_assert_int_eq(miss_rate_estimate(&h, 49999, 0.95, 1000, &m), 0);
	ck_assert_uint_eq(m.misses_low, 10);
	ck_assert_uint_eq(m.misses_high, 10);
	ck_assert(fabs(m.fraction - 10.0 / 1000000) < 1e-15);
	/* binom.test(10, 1e6)$conf.int */
	ck_assert(fabs(m.ci[0] - 4.7953987775456027e-06) < 1e-13);
	ck_assert(fabs(m.ci[1] - 1.8390278891238525e-05) < 1e-13);
	ck_assert(m.has_rate);
	/* 1000 samples/s: 36 misses an hour */
	ck_assert(fabs(m.per_hour - 36) < 1e-9);
	lo = m.ci[0] * 3.6e6;
	hi = m.ci[1] * 3.6e6;
	ck_assert(fabs(m.per_hour_ci[0] - lo) < 1e-9 && fabs(m.per_hour_ci[1] - hi) < 1e-9);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(straddling_bucket_gives_a_range)
{
	struct bucket_hist h;
	struct miss_rate m, below, above;

	cyclictest_like(&h);
	/* 10.5 us cuts the 10 us bucket: 8 + 2 certain, 9990 more possible */
	ck_assert_int_eq(miss_rate_estimate(&h, 10499, 0.95, 0, &m), 0);
	ck_assert_uint_eq(m.misses_low, 10);
	ck_assert_uint_eq(m.misses_high, 10000);
	ck_assert(m.fraction > 10.0 / 1e6 && m.fraction < 10000.0 / 1e6);
	ck_assert(!m.has_rate);
	ck_assert_int_eq(miss_rate_estimate(&h, 10999, 0.95, 0, &below), 0);
	ck_assert_int_eq(miss_rate_estimate(&h, 9999, 0.95, 0, &above), 0);
	ck_assert(fabs(m.ci[0] - below.ci[0]) < 1e-15);
	ck_assert(fabs(m.ci[1] - above.ci[1]) < 1e-15);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(overflow_counts_up_to_max)
{
	struct bucket_hist h;
	struct miss_rate m;

	cyclictest_like(&h);
	/* above max: no miss can exist */
	ck_assert_int_eq(miss_rate_estimate(&h, 250000, 0.95, 0, &m), 0);
	ck_assert_uint_eq(m.misses_high, 0);
	ck_assert(m.ci[0] == 0);
	/* 200 us lies inside the overflow's 100..250 us */
	ck_assert_int_eq(miss_rate_estimate(&h, 200000, 0.95, 0, &m), 0);
	ck_assert_uint_eq(m.misses_low, 0);
	ck_assert_uint_eq(m.misses_high, 2);
	/* below every value: all are misses */
	ck_assert_int_eq(miss_rate_estimate(&h, 1000, 0.95, 0, &m), 0);
	ck_assert_uint_eq(m.misses_low, 1000000);
	ck_assert(m.ci[1] == 1 && m.fraction == 1);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(bad_input)
{
	struct bucket_hist h;
	struct miss_rate m;
	json_t *j;

	bucket_hist_init(&h);
	ck_assert_int_eq(miss_rate_estimate(&h, 1000, 0.95, 0, &m), -EINVAL);
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 0, 0), 0);
	ck_assert_int_eq(miss_rate_estimate(&h, 1000, 0.95, 0, &m), -EINVAL);
	bucket_hist_release(&h);
	cyclictest_like(&h);
	ck_assert_int_eq(miss_rate_estimate(&h, 1000, 0.95, NAN, &m), -EINVAL);
	ck_assert_int_eq(miss_rate_estimate(&h, 1000, 0.95, -1, &m), -EINVAL);
	ck_assert_int_eq(miss_rate_estimate(&h, 49999, 0.95, 0, &m), 0);
	j = miss_rate_json(&m);
	ck_assert(json_is_null(json_object_get(j, "per_hour")));
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "misses"), 1)), 10);
	json_decref(j);
	bucket_hist_release(&h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("miss_rate");
	TCase *tc = tcase_create("miss_rate");

	tcase_add_test(tc, budget_on_a_bucket_edge_is_exact);
	tcase_add_test(tc, straddling_bucket_gives_a_range);
	tcase_add_test(tc, overflow_counts_up_to_max);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
