/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_GEV_CHECKS_H
#define LATSCOPE_GEV_CHECKS_H

#ifndef LATSCOPE_INSIDE_COMPARE
#error "lib/compare/gev_checks.h is private to lib/compare/: outside it, use the headers of include/latscope/"
#endif

#include <stddef.h>

#include "latscope/gev.h"

/*
 * Checks of the assumptions behind a GEV fit to block maxima: that the
 * maxima are independent and identically distributed (Griffin & Burns,
 * WCET 2010, show what breaks when they are not) and that the GEV
 * describes them. Each gives a statistic; tail_estimate.h turns them into
 * pass/fail with words. All tests are at the 1% level, so that four of
 * them together flag about 4% of sound runs.
 */

/*
 * Gringorten's plotting position (i - 0.44) / (n + 0.12) of the i-th
 * smallest of n (1-based), recommended for the GEV and Gumbel.
 */
double gev_plotting_position(unsigned int i, unsigned int n);

/**
 * gev_ppcc - probability plot correlation coefficient
 * @x: the block maxima
 * @n: how many (>= 3)
 * @shape: the fitted shape
 *
 * The correlation of the sorted maxima with the fitted GEV's quantiles at
 * the plotting positions; location and scale do not change it. Returns it,
 * or NaN (allocation failure, n < 3).
 */
double gev_ppcc(const double *x, unsigned int n, double shape);

/**
 * gev_ppcc_critical - the PPCC below which a GEV fit is rejected at 1%
 * @n: how many maxima were fitted
 * @shape: the fitted shape
 *
 * The 1% point of the PPCC of n maxima drawn from a GEV of that shape and
 * fitted by gev_fit(), from a table simulated with
 * bench/ppcc-critical-values (4,000 samples per cell; 30 to 30,000
 * maxima, shapes -0.4 to 0.6), interpolated in
 * log n and the shape on log(1 - r). Outside the table the nearest row or
 * column holds.
 */
double gev_ppcc_critical(unsigned int n, double shape);

/**
 * rank_lag1_autocorrelation - serial correlation of successive maxima
 * @x: the block maxima in time order
 * @n: how many (>= 3)
 *
 * The lag-1 autocorrelation of the ranks (Wald-Wolfowitz), so one huge
 * maximum cannot dominate it; under independence it is about
 * N(-1/n, 1/n). Returns it, or NaN.
 */
double rank_lag1_autocorrelation(const double *x, unsigned int n);

/**
 * gev_halves_test - are the first and second halves the same GEV?
 * @x: the block maxima in time order
 * @n: how many
 * @whole: the fit to all of them
 * @statistic: receives the likelihood-ratio statistic
 *	       2 (nll(whole) - nll(first half) - nll(second half))
 * @p_value: receives its chi-square(3) tail probability
 * @why: receives the reason when a half cannot be fitted
 * @size: room in @why
 *
 * Returns 0, -EDOM (a half could not be fitted) or -ENOMEM.
 */
int gev_halves_test(const double *x, unsigned int n, const struct gev_fit *whole, double *statistic,
		    double *p_value, char *why, size_t size);

#endif
