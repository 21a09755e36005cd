/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_BINOMIAL_H
#define LATSCOPE_BINOMIAL_H

#ifndef LATSCOPE_INSIDE_COMPARE
#error "lib/compare/binomial.h is private to lib/compare/: outside it, use the headers of include/latscope/"
#endif

#include <stdint.h>

/*
 * Binomial probabilities for counts of up to 2^53 trials, and the exact
 * (Clopper-Pearson) interval of a proportion. The quantile bootstrap and
 * the deadline-miss rates of `compare` are built on them.
 */

/**
 * binomial_upper_tail - P(X >= r) for X ~ Binomial(n, p)
 * @n: trials
 * @p: success probability, 0..1
 * @r: the count
 *
 * Exact (GSL's incomplete beta function) while the variance n p (1 - p)
 * is below 10^4; above, where GSL's continued fraction no longer
 * converges near the mean, a second-order Edgeworth expansion with the
 * lattice correction, whose absolute error there is below 2e-8
 * (checked against the exact value in the unit tests).
 */
double binomial_upper_tail(uint64_t n, double p, uint64_t r);

/**
 * clopper_pearson - exact confidence interval of a proportion
 * @k: successes
 * @n: trials (> 0, >= @k)
 * @confidence: e.g. 0.95
 * @low: receives the lower bound (0 when @k is 0)
 * @high: receives the upper bound (1 when @k is @n)
 *
 * The bounds are the Beta quantiles B(a/2; k, n-k+1) and
 * B(1-a/2; k+1, n-k) (gsl_cdf_beta_Pinv), or, where both k and n - k are
 * so large that GSL's incomplete beta no longer converges, the roots of
 * binomial_upper_tail() that define the same bounds. Returns 0 or -EINVAL.
 */
int clopper_pearson(uint64_t k, uint64_t n, double confidence, double *low, double *high);

#endif
