/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MISS_RATE_H
#define LATSCOPE_MISS_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"

/*
 * Deadline misses: how many samples of a run lie above a latency budget,
 * as a fraction with its exact (Clopper-Pearson) interval, and how many
 * misses per hour that means at the run's sample rate.
 *
 * A bucket that straddles the budget holds values on both sides and the
 * histogram cannot say how many are above: the count of misses is then a
 * range, misses_low (the buckets wholly above) to misses_high (the
 * straddling bucket too); the estimate counts the straddling bucket in
 * proportion to the part of it above the budget, and the interval runs
 * from the lower bound for misses_low to the upper bound for misses_high.
 */
struct miss_rate {
	uint64_t budget_ns;
	uint64_t samples;
	uint64_t misses_low, misses_high;
	double fraction; /* estimated fraction of samples above the budget */
	double ci[2]; /* its interval */
	bool has_rate; /* a sample rate was given */
	double per_hour; /* expected misses per hour */
	double per_hour_ci[2];
};

/**
 * miss_rate_estimate - the misses of a budget in one run
 * @h: the run's histogram (finished, not empty)
 * @budget_ns: values above it are misses
 * @confidence: e.g. 0.95
 * @samples_per_s: the run's sample rate (count / duration), or 0 when
 *		   unknown (no per-hour figures then)
 * @out: receives the estimate
 *
 * Returns 0, or -EINVAL (empty or unfinished histogram, bad confidence,
 * negative or non-finite rate).
 */
int miss_rate_estimate(const struct bucket_hist *h, uint64_t budget_ns, double confidence,
		       double samples_per_s, struct miss_rate *out);

#endif
