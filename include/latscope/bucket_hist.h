/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_BUCKET_HIST_H
#define LATSCOPE_BUCKET_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/hist.h"

/*
 * A histogram as a plain list of buckets, whatever made it: latscope's
 * log-linear ns histogram (struct hist, or its JSON form
 * [[low, high, count], ...]) and the peers' 1 us buckets (cyclictest,
 * oslat) both fit. The statistics of `compare` (quantile intervals, miss
 * rates) read only this.
 *
 * A bucket holds values low_ns..high_ns, both included. Values above
 * overflow_above_ns that no bucket holds are counted in overflow and read
 * as max_ns, the largest value seen. count, min_ns and max_ns are the
 * exact figures of the run.
 */
struct bucket {
	uint64_t low_ns;
	uint64_t high_ns;
	uint64_t count;
};

struct bucket_hist {
	struct bucket *buckets; /* non-empty, ascending, disjoint; owned */
	uint64_t *cumulative; /* cumulative[i]: values in buckets 0..i; owned */
	unsigned int nr_buckets;
	unsigned int cap;
	uint64_t overflow;
	uint64_t overflow_above_ns;
	uint64_t count; /* every value, overflow included */
	uint64_t min_ns;
	uint64_t max_ns;
	bool finished;
};

/* Start an empty histogram (no allocation). */
void bucket_hist_init(struct bucket_hist *h);

/**
 * bucket_hist_add - add one bucket
 * @h: the histogram, not yet finished
 * @low_ns: the lowest value the bucket holds
 * @high_ns: the highest value it holds (>= @low_ns)
 * @count: how many values it holds; an empty bucket is ignored
 *
 * Buckets may come in any order. Returns 0, -EINVAL (low above high, or
 * the histogram is finished) or -ENOMEM.
 */
int bucket_hist_add(struct bucket_hist *h, uint64_t low_ns, uint64_t high_ns, uint64_t count);

/**
 * bucket_hist_finish - check the buckets and set the run's exact figures
 * @h: the histogram with its buckets added
 * @overflow: values above @overflow_above_ns held by no bucket
 * @overflow_above_ns: where the buckets end (ignored when @overflow is 0)
 * @min_ns: the smallest value of the run (ignored when empty)
 * @max_ns: the largest value of the run (ignored when empty)
 *
 * Sorts the buckets and checks that they do not overlap, that @min_ns
 * lies in the first bucket and @max_ns in the last (or above
 * @overflow_above_ns when there is an overflow), and that the counts do
 * not overflow. Returns 0, or -EINVAL with the reason logged (the
 * histogram is then unusable), or -EOVERFLOW, or -ENOMEM.
 */
int bucket_hist_finish(struct bucket_hist *h, uint64_t overflow, uint64_t overflow_above_ns,
		       uint64_t min_ns, uint64_t max_ns);

/**
 * bucket_hist_from_hist - the bucket list of a log-linear histogram
 * @out: receives the list, finished; the caller releases it
 * @from: the histogram
 *
 * Returns 0 or -ENOMEM (or -EINVAL when @from is inconsistent).
 */
int bucket_hist_from_hist(struct bucket_hist *out, const struct hist *from);

/* Free what the histogram holds; it is empty and unfinished afterwards. */
void bucket_hist_release(struct bucket_hist *h);

/*
 * The value a bucket stands for: its middle, clamped to [min_ns, max_ns]
 * (as hist_percentile reads it). Index nr_buckets is the overflow, read
 * as max_ns.
 */
uint64_t bucket_hist_value(const struct bucket_hist *h, unsigned int index);

/* values in buckets 0..index; index nr_buckets (the overflow) gives count */
static inline uint64_t bucket_hist_at_or_below(const struct bucket_hist *h, unsigned int index)
{
	return index < h->nr_buckets ? h->cumulative[index] : h->count;
}

/**
 * bucket_hist_rank_index - the bucket holding the value of a rank
 * @h: a finished, non-empty histogram
 * @rank: 1..count, the rank in ascending order
 *
 * Returns the index of the bucket (nr_buckets for the overflow).
 */
unsigned int bucket_hist_rank_index(const struct bucket_hist *h, uint64_t rank);

#endif
