// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <string.h>

#include "latscope/hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_release(struct hist *h)
{
	(void)h;
}

void hist_remove(struct hist *h, uint64_t ns)
{
	if (!h->count)
		return;
	h->count--;
	h->sum -= ns;
	if (ns > HIST_MAX_NS) {
		if (h->overflow)
			h->overflow--;
	} else if (h->buckets[hist_bucket_of(ns)]) {
		h->buckets[hist_bucket_of(ns)]--;
	}
	if (!h->count) {
		h->min = UINT64_MAX;
		h->max = 0;
	}
}

void hist_merge(struct hist *into, const struct hist *from)
{
	unsigned int i;

	if (!from->count)
		return;
	into->count += from->count;
	into->overflow += from->overflow;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	for (i = 0; i < HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
}

uint64_t hist_bucket_low(unsigned int bucket)
{
	unsigned int msb, shift;

	if (bucket < 256)
		return bucket;
	msb = 8 + (bucket - 256) / HIST_SUB_BUCKETS;
	shift = msb - 7;
	return (uint64_t)(128 + (bucket - 256) % HIST_SUB_BUCKETS) << shift;
}

uint64_t hist_bucket_high(unsigned int bucket)
{
	if (bucket < 256)
		return bucket;
	return hist_bucket_low(bucket + 1) - 1;
}

const double hist_reported_percentiles[HIST_NR_REPORTED] = { 50, 90, 99, 99.9, 99.99, 99.999 };

uint64_t hist_percentile(const struct hist *h, double percent)
{
	uint64_t rank, seen = 0, value;
	unsigned int i;

	if (!h->count)
		return 0;
	if (percent >= 100.0)
		return h->max;
	rank = (uint64_t)ceil(percent / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		return h->max;
	value = hist_bucket_low(i) + (hist_bucket_high(i) - hist_bucket_low(i)) / 2;
	if (value < h->min)
		value = h->min;
	if (value > h->max)
		value = h->max;
	return value;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
