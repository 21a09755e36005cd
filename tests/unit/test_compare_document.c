// SPDX-License-Identifier: GPL-2.0-or-later
/* compare's computation (compare_result.h) and its JSON (compare_document.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "compare_fixture.h"
#include "latscope/compare_document.h"

static const char *const names[] = { "a.json", "b.json" };

static const json_t *get(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	ck_assert_msg(v != NULL, "no \"%s\"", key);
	return v;
}

static void check_ns_pair(const json_t *pair)
{
	ck_assert(json_is_array(pair));
	ck_assert_uint_eq(json_array_size(pair), 2);
	ck_assert(json_is_integer(json_array_get(pair, 0)));
	ck_assert(json_is_integer(json_array_get(pair, 1)));
	ck_assert_int_le(json_integer_value(json_array_get(pair, 0)),
			 json_integer_value(json_array_get(pair, 1)));
}

static void check_gev(const json_t *gev)
{
	static const char *const checks[] = { "shape", "independence", "stationarity", "fit" };
	static const double periods[] = { 3600, 86400, 31536000 };
	const json_t *levels = get(gev, "return_levels"), *se = get(gev, "se");
	unsigned int i;

	ck_assert_int_eq(json_integer_value(get(gev, "blocks")), 200);
	ck_assert_int_eq(json_integer_value(get(gev, "block_ns")), 1000000000);
	ck_assert(json_is_integer(get(gev, "loc_ns")));
	ck_assert(json_is_integer(get(gev, "scale_ns")));
	ck_assert(json_is_real(get(gev, "shape")));
	ck_assert(json_is_number(get(se, "loc_ns")));
	ck_assert(json_is_number(get(se, "scale_ns")));
	ck_assert(json_is_number(get(se, "shape")));
	ck_assert_uint_eq(json_array_size(levels), 3);
	for (i = 0; i < 3; i++) {
		const json_t *l = json_array_get(levels, i);

		ck_assert_double_eq(json_number_value(get(l, "period_s")), periods[i]);
		ck_assert(json_is_integer(get(l, "value_ns")));
		ck_assert(json_is_array(get(l, "ci_ns")));
	}
	for (i = 0; i < 4; i++) {
		const json_t *c = get(get(gev, "checks"), checks[i]);

		ck_assert(json_is_boolean(get(c, "pass")));
		ck_assert(json_is_string(get(c, "says")));
	}
	ck_assert(json_is_boolean(get(gev, "reliable")));
	ck_assert(json_is_string(get(get(gev, "long_enough"), "says")));
	ck_assert(json_is_object(get(gev, "exceedance")));
}

static void check_side(const json_t *side, unsigned int input, const char *file)
{
	const json_t *curve = get(side, "exceedance"), *blocks = get(side, "block_maxima");
	double last = 0, period = INFINITY;
	size_t i;

	ck_assert_int_eq(json_integer_value(get(side, "input")), input);
	ck_assert_str_eq(json_string_value(get(side, "file")), file);
	ck_assert_str_eq(json_string_value(json_array_get(get(side, "series"), 0)),
			 "thread 0 (cpu 1)");
	ck_assert_int_eq(json_integer_value(get(side, "samples")), 200000);
	ck_assert_double_eq_tol(json_number_value(get(side, "samples_per_s")), 1000, 1e-6);
	/* p50 to p99.995: 200,000 samples leave 10 beyond it, the least an interval needs */
	ck_assert_uint_eq(json_array_size(curve), 10);
	for (i = 0; i < json_array_size(curve); i++) {
		const json_t *p = json_array_get(curve, i);
		double percent = json_number_value(get(p, "percent"));

		ck_assert(percent > last);
		last = percent;
		check_ns_pair(get(p, "ci_ns"));
	}
	ck_assert_int_eq(json_integer_value(get(blocks, "blocks")), 200);
	ck_assert_uint_gt(json_array_size(get(blocks, "largest")), 30);
	for (i = 0; i < json_array_size(get(blocks, "largest")); i++) {
		const json_t *row = json_array_get(get(blocks, "largest"), i);

		ck_assert(json_number_value(json_array_get(row, 0)) < period);
		period = json_number_value(json_array_get(row, 0));
	}
	/* the largest of 200 blocks of 1 s comes back every 201 s */
	ck_assert_double_eq_tol(
		json_number_value(json_array_get(json_array_get(get(blocks, "largest"), 0), 0)),
		201, 1e-9);
}

