/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_UNITS_H
#define LATSCOPE_COMPARE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"
#include "latscope/compare_pairs.h"
#include "latscope/run.h"

/*
 * One side of a pair as compare's resampling sees it (compare_bootstrap.h):
 * its runs, each as units whose counts add up to the run's part of the
 * side's pooled histogram. A side of several runs is resampled in whole
 * runs: each run is one unit, its histogram. A side of one run with time
 * blocks (latscope/3) is cut into its blocks, its series merged block by
 * block; one run without them (rt-tests, older results) is one unit, its
 * histogram, resampled value by value. Every unit is a sparse list of
 * counts over the pooled histogram's buckets (index nr_buckets is its
 * overflow), so a resample is a sum of units.
 *
 * Blocks must be long enough that the drift of one is not the drift of
 * the next: the units are merged pairwise (the block length doubles) while
 * the lag-1 autocorrelation of the blocks' fractions above the side's
 * median and p90 exceeds COMPARE_UNITS_MAX_LAG1, as long as every run
 * keeps at least COMPARE_UNITS_MIN_BLOCKS. A side whose blocks stay
 * correlated beyond chance (1.96 / sqrt(blocks)) at that length says so
 * (correlated): its interval is too narrow.
 */
#define COMPARE_UNITS_MIN_BLOCKS 8
#define COMPARE_UNITS_MAX_LAG1 0.1

struct compare_unit {
	size_t first; /* its entries: index[first..first + nr), count[...] */
	unsigned int nr;
	uint64_t count; /* values it holds */
};

struct compare_unit_run {
	unsigned int first; /* its units: units[first..first + nr) */
	unsigned int nr;
	bool blocks; /* false: one unit, the run's histogram */
	uint64_t count;
};

struct compare_units {
	struct compare_unit_run *runs; /* owned */
	unsigned int nr_runs;
	struct compare_unit *units; /* owned */
	unsigned int nr_units;
	uint32_t *index; /* bucket of the pooled histogram; owned */
	uint64_t *count; /* owned */
	size_t nr_entries;
	unsigned int support; /* buckets of the pooled histogram, its overflow included */
	uint64_t block_ns; /* the block length used; 0 when no blocks are resampled */
	unsigned int fewest_blocks; /* of a run with blocks, at that length */
	double lag1; /* the largest lag-1 autocorrelation at that length; NAN: not measured */
	bool correlated; /* still above the limit at the fewest blocks allowed */
	char note[200]; /* why a side of one run has no blocks */
};

/**
 * compare_units_build - cut a side into its resampling units
 * @runs: the inputs
 * @side: the side's runs and series
 * @pooled: the side's pooled histogram (finished), every run's values in it
 * @out: receives the units; release with compare_units_release() whatever
 *	 the outcome
 *
 * Returns 0, -EINVAL when a run's buckets are not those of @pooled, or
 * -ENOMEM.
 */
int compare_units_build(const struct run *const *runs, const struct compare_side *side,
			const struct bucket_hist *pooled, struct compare_units *out);

/* Free what the units hold; safe on a zeroed struct and to repeat. */
void compare_units_release(struct compare_units *u);

/* true when every run of the side is cut into time blocks */
bool compare_units_all_blocks(const struct compare_units *u);

#endif
