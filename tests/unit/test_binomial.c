// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>

#include "lib/compare/binomial.h"
#include "latscope/numerics.h"
#include "unit.h"

/* P(X >= r) from R 4.2's pbinom(r - 1, n, p, lower.tail = FALSE) (TOMS 708) */
static const struct {
	double n, p, r, tail;
} from_r[] = {
	{ 1000000000, 0.5, 500001000, 0.47479807604672941 },
	{ 1000000000, 0.5, 499990000, 0.7364657002845626 },
	{ 1000000000, 0.999, 999000500, 0.30866954806421826 },
	{ 64000000000, 0.9999, 63993610000, 3.8458072084205579e-05 },
	{ 100000000, 0.99, 99000800, 0.21085168657705947 },
	{ 200000, 0.5, 100300, 0.090219404987549656 },
	{ 1000, 0.999, 1000, 0.36769542477096373 },
	{ 5000, 0.001, 3, 0.87547434580225147 },
};

START_TEST(upper_tail_matches_r)
{
	unsigned int i;

	for (i = 0; i < sizeof(from_r) / sizeof(from_r[0]); i++) {
		double got = binomial_upper_tail((uint64_t)from_r[i].n, from_r[i].p,
						 (uint64_t)from_r[i].r);

		ck_assert_msg(fabs(got - from_r[i].tail) < 2e-8, "n %g p %g r %g: %.12g, R %.12g",
			      from_r[i].n, from_r[i].p, from_r[i].r, got, from_r[i].tail);
	}
}
END_TEST

/*
 * Where both work (variance 1e4 to 2e5), the Edgeworth expansion used
 * above 1e4 agrees with GSL's exact incomplete beta to 2e-8 over +-5
 * standard deviations.
 */
START_TEST(edgeworth_agrees_with_exact_where_both_work)
{
	static const double sizes[] = { 1e5, 1e6, 1e7 };
	static const double ps[] = { 0.5, 0.9, 0.99, 0.999 };
	double worst = 0;
	unsigned int a, b;

	numerics_init();
	for (a = 0; a < 3; a++) {
		for (b = 0; b < 4; b++) {
			double n = sizes[a], p = ps[b], sd = sqrt(n * p * (1 - p)), t;

			if (sd * sd < 1e4 || sd * sd > 2e5)
				continue;
			for (t = -5; t <= 5; t += 0.01) {
				double r = floor(n * p + t * sd);
				double exact = gsl_cdf_beta_P(p, r, n - r + 1);
				double got = binomial_upper_tail((uint64_t)n, p, (uint64_t)r);

				if (!isfinite(exact))
					continue;
				worst = fmax(worst, fabs(got - exact));
			}
		}
	}
	ck_assert_msg(worst < 2e-8, "worst difference %g", worst);
}
END_TEST

START_TEST(upper_tail_edges)
{
	ck_assert(binomial_upper_tail(10, 0.3, 0) == 1);
	ck_assert(binomial_upper_tail(10, 0.3, 11) == 0);
	ck_assert(binomial_upper_tail(10, 0, 1) == 0);
	ck_assert(binomial_upper_tail(10, 1, 10) == 1);
	/* P(X >= n) = p^n */
	ck_assert(fabs(binomial_upper_tail(10, 0.5, 10) - pow(0.5, 10)) < 1e-15);
	/* P(X >= 1) = 1 - (1 - p)^n */
	ck_assert(fabs(binomial_upper_tail(100, 0.01, 1) - (1 - pow(0.99, 100))) < 1e-14);
}
END_TEST

/* binom.test(k, n)$conf.int in R 4.2 */
static const struct {
	double k, n, low, high;
} cp_from_r[] = {
	{ 0, 50, 0, 0.071121736464197616 },
	{ 50, 50, 0.92887826353580238, 1 },
	{ 3, 100, 0.0062299715383063994, 0.085176052974279992 },
	{ 1234, 1000000, 0.0011661407366390321, 0.0013047741535607844 },
	{ 7, 1000000000, 2.8143630560026391e-09, 1.4422675308174957e-08 },
	{ 500000000, 1000000000, 0.49996900974842229, 0.50003099025157771 },
	{ 12, 12345, 0.00050237188210780774, 0.0016973654818470349 },
};

START_TEST(clopper_pearson_matches_binom_test)
{
	unsigned int i;

	for (i = 0; i < sizeof(cp_from_r) / sizeof(cp_from_r[0]); i++) {
		double lo, hi;

		ck_assert_int_eq(clopper_pearson((uint64_t)cp_from_r[i].k, (uint64_t)cp_from_r[i].n,
						 0.95, &lo, &hi),
				 0);
		ck_assert_msg(fabs(lo - cp_from_r[i].low) <= 1e-7 * cp_from_r[i].low + 1e-300,
			      "%g of %g: low %.12g, R %.12g", cp_from_r[i].k, cp_from_r[i].n, lo,
			      cp_from_r[i].low);
		ck_assert_msg(fabs(hi - cp_from_r[i].high) <= 1e-7 * cp_from_r[i].high,
			      "%g of %g: high %.12g, R %.12g", cp_from_r[i].k, cp_from_r[i].n, hi,
			      cp_from_r[i].high);
	}
}
END_TEST

START_TEST(clopper_pearson_closed_forms)
{
	double lo, hi;

	/* 0 of n: upper (alpha/2)^(1/n) from 1; n of n: lower (alpha/2)^(1/n) */
	ck_assert_int_eq(clopper_pearson(0, 20, 0.95, &lo, &hi), 0);
	ck_assert(lo == 0);
	ck_assert(fabs(hi - (1 - pow(0.025, 1.0 / 20))) < 1e-12);
	ck_assert_int_eq(clopper_pearson(20, 20, 0.95, &lo, &hi), 0);
	ck_assert(hi == 1);
	ck_assert(fabs(lo - pow(0.025, 1.0 / 20)) < 1e-12);
	/* binom.test(3, 100, conf.level = 0.99) */
	ck_assert_int_eq(clopper_pearson(3, 100, 0.99, &lo, &hi), 0);
	ck_assert(fabs(lo - 0.0034070701031797619) < 1e-10);
	ck_assert(fabs(hi - 0.10548125372507822) < 1e-10);
	ck_assert_int_eq(clopper_pearson(1, 0, 0.95, &lo, &hi), -EINVAL);
	ck_assert_int_eq(clopper_pearson(2, 1, 0.95, &lo, &hi), -EINVAL);
	ck_assert_int_eq(clopper_pearson(1, 2, 1.5, &lo, &hi), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("binomial");
	TCase *tc = tcase_create("binomial");

	tcase_add_test(tc, upper_tail_matches_r);
	tcase_add_test(tc, edgeworth_agrees_with_exact_where_both_work);
	tcase_add_test(tc, upper_tail_edges);
	tcase_add_test(tc, clopper_pearson_matches_binom_test);
	tcase_add_test(tc, clopper_pearson_closed_forms);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
