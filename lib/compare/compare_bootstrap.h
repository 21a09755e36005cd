/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_BOOTSTRAP_H
#define LATSCOPE_COMPARE_BOOTSTRAP_H

#ifndef LATSCOPE_INSIDE_COMPARE
#error "lib/compare/compare_bootstrap.h is private to lib/compare/: outside it, use the headers of include/latscope/"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"
#include "latscope/compare_units.h"

/*
 * The bootstrap of percentiles that sees the machine's drift: what was
 * measured is resampled in the units in which it varies, not value by
 * value (values of one machine are not independent: one second is like
 * the next, one run unlike the other).
 *
 * - Replicates (a side of two or more runs): each resample draws as many
 *   runs with replacement and takes them whole: the variation between runs
 *   enters the interval, and with it each run's own (drawing the blocks
 *   within the runs again would count that twice: 97-97.3% coverage where
 *   95% is meant, in the simulations).
 * - One run: its blocks with replacement (a block bootstrap), or its
 *   values (a multinomial draw) when it has no blocks.
 * - Paired (ab's rounds): each resample draws as many round pairs with
 *   replacement, the same for A and B, and takes each drawn round whole:
 *   the drift two neighbouring rounds share cancels out of the difference.
 *
 * A resample's percentile is the value of rank ceil(p/100 * n) of its
 * pooled counts, read as bucket_hist_value() reads the side's histogram.
 *
 * The interval of B - A is the bootstrap's percentile interval expanded
 * for the few units it resampled (Hesterberg's expanded percentile
 * interval): its distances from the estimate are scaled by
 * t(df) / z * sqrt(n / (n - 1)), n the units resampled at the top and df
 * from Welch-Satterthwaite (n - 1 for pairs), and each is at least t(df)
 * standard errors (a few units give resamples of few distinct values,
 * whose quantiles fall short). A bootstrap of three runs alone would give
 * intervals a third too narrow; the simulations of
 * tests/unit/test_compare_bootstrap.c hold the coverage to 93-97%.
 */
#define COMPARE_BOOT_REPLICATES 2000
#define COMPARE_BOOT_SEED 20021113ULL

struct compare_boot {
	unsigned int replicates;
	unsigned int nr_percents;
	double *a, *b; /* [replicate * nr_percents + p]: a resample's percentile in ns; owned */
	unsigned int units_a, units_b; /* resampled at the top: runs, blocks or pairs */
	/* the variance of a side resampled in blocks, times (1 + r) / (1 - r) for the
	 * lag-1 autocorrelation r its blocks kept (1 otherwise) */
	double inflate_a, inflate_b;
	bool paired;
};

/**
 * compare_boot_run - resample both sides of a pair
 * @a: A's units
 * @ha: A's pooled histogram (the units' buckets)
 * @b: B's units
 * @hb: B's pooled histogram
 * @paired: the runs pair by order (as many on each side)
 * @percents: the percentiles, ascending, 0 < p < 100
 * @nr_percents: how many
 * @replicates: resamples (e.g. COMPARE_BOOT_REPLICATES)
 * @seed: of the generator: the same inputs give the same result
 * @out: receives the resampled percentiles; release with
 *	 compare_boot_release() whatever the outcome
 *
 * Returns 0, -EINVAL (a side with no values, paired sides of different
 * sizes) or -ENOMEM.
 */
int compare_boot_run(const struct compare_units *a, const struct bucket_hist *ha,
		     const struct compare_units *b, const struct bucket_hist *hb, bool paired,
		     const double *percents, unsigned int nr_percents, unsigned int replicates,
		     uint64_t seed, struct compare_boot *out);

/* Free what a bootstrap holds; safe on a zeroed one and to repeat. */
void compare_boot_release(struct compare_boot *bt);

/* The interval of B - A at one percentile. */
struct compare_boot_interval {
	int64_t ci_ns[2];
	double df; /* degrees of freedom of the expansion */
	double se_ns; /* standard error of the difference, expanded for the units */
	double half_ns; /* half the interval's width */
	unsigned int units; /* the fewer of the sides' units (the pairs, when paired) */
};

/**
 * compare_boot_interval - the expanded percentile interval of B - A
 * @bt: a bootstrap
 * @p: the percentile's index in the percents given
 * @diff_ns: B - A from the pooled histograms
 * @confidence: 0 < confidence < 1
 * @out: receives the interval
 *
 * Returns 0, or -EDOM when a side has fewer than two units (no variation
 * between units can be seen).
 */
int compare_boot_interval(const struct compare_boot *bt, unsigned int p, int64_t diff_ns,
			  double confidence, struct compare_boot_interval *out);

/**
 * compare_boot_side_interval - the expanded percentile interval of one side
 * @bt: a bootstrap
 * @b_side: false for A, true for B
 * @p: the percentile's index
 * @value_ns: the side's percentile from its pooled histogram
 * @confidence: 0 < confidence < 1
 * @ci_ns: receives the interval
 *
 * Returns 0, or -EDOM when the side has fewer than two units.
 */
int compare_boot_side_interval(const struct compare_boot *bt, bool b_side, unsigned int p,
			       uint64_t value_ns, double confidence, uint64_t ci_ns[2]);

/**
 * compare_boot_units_to_decide - how many units an interval needs to be
 * narrow enough
 * @iv: the interval found with iv->units units
 * @half_ns: the half-width it must shrink to
 * @confidence: the interval's level
 *
 * Returns the units (runs, rounds) at which the interval's half-width
 * would be @half_ns, the spread per unit staying as it is; UINT32_MAX
 * when that is more than a million or @half_ns is 0.
 */
unsigned int compare_boot_units_to_decide(const struct compare_boot_interval *iv, double half_ns,
					  double confidence);

/**
 * compare_boot_power - what a paired comparison of @iv->units rounds can tell
 * @bt: the resamples @iv came from
 * @p: the percentile's index in them
 * @iv: its interval
 * @baseline_ns: A's value, for the relative change
 * @confidence: the interval's level
 * @detectable_ns: receives the smallest change it finds with 80% power
 * @rounds_for_5pct: receives the rounds that find a 5% change of
 *		     @baseline_ns with 80% power, the spread per round staying
 *		     as it is (UINT32_MAX when more than a million)
 *
 * The spread is the paired differences' unless they spread more than two
 * copies of A would: then B's change varies between rounds, and the
 * figures are from A's own spread.
 *
 * Returns true when the figures are from A's spread (the change varies).
 */
bool compare_boot_power(const struct compare_boot *bt, unsigned int p,
			const struct compare_boot_interval *iv, uint64_t baseline_ns,
			double confidence, uint64_t *detectable_ns, unsigned int *rounds_for_5pct);

#endif
