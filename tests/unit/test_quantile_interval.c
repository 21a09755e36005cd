// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>

#include "latency_models.h"
#include "lib/compare/quantile_interval.h"
#include "unit.h"

static void hist_of(struct bucket_hist *h, const uint64_t *values, unsigned int n)
{
	struct hist *raw = malloc(sizeof(*raw));
	unsigned int i;

	hist_init(raw);
	for (i = 0; i < n; i++)
		hist_add(raw, values[i]);
	ck_assert_int_eq(bucket_hist_from_hist(h, raw), 0);
	free(raw);
}

START_TEST(min_samples_follow_the_rule)
{
	/* 10 beyond the percentile, and p^n <= 0.025 */
	ck_assert_uint_eq(quantile_interval_min_samples(99.99, 0.95), 100000);
	ck_assert_uint_eq(quantile_interval_min_samples(99.9, 0.95), 10000);
	ck_assert_uint_eq(quantile_interval_min_samples(50, 0.95), 20);
	ck_assert_uint_eq(quantile_interval_min_samples(1, 0.95), 1000);
	/* at 99.999%, p^n <= 5e-6 asks more than 10 beyond */
	ck_assert_uint_eq(quantile_interval_min_samples(50, 0.999), 20);
	ck_assert(quantile_interval_min_samples(90, 0.99999) > 100);
	ck_assert(pow(0.9, 116) <= 5e-6 && pow(0.9, 115) > 5e-6);
	ck_assert_uint_eq(quantile_interval_min_samples(90, 0.99999), 116);
}
END_TEST

START_TEST(empty_and_too_few_are_unavailable)
{
	struct bucket_hist h;
	struct quantile_interval q;
	uint64_t v[5000];
	unsigned int i;

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 0, 0), 0);
	ck_assert_int_eq(quantile_interval_estimate(&h, 50, 0.95, &q), 0);
	ck_assert(!q.available);
	ck_assert_str_eq(q.reason, "no samples");
	bucket_hist_release(&h);

	for (i = 0; i < 5000; i++)
		v[i] = 1000 + i;
	hist_of(&h, v, 5000);
	ck_assert_int_eq(quantile_interval_estimate(&h, 99.99, 0.95, &q), 0);
	ck_assert(!q.available);
	ck_assert_msg(strstr(q.reason, "100000") && strstr(q.reason, "5000"), "%s", q.reason);
	ck_assert_int_eq(quantile_interval_estimate(&h, 99, 0.95, &q), 0);
	ck_assert(q.available);
	quantile_interval_release(&q);
	ck_assert_int_eq(quantile_interval_estimate(&h, 100, 0.95, &q), -EINVAL);
	ck_assert_int_eq(quantile_interval_estimate(&h, 50, 1, &q), -EINVAL);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(one_bucket_has_a_point_interval)
{
	struct bucket_hist h;
	struct quantile_interval q;

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 5000, 5039, 1000000), 0);
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 5001, 5030), 0);
	ck_assert_int_eq(quantile_interval_estimate(&h, 99, 0.95, &q), 0);
	ck_assert(q.available);
	ck_assert_uint_eq(q.value_ns, 5019);
	ck_assert_uint_eq(q.ci_ns[0], 5019);
	ck_assert_uint_eq(q.ci_ns[1], 5019);
	ck_assert_uint_eq(q.nr_support, 1);
	quantile_interval_release(&q);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(one_sample_is_too_few)
{
	struct bucket_hist h;
	struct quantile_interval q;
	uint64_t v = 1234;

	hist_of(&h, &v, 1);
	ck_assert_int_eq(quantile_interval_estimate(&h, 50, 0.95, &q), 0);
	ck_assert(!q.available);
	bucket_hist_release(&h);
}
END_TEST

