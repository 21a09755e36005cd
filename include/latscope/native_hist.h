/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_NATIVE_HIST_H
#define LATSCOPE_NATIVE_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Prometheus' native (exponential) histogram buckets for latencies kept in
 * integer ns. Schema 7: every power of two of seconds is split into 128
 * buckets, bucket i holding the values in (2^((i-1)/128), 2^(i/128)] s, so a
 * bucket is 0.54% wide and its middle is within 0.27% of any value in it:
 * finer than latscope's own histogram (0.78%), as the issue asks (<= 1%).
 *
 * The bounds are irrational, the values integers: each bucket's largest ns
 * (floor(1e9 * 2^(i/128))) is computed once at build time in extended
 * precision, so a value is put in its bucket by integer comparisons and the
 * count of every bucket is exact, never interpolated.
 *
 * Slots number the buckets kept: slot 0 is the zero bucket, [0, 2^-26 s]
 * (14 ns and below; no timer wakes that fast); slots 1..NATIVE_SLOTS-1 are
 * buckets NATIVE_FIRST_INDEX..NATIVE_LAST_INDEX, up to 2^5 s = 32 s. A value
 * above 32 s is counted in the last slot (the classic +Inf bucket, the sum
 * and the max keep it exactly).
 */
#define NATIVE_SCHEMA 7
#define NATIVE_PER_OCTAVE 128
#define NATIVE_ZERO_EXPONENT (-26)
#define NATIVE_TOP_EXPONENT 5
#define NATIVE_FIRST_INDEX (NATIVE_ZERO_EXPONENT * NATIVE_PER_OCTAVE + 1)
#define NATIVE_LAST_INDEX (NATIVE_TOP_EXPONENT * NATIVE_PER_OCTAVE)
#define NATIVE_SLOTS (NATIVE_LAST_INDEX - NATIVE_FIRST_INDEX + 2)

/* The largest ns of each slot, ascending (generated at build time). */
extern const uint64_t native_slot_high[NATIVE_SLOTS];

/**
 * native_slot_of - the slot a latency belongs to
 * @ns: the latency
 *
 * A branch-free binary search over the bounds (12 steps): cheap enough for
 * a measuring thread to call on every sample.
 */
static inline unsigned int native_slot_of(uint64_t ns)
{
	unsigned int base = 0, len = NATIVE_SLOTS, half;

	if (ns >= native_slot_high[NATIVE_SLOTS - 1])
		return NATIVE_SLOTS - 1;
	while (len > 1) {
		half = len / 2;
		base = native_slot_high[base + half - 1] < ns ? base + half : base;
		len -= half;
	}
	return base;
}

/* The Prometheus bucket index of a slot >= 1. */
static inline int native_slot_index(unsigned int slot)
{
	return NATIVE_FIRST_INDEX + (int)slot - 1;
}

/* The smallest ns of a slot (0 for the zero bucket). */
static inline uint64_t native_slot_low(unsigned int slot)
{
	return slot ? native_slot_high[slot - 1] + 1 : 0;
}

/*
 * Coarse buckets: schema 2 (4 per octave, 19% wide), each the union of
 * NATIVE_COARSE_SLOTS adjacent slots, as Prometheus reduces a schema. The
 * monitor keeps its time blocks in them (monitor_blocks.h): a block of a
 * long-running state holds hours of wake-ups in some hundred slots, and
 * 256 CPUs x 256 blocks at full resolution would outweigh the rest of the
 * state several times. Key 0 is the zero bucket (slot 0); key k >= 1
 * holds slots 32(k-1)+1 .. 32k, the schema-2 bucket of index k - 104, so
 * every key's bounds are bounds of slots and its count their sum.
 */
#define NATIVE_COARSE_SCHEMA 2
#define NATIVE_COARSE_SLOTS (1U << (NATIVE_SCHEMA - NATIVE_COARSE_SCHEMA))
#define NATIVE_COARSE_KEYS (1U + (NATIVE_SLOTS - 1U) / NATIVE_COARSE_SLOTS)

/* The coarse key of a slot. */
static inline unsigned int native_coarse_key(unsigned int slot)
{
	return slot ? 1U + (slot - 1U) / NATIVE_COARSE_SLOTS : 0U;
}

/* The smallest and the largest ns of a coarse key (< NATIVE_COARSE_KEYS). */
static inline uint64_t native_coarse_low(unsigned int key)
{
	return native_slot_low(key ? 1U + (key - 1U) * NATIVE_COARSE_SLOTS : 0U);
}

static inline uint64_t native_coarse_high(unsigned int key)
{
	return native_slot_high[key * NATIVE_COARSE_SLOTS];
}

/* The zero bucket's width in seconds: 2^-26. */
double native_zero_threshold(void);

/* A slot's upper bound in seconds, 2^(index/128), as Prometheus reads it. */
double native_slot_upper_seconds(unsigned int slot);

/**
 * native_percentile - a percentile of a histogram held as slot counts
 * @counts: NATIVE_SLOTS counts (or @nr counts starting at @first)
 * @first: the slot of counts[0]
 * @nr: how many counts
 * @total: their sum
 * @percent: 0 < percent <= 100
 * @min_ns: the smallest value seen, or 0 when unknown
 * @max_ns: the largest value seen
 *
 * The value of rank ceil(percent/100 * total), read as the middle of its
 * slot and clamped to [min_ns, max_ns], as hist_percentile() reads
 * latscope's histogram. Returns 0 for an empty histogram.
 */
uint64_t native_percentile(const uint64_t *counts, unsigned int first, unsigned int nr,
			   uint64_t total, double percent, uint64_t min_ns, uint64_t max_ns);

/* The value of rank @rank (1-based) read as native_percentile() reads it. */
uint64_t native_value_at_rank(const uint64_t *counts, unsigned int first, unsigned int nr,
			      uint64_t rank, uint64_t min_ns, uint64_t max_ns);

/*
 * A native histogram as the exporters take it: the zero bucket's count and
 * the counts of a run of slots (zeros allowed inside).
 */
struct native_counts {
	uint64_t zero_count;
	unsigned int first; /* slot of counts[0], >= 1 */
	unsigned int nr;
	uint64_t *counts; /* owned by whoever filled it */
};

/* A run of buckets of the protobuf encoding: an index gap, then a length. */
struct native_span {
	int32_t offset; /* the first span: its first bucket index; later: zeros skipped */
	uint32_t length;
};

/**
 * native_encode_spans - spans and deltas of the protobuf exposition
 * @native: the counts
 * @spans: receives the spans (at most nr / 2 + 1 of them)
 * @deltas: receives each kept bucket's count minus the previous one's
 *	    (at most nr of them)
 * @nr_deltas: receives how many deltas
 *
 * Runs of more than two empty buckets are left out between spans; shorter
 * runs are cheaper as zero deltas. Returns the number of spans.
 */
unsigned int native_encode_spans(const struct native_counts *native, struct native_span *spans,
				 int64_t *deltas, unsigned int *nr_deltas);

#endif
