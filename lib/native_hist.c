// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>

#include "latscope/native_hist.h"

double native_zero_threshold(void)
{
	return ldexp(1.0, NATIVE_ZERO_EXPONENT);
}

double native_slot_upper_seconds(unsigned int slot)
{
	if (!slot)
		return native_zero_threshold();
	return exp2((double)native_slot_index(slot) / NATIVE_PER_OCTAVE);
}

uint64_t native_value_at_rank(const uint64_t *counts, unsigned int first, unsigned int nr,
			      uint64_t rank, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t seen = 0, value, low, high;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		seen += counts[i];
		if (seen >= rank)
			break;
	}
	if (i == nr)
		return max_ns;
	low = native_slot_low(first + i);
	high = native_slot_high[first + i];
	value = low <= high ? low + (high - low) / 2 : high;
	if (value < min_ns)
		value = min_ns;
	if (value > max_ns)
		value = max_ns;
	return value;
}

uint64_t native_percentile(const uint64_t *counts, unsigned int first, unsigned int nr,
			   uint64_t total, double percent, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t rank;

	if (!total)
		return 0;
	if (percent >= 100.0)
		return max_ns;
	rank = (uint64_t)ceil(percent / 100.0 * (double)total);
	return native_value_at_rank(counts, first, nr, rank ? rank : 1, min_ns, max_ns);
}

/* Empty buckets between two spans: fewer than this stay inside a span. */
#define SPAN_GAP 3

unsigned int native_encode_spans(const struct native_counts *native, struct native_span *spans,
				 int64_t *deltas, unsigned int *nr_deltas)
{
	unsigned int i, nr_spans = 0, kept = 0;
	int32_t end = 0, index, gap;
	uint64_t previous = 0;

	for (i = 0; i < native->nr; i++) {
		if (!native->counts[i])
			continue;
		index = native_slot_index(native->first + i);
		gap = index - end;
		if (!nr_spans || gap >= SPAN_GAP) {
			/* the first span starts at its index, later ones after a gap */
			spans[nr_spans].offset = nr_spans ? gap : index;
			spans[nr_spans].length = 0;
			nr_spans++;
		} else {
			for (; gap > 0; gap--) {
				deltas[kept++] = -(int64_t)previous;
				previous = 0;
				spans[nr_spans - 1].length++;
			}
		}
		deltas[kept++] = (int64_t)native->counts[i] - (int64_t)previous;
		previous = native->counts[i];
		spans[nr_spans - 1].length++;
		end = index + 1;
	}
	*nr_deltas = kept;
	return nr_spans;
}