/* overflowed values read as the maximum, also in the bootstrap */
START_TEST(overflow_reads_as_max)
{
	struct bucket_hist h;
	struct quantile_interval q;

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 1000, 1999, 9000), 0);
	ck_assert_int_eq(bucket_hist_add(&h, 2000, 2999, 900), 0);
	ck_assert_int_eq(bucket_hist_finish(&h, 100, 2999, 1000, 250000), 0);
	ck_assert_uint_eq(h.count, 10000);
	ck_assert_int_eq(quantile_interval_estimate(&h, 99.5, 0.95, &q), 0);
	ck_assert(q.available);
	ck_assert_uint_eq(q.value_ns, 250000);
	ck_assert_uint_eq(q.ci_ns[1], 250000);
	ck_assert_uint_eq(q.ci_ns[0], 250000);
	quantile_interval_release(&q);
	ck_assert_int_eq(quantile_interval_estimate(&h, 99, 0.95, &q), 0);
	/* rank 9900 is the last in-range value: the interval reaches the overflow */
	ck_assert_uint_eq(q.value_ns, 2499);
	ck_assert_uint_eq(q.ci_ns[1], 250000);
	quantile_interval_release(&q);
	bucket_hist_release(&h);
}
END_TEST

/* the value of rank ceil(p n), as hist_percentile reads it */
START_TEST(point_estimate_matches_hist_percentile)
{
	static const double points[] = { 50, 90, 99, 99.9 };
	struct hist *raw = malloc(sizeof(*raw));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct bucket_hist h;
	unsigned int i;

	gsl_rng_set(rng, 7);
	hist_init(raw);
	for (i = 0; i < 100000; i++)
		hist_add(raw, (uint64_t)gsl_ran_lognormal(rng, 8, 0.5));
	ck_assert_int_eq(bucket_hist_from_hist(&h, raw), 0);
	for (i = 0; i < 4; i++) {
		struct quantile_interval q;

		ck_assert_int_eq(quantile_interval_estimate(&h, points[i], 0.95, &q), 0);
		ck_assert_uint_eq(q.value_ns, hist_percentile(raw, points[i]));
		ck_assert(q.ci_ns[0] <= q.value_ns && q.value_ns <= q.ci_ns[1]);
		quantile_interval_release(&q);
	}
	bucket_hist_release(&h);
	gsl_rng_free(rng);
	free(raw);
}
END_TEST

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the percentile of a resample: multinomial bucket counts, rank ceil(p n) */
static uint64_t resampled_percentile(gsl_rng *rng, const struct bucket_hist *h, double percent,
				     const double *p, unsigned int *counts)
{
	uint64_t rank = (uint64_t)ceil(percent / 100 * (double)h->count - 1e-9), seen = 0;
	unsigned int i;

	gsl_ran_multinomial(rng, h->nr_buckets, (unsigned int)h->count, p, counts);
	for (i = 0; i < h->nr_buckets; i++) {
		seen += counts[i];
		if (seen >= rank)
			break;
	}
	return bucket_hist_value(h, i);
}

/*
 * The exact bootstrap distribution against 20,000 real resamples: the
 * interval's ends agree within the resampling error (a bucket).
 */