START_TEST(document_has_the_issues_shape)
{
	uint64_t *ma = test_gumbel_maxima(200, 30000, 2000, 1);
	uint64_t *mb = test_gumbel_maxima(200, 60000, 4000, 2);
	const struct test_series a[] = {
		{ 1, 0, 200000, 10000, 20000, 200, ma },
		{ 2, 1, 1000, 10000, 20000, 0, NULL },
	};
	const struct test_series b[] = { { 1, 0, 200000, 10000, 40000, 200, mb } };
	struct run *runs[2] = { test_run("a.json", "timer", a, 2),
				test_run("b.json", "timer", b, 1) };
	static const char *const stat_names[] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
	struct compare_settings s;
	struct test_comparison c;
	json_t *pairs, *unpaired, *params, *inputs;
	const json_t *pair, *stats, *misses;
	unsigned int i;
	char *text;

	compare_settings_default(&s);
	s.has_budget = true;
	s.budget_ns = 25000;
	s.threads = 2;
	test_compare(&c, runs, names, 2, COMPARE_BY_CPU, &s);
	/* one run a side: B's values lie higher, but that decides nothing */
	ck_assert_str_eq(compare_result_verdict(&c.result), "inconclusive");
	ck_assert(!compare_result_worse(&c.result));

	pairs = compare_document_pairs((const struct run *const *)runs, names, &c.result);
	unpaired = compare_document_unpaired(&c.plan, names);
	params = compare_document_params(&s, c.plan.by);
	inputs = compare_document_inputs((const struct run *const *)runs, names, 2, &c.plan);
	ck_assert_uint_eq(json_array_size(pairs), 1);
	pair = json_array_get(pairs, 0);
	ck_assert_str_eq(json_string_value(get(pair, "a")), "a.json cpu 1");
	ck_assert_str_eq(json_string_value(get(pair, "b")), "b.json cpu 1");
	ck_assert_str_eq(json_string_value(get(pair, "what")), "cpu 1");
	ck_assert_int_eq(json_integer_value(get(pair, "cpu")), 1);
	ck_assert(json_is_null(get(pair, "thread")));

	stats = get(pair, "stats");
	ck_assert_uint_eq(json_array_size(stats), 6);
	for (i = 0; i < 6; i++) {
		const json_t *row = json_array_get(stats, i);

		ck_assert_str_eq(json_string_value(get(row, "name")), stat_names[i]);
		ck_assert(json_is_integer(get(row, "a_ns")));
		ck_assert(json_is_integer(get(row, "b_ns")));
		ck_assert_int_eq(json_integer_value(get(row, "diff_ns")),
				 json_integer_value(get(row, "b_ns")) -
					 json_integer_value(get(row, "a_ns")));
		ck_assert(json_is_string(get(row, "reason")));
		if (i < 5) {
			/* A spans 10-20 us, B 10-40 us: B is higher from its median on */
			check_ns_pair(get(row, "ci_ns"));
			ck_assert_int_gt(json_integer_value(json_array_get(get(row, "ci_ns"), 0)),
					 0);
			ck_assert_str_eq(json_string_value(get(row, "verdict")), "inconclusive");
			ck_assert_str_eq(json_string_value(get(row, "method")), "values");
			ck_assert(json_is_null(get(row, "power")));
		}
	}
	/* the max is exact but has no interval and no verdict */
	ck_assert(json_is_null(get(json_array_get(stats, 5), "ci_ns")));
	ck_assert_str_eq(json_string_value(get(json_array_get(stats, 5), "verdict")), "n/a");
	ck_assert_int_eq(json_integer_value(get(get(pair, "verdicts"), "inconclusive")), 5);
	ck_assert_int_eq(json_integer_value(get(get(pair, "verdicts"), "worse")), 0);
	ck_assert_int_eq(json_integer_value(get(get(pair, "verdicts"), "n/a")), 1);

	misses = get(pair, "misses");
	/* A never reaches 25 us */
	ck_assert_int_eq(json_integer_value(json_array_get(get(get(misses, "a"), "misses"), 1)), 0);
	ck_assert_double_eq_tol(json_number_value(get(get(misses, "b"), "fraction")), 0.5, 0.01);
	ck_assert_double_eq_tol(json_number_value(get(get(misses, "b"), "per_hour")),
				0.5 * 1000 * 3600, 0.01 * 1000 * 3600);

	check_gev(get(get(pair, "gev"), "a"));
	check_gev(get(get(pair, "gev"), "b"));
	/* B's maxima lie twice as high: so does its 1-hour level */
	ck_assert_int_gt(
		json_integer_value(
			get(json_array_get(get(get(get(pair, "gev"), "b"), "return_levels"), 0),
			    "value_ns")),
		json_integer_value(
			get(json_array_get(get(get(get(pair, "gev"), "a"), "return_levels"), 0),
			    "value_ns")));
	check_side(get(get(pair, "sides"), "a"), 0, "a.json");
	check_side(get(get(pair, "sides"), "b"), 1, "b.json");

	ck_assert_uint_eq(json_array_size(unpaired), 1);
	ck_assert_str_eq(json_string_value(get(json_array_get(unpaired, 0), "file")), "a.json");
	ck_assert_str_eq(json_string_value(get(json_array_get(unpaired, 0), "what")), "cpu 2");

	ck_assert_str_eq(json_string_value(get(params, "by")), "cpu");
	ck_assert_uint_eq(json_array_size(get(params, "percentiles")), 5);
	ck_assert_double_eq(json_number_value(get(params, "confidence")), 0.95);
	ck_assert_double_eq(json_number_value(get(get(params, "practical"), "fraction")), 0.05);
	ck_assert_int_eq(json_integer_value(get(get(params, "practical"), "ns")), 1000);
	ck_assert_int_eq(json_integer_value(get(params, "budget_ns")), 25000);
	ck_assert_str_eq(json_string_value(get(json_array_get(inputs, 1), "role")), "B");
	ck_assert_str_eq(json_string_value(get(json_array_get(inputs, 1), "command")), "timer");

	/* JSON has no NaN: every figure the data lack is null, so the text dumps */
	text = json_dumps(pairs, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	free(text);
	json_decref(pairs);
	json_decref(unpaired);
	json_decref(params);
	json_decref(inputs);
	/* a result released twice: the second release does nothing */
	compare_result_release(&c.result);
	test_comparison_release(&c);
	free(ma);
	free(mb);
}
END_TEST

/*
 * Three runs of A against three of B, B's values twice as spread: worse
 * wherever a statistic exists, the runs resampled; the sides name their
 * runs.
 */
START_TEST(replicates_decide)
{
	static const char *const files[] = { "a1.json", "a2.json", "a3.json",
					     "b1.json", "b2.json", "b3.json" };
	static const unsigned int groups[] = { 0, 0, 0, 1, 1, 1 };
	const struct test_series a[] = { { 1, 0, 20000, 10000, 20000, 0, NULL } };
	const struct test_series b[] = { { 1, 0, 20000, 10000, 40000, 0, NULL } };
	struct run *runs[6];
	struct compare_settings s;
	struct test_comparison c;
	const json_t *pair, *side, *row;
	json_t *pairs, *inputs;
	unsigned int i;

	for (i = 0; i < 6; i++)
		runs[i] = test_run(files[i], "timer", i < 3 ? a : b, 1);
	compare_settings_default(&s);
	s.nr_percentiles = 3;
	test_compare_groups(&c, runs, files, 6, groups, false, COMPARE_BY_CPU, &s);
	ck_assert_str_eq(compare_result_verdict(&c.result), "worse");
	ck_assert_uint_eq(c.result.pairs[0].worse, 3);
	pairs = compare_document_pairs((const struct run *const *)runs, files, &c.result);
	inputs = compare_document_inputs((const struct run *const *)runs, files, 6, &c.plan);
	pair = json_array_get(pairs, 0);
	ck_assert_str_eq(json_string_value(get(pair, "a")), "a1.json and 2 more cpu 1");
	side = get(get(pair, "sides"), "b");
	ck_assert_str_eq(json_string_value(get(side, "role")), "B");
	ck_assert_int_eq(json_integer_value(get(side, "runs")), 3);
	ck_assert_str_eq(json_string_value(json_array_get(get(side, "files"), 2)), "b3.json");
	ck_assert_int_eq(json_integer_value(get(side, "samples")), 60000);
	ck_assert(json_is_null(get(get(side, "resampling"), "block_ns")));
	for (i = 0; i < 3; i++) {
		row = json_array_get(get(pair, "stats"), i);
		ck_assert_str_eq(json_string_value(get(row, "method")), "runs");
		ck_assert_int_eq(json_integer_value(get(row, "units")), 3);
		ck_assert_str_eq(json_string_value(get(row, "verdict")), "worse");
	}
	ck_assert_str_eq(json_string_value(get(json_array_get(inputs, 4), "role")), "B");
	ck_assert_int_eq(json_integer_value(get(json_array_get(inputs, 4), "run")), 2);
	json_decref(pairs);
	json_decref(inputs);
	test_comparison_release(&c);
}
END_TEST

/* A against itself, three runs a side: same wherever a statistic exists; too few blocks said */
START_TEST(a_against_itself_is_same)
{
	static const char *const files[] = { "a1.json", "a2.json", "a3.json",
					     "b1.json", "b2.json", "b3.json" };
	static const unsigned int groups[] = { 0, 0, 0, 1, 1, 1 };
	const struct test_series a[] = { { 1, 0, 5000, 10000, 20000, 12, NULL } };
	struct run *runs[6];
	struct compare_settings s;
	struct test_comparison c;
	const json_t *pair, *gev;
	json_t *pairs;
	unsigned int i;

	for (i = 0; i < 6; i++)
		runs[i] = test_run(files[i], "timer", a, 1);
	compare_settings_default(&s);
	test_compare_groups(&c, runs, files, 6, groups, false, COMPARE_BY_ALL, &s);
	ck_assert_str_eq(compare_result_verdict(&c.result), "same");
	ck_assert(!compare_result_worse(&c.result));
	/* p50 to p99.9 exist with 15,000 samples pooled; p99.99 and max do not */
	ck_assert_uint_eq(c.result.pairs[0].same, 4);
	ck_assert_uint_eq(c.result.pairs[0].not_available, 2);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(c.result.pairs[0].stats[i].diff_ns, 0);
	ck_assert_msg(strstr(c.result.pairs[0].stats[4].reason,
			     "A: 15000 samples, fewer than the 100000 p99.99 needs"),
		      "%s", c.result.pairs[0].stats[4].reason);
	pairs = compare_document_pairs((const struct run *const *)runs, files, &c.result);
	pair = json_array_get(pairs, 0);
	ck_assert_str_eq(json_string_value(get(pair, "a")), "a1.json and 2 more");
	ck_assert(json_is_null(get(pair, "cpu")));
	ck_assert(json_object_get(pair, "misses") == NULL);
	gev = get(get(pair, "gev"), "a");
	ck_assert_int_eq(json_integer_value(get(gev, "blocks")), 36);
	json_decref(pairs);
	test_comparison_release(&c);
}
END_TEST

START_TEST(bad_settings_are_refused)
{
	const struct test_series a[] = { { 1, 0, 100, 10000, 20000, 0, NULL } };
	struct run *runs[2] = { test_run("a.json", "timer", a, 1),
				test_run("b.json", "timer", a, 1) };
	struct compare_settings s;
	struct compare_plan plan;
	struct compare_result r;

	compare_settings_default(&s);
	ck_assert_int_eq(
		compare_plan_make((const struct run *const *)runs, names, 2, COMPARE_BY_CPU, &plan),
		0);
	s.percentiles[0] = 100;
	ck_assert_int_eq(compare_result_compute((const struct run *const *)runs, &plan, &s, &r),
			 -EINVAL);
	compare_result_release(&r);
	compare_settings_default(&s);
	s.stats.confidence = 1;
	ck_assert_int_eq(compare_result_compute((const struct run *const *)runs, &plan, &s, &r),
			 -EINVAL);
	compare_result_release(&r);
	compare_plan_release(&plan);
	run_free(runs[0]);
	run_free(runs[1]);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("compare_document");
	TCase *tc = tcase_create("document");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, document_has_the_issues_shape);
	tcase_add_test(tc, replicates_decide);
	tcase_add_test(tc, a_against_itself_is_same);
	tcase_add_test(tc, bad_settings_are_refused);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
