/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_HIST_H
#define LATSCOPE_HIST_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A log-linear histogram of durations in ns (HdrHistogram-style): values
 * below 256 ns have a bucket each; above, every power of two is split into
 * 128 equal buckets, so a bucket is at most 1/128 (0.78%) of its value wide
 * and a percentile read from its middle is within 0.4%. Values up to
 * HIST_MAX_NS (10 s) are bucketed; larger ones are counted as overflow.
 * min, max and the sum are kept exactly.
 */
#define HIST_LINEAR_BITS 8
#define HIST_SUB_BUCKETS 128
#define HIST_MAX_NS 10000000000ULL
/* bucket of HIST_MAX_NS: msb 33 -> 256 + (33 - 8) * 128 + 127 */
#define HIST_BUCKETS (256 + 26 * HIST_SUB_BUCKETS)

struct hist {
	uint64_t count; /* every value added, overflow included */
	uint64_t overflow; /* values above HIST_MAX_NS */
	uint64_t min;
	uint64_t max;
	unsigned __int128 sum;
	uint64_t buckets[HIST_BUCKETS];
};

/* the bucket holding @ns; valid for ns <= HIST_MAX_NS */
static inline unsigned int hist_bucket_of(uint64_t ns)
{
	unsigned int msb, shift;

	if (ns < (1U << HIST_LINEAR_BITS))
		return (unsigned int)ns;
	msb = 63U - (unsigned int)__builtin_clzll(ns);
	shift = msb - 7;
	return 256U + (msb - 8) * HIST_SUB_BUCKETS + (unsigned int)(ns >> shift) - 128U;
}

/* Add one value; a few ns, no branch beyond min/max/overflow. */
static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	if (ns <= HIST_MAX_NS)
		h->buckets[hist_bucket_of(ns)]++;
	else
		h->overflow++;
}

void hist_init(struct hist *h);
/* nothing to free today; kept so callers follow the init/release pairing */
void hist_release(struct hist *h);

/**
 * hist_remove - take back one value added earlier (e.g. a gap later known
 * to be RT throttling). min and max are not recomputed: the caller who
 * removes an extreme sets them.
 */
void hist_remove(struct hist *h, uint64_t ns);

/* Add every value of @from to @into. */
void hist_merge(struct hist *into, const struct hist *from);

/* lowest and highest ns a bucket holds */
uint64_t hist_bucket_low(unsigned int bucket);
uint64_t hist_bucket_high(unsigned int bucket);

/**
 * hist_percentile - the value below or at which @percent of the values lie
 * @h: the histogram
 * @percent: 0 < percent <= 100
 *
 * The value of rank ceil(percent/100 * count), read as the middle of its
 * bucket and clamped to [min, max]; overflowed values rank above every
 * bucket and read as max. Returns 0 for an empty histogram.
 */
uint64_t hist_percentile(const struct hist *h, double percent);

/*
 * The percentiles every report shows, in its text and its JSON alike
 * ("p50" ... "p99.999", named "p%g"): one list for every command.
 */
#define HIST_NR_REPORTED 6
extern const double hist_reported_percentiles[HIST_NR_REPORTED];

/* mean in ns, 0 when empty */
double hist_mean(const struct hist *h);

#endif
