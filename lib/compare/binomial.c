// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <stdbool.h>

#include "binomial.h"
#include "latscope/numerics.h"

/*
 * GSL's incomplete beta function (a continued fraction of at most 512
 * terms) stops converging near the mean once the variance n p (1 - p)
 * reaches about 5e5 (measured: it returns NaN at 10^9 trials and p = 0.5
 * within half a standard deviation of the mean). Up to 1e4 it is exact and
 * safe by a factor of 50; from there the Edgeworth expansion below is
 * within 2e-8 of it (measured over +-5 standard deviations, see
 * test_binomial), and better the larger the variance.
 */
#define EXACT_MAX_VARIANCE 1e4

/*
 * P(X <= k) by the Edgeworth expansion of the binomial to second order
 * (skewness, kurtosis and squared skewness terms) evaluated at k + 1/2,
 * plus Esseen's lattice term for a half-integer point, z phi(z) / (24 var).
 */
static double edgeworth_lower_tail(double n, double p, double k)
{
	double var = n * p * (1 - p), sd = sqrt(var);
	double z = (k + 0.5 - n * p) / sd, z2 = z * z;
	double skew = (1 - 2 * p) / sd, kurt = (1 - 6 * p * (1 - p)) / var;
	double phi = exp(-z2 / 2) / sqrt(2 * M_PI);
	double he2 = z2 - 1, he3 = z * (z2 - 3), he5 = z * (z2 * z2 - 10 * z2 + 15);
	double v;

	v = gsl_cdf_ugaussian_P(z) -
	    phi * (skew / 6 * he2 + kurt / 24 * he3 + skew * skew / 72 * he5) +
	    z * phi / (24 * var);
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

double binomial_upper_tail(uint64_t n, double p, uint64_t r)
{
	double nd = (double)n, v;

	if (r == 0)
		return 1;
	if (r > n || p <= 0)
		return 0;
	if (p >= 1)
		return 1;
	if (nd * p * (1 - p) < EXACT_MAX_VARIANCE) {
		numerics_init();
		/* P(X >= r) = I_p(r, n - r + 1) */
		v = gsl_cdf_beta_P(p, (double)r, nd - (double)r + 1);
		if (isfinite(v))
			return v < 0 ? 0 : v > 1 ? 1 : v;
	}
	return 1 - edgeworth_lower_tail(nd, p, (double)r - 1);
}

/*
 * The p at which P(X >= k) (upper = false) or P(X <= k) (upper = true)
 * equals @target: both are monotone in p, so bisection on [0, 1] finds it;
 * 200 halvings reach below any double's spacing.
 */
static double bisect_bound(uint64_t k, uint64_t n, double target, bool upper)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 200 && hi - lo > 0; i++) {
		double mid = lo + (hi - lo) / 2, f;

		if (mid <= lo || mid >= hi)
			break;
		if (upper)
			f = target - (1 - binomial_upper_tail(n, mid, k + 1));
		else
			f = binomial_upper_tail(n, mid, k) - target;
		/* f rises with p in both cases */
		if (f < 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

int clopper_pearson(uint64_t k, uint64_t n, double confidence, double *low, double *high)
{
	double alpha = 1 - confidence, nd = (double)n, kd = (double)k;
	bool large = kd * (nd - kd) / nd >= EXACT_MAX_VARIANCE;

	if (!n || k > n || !(confidence > 0 && confidence < 1))
		return -EINVAL;
	numerics_init();
	*low = 0;
	*high = 1;
	if (k > 0) {
		*low = large ? NAN : gsl_cdf_beta_Pinv(alpha / 2, kd, nd - kd + 1);
		if (!isfinite(*low))
			*low = bisect_bound(k, n, alpha / 2, false);
	}
	if (k < n) {
		*high = large ? NAN : gsl_cdf_beta_Pinv(1 - alpha / 2, kd + 1, nd - kd);
		if (!isfinite(*high))
			*high = bisect_bound(k, n, alpha / 2, true);
	}
	return 0;
}
