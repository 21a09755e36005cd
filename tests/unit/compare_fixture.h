/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_COMPARE_FIXTURE_H
#define LATSCOPE_TEST_COMPARE_FIXTURE_H

/*
 * A comparison set up as latscope compare sets it up, for the tests of
 * what compare writes (its document, its text, the report's section):
 * block maxima for the inputs, the runs paired and computed with checks
 * that fail the test, and all of it released in one call.
 */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "compare_inputs.h"
#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"

/*
 * Gumbel block maxima around @loc_ns, what a run with an exponential tail
 * gives, in time order; the caller frees them.
 */
static inline uint64_t *test_gumbel_maxima(unsigned int n, double loc_ns, double scale_ns,
					   unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t *x = malloc(n * sizeof(*x));
	unsigned int i;

	gsl_rng_set(rng, seed);
	for (i = 0; i < n; i++)
		x[i] = (uint64_t)llround(loc_ns - scale_ns * log(-log(gsl_rng_uniform_pos(rng))));
	gsl_rng_free(rng);
	return x;
}

/* @n runs compared: what the command holds once it has computed */
struct test_comparison {
	struct run **runs; /* the caller's array; the runs are freed with the rest */
	unsigned int n;
	struct compare_plan plan;
	struct compare_result result;
};

/*
 * pair @runs (named @names), whose groups are @group_of (NULL: each run a
 * group of its own), @by, and compute every pair with @s
 */
static inline void test_compare_groups(struct test_comparison *c, struct run **runs,
				       const char *const *names, unsigned int n,
				       const unsigned int *group_of, bool paired,
				       enum compare_by by, const struct compare_settings *s)
{
	c->runs = runs;
	c->n = n;
	if (group_of)
		ck_assert_int_eq(compare_plan_make_groups((const struct run *const *)runs, names, n,
							  group_of, paired, by, &c->plan),
				 0);
	else
		ck_assert_int_eq(
			compare_plan_make((const struct run *const *)runs, names, n, by, &c->plan),
			0);
	ck_assert_int_eq(
		compare_result_compute((const struct run *const *)runs, &c->plan, s, &c->result),
		0);
}

/* pair @runs (named @names, each a group of its own) @by and compute every pair with @s */
static inline void test_compare(struct test_comparison *c, struct run **runs,
				const char *const *names, unsigned int n, enum compare_by by,
				const struct compare_settings *s)
{
	test_compare_groups(c, runs, names, n, NULL, false, by, s);
}

/* the result and the plan released, the runs freed */
static inline void test_comparison_release(struct test_comparison *c)
{
	unsigned int i;

	compare_result_release(&c->result);
	compare_plan_release(&c->plan);
	for (i = 0; i < c->n; i++)
		run_free(c->runs[i]);
}

#endif
