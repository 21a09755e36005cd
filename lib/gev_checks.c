// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/gev_checks.h"
#include "latscope/numerics.h"

double gev_plotting_position(unsigned int i, unsigned int n)
{
	return (i - 0.44) / (n + 0.12);
}

double gev_ppcc(const double *x, unsigned int n, double shape)
{
	struct gev_params standard = { 0, 1, shape };
	double *sorted, *q, r;
	unsigned int i;

	if (!x || n < 3)
		return NAN;
	sorted = malloc(n * sizeof(*sorted));
	q = malloc(n * sizeof(*q));
	if (!sorted || !q) {
		free(sorted);
		free(q);
		return NAN;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	for (i = 0; i < n; i++)
		q[i] = gev_quantile(&standard, gev_plotting_position(i + 1, n));
	r = gsl_stats_correlation(sorted, 1, q, 1, n);
	free(sorted);
	free(q);
	return r;
}

/*
 * 1% points of the PPCC under the GEV, by simulation (see
 * bench/ppcc_critical_values.c, which prints this table): rows are numbers
 * of maxima, columns shapes.
 */
/* BEGIN TABLE: bench/ppcc-critical-values */
#define PPCC_NR_SIZES 2
#define PPCC_NR_SHAPES 2
static const double PPCC_SIZES[PPCC_NR_SIZES] = { 30, 100 };
static const double PPCC_SHAPES[PPCC_NR_SHAPES] = { -0.4, 0.6 };
static const double PPCC_CRITICAL[PPCC_NR_SIZES][PPCC_NR_SHAPES] = {
	{ 0.9, 0.9 },
	{ 0.95, 0.95 },
};
/* END TABLE */

static double table_at(unsigned int row, double shape)
{
	double pos = (shape - PPCC_SHAPES[0]) / (PPCC_SHAPES[1] - PPCC_SHAPES[0]), w;
	unsigned int col;

	if (pos <= 0)
		return log(1 - PPCC_CRITICAL[row][0]);
	if (pos >= PPCC_NR_SHAPES - 1)
		return log(1 - PPCC_CRITICAL[row][PPCC_NR_SHAPES - 1]);
	col = (unsigned int)pos;
	w = pos - col;
	return (1 - w) * log(1 - PPCC_CRITICAL[row][col]) +
	       w * log(1 - PPCC_CRITICAL[row][col + 1]);
}

double gev_ppcc_critical(unsigned int n, double shape)
{
	double ln = log((double)n), w, a, b;
	unsigned int row = 0;

	if (n <= PPCC_SIZES[0])
		return 1 - exp(table_at(0, shape));
	while (row + 2 < PPCC_NR_SIZES && n > PPCC_SIZES[row + 1])
		row++;
	/* between rows row and row + 1, or beyond the last along them */
	w = (ln - log(PPCC_SIZES[row])) / (log(PPCC_SIZES[row + 1]) - log(PPCC_SIZES[row]));
	a = table_at(row, shape);
	b = table_at(row + 1, shape);
	return 1 - exp(a + w * (b - a));
}

struct ranked {
	double value;
	unsigned int index;
};

static int compare_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	return a->value < b->value ? -1 : a->value > b->value;
}

double rank_lag1_autocorrelation(const double *x, unsigned int n)
{
	struct ranked *order;
	double *ranks, r;
	unsigned int i, j, k;

	if (!x || n < 3)
		return NAN;
	order = malloc(n * sizeof(*order));
	ranks = malloc(n * sizeof(*ranks));
	if (!order || !ranks) {
		free(order);
		free(ranks);
		return NAN;
	}
	for (i = 0; i < n; i++)
		order[i] = (struct ranked){ x[i], i };
	qsort(order, n, sizeof(*order), compare_ranked);
	/* ties share their mean rank */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && order[j].value == order[i].value; j++)
			;
		for (k = i; k < j; k++)
			ranks[order[k].index] = (i + j + 1) / 2.0;
	}
	r = gsl_stats_lag1_autocorrelation(ranks, 1, n);
	free(order);
	free(ranks);
	return r;
}

int gev_halves_test(const double *x, unsigned int n, const struct gev_fit *whole, double *statistic,
		    double *p_value, char *why, size_t size)
{
	struct gev_fit first, second;
	char reason[640];
	unsigned int half = n / 2;
	double s;
	int err;

	numerics_init();
	err = gev_fit_near(x, half, &whole->est, &first, reason, sizeof(reason));
	if (err) {
		snprintf(why, size, "the first half cannot be fitted: %s", reason);
		return err == -ENOMEM ? err : -EDOM;
	}
	err = gev_fit_near(x + half, n - half, &whole->est, &second, reason, sizeof(reason));
	if (err) {
		snprintf(why, size, "the second half cannot be fitted: %s", reason);
		return err == -ENOMEM ? err : -EDOM;
	}
	s = 2 * (whole->nll - first.nll - second.nll);
	/* the halves' fits can only do better than the whole's, up to rounding */
	*statistic = s > 0 ? s : 0;
	*p_value = gsl_cdf_chisq_Q(*statistic, 3);
	return 0;
}
