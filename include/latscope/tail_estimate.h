/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TAIL_ESTIMATE_H
#define LATSCOPE_TAIL_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/gev.h"

/*
 * "How bad will it get, and have we measured long enough?" from the block
 * maxima of one run (the largest latency of each 1 s block): a GEV fit,
 * return levels with profile-likelihood intervals, the chance of a block
 * maximum above a budget within a day, checks of the assumptions, and the
 * run length at which the 1-day level would be known to +-10%.
 *
 * The method and its cautions (for the man page):
 * - It assumes the block maxima are independent and identically
 *   distributed; real-time systems often violate that, and then the
 *   estimates are wrong without looking wrong (Griffin & Burns, "Realism
 *   in statistical analysis of worst case execution times", WCET 2010).
 *   The independence and stationarity checks look for the common ways.
 * - A fitted light (bounded, shape < 0) tail puts a finite end point on
 *   the latency that the system need not respect, and bounding light
 *   tails by exponential ones is valid only under conditions that are
 *   often misread (Reghenzani, Massari & Fornaciari, "The misconception of
 *   exponential tail upper-bounding in probabilistic real-time", IEEE
 *   Embedded Systems Letters, 2018). The shape check says so whenever the
 *   fit claims a bound.
 * - GEV against Gumbel, judged against the maxima of samples of 100
 *   million: Silva, Arcaro & de Oliveira, "On using GEV or Gumbel models
 *   when applying EVT for probabilistic WCET estimation", RTSS 2017.
 *   Survey: Davis & Cucu-Grosjean, "A survey of probabilistic timing
 *   analysis techniques for real-time systems", LITES 2019.
 * - Rare mixtures in the tail (a cause that shows once a day) bias any
 *   fit to a day's maxima; no check here can see a cause the run never met.
 */

#define TAIL_MIN_BLOCKS 30
#define TAIL_MAX_LEVELS 8
#define TAIL_DAY_S 86400.0

struct tail_options {
	double confidence; /* e.g. 0.95 */
	uint64_t block_ns; /* the length of a block, 1 s for noise and timer */
	unsigned int nr_periods;
	double periods_s[TAIL_MAX_LEVELS]; /* return periods in s */
	bool has_budget;
	uint64_t budget_ns; /* for the chance of exceeding it within a day */
	double target_halfwidth; /* "long enough" when the 1-day level is known to +-this */
};

/* 95%, 1 s blocks, 1 hour / 1 day / 1 year, no budget, +-10% */
void tail_options_default(struct tail_options *o);

/*
 * One check: the statistic, what it was held against, and in words what
 * that means. evaluated is false when the check could not be made (it
 * then fails).
 */
struct tail_check {
	bool evaluated;
	bool pass;
	double value;
	double bound;
	double ci[2]; /* the shape check only: its interval */
	char says[768];
};

struct tail_level {
	double period_s;
	double p; /* the block exceedance probability, block / period */
	bool available; /* value_ns is set; reason says why not */
	double value_ns;
	bool has_ci; /* ci_ns is set (a bound the data leave open is +-inf) */
	double ci_ns[2];
	char reason[160];
};

struct tail_estimate {
	unsigned int blocks;
	uint64_t block_ns;
	bool fitted; /* false: error says why (too few blocks, no fit) */
	char error[768];
	struct gev_fit fit;
	unsigned int nr_levels;
	struct tail_level levels[TAIL_MAX_LEVELS];
	/* with a budget: P(block max > budget), and within a day */
	bool has_exceedance;
	uint64_t budget_ns;
	double p_block;
	double p_day;
	bool has_p_day_ci;
	double p_day_ci[2];
	/* the checks */
	struct tail_check shape; /* value: shape; ci; bound: -0.5 */
	struct tail_check independence; /* value: rank lag-1 autocorrelation; bound: |r| allowed */
	struct tail_check stationarity; /* value: likelihood ratio; bound: its p-value */
	struct tail_check fit_quality; /* value: PPCC; bound: its 1% critical value */
	/* have we measured long enough? */
	struct {
		bool evaluated;
		double value_ns; /* the 1-day return level */
		double ci_ns[2];
		double halfwidth; /* max distance of a bound from the level, relative */
		bool enough; /* halfwidth <= target */
		double blocks_needed; /* run length for the target, in blocks */
		double seconds_needed;
		char says[320];
	} long_enough;
	bool reliable; /* fitted and every check passed */
};

/**
 * tail_estimate - fit and check the block maxima of one run
 * @max_ns: the block maxima in time order (ns)
 * @n: how many
 * @o: the options (tail_options_default() for the usual)
 * @out: receives the estimate
 *
 * With fewer than TAIL_MIN_BLOCKS maxima, or when the fit fails (all
 * equal, no maximum of the likelihood), @out->fitted is false and
 * @out->error says why and what was tried; that is not an error of the
 * call. Return levels come with profile-likelihood intervals. The run
 * length needed assumes the interval narrows as 1/sqrt(blocks), as the
 * inverse of the observed information does.
 *
 * Returns 0, -EINVAL (bad options) or -ENOMEM.
 */
int tail_estimate(const uint64_t *max_ns, unsigned int n, const struct tail_options *o,
		  struct tail_estimate *out);

#endif
