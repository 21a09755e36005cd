/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_GEV_H
#define LATSCOPE_GEV_H

#include <stddef.h>

/*
 * The generalised extreme value distribution of block maxima, fitted by
 * maximum likelihood (Coles 2001, ch. 3):
 *
 *   G(x) = exp(-(1 + shape (x - loc) / scale)^(-1/shape)),
 *
 * with the Gumbel limit exp(-exp(-(x - loc) / scale)) at shape 0. Every
 * function here is written in terms of log1p(shape z) / shape and
 * expm1(-shape L) / shape and their series, so it is smooth and exact
 * through shape 0 rather than switching formulas there.
 *
 * Units are those of the data (ns for latencies).
 */
struct gev_params {
	double loc;
	double scale; /* > 0 */
	double shape; /* > 0: heavy (Frechet) tail; < 0: bounded (Weibull) */
};

/* G(x); 0 below a heavy tail's lower end, 1 above a bounded tail's upper end */
double gev_cdf(const struct gev_params *g, double x);

/**
 * gev_return_level - the level a block maximum exceeds with probability p
 * @g: the distribution
 * @p: 0 < p < 1; with 1 s blocks, the 1-hour level has p = 1/3600
 *
 * z_p = loc + scale (y^-shape - 1) / shape with y = -log(1 - p), or
 * loc - scale log(y) at shape 0.
 */
double gev_return_level(const struct gev_params *g, double p);

/* G^-1(prob): the value a block maximum stays at or below with probability prob */
double gev_quantile(const struct gev_params *g, double prob);

/* log G(x), exact where G(x) is too close to 1 to hold in a double */
double gev_log_cdf(const struct gev_params *g, double x);

struct gev_fit {
	struct gev_params est;
	double se[3]; /* standard errors of loc, scale, shape */
	double cov[3][3]; /* inverse of the observed information */
	double nll; /* negative log-likelihood at the estimate */
	unsigned int n;
	char method[96]; /* how the maximum was found */
};

/**
 * gev_fit - maximum-likelihood fit to block maxima
 * @x: the block maxima (any order)
 * @n: how many (>= 3)
 * @out: receives the fit
 * @why: receives, on failure, what went wrong and what was tried
 * @size: room in @why
 *
 * The search runs on the data standardised by their median and
 * interquartile range: damped Newton steps on the analytic Hessian from
 * the L-moment estimates (Hosking, Wallis & Wood 1985), and, if they fail,
 * GSL's BFGS (analytic gradient) and GSL's simplex from several starts,
 * each finished by Newton steps. A result is accepted only when the Newton
 * decrement is below 1e-12 and the observed information (that Hessian)
 * is positive definite. Standard errors are the square roots of the
 * diagonal of its inverse.
 *
 * Returns 0; -EINVAL for bad arguments; -EDOM when the data cannot be
 * fitted (all equal, or no maximum found: @why says which and what was
 * tried); -ENOMEM.
 */
int gev_fit(const double *x, unsigned int n, struct gev_fit *out, char *why, size_t size);

/**
 * gev_fit_near - gev_fit() starting from parameters known to be close
 * @x: the block maxima
 * @n: how many (>= 3)
 * @start: e.g. the fit to a larger sample these maxima belong to
 * @out: receives the fit
 * @why: receives, on failure, what went wrong and what was tried
 * @size: room in @why
 *
 * Newton steps from @start, then gev_fit()'s searches if they fail.
 * Returns as gev_fit().
 */
int gev_fit_near(const double *x, unsigned int n, const struct gev_params *start,
		 struct gev_fit *out, char *why, size_t size);

/**
 * gev_profile_return_level - profile-likelihood interval of a return level
 * @x: the block maxima the fit came from
 * @n: how many
 * @fit: their fit
 * @p: the block exceedance probability of the level (0 < p < 1)
 * @confidence: e.g. 0.95
 * @ci: receives the interval: the levels z whose profile deviance
 *	2 (l(fit) - max over the rest with z_p = z) stays within the
 *	chi-square(1) quantile of @confidence
 *
 * Returns 0; -EINVAL; -ERANGE when the deviance stays below the threshold
 * on one side as far as the parameter space goes (shape in -1..8): the
 * data do not bound the level on that side, whose bound is then -/+
 * infinity while the other is valid; -EDOM when the profile could not be
 * followed (nothing is written to @ci); -ENOMEM.
 */
int gev_profile_return_level(const double *x, unsigned int n, const struct gev_fit *fit, double p,
			     double confidence, double ci[2]);

/**
 * gev_profile_shape - profile-likelihood interval of the shape
 * Arguments and returns as gev_profile_return_level().
 */
int gev_profile_shape(const double *x, unsigned int n, const struct gev_fit *fit, double confidence,
		      double ci[2]);

/**
 * gev_profile_exceedance - interval of the probability that a level is exceeded
 * @x: the block maxima the fit came from
 * @n: how many
 * @fit: their fit
 * @level: the level (a latency budget)
 * @blocks: over how many blocks (1: one block; 86400 with 1 s blocks: a day)
 * @confidence: e.g. 0.95
 * @ci: receives the interval of P(one of @blocks block maxima > @level),
 *	i.e. of 1 - G(level)^blocks, from the profile likelihood of
 *	log(-log G(level)) (a return level with the level fixed and the
 *	probability free)
 *
 * When the fit puts @level beyond its upper end point (shape < 0), the
 * estimate is 0 and the lower bound too; the upper bound is 0 as well
 * when the likelihood rejects any end point at or beyond @level, and is
 * searched otherwise. Returns as gev_profile_return_level().
 */
int gev_profile_exceedance(const double *x, unsigned int n, const struct gev_fit *fit, double level,
			   double blocks, double confidence, double ci[2]);

/**
 * gev_negative_log_likelihood - the objective, for tests and tools
 * @x: data
 * @n: how many
 * @g: parameters
 *
 * Returns the value, +infinity outside the support, NaN for bad data.
 */
double gev_negative_log_likelihood(const double *x, unsigned int n, const struct gev_params *g);

#endif
