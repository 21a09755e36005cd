// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "latency_models.h"
#include "lib/compare/compare_json.h"
#include "latscope/compare_stats.h"
#include "unit.h"

static const struct compare_threshold practical = { 0.05, 1000 };

/* a histogram of one 1 us bucket at 1..2 us, and an overflow up to @max */
static void one_bucket(struct bucket_hist *h, uint64_t count, uint64_t overflow, uint64_t max)
{
	bucket_hist_init(h);
	ck_assert_int_eq(bucket_hist_add(h, 1000, 1999, count), 0);
	ck_assert_int_eq(bucket_hist_finish(h, overflow, 1999, 1000, max), 0);
}

static enum compare_verdict verdict(uint64_t a, int64_t d, int64_t lo, int64_t hi,
				    bool between_runs, char *why, size_t size)
{
	int64_t ci[2] = { lo, hi };

	return compare_verdict_of(a, d, ci, &practical, between_runs, why, size);
}

/* The four verdicts: a change shown, an equivalence shown, or neither. */
START_TEST(verdict_needs_both_parts_of_the_threshold)
{
	char why[400];

	/* +10% of 5 us is 500 ns: the threshold is 1 us, and the interval lies within it */
	ck_assert_int_eq(verdict(5000, 500, 450, 550, true, why, sizeof(why)), COMPARE_SAME);
	ck_assert_msg(strstr(why, "within the practical threshold"), "%s", why);
	/* +2 us of 100 us is 2%: the whole interval within 5 us */
	ck_assert_int_eq(verdict(100000, 2000, 1900, 2100, true, why, sizeof(why)), COMPARE_SAME);
	/* the ends of the threshold belong to it */
	ck_assert_int_eq(verdict(100000, 0, -5000, 5000, true, why, sizeof(why)), COMPARE_SAME);
	/* +10 us of 100 us: both exceeded, interval above 0 */
	ck_assert_int_eq(verdict(100000, 10000, 8000, 12000, true, why, sizeof(why)),
			 COMPARE_WORSE);
	ck_assert_int_eq(verdict(100000, -10000, -12000, -8000, true, why, sizeof(why)),
			 COMPARE_BETTER);
	/* clear of 0 while the interval dips within the threshold: still a change */
	ck_assert_int_eq(verdict(100000, 10000, 1000, 19000, true, why, sizeof(why)),
			 COMPARE_WORSE);
}
END_TEST

/* No evidence of a change is not evidence of none: inconclusive, with the reason. */
START_TEST(equivalence_is_shown_not_assumed)
{
	char why[400];

	/* large but not told apart from none */
	ck_assert_int_eq(verdict(100000, 10000, -1000, 21000, true, why, sizeof(why)),
			 COMPARE_INCONCLUSIVE);
	ck_assert_msg(strstr(why, "holds 0"), "%s", why);
	/* small, but the interval reaches beyond the threshold: not shown to be the same */
	ck_assert_int_eq(verdict(100000, 2000, -4000, 8000, true, why, sizeof(why)),
			 COMPARE_INCONCLUSIVE);
	ck_assert_msg(strstr(why, "reaches beyond"), "%s", why);
	/* beyond the threshold on the wrong side of 0: a change not told apart from none */
	ck_assert_int_eq(verdict(100000, 6000, -1, 13000, true, why, sizeof(why)),
			 COMPARE_INCONCLUSIVE);
	ck_assert_str_eq(compare_verdict_name(COMPARE_WORSE), "worse");
	ck_assert_str_eq(compare_verdict_name(COMPARE_INCONCLUSIVE), "inconclusive");
	ck_assert_str_eq(compare_verdict_name(COMPARE_NOT_AVAILABLE), "n/a");
}
END_TEST