START_TEST(agrees_with_resampling)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct bucket_hist a, b;
	struct quantile_interval qa, qb;
	uint64_t *values = malloc(3000 * sizeof(*values)), *ra, *rb;
	int64_t *diffs, diff, ci[2];
	unsigned int i, resamples = 20000, *counts;
	double *pa, *pb;

	gsl_rng_set(rng, 3);
	for (i = 0; i < 3000; i++)
		values[i] = (uint64_t)gsl_ran_lognormal(rng, 8, 0.4);
	hist_of(&a, values, 3000);
	for (i = 0; i < 2000; i++)
		values[i] = (uint64_t)gsl_ran_lognormal(rng, 8.05, 0.4);
	hist_of(&b, values, 2000);
	ck_assert_int_eq(quantile_interval_estimate(&a, 90, 0.95, &qa), 0);
	ck_assert_int_eq(quantile_interval_estimate(&b, 90, 0.95, &qb), 0);
	ck_assert_int_eq(quantile_interval_difference(&qa, &qb, 0.95, &diff, ci), 0);

	pa = malloc(a.nr_buckets * sizeof(*pa));
	pb = malloc(b.nr_buckets * sizeof(*pb));
	counts = malloc((a.nr_buckets + b.nr_buckets) * sizeof(*counts));
	for (i = 0; i < a.nr_buckets; i++)
		pa[i] = (double)a.buckets[i].count;
	for (i = 0; i < b.nr_buckets; i++)
		pb[i] = (double)b.buckets[i].count;
	ra = malloc(resamples * sizeof(*ra));
	rb = malloc(resamples * sizeof(*rb));
	diffs = malloc(resamples * sizeof(*diffs));
	for (i = 0; i < resamples; i++) {
		ra[i] = resampled_percentile(rng, &a, 90, pa, counts);
		rb[i] = resampled_percentile(rng, &b, 90, pb, counts);
		diffs[i] = (int64_t)rb[i] - (int64_t)ra[i];
	}
	qsort(ra, resamples, sizeof(*ra), compare_u64);
	gsl_sort_long((long *)diffs, 1, resamples);
	/* the log-linear buckets here are 16-32 ns wide */
	ck_assert_msg(llabs((long long)ra[resamples / 40] - (long long)qa.ci_ns[0]) <= 32,
		      "low %llu, resampled %llu", (unsigned long long)qa.ci_ns[0],
		      (unsigned long long)ra[resamples / 40]);
	ck_assert_msg(llabs((long long)ra[resamples - resamples / 40] - (long long)qa.ci_ns[1]) <=
			      32,
		      "high %llu, resampled %llu", (unsigned long long)qa.ci_ns[1],
		      (unsigned long long)ra[resamples - resamples / 40]);
	ck_assert_msg(llabs(diffs[resamples / 40] - ci[0]) <= 48, "diff low %lld, resampled %lld",
		      (long long)ci[0], (long long)diffs[resamples / 40]);
	ck_assert_msg(llabs(diffs[resamples - resamples / 40] - ci[1]) <= 48,
		      "diff high %lld, resampled %lld", (long long)ci[1],
		      (long long)diffs[resamples - resamples / 40]);
	quantile_interval_release(&qa);
	quantile_interval_release(&qb);
	bucket_hist_release(&a);
	bucket_hist_release(&b);
	free(values);
	free(ra);
	free(rb);
	free(diffs);
	free(pa);
	free(pb);
	free(counts);
	gsl_rng_free(rng);
}
END_TEST

/*
 * Coverage: over 400 runs of 50,000 samples (fixed seed, so the figure is
 * the same on every machine), the 95% interval of p99.9 holds the true
 * p99.9 in 93-97% of them.
 */
