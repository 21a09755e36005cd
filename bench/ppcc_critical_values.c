// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ppcc-critical-values: simulate the 1% points of the probability plot
 * correlation coefficient of GEV block maxima fitted by gev_fit(), and
 * print them as the C table lib/compare/gev_checks.c holds.
 *
 * For each number of maxima n and shape: draw n maxima from GEV(0, 1,
 * shape) by inversion (GSL's MT19937, seed 1), fit them, compute the PPCC
 * against the fitted shape, repeat, and take the 1% point of the PPCCs.
 * Location and scale do not change the PPCC, so shape and n are all it
 * depends on. The comment of each row says how many fits failed (they are
 * left out).
 *
 * usage: ppcc-critical-values [SAMPLES]   (default 4000)
 * Takes about 15 minutes on one CPU of the development machine.
 */
#define LATSCOPE_INSIDE_COMPARE /* white-box: reaches into lib/compare/ */

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <stdio.h>
#include <stdlib.h>

#include "latscope/gev.h"
#include "lib/compare/gev_checks.h"

static const unsigned int sizes[] = { 30, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000 };
static const double shapes[] = { -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 };
#define NR_SIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NR_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static double one_point(gsl_rng *rng, unsigned int n, double shape, unsigned int samples,
			unsigned int *failed)
{
	struct gev_params truth = { 0, 1, shape };
	double *x = malloc(n * sizeof(*x)), *r = malloc(samples * sizeof(*r)), point;
	unsigned int s, i, kept = 0;

	for (s = 0; s < samples; s++) {
		struct gev_fit fit;

		for (i = 0; i < n; i++)
			x[i] = gev_quantile(&truth, gsl_rng_uniform_pos(rng));
		if (gev_fit(x, n, &fit, NULL, 0)) {
			(*failed)++;
			continue;
		}
		r[kept++] = gev_ppcc(x, n, fit.est.shape);
	}
	gsl_sort(r, 1, kept);
	/* the 1% point: the value with 1% of the PPCCs below it */
	point = r[(unsigned int)(0.01 * kept)];
	free(x);
	free(r);
	return point;
}

int main(int argc, char **argv)
{
	unsigned int samples = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 10) : 4000;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned int a, b;

	gsl_rng_set(rng, 1);
	printf("#define PPCC_NR_SIZES %zu\n#define PPCC_NR_SHAPES %zu\n", NR_SIZES, NR_SHAPES);
	printf("static const double PPCC_SIZES[PPCC_NR_SIZES] = {");
	for (a = 0; a < NR_SIZES; a++)
		printf("%s%u", a ? ", " : " ", sizes[a]);
	printf(" };\nstatic const double PPCC_SHAPES[PPCC_NR_SHAPES] = {");
	for (b = 0; b < NR_SHAPES; b++)
		printf("%s%g", b ? ", " : " ", shapes[b]);
	printf(" };\nstatic const double PPCC_CRITICAL[PPCC_NR_SIZES][PPCC_NR_SHAPES] = {\n");
	for (a = 0; a < NR_SIZES; a++) {
		unsigned int cell = samples, failed = 0;

		printf("\t{");
		for (b = 0; b < NR_SHAPES; b++) {
			printf("%s%.6f", b ? ", " : " ",
			       one_point(rng, sizes[a], shapes[b], cell, &failed));
			fflush(stdout);
		}
		printf(" }, /* n %u: %u samples per shape, %u fits failed */\n", sizes[a], cell,
		       failed);
	}
	printf("};\n");
	gsl_rng_free(rng);
	return 0;
}
