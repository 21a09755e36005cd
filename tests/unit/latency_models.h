/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_LATENCY_MODELS_H
#define LATSCOPE_TEST_LATENCY_MODELS_H

/*
 * Known latency distributions for the simulation tests of the statistics:
 * their CDF, quantile and block-maximum quantile are exact, so an interval
 * can be checked against the truth.
 *
 * - body_tail: a log-normal body (median 2 us, sigma 0.3) whose top 1%
 *   is replaced by a Pareto tail of index 3 joined at its 99th percentile,
 *   optionally with that tail stretched by a factor (the "20% shift").
 * - mixture: 98% log-normal around 2 us and 2% log-normal around 15 us (a
 *   periodic disturbance), the bimodal shape latencies often have.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "latscope/bucket_hist.h"
#include "latscope/hist.h"

struct latency_model {
	int kind; /* MODEL_BODY_TAIL or MODEL_MIXTURE */
	double stretch; /* body_tail: factor on the tail, 1 for none */
};

#define MODEL_BODY_TAIL 0
#define MODEL_MIXTURE 1

#define BODY_MU 7.6009024595 /* log(2000) */
#define BODY_SIGMA 0.3
#define TAIL_INDEX 3.0
#define TAIL_FROM 0.99

static inline double body_tail_join(void)
{
	return exp(BODY_MU + BODY_SIGMA * gsl_cdf_ugaussian_Pinv(TAIL_FROM));
}

static inline double model_cdf(const struct latency_model *m, double x)
{
	if (!(x > 0))
		return 0;
	if (m->kind == MODEL_MIXTURE)
		return 0.98 * gsl_cdf_lognormal_P(x, BODY_MU, 0.2) +
		       0.02 * gsl_cdf_lognormal_P(x, 9.6158055608, 0.3); /* log(15000) */
	{
		double u = body_tail_join();

		if (x <= u)
			return gsl_cdf_lognormal_P(x, BODY_MU, BODY_SIGMA);
		if (x <= u * m->stretch)
			return TAIL_FROM;
		return 1 - (1 - TAIL_FROM) * pow(x / (u * m->stretch), -TAIL_INDEX);
	}
}

/* the value at or below which a fraction q lies */
static inline double model_quantile(const struct latency_model *m, double q)
{
	/* the mixture's by bisection on log x: 50 halvings of 1 ns..10 s reach 1e-12 */
	double lo = 0, hi = log(1e10);
	int i;

	if (m->kind == MODEL_BODY_TAIL) {
		if (q <= TAIL_FROM)
			return exp(BODY_MU + BODY_SIGMA * gsl_cdf_ugaussian_Pinv(q));
		return body_tail_join() * m->stretch *
		       pow((1 - q) / (1 - TAIL_FROM), -1 / TAIL_INDEX);
	}
	for (i = 0; i < 50; i++) {
		double mid = (lo + hi) / 2;

		if (model_cdf(m, exp(mid)) < q)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

/* the largest of @block values: F^-1(U^(1/block)), exact */
static inline double model_block_max(const struct latency_model *m, gsl_rng *rng, double block)
{
	double u = gsl_rng_uniform_pos(rng);

	return model_quantile(m, exp(log(u) / block));
}

/*
 * Probabilities of the log-linear histogram's buckets for values rounded
 * down to whole ns; the caller frees the array.
 */
static inline double *model_bucket_probabilities(const struct latency_model *m)
{
	double *p = malloc(HIST_BUCKETS * sizeof(*p)), below = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		double at = model_cdf(m, (double)hist_bucket_high(i) + 1);

		p[i] = at - below;
		below = at;
	}
	return p;
}

/*
 * A run of @n samples as a histogram, drawn as multinomial bucket counts
 * (exactly what adding n rounded samples would give, without drawing them).
 * min and max are the ends of the outermost non-empty buckets.
 */
static inline void model_draw_hist(gsl_rng *rng, const double *probabilities, unsigned int n,
				   struct bucket_hist *out)
{
	unsigned int *counts = malloc(HIST_BUCKETS * sizeof(*counts));
	uint64_t min = 0, max = 0;
	unsigned int i;
	int first = 1;

	gsl_ran_multinomial(rng, HIST_BUCKETS, n, probabilities, counts);
	bucket_hist_init(out);
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!counts[i])
			continue;
		bucket_hist_add(out, hist_bucket_low(i), hist_bucket_high(i), counts[i]);
		if (first)
			min = hist_bucket_low(i);
		first = 0;
		max = hist_bucket_high(i);
	}
	bucket_hist_finish(out, 0, 0, min, max);
	free(counts);
}

#endif
