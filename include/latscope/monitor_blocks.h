/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_BLOCKS_H
#define LATSCOPE_MONITOR_BLOCKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/jsondoc.h"
#include "latscope/monitor_cpu.h"
#include "latscope/time_blocks.h"

/*
 * A measured CPU's time blocks over the whole life of the monitor's state
 * (up to 35 days, across restarts), for compare's block bootstrap.
 *
 * Blocks lie on the wall clock: block i covers [start_ns + i * length,
 * start_ns + (i + 1) * length) of CLOCK_REALTIME, start_ns on the
 * TIME_BLOCK_NS grid. The time the monitor was down is blocks with no
 * count, so the blocks stay continuous and the bootstrap sees the gap.
 * When the state outgrows TIME_BLOCKS_MAX blocks, neighbours merge and the
 * length doubles (time_blocks.h): 35 days are 231 blocks of 3.6 hours.
 *
 * The blocks are differences of the CPU's cumulative counts
 * (monitor_cpu_read()) taken by the housekeeping thread, not counts the
 * measuring thread keeps: so every reading the state writes as its
 * histogram is exactly the sum of its blocks (a block still open at a
 * checkpoint is closed up to that reading), and the measuring loop does
 * no work for them. The housekeeper reads at each block's end; a wake-up
 * counted between a block's end and the reading (the housekeeper's
 * lateness, milliseconds) falls in the block before.
 *
 * Counts are kept in native_hist.h's coarse keys (4 buckets per octave):
 * at full resolution a block of hours holds hundreds of buckets, and 256
 * CPUs x 256 blocks would outweigh the rest of the state (its load and
 * checkpoint times grow with its size). Within a key, compare spreads a
 * block's count over the histogram's own buckets in their proportions.
 */
struct monitor_blocks {
	struct time_blocks store; /* TIME_BLOCK_NATIVE_COARSE, base TIME_BLOCK_NS */
	uint64_t start_ns; /* CLOCK_REALTIME of block 0's start; 0: no block yet */
	uint64_t from_ns; /* the reading last folded in; 0: this run has none yet */
	uint64_t last[NATIVE_COARSE_KEYS]; /* per key, the counts of that reading */
};

/* Start with no block (a new state). */
void monitor_blocks_init(struct monitor_blocks *b);

/* Free what the blocks hold; they are as after init. */
void monitor_blocks_release(struct monitor_blocks *b);

/**
 * monitor_blocks_copy - @from as it is now, to write while @from goes on
 * @to: receives the copy; never release it (see time_blocks_copy())
 * @from: the blocks
 * @entries: time_blocks_copy()'s buffer, kept by the caller
 * @cap: its capacity
 * Returns 0 or -ENOMEM.
 */
int monitor_blocks_copy(struct monitor_blocks *to, const struct monitor_blocks *from,
			struct time_block_entry **entries, unsigned int *cap);

/**
 * monitor_blocks_begin - a run begins: what @reading holds is counted already
 * @b: the blocks (restored from the state, or new)
 * @reading: the CPU's counts before the run's first wake-up
 * @now_ns: CLOCK_REALTIME now
 */
void monitor_blocks_begin(struct monitor_blocks *b, const struct monitor_cpu_reading *reading,
			  uint64_t now_ns);

/**
 * monitor_blocks_fold - count what @reading holds beyond the last reading
 * @b: the blocks, begun
 * @reading: a later reading of the same CPU
 * @now_ns: CLOCK_REALTIME when it was taken
 *
 * The difference goes into the block of the middle of the two readings
 * (the block of the last one's end, when the housekeeper read on time).
 * Returns 0 or -ENOMEM (the difference is then counted as a lost block).
 */
int monitor_blocks_fold(struct monitor_blocks *b, const struct monitor_cpu_reading *reading,
			uint64_t now_ns);

/* CLOCK_REALTIME when the block holding @now_ns ends: when to read next. */
uint64_t monitor_blocks_next_end(const struct monitor_blocks *b, uint64_t now_ns);

/**
 * monitor_blocks_hold - whether blocks in coarse keys hold exactly @keys's
 * counts, key by key (what a CPU's histogram holds in each key)
 * @tb: the blocks (TIME_BLOCK_NATIVE_COARSE)
 * @keys: NATIVE_COARSE_KEYS counts
 */
bool monitor_blocks_hold(const struct time_blocks *tb, const uint64_t *keys);

/**
 * monitor_blocks_add_up - whether the blocks hold exactly @reading's counts,
 * key by key
 */
bool monitor_blocks_add_up(const struct monitor_blocks *b,
			   const struct monitor_cpu_reading *reading);

/**
 * monitor_blocks_read - a state's "time_blocks" as they are, unchecked
 * against the counts (import checks them against its histogram)
 * @doc: the document @value belongs to (its number arrays are packed)
 * @value: the member (not NULL)
 * @b: receives the blocks and their start (initialised here); release it
 *     whatever the outcome
 * @why: receives the reason they cannot be taken
 * @size: size of @why
 *
 * Returns 0, -EINVAL (not native/2 blocks of 100 ms times a power of two
 * from a start on the 100 ms grid, or malformed: @why says why) or -ENOMEM.
 */
int monitor_blocks_read(struct jsondoc *doc, const json_t *value, struct monitor_blocks *b,
			char *why, size_t size);

/**
 * monitor_blocks_parse - a state's "time_blocks" back, for the monitor that
 * continues it
 * @doc: the document @value belongs to (its number arrays are packed)
 * @value: the member, or NULL (a state written before blocks: no block)
 * @b: receives the blocks (initialised here); release it whatever the outcome
 * @reading: the CPU's counts, which the blocks must add up to
 * @why: receives the reason it cannot be taken
 * @size: size of @why
 *
 * Returns 0, -EINVAL (malformed, or not adding up: @why says why) or
 * -ENOMEM.
 */
int monitor_blocks_parse(struct jsondoc *doc, const json_t *value, struct monitor_blocks *b,
			 const struct monitor_cpu_reading *reading, char *why, size_t size);

#endif