/* One run a side: whatever the interval, the variation between runs is unknown. */
START_TEST(one_run_a_side_decides_nothing)
{
	char why[400];

	ck_assert_int_eq(verdict(100000, 50000, 45000, 55000, false, why, sizeof(why)),
			 COMPARE_INCONCLUSIVE);
	ck_assert_msg(strstr(why, "one run a side") && strstr(why, "B is higher by +50.000 us") &&
			      strstr(why, "--vs") && strstr(why, "latscope ab"),
		      "%s", why);
	ck_assert_int_eq(verdict(100000, 0, -10, 10, false, why, sizeof(why)),
			 COMPARE_INCONCLUSIVE);
}
END_TEST

START_TEST(names_of_percentiles)
{
	char name[16];

	compare_percentile_name(99.9, name, sizeof(name));
	ck_assert_str_eq(name, "p99.9");
	compare_percentile_name(50, name, sizeof(name));
	ck_assert_str_eq(name, "p50");
	compare_percentile_name(99.99, name, sizeof(name));
	ck_assert_str_eq(name, "p99.99");
}
END_TEST

/*
 * The verdict the rule gives a row's interval were it free of the
 * variation between runs (the samples truly independent, as these tests
 * draw them): what the values method's interval is worth.
 */
static enum compare_verdict rule(const struct compare_stat *s, const struct compare_options *o)
{
	char why[400];

	return compare_verdict_of(s->a_ns, s->diff_ns, s->ci_ns, &o->practical, true, why,
				  sizeof(why));
}

/* a billion samples a side: a 0.5% change is real, and still `same` */
START_TEST(tiny_significant_change_is_same)
{
	struct bucket_hist a, b;
	struct compare_options o;
	struct compare_stat s;

	compare_options_default(&o);
	bucket_hist_init(&a);
	bucket_hist_init(&b);
	bucket_hist_add(&a, 9000, 9999, 900000000);
	bucket_hist_add(&a, 20000, 20099, 100000000);
	bucket_hist_finish(&a, 0, 0, 9000, 20099);
	bucket_hist_add(&b, 9000, 9999, 900000000);
	bucket_hist_add(&b, 20100, 20199, 100000000);
	bucket_hist_finish(&b, 0, 0, 9000, 20199);
	ck_assert_int_eq(compare_stat_percentile(&a, &b, 99, &o, &s), 0);
	/* one run a side decides nothing; its interval alone would say the same */
	ck_assert_int_eq(s.verdict, COMPARE_INCONCLUSIVE);
	ck_assert_int_eq(s.method, COMPARE_METHOD_VALUES);
	ck_assert_int_eq(rule(&s, &o), COMPARE_SAME);
	ck_assert_int_eq(s.diff_ns, 100);
	ck_assert(s.ci_ns[0] > 0);
	bucket_hist_release(&a);
	bucket_hist_release(&b);
}
END_TEST

START_TEST(too_few_samples_is_not_available)
{
	struct bucket_hist a, b;
	struct compare_options o;
	struct compare_stat s;
	json_t *j;

	compare_options_default(&o);
	one_bucket(&a, 5000, 0, 1999);
	one_bucket(&b, 200000, 0, 1999);
	ck_assert_int_eq(compare_stat_percentile(&a, &b, 99.99, &o, &s), 0);
	ck_assert_int_eq(s.verdict, COMPARE_NOT_AVAILABLE);
	ck_assert(!s.has_a && s.has_b && !s.has_ci);
	ck_assert_msg(strstr(s.reason, "A: p99.99 needs at least"), "%s", s.reason);
	j = compare_stat_json(&s);
	ck_assert(json_is_null(json_object_get(j, "a_ns")));
	ck_assert(json_is_null(json_object_get(j, "ci_ns")));
	ck_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "n/a");
	json_decref(j);
	bucket_hist_release(&a);
	bucket_hist_release(&b);
}
END_TEST

START_TEST(max_has_no_interval)
{
	struct bucket_hist a, b;
	struct compare_options o;
	struct compare_stat s;
	json_t *j;

	compare_options_default(&o);
	one_bucket(&a, 5000, 0, 1900);
	one_bucket(&b, 5000, 3, 70000);
	ck_assert_int_eq(compare_stat_max(&a, &b, &o, &s), 0);
	ck_assert_str_eq(s.name, "max");
	ck_assert_int_eq(s.diff_ns, 68100);
	ck_assert(!s.has_ci);
	ck_assert_int_eq(s.verdict, COMPARE_NOT_AVAILABLE);
	j = compare_stat_json(&s);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "b_ns")), 70000);
	ck_assert(json_is_null(json_object_get(j, "ci_ns")));
	json_decref(j);
	bucket_hist_release(&a);
	bucket_hist_release(&b);
}
END_TEST

