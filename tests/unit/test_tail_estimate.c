// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <errno.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "lib/compare/compare_json.h"
#include "latscope/gev.h"
#include "latscope/tail_estimate.h"
#include "unit.h"

static void gev_maxima(unsigned long seed, struct gev_params g, uint64_t *x, unsigned int n)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned int i;

	gsl_rng_set(rng, seed);
	for (i = 0; i < n; i++)
		x[i] = (uint64_t)gev_quantile(&g, gsl_rng_uniform_pos(rng));
	gsl_rng_free(rng);
}

/* every number in the document is finite: jansson cannot even hold NaN */
static void assert_finite_json(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	ck_assert(j != NULL);
	if (json_is_real(j))
		ck_assert(isfinite(json_real_value(j)));
	if (json_is_object(j))
		json_object_foreach(j, key, v)
		{
			ck_assert_msg(v != NULL, "key %s", key);
			assert_finite_json(v);
		}
	if (json_is_array(j))
		json_array_foreach(j, i, v) assert_finite_json(v);
}

START_TEST(sound_maxima_are_reliable)
{
	uint64_t x[3600];
	struct tail_options o;
	struct tail_estimate t;
	json_t *j, *levels;
	char *text;

	gev_maxima(71, (struct gev_params){ 20000, 1000, 0.1 }, x, 3600);
	tail_options_default(&o);
	o.has_budget = true;
	o.budget_ns = 40000;
	ck_assert_int_eq(tail_estimate(x, 3600, &o, &t), 0);
	ck_assert(t.fitted);
	ck_assert_msg(t.reliable, "%s / %s / %s / %s", t.shape.says, t.independence.says,
		      t.stationarity.says, t.fit_quality.says);
	ck_assert_uint_eq(t.nr_levels, 3);
	ck_assert(t.levels[0].value_ns < t.levels[1].value_ns &&
		  t.levels[1].value_ns < t.levels[2].value_ns);
	ck_assert(t.levels[1].has_ci && t.levels[1].ci_ns[0] < t.levels[1].value_ns);
	ck_assert(t.has_exceedance && t.p_day > 0 && t.p_day < 1);
	ck_assert(t.has_p_day_ci && t.p_day_ci[0] < t.p_day && t.p_day < t.p_day_ci[1]);
	ck_assert(t.long_enough.evaluated);
	ck_assert_msg(strstr(t.shape.says, "heavy tail"), "%s", t.shape.says);

	j = tail_estimate_json(&t);
	assert_finite_json(j);
	ck_assert(json_is_integer(json_object_get(j, "loc_ns")));
	ck_assert(json_is_real(json_object_get(json_object_get(j, "se"), "shape")));
	levels = json_object_get(j, "return_levels");
	ck_assert_uint_eq(json_array_size(levels), 3);
	ck_assert(json_integer_value(json_object_get(json_array_get(levels, 1), "period_s")) ==
		  86400);
	ck_assert(json_is_true(json_object_get(j, "reliable")));
	ck_assert(json_is_boolean(json_object_get(
		json_object_get(json_object_get(j, "checks"), "stationarity"), "pass")));
	text = json_dumps(j, 0);
	ck_assert(text && !strstr(text, "nan") && !strstr(text, "inf"));
	free(text);
	json_decref(j);
}
END_TEST

START_TEST(too_few_blocks_are_refused)
{
	uint64_t x[29];
	struct tail_options o;
	struct tail_estimate t;
	json_t *j;

	gev_maxima(72, (struct gev_params){ 20000, 1000, 0 }, x, 29);
	tail_options_default(&o);
	ck_assert_int_eq(tail_estimate(x, 29, &o, &t), 0);
	ck_assert(!t.fitted && !t.reliable);
	ck_assert_msg(strstr(t.error, "only 29 block maxima: at least 30"), "%s", t.error);
	j = tail_estimate_json(&t);
	ck_assert(json_object_get(j, "loc_ns") == NULL);
	ck_assert(json_is_false(json_object_get(j, "reliable")));
	json_decref(j);
	ck_assert_int_eq(tail_estimate(NULL, 0, &o, &t), 0);
	ck_assert(!t.fitted);
}
END_TEST

START_TEST(constant_maxima_cannot_be_fitted)
{
	uint64_t x[100];
	struct tail_options o;
	struct tail_estimate t;
	unsigned int i;
	json_t *j;

	for (i = 0; i < 100; i++)
		x[i] = 15000;
	tail_options_default(&o);
	ck_assert_int_eq(tail_estimate(x, 100, &o, &t), 0);
	ck_assert(!t.fitted);
	ck_assert_msg(strstr(t.error, "equal"), "%s", t.error);
	j = tail_estimate_json(&t);
	assert_finite_json(j);
	json_decref(j);
}
END_TEST

