// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <stdlib.h>

#include "latscope/hist.h"
#include "unit.h"

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The reference: the value of rank ceil(p * n) in the sorted data. */
static uint64_t reference_percentile(const uint64_t *sorted, size_t n, double percent)
{
	size_t rank = (size_t)ceil(percent / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void check_against_reference(uint64_t *values, size_t n)
{
	static const double points[] = { 1, 50, 90, 99, 99.9, 99.99, 99.999 };
	struct hist *h = malloc(sizeof(*h));
	size_t i;

	hist_init(h);
	for (i = 0; i < n; i++)
		hist_add(h, values[i]);
	qsort(values, n, sizeof(*values), compare_u64);
	ck_assert_uint_eq(h->count, n);
	ck_assert_uint_eq(h->min, values[0]);
	ck_assert_uint_eq(h->max, values[n - 1]);
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		double want = (double)reference_percentile(values, n, points[i]);
		double got = (double)hist_percentile(h, points[i]);

		ck_assert_msg(fabs(got - want) <= 0.01 * want + 0.5, "p%g: got %.0f, want %.0f",
			      points[i], got, want);
	}
	free(h);
}

START_TEST(percentiles_within_one_percent_lognormal)
{
	size_t n = 200000, i;
	uint64_t *values = malloc(n * sizeof(*values));

	srandom(1);
	for (i = 0; i < n; i++) {
		/* log-normal around 2 us with a long tail, like real latencies */
		double u1 = (random() + 1.0) / 2147483649.0, u2 = random() / 2147483648.0;
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		values[i] = (uint64_t)exp(log(2000) + 1.2 * z);
	}
	check_against_reference(values, n);
	free(values);
}
END_TEST

START_TEST(percentiles_within_one_percent_uniform_wide)
{
	size_t n = 100000, i;
	uint64_t *values = malloc(n * sizeof(*values));

	srandom(2);
	for (i = 0; i < n; i++)
		values[i] = (uint64_t)random() % 9000000000ULL + 1;
	check_against_reference(values, n);
	free(values);
}
END_TEST

START_TEST(bucket_width_is_at_most_one_percent)
{
	unsigned int b;

	for (b = 0; b < HIST_BUCKETS; b++) {
		uint64_t low = hist_bucket_low(b), high = hist_bucket_high(b);

		ck_assert_uint_le(low, high);
		ck_assert_uint_eq(hist_bucket_of(low), b);
		ck_assert_uint_eq(hist_bucket_of(high), b);
		ck_assert_msg((double)(high - low) <= 0.01 * (double)low + 1e-9 || low < 256,
			      "bucket %u [%lu, %lu] too wide", b, low, high);
	}
	ck_assert_uint_ge(hist_bucket_high(HIST_BUCKETS - 1), HIST_MAX_NS);
	ck_assert_uint_lt(hist_bucket_of(HIST_MAX_NS), HIST_BUCKETS);
}
END_TEST

START_TEST(overflow_counted_and_max_exact)
{
	struct hist h;

	hist_init(&h);
	hist_add(&h, 5);
	hist_add(&h, HIST_MAX_NS + 1);
	hist_add(&h, 20000000000ULL);
	ck_assert_uint_eq(h.count, 3);
	ck_assert_uint_eq(h.overflow, 2);
	ck_assert_uint_eq(h.max, 20000000000ULL);
	ck_assert_uint_eq(hist_percentile(&h, 99), 20000000000ULL);
	ck_assert_uint_eq(hist_percentile(&h, 10), 5);
}
END_TEST

START_TEST(merge_equals_adding_everything)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)), *all = malloc(sizeof(*all));
	uint64_t v;
	int i;

	hist_init(a);
	hist_init(b);
	hist_init(all);
	srandom(3);
	for (i = 0; i < 10000; i++) {
		v = (uint64_t)random() % 1000000;
		hist_add(i % 3 ? a : b, v);
		hist_add(all, v);
	}
	hist_merge(a, b);
	ck_assert_uint_eq(a->count, all->count);
	ck_assert_uint_eq(a->min, all->min);
	ck_assert_uint_eq(a->max, all->max);
	ck_assert(a->sum == all->sum);
	for (i = 0; i < HIST_BUCKETS; i++)
		ck_assert_uint_eq(a->buckets[i], all->buckets[i]);
	ck_assert_uint_eq(hist_percentile(a, 99.9), hist_percentile(all, 99.9));
	free(a);
	free(b);
	free(all);
}
END_TEST

START_TEST(remove_takes_back_a_value)
{
	struct hist h;

	hist_init(&h);
	hist_add(&h, 100);
	hist_add(&h, 50000000);
	hist_remove(&h, 50000000);
	ck_assert_uint_eq(h.count, 1);
	ck_assert_uint_eq(hist_percentile(&h, 50), 100);
	ck_assert(h.sum == 100);
}
END_TEST

START_TEST(empty_histogram)
{
	struct hist h;

	hist_init(&h);
	ck_assert_uint_eq(hist_percentile(&h, 50), 0);
	ck_assert(hist_mean(&h) == 0.0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, percentiles_within_one_percent_lognormal);
	tcase_add_test(tc, percentiles_within_one_percent_uniform_wide);
	tcase_add_test(tc, bucket_width_is_at_most_one_percent);
	tcase_add_test(tc, overflow_counted_and_max_exact);
	tcase_add_test(tc, merge_equals_adding_everything);
	tcase_add_test(tc, remove_takes_back_a_value);
	tcase_add_test(tc, empty_histogram);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