/*
 * Two independent runs of the same distribution: the interval of independent
 * values calls a change (worse or better) in at most 5% of 400 pairs, for
 * every percentile (fixed seed).
 */
static void same_distribution(int kind, unsigned long seed)
{
	struct latency_model m = { kind, 1 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *p = model_bucket_probabilities(&m);
	unsigned int trial, i, called[5] = { 0 };
	struct compare_options o;

	compare_options_default(&o);
	gsl_rng_set(rng, seed);
	for (trial = 0; trial < 400; trial++) {
		struct bucket_hist a, b;

		model_draw_hist(rng, p, 200000, &a);
		model_draw_hist(rng, p, 200000, &b);
		for (i = 0; i < compare_nr_default_percentiles; i++) {
			struct compare_stat s;

			ck_assert_int_eq(compare_stat_percentile(
						 &a, &b, compare_default_percentiles[i], &o, &s),
					 0);
			ck_assert_int_eq(s.verdict, COMPARE_INCONCLUSIVE);
			if (rule(&s, &o) == COMPARE_WORSE || rule(&s, &o) == COMPARE_BETTER)
				called[i]++;
		}
		bucket_hist_release(&a);
		bucket_hist_release(&b);
	}
	for (i = 0; i < compare_nr_default_percentiles; i++)
		ck_assert_msg(called[i] <= 20, "p%g: a change called in %u of 400",
			      compare_default_percentiles[i], called[i]);
	free(p);
	gsl_rng_free(rng);
}

START_TEST(same_distribution_is_same_body_tail)
{
	same_distribution(MODEL_BODY_TAIL, 21);
}
END_TEST

START_TEST(same_distribution_is_same_mixture)
{
	same_distribution(MODEL_MIXTURE, 22);
}
END_TEST

/* the tail stretched by 20%: p99.9's interval calls it worse in at least 95% of 400 pairs */
START_TEST(shifted_tail_is_worse)
{
	struct latency_model ma = { MODEL_BODY_TAIL, 1 }, mb = { MODEL_BODY_TAIL, 1.2 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *pa = model_bucket_probabilities(&ma), *pb = model_bucket_probabilities(&mb);
	unsigned int trial, worse = 0;
	struct compare_options o;

	compare_options_default(&o);
	gsl_rng_set(rng, 23);
	for (trial = 0; trial < 400; trial++) {
		struct bucket_hist a, b;
		struct compare_stat s;

		model_draw_hist(rng, pa, 200000, &a);
		model_draw_hist(rng, pb, 200000, &b);
		ck_assert_int_eq(compare_stat_percentile(&a, &b, 99.9, &o, &s), 0);
		if (rule(&s, &o) == COMPARE_WORSE)
			worse++;
		bucket_hist_release(&a);
		bucket_hist_release(&b);
	}
	ck_assert_msg(worse >= 380, "worse in %u of 400", worse);
	free(pa);
	free(pb);
	gsl_rng_free(rng);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compare_stats");
	TCase *tc = tcase_create("compare_stats");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, verdict_needs_both_parts_of_the_threshold);
	tcase_add_test(tc, equivalence_is_shown_not_assumed);
	tcase_add_test(tc, one_run_a_side_decides_nothing);
	tcase_add_test(tc, names_of_percentiles);
	tcase_add_test(tc, tiny_significant_change_is_same);
	tcase_add_test(tc, too_few_samples_is_not_available);
	tcase_add_test(tc, max_has_no_interval);
	tcase_add_test(tc, same_distribution_is_same_body_tail);
	tcase_add_test(tc, same_distribution_is_same_mixture);
	tcase_add_test(tc, shifted_tail_is_worse);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
