/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_COMPARE_SAMPLE_H
#define LATSCOPE_COMPARE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/bucket_hist.h"
#include "latscope/compare_pairs.h"
#include "latscope/compare_units.h"
#include "latscope/run.h"

/*
 * One side of a comparison as the statistics read it: the histogram of
 * its series pooled over its runs (merged when there are several: threads
 * on one CPU, or a whole input), its block maxima, its sample rate, and
 * its resampling units (compare_units.h).
 *
 * Merging is exact where the inputs allow it: histograms of one layout
 * add bucket by bucket; block maxima of series that ran side by side
 * merge block by block (the largest of each block, over the blocks every
 * series has), and those of a side's runs follow each other. What cannot
 * be merged is absent with the reason, never approximated.
 */
struct compare_sample {
	bool has_hist;
	struct bucket_hist hist; /* finished; empty unless has_hist */
	char no_hist[200]; /* why there is no histogram */
	uint64_t samples; /* values in the histogram */
	double samples_per_s; /* sum of the series' rates; 0 when unknown */
	uint64_t *block_max_ns; /* in time order; owned */
	unsigned int nr_blocks;
	uint64_t block_ns; /* 0 when there are no block maxima */
	char blocks_note[200]; /* why there are none, or what merging them cost */
	unsigned int nr_runs; /* runs of the side */
	struct compare_units units; /* with a histogram: what the bootstrap resamples */
};

/**
 * compare_sample_load - the statistics' view of one side of a pair
 * @runs: the inputs
 * @side: the side's runs and their series (at least one run, each with a
 *	  series)
 * @out: receives the sample; release it with compare_sample_release()
 *	 whatever the outcome
 *
 * A histogram that is missing, or that disagrees with the series' min and
 * max, or histograms of different layouts, leave has_hist false with
 * no_hist saying why; missing or unmergeable block maxima leave nr_blocks
 * 0 with blocks_note saying why. Neither is an error. Returns 0, -EINVAL
 * (no runs or series) or -ENOMEM.
 */
int compare_sample_load(const struct run *const *runs, const struct compare_side *side,
			struct compare_sample *out);

/**
 * compare_sample_percentile - a percentile of the sample's histogram
 * @s: a sample with a histogram
 * @percent: 0 < percent < 100
 *
 * The value of rank ceil(percent/100 * n), read as bucket_hist_value()
 * reads it: as compare's resamples and the measuring commands read theirs.
 */
uint64_t compare_sample_percentile(const struct compare_sample *s, double percent);

/* Free what a sample holds; safe on a zeroed one and to repeat. */
void compare_sample_release(struct compare_sample *s);

#endif
