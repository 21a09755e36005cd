/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_RESULT_H
#define LATSCOPE_COMPARE_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_sample.h"
#include "latscope/compare_stats.h"
#include "latscope/miss_rate.h"
#include "latscope/tail_estimate.h"

/*
 * Everything `compare` says about its pairs, computed from a plan
 * (compare_pairs.h): per pair the percentiles of A and B with the
 * difference, its interval and a verdict, the max; per side the deadline
 * misses of a budget, the GEV tail estimate of its block maxima, and what
 * a page draws (the exceedance curve with intervals, the largest block
 * maxima at their empirical return periods).
 *
 * A side that several pairs share (A's CPU 1 against B's and against C's)
 * is computed once. The sides (their tail estimates, tens of ms each) and
 * then the pairs (their bootstraps) run on one thread per CPU the process
 * may use.
 */
#define COMPARE_MAX_PERCENTILES 16
/* points of a side's exceedance curve, from p50 to p99.99999 */
#define COMPARE_CURVE_POINTS 14
/* block maxima kept for the return-level plot */
#define COMPARE_MAXIMA_POINTS 48

struct compare_settings {
	struct compare_options stats; /* confidence, practical threshold */
	double percentiles[COMPARE_MAX_PERCENTILES]; /* ascending, 0 < p < 100 */
	unsigned int nr_percentiles;
	bool has_budget;
	uint64_t budget_ns;
	unsigned int threads; /* for the tail estimates; 0: one per CPU the process may use */
	unsigned int replicates; /* of the bootstrap (compare_bootstrap.h) */
};

/* p50 ... p99.99 (compare_default_percentiles), 95%, 5% and 1 us, no budget,
 * COMPARE_BOOT_REPLICATES resamples */
void compare_settings_default(struct compare_settings *s);

/* A point of an exceedance curve: P(X > value_ns) = 1 - percent / 100. */
struct compare_point {
	double percent;
	uint64_t value_ns;
	uint64_t ci_ns[2]; /* bootstrap interval */
};

/* A block maximum at its empirical return period (plotting position). */
struct compare_maximum {
	double period_s;
	uint64_t value_ns;
};

struct compare_side_result {
	unsigned int group;
	struct compare_sample sample;
	bool has_misses; /* a budget and a histogram */
	struct miss_rate misses;
	struct tail_estimate tail; /* fitted false with the reason when it cannot be */
	struct compare_point curve[COMPARE_CURVE_POINTS];
	unsigned int nr_curve;
	struct compare_maximum maxima[COMPARE_MAXIMA_POINTS];
	unsigned int nr_maxima;
	int error; /* a failure computing it (-ENOMEM) */
};

struct compare_pair_result {
	const struct compare_pair *pair;
	const struct compare_side_result *a, *b; /* owned by the result */
	struct compare_stat stats[COMPARE_MAX_PERCENTILES + 1]; /* the percentiles, then max */
	unsigned int nr_stats;
	unsigned int worse, better, same, inconclusive, not_available; /* verdicts of the stats */
	int error; /* a failure computing it (-ENOMEM) */
};

struct compare_result {
	struct compare_pair_result *pairs; /* as the plan's */
	unsigned int nr_pairs;
	struct compare_side_result *sides; /* the distinct sides */
	unsigned int nr_sides;
	unsigned int threads; /* that computed the sides */
};

/**
 * compare_result_compute - the statistics of every pair of a plan
 * @runs: the inputs the plan was made from
 * @plan: the pairs; it must outlive @out (the pairs point into it)
 * @s: what to compute
 * @out: receives the result; release it with compare_result_release()
 *	 whatever the outcome
 *
 * Figures the data cannot support (too few samples for a percentile, too
 * few blocks for a fit, a fit that does not converge) are marked as not
 * available with the reason; that is not an error. Calls numerics_init().
 * Returns 0, -EINVAL (bad settings) or -ENOMEM (or a thread could not
 * start: -EAGAIN).
 */
int compare_result_compute(const struct run *const *runs, const struct compare_plan *plan,
			   const struct compare_settings *s, struct compare_result *out);

/* true when B is worse than A on some statistic of some pair */
bool compare_result_worse(const struct compare_result *r);

/*
 * The verdict over every pair in a word: "worse" (some statistic worse,
 * none better), "better", "mixed" (both), "inconclusive" (neither, and
 * some statistic inconclusive), "same" (every statistic that could be
 * compared is the same) or "n/a" (none could be).
 */
const char *compare_result_verdict(const struct compare_result *r);

/* Free what a result holds; safe on a zeroed one and to repeat. */
void compare_result_release(struct compare_result *r);

#endif