static unsigned int p999_coverage(int kind, unsigned long seed)
{
	struct latency_model m = { kind, 1 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *p = model_bucket_probabilities(&m), truth = model_quantile(&m, 0.999);
	unsigned int trial, covered = 0;

	gsl_rng_set(rng, seed);
	for (trial = 0; trial < 400; trial++) {
		struct bucket_hist h;
		struct quantile_interval q;

		model_draw_hist(rng, p, 50000, &h);
		ck_assert_int_eq(quantile_interval_estimate(&h, 99.9, 0.95, &q), 0);
		ck_assert(q.available);
		if ((double)q.ci_ns[0] <= truth && truth <= (double)q.ci_ns[1])
			covered++;
		quantile_interval_release(&q);
		bucket_hist_release(&h);
	}
	free(p);
	gsl_rng_free(rng);
	return covered;
}

START_TEST(p999_coverage_body_tail)
{
	unsigned int covered = p999_coverage(MODEL_BODY_TAIL, 11);

	ck_assert_msg(covered >= 372 && covered <= 388, "covered %u of 400", covered);
}
END_TEST

START_TEST(p999_coverage_mixture)
{
	unsigned int covered = p999_coverage(MODEL_MIXTURE, 12);

	ck_assert_msg(covered >= 372 && covered <= 388, "covered %u of 400", covered);
}
END_TEST

START_TEST(bad_histograms_are_refused)
{
	struct bucket_hist h;

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 9, 1), -EINVAL);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 19, 1), 0);
	ck_assert_int_eq(bucket_hist_add(&h, 15, 29, 1), 0);
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 10, 29), -EINVAL); /* overlap */
	bucket_hist_release(&h);

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 20, 29, 1), 0);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 19, 1), 0); /* any order */
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 5, 29), -EINVAL); /* min outside */
	bucket_hist_release(&h);

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 20, 29, 1), 0);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 19, 1), 0);
	ck_assert_int_eq(bucket_hist_finish(&h, 0, 0, 12, 25), 0);
	ck_assert_uint_eq(h.buckets[0].low_ns, 10);
	ck_assert_uint_eq(h.count, 2);
	ck_assert_int_eq(bucket_hist_add(&h, 30, 39, 1), -EINVAL); /* finished */
	bucket_hist_release(&h);

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 19, 1), 0);
	/* overflow needs a max above where the buckets end */
	ck_assert_int_eq(bucket_hist_finish(&h, 3, 19, 10, 19), -EINVAL);
	bucket_hist_release(&h);

	bucket_hist_init(&h);
	ck_assert_int_eq(bucket_hist_add(&h, 10, 19, UINT64_MAX), 0);
	ck_assert_int_eq(bucket_hist_finish(&h, 1, 19, 10, 50), -EOVERFLOW);
	bucket_hist_release(&h);
}
END_TEST

START_TEST(converts_struct_hist)
{
	struct hist *raw = malloc(sizeof(*raw));
	struct bucket_hist h;

	hist_init(raw);
	hist_add(raw, 100);
	hist_add(raw, 100);
	hist_add(raw, 3000);
	hist_add(raw, HIST_MAX_NS + 5);
	ck_assert_int_eq(bucket_hist_from_hist(&h, raw), 0);
	ck_assert_uint_eq(h.count, 4);
	ck_assert_uint_eq(h.nr_buckets, 2);
	ck_assert_uint_eq(h.overflow, 1);
	ck_assert_uint_eq(h.overflow_above_ns, HIST_MAX_NS);
	ck_assert_uint_eq(h.min_ns, 100);
	ck_assert_uint_eq(h.max_ns, HIST_MAX_NS + 5);
	ck_assert_uint_eq(bucket_hist_value(&h, 0), 100);
	ck_assert_uint_eq(bucket_hist_value(&h, 2), HIST_MAX_NS + 5);
	bucket_hist_release(&h);
	hist_init(raw);
	ck_assert_int_eq(bucket_hist_from_hist(&h, raw), 0);
	ck_assert_uint_eq(h.count, 0);
	bucket_hist_release(&h);
	free(raw);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("quantile_interval");
	TCase *tc = tcase_create("quantile_interval");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, min_samples_follow_the_rule);
	tcase_add_test(tc, empty_and_too_few_are_unavailable);
	tcase_add_test(tc, one_bucket_has_a_point_interval);
	tcase_add_test(tc, one_sample_is_too_few);
	tcase_add_test(tc, overflow_reads_as_max);
	tcase_add_test(tc, point_estimate_matches_hist_percentile);
	tcase_add_test(tc, agrees_with_resampling);
	tcase_add_test(tc, p999_coverage_body_tail);
	tcase_add_test(tc, p999_coverage_mixture);
	tcase_add_test(tc, bad_histograms_are_refused);
	tcase_add_test(tc, converts_struct_hist);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