/* a trend across the run: stationarity fails, so the levels are unreliable */
START_TEST(drift_is_caught)
{
	uint64_t x[1000];
	struct tail_options o;
	struct tail_estimate t;
	unsigned int i;

	gev_maxima(73, (struct gev_params){ 20000, 1000, 0 }, x, 1000);
	for (i = 0; i < 1000; i++)
		x[i] += 3 * i;
	tail_options_default(&o);
	ck_assert_int_eq(tail_estimate(x, 1000, &o, &t), 0);
	ck_assert(t.fitted);
	ck_assert(!t.stationarity.pass);
	ck_assert(!t.reliable);
	ck_assert_msg(strstr(t.stationarity.says, "differ"), "%s", t.stationarity.says);
}
END_TEST

/* each block carries half of the last one over: dependence is caught */
START_TEST(dependence_is_caught)
{
	uint64_t x[1000];
	struct tail_options o;
	struct tail_estimate t;
	unsigned int i;

	gev_maxima(74, (struct gev_params){ 20000, 1000, 0 }, x, 1000);
	for (i = 1; i < 1000; i++)
		x[i] = x[i] / 2 + x[i - 1] / 2;
	tail_options_default(&o);
	ck_assert_int_eq(tail_estimate(x, 1000, &o, &t), 0);
	ck_assert(t.fitted);
	ck_assert(!t.independence.pass);
	ck_assert(!t.reliable);
	ck_assert_msg(strstr(t.independence.says, "Griffin"), "%s", t.independence.says);
}
END_TEST

/* few blocks: the 1-day level is wide, and the run length to +-10% is said */
START_TEST(short_run_is_not_long_enough)
{
	uint64_t x[60];
	struct tail_options o;
	struct tail_estimate t;

	gev_maxima(75, (struct gev_params){ 20000, 1000, 0 }, x, 60);
	tail_options_default(&o);
	ck_assert_int_eq(tail_estimate(x, 60, &o, &t), 0);
	ck_assert(t.fitted);
	if (t.long_enough.evaluated) {
		ck_assert(!t.long_enough.enough);
		ck_assert(t.long_enough.blocks_needed > 60);
		ck_assert(fabs(t.long_enough.blocks_needed -
			       ceil(60 * pow(t.long_enough.halfwidth / 0.1, 2))) < 1e-9);
		ck_assert_msg(strstr(t.long_enough.says, "would bring it to +-10%"), "%s",
			      t.long_enough.says);
	} else {
		ck_assert_msg(strstr(t.long_enough.says, "open"), "%s", t.long_enough.says);
	}
}
END_TEST

/* a bounded fitted tail: the end point and the caution are said */
START_TEST(bounded_tail_is_cautioned)
{
	uint64_t x[2000];
	struct tail_options o;
	struct tail_estimate t;
	json_t *j;

	gev_maxima(76, (struct gev_params){ 20000, 1000, -0.3 }, x, 2000);
	tail_options_default(&o);
	o.has_budget = true;
	o.budget_ns = 30000; /* beyond the end point near 23,300 ns */
	ck_assert_int_eq(tail_estimate(x, 2000, &o, &t), 0);
	ck_assert(t.fitted);
	ck_assert_msg(strstr(t.shape.says, "Reghenzani"), "%s", t.shape.says);
	ck_assert(t.p_day == 0);
	j = tail_estimate_json(&t);
	assert_finite_json(j);
	json_decref(j);
}
END_TEST

START_TEST(bad_options)
{
	uint64_t x[40] = { 0 };
	struct tail_options o;
	struct tail_estimate t;

	tail_options_default(&o);
	o.confidence = 1;
	ck_assert_int_eq(tail_estimate(x, 40, &o, &t), -EINVAL);
	tail_options_default(&o);
	o.block_ns = 0;
	ck_assert_int_eq(tail_estimate(x, 40, &o, &t), -EINVAL);
	tail_options_default(&o);
	o.nr_periods = TAIL_MAX_LEVELS + 1;
	ck_assert_int_eq(tail_estimate(x, 40, &o, &t), -EINVAL);
	/* a period no longer than a block has no level */
	tail_options_default(&o);
	o.periods_s[0] = 0.5;
	gev_maxima(77, (struct gev_params){ 20000, 1000, 0 }, x, 40);
	ck_assert_int_eq(tail_estimate(x, 40, &o, &t), 0);
	ck_assert(t.fitted && !t.levels[0].available);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tail_estimate");
	TCase *tc = tcase_create("tail_estimate");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sound_maxima_are_reliable);
	tcase_add_test(tc, too_few_blocks_are_refused);
	tcase_add_test(tc, constant_maxima_cannot_be_fitted);
	tcase_add_test(tc, drift_is_caught);
	tcase_add_test(tc, dependence_is_caught);
	tcase_add_test(tc, short_run_is_not_long_enough);
	tcase_add_test(tc, bounded_tail_is_cautioned);
	tcase_add_test(tc, bad_options);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
