/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_QUANTILE_INTERVAL_H
#define LATSCOPE_QUANTILE_INTERVAL_H

#ifndef LATSCOPE_INSIDE_COMPARE
#error "lib/compare/quantile_interval.h is private to lib/compare/: outside it, use the headers of include/latscope/"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"

/*
 * A percentile of a histogram with its bootstrap confidence interval,
 * computed without resampling.
 *
 * The percentile is the value of rank r = ceil(percent/100 * n), read as
 * its bucket's value (bucket_hist_value). In a bootstrap resample (n
 * values drawn with replacement, i.e. multinomial bucket counts), the
 * number of values at or below bucket k is Binomial(n, F_k) with F_k the
 * histogram's cumulative fraction, so the resampled percentile lies at or
 * below bucket k with probability P(Binomial(n, F_k) >= r). That is the
 * whole bootstrap distribution, exactly (as if resampled infinitely
 * often), over the bucket values; its percentile interval is exact to the
 * histogram's resolution. Buckets whose probability is below 1e-10 at
 * either end are folded into their neighbours.
 */
struct quantile_interval {
	double percent;
	uint64_t samples;
	bool available; /* false: too few samples; reason says so */
	char reason[160];
	uint64_t value_ns; /* the percentile */
	uint64_t ci_ns[2]; /* percentile bootstrap interval */
	/* the bootstrap distribution: P(resampled <= support_ns[i]) = cumulative[i] */
	unsigned int nr_support;
	uint64_t *support_ns; /* ascending, distinct; owned */
	double *cumulative; /* ascending, the last is 1; owned */
};

/**
 * quantile_interval_min_samples - fewest samples for an interval
 * @percent: the percentile, 0 < percent < 100
 * @confidence: e.g. 0.95
 *
 * Two conditions. An upper confidence bound for percentile p lies inside
 * the sample only if all n values falling below the true percentile is
 * less likely than (1 - confidence) / 2, i.e. p^n <= (1 - confidence) / 2
 * (likewise (1 - p)^n for the lower bound). And at least 10 values must
 * be expected beyond it, n (1 - p) >= 10: with fewer the percentile
 * bootstrap's interval is too narrow (measured: 86% coverage for a 95%
 * interval at 5, 92% at 10, 94% at 100). Below this many samples the
 * percentile is reported as unavailable: 100,000 for p99.99, 10,000 for
 * p99.9, 20 for p50.
 */
uint64_t quantile_interval_min_samples(double percent, double confidence);

/**
 * quantile_interval_estimate - a percentile and its interval
 * @h: a finished histogram
 * @percent: 0 < percent < 100
 * @confidence: 0 < confidence < 1 (e.g. 0.95)
 * @out: receives the estimate; release it with quantile_interval_release()
 *
 * When the histogram is empty or has fewer samples than
 * quantile_interval_min_samples(), @out->available is false and
 * @out->reason says why (that is not an error). Returns 0, -EINVAL (bad
 * @percent or @confidence, unfinished histogram) or -ENOMEM.
 */
int quantile_interval_estimate(const struct bucket_hist *h, double percent, double confidence,
			       struct quantile_interval *out);

/* Free the distribution an estimate holds. */
void quantile_interval_release(struct quantile_interval *q);

/**
 * quantile_interval_difference - B minus A with its bootstrap interval
 * @a: the estimate of A (available)
 * @b: the estimate of B (available), independent of A
 * @confidence: 0 < confidence < 1
 * @diff_ns: receives b->value_ns - a->value_ns
 * @ci_ns: receives the interval of the difference
 *
 * The bootstrap distribution of the difference of two independent
 * resampled percentiles follows from theirs: P(B* - A* <= d) =
 * sum_i P(A* = a_i) P(B* <= a_i + d). The interval's ends are the
 * smallest d (in whole ns) at which that reaches (1 - confidence) / 2 and
 * (1 + confidence) / 2. Returns 0 or -EINVAL.
 */
int quantile_interval_difference(const struct quantile_interval *a,
				 const struct quantile_interval *b, double confidence,
				 int64_t *diff_ns, int64_t ci_ns[2]);

#endif
