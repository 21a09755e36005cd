/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TIME_BLOCKS_H
#define LATSCOPE_TIME_BLOCKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/hist.h"
#include "latscope/jsondoc.h"
#include "latscope/native_hist.h"
#include "latscope/record_ring.h"

/*
 * Time blocks: the histogram of every stretch of a measured series, so
 * that a later statistic sees how the machine drifted during the run and
 * not only what it did in total. Samples of one machine are not
 * independent (the host's load, the vCPU's placement, caches and clocks
 * drift over seconds); compare resamples whole blocks to see it.
 *
 * A measuring thread fills a struct time_block_builder: per sample one
 * count in a dense array of its log-linear buckets (hist.h) and, the first
 * time a bucket is touched in the block, its index in a list. When a
 * sample falls past the open block, the thread walks that list (the
 * block's non-empty buckets only, not the whole layout) and hands the
 * block to the main thread through a record ring, as chunks of
 * TIME_BLOCK_CHUNK_ENTRIES (bucket, count) entries: all of a block's
 * chunks or none (a full ring counts the block as lost), no allocation and
 * no system call.
 *
 * The main thread takes the chunks into a struct time_blocks: at most
 * TIME_BLOCKS_MAX blocks per series, each a sparse list of (bucket, count)
 * ascending by bucket. A series that outgrows them merges adjacent blocks
 * pairwise and doubles its block length, so a run of any length keeps
 * between 128 and 256 blocks once it is longer than 256 measured blocks.
 *
 * The bucket index HIST_BUCKETS stands for the values above HIST_MAX_NS
 * (the histogram's overflow).
 *
 * Blocks have one of two bucket layouts, named in the JSON: "log-linear"
 * (hist.h's buckets, timer and noise) and "native/2" (native_hist.h's
 * coarse keys, the monitor's, whose histogram is in native buckets).
 */
#define TIME_BLOCKS_MAX 256
/* the length of a measured block: short enough to resolve drift of a second */
#define TIME_BLOCK_NS 100000000ULL
/* entries in one ring record, after its header word */
#define TIME_BLOCK_CHUNK_ENTRIES (RECORD_RING_MAX_WORDS - 1)
/* the key of the overflow (values above HIST_MAX_NS) in a block */
#define TIME_BLOCK_OVERFLOW HIST_BUCKETS

/* a ring record: a header word and up to TIME_BLOCK_CHUNK_ENTRIES entries */
struct time_block_chunk {
	uint64_t header; /* index << 16 | seq << 4 | last << 3 | entries */
	uint64_t entry[TIME_BLOCK_CHUNK_ENTRIES]; /* bucket << 32 | count */
};

/* The measuring thread's open block. */
struct time_block_builder {
	uint32_t *counts; /* HIST_BUCKETS + 1 (the overflow), zero outside the open block */
	uint16_t *touched; /* the buckets counted in the open block, in order of first use */
	unsigned int nr_touched;
	uint64_t index; /* the open block, in block lengths since the series began */
	uint64_t end; /* where the open block ends, in the caller's unit */
	uint64_t length; /* a block's length in the caller's unit */
	bool started;
	uint64_t lost; /* closed blocks the ring had no room for (relaxed atomics) */
};

/* Bytes of memory a builder's arrays take (time_block_builder_init). */
size_t time_block_builder_bytes(void);

/**
 * time_block_builder_init - set up a builder over the caller's memory
 * @b: the builder
 * @memory: time_block_builder_bytes() of zeroed memory, 8-byte aligned,
 *	    owned by the caller (allocate it where the thread runs)
 * @length: a block's length in the unit the thread's times are in (ns, or
 *	    clock ticks)
 */
void time_block_builder_init(struct time_block_builder *b, void *memory, uint64_t length);

/*
 * Thread only: the block that holds @at begins at @start (the series'
 * start). Called once, before the first time_block_builder_at().
 */
static inline void time_block_builder_start(struct time_block_builder *b, uint64_t start)
{
	b->index = 0;
	b->end = start + b->length;
	b->started = true;
}

void time_block_builder_close(struct time_block_builder *b, struct record_ring *ring, uint64_t at);

/*
 * Thread only: make the block that holds @at the open one, handing the
 * open block to @ring when @at is past it. A few ns unless a block ends.
 */
static inline void time_block_builder_at(struct time_block_builder *b, struct record_ring *ring,
					 uint64_t at)
{
	if (__builtin_expect(at >= b->end, 0))
		time_block_builder_close(b, ring, at);
}

/* Thread only: count @n values in @bucket (TIME_BLOCK_OVERFLOW for values above HIST_MAX_NS). */
static inline void time_block_builder_count(struct time_block_builder *b, unsigned int bucket,
					    uint32_t n)
{
	if (!b->counts[bucket])
		b->touched[b->nr_touched++] = (uint16_t)bucket;
	b->counts[bucket] += n;
}

/* Thread only: count one value of @ns in the open block. */
static inline void time_block_builder_add(struct time_block_builder *b, uint64_t ns)
{
	time_block_builder_count(b, ns <= HIST_MAX_NS ? hist_bucket_of(ns) : TIME_BLOCK_OVERFLOW,
				 1);
}

/**
 * time_block_builder_flush - hand the open block to @ring as it is
 * @b: the builder
 * @ring: the ring
 *
 * For the end of the series (its last block is partial). Thread only, or
 * after the thread ended.
 */
void time_block_builder_flush(struct time_block_builder *b, struct record_ring *ring);

/* what a block's bucket numbers mean */
enum time_block_layout {
	TIME_BLOCK_LOG_LINEAR, /* hist.h's buckets; TIME_BLOCK_OVERFLOW above them */
	TIME_BLOCK_NATIVE_COARSE, /* native_coarse_key()s; no overflow key */
};

/* "log-linear" or "native/2", as the JSON names the layout */
const char *time_block_layout_name(enum time_block_layout layout);

/* How many bucket numbers a layout has (0 .. n - 1). */
unsigned int time_block_layout_keys(enum time_block_layout layout);

/**
 * time_block_bounds - the values a bucket of a layout holds
 * @layout: the layout
 * @key: the bucket, < time_block_layout_keys()
 * @low: receives the smallest ns
 * @high: receives the largest ns
 *
 * Returns false for the overflow key, whose values are above every bucket.
 */
bool time_block_bounds(enum time_block_layout layout, unsigned int key, uint64_t *low,
		       uint64_t *high);

/* one non-empty bucket of a stored block */
struct time_block_entry {
	uint32_t bucket; /* index in hist.h's layout; TIME_BLOCK_OVERFLOW above it */
	uint64_t count;
};

/* one stored block: its non-empty buckets, ascending */
struct time_block {
	struct time_block_entry *entries; /* owned */
	unsigned int nr, cap;
	uint64_t count; /* the sum of the counts */
	/*
	 * serial_next() at its last change (0: never had an entry), kept by a
	 * move and a copy: what a reader made of the block holds while it is
	 * the same (the checkpoint's text of it)
	 */
	uint64_t serial;
};

/* a chunk of a block that is on its way (taken from the ring, not all of it yet) */
struct time_block_pending {
	struct time_block block;
	uint64_t index;
	unsigned int next_seq;
	bool open;
};

/* One series' stored blocks. */
struct time_blocks {
	enum time_block_layout layout; /* TIME_BLOCK_LOG_LINEAR unless set after init */
	uint64_t base_ns; /* the length of a measured block */
	unsigned int shift; /* a stored block is base_ns << shift long */
	unsigned int nr; /* stored blocks: the last one the latest that had a sample */
	struct time_block blocks[TIME_BLOCKS_MAX];
	uint64_t lost; /* measured blocks not stored (no room in a ring, or no memory) */
	struct time_block_pending pending;
};

/* Start an empty store whose measured blocks are @base_ns long. */
void time_blocks_init(struct time_blocks *tb, uint64_t base_ns);

/* Free what a store holds; safe on a zeroed one and to repeat. */
void time_blocks_release(struct time_blocks *tb);

/**
 * time_blocks_copy - the stored blocks of @from, to read while @from goes on
 * @to: receives the copy, nothing pending; its blocks' entries are in
 *	*@entries: never release @to, free *@entries when done with copies
 * @from: the store
 * @entries: a buffer for the entries, grown as needed (NULL at first) and
 *	     kept by the caller for the next copy
 * @cap: its capacity in entries
 * Returns 0 or -ENOMEM (@to then untouched).
 */
int time_blocks_copy(struct time_blocks *to, const struct time_blocks *from,
		     struct time_block_entry **entries, unsigned int *cap);

/* the length of a stored block in ns */
static inline uint64_t time_blocks_length(const struct time_blocks *tb)
{
	return tb->base_ns << tb->shift;
}

/**
 * time_blocks_add - add counts to a measured block
 * @tb: the store
 * @index: the measured block, in base_ns lengths since the series began
 * @entries: its buckets, in any order, each at most once
 * @nr: how many
 *
 * Merges adjacent blocks first when @index lies beyond the room.
 * Returns 0 or -ENOMEM (the counts are then counted as a lost block).
 */
int time_blocks_add(struct time_blocks *tb, uint64_t index, const struct time_block_entry *entries,
		    unsigned int nr);

/**
 * time_blocks_remove - take back one value counted earlier (a noise gap
 * later known to be RT throttling, as hist_remove() does for the run)
 * @tb: the store
 * @index: the measured block it was counted in, in base_ns lengths
 * @ns: the value
 *
 * Returns 0, or -ENOENT when that block holds no such value: the store then
 * no longer matches the run, and counts a lost block to say so.
 */
int time_blocks_remove(struct time_blocks *tb, uint64_t index, uint64_t ns);

/**
 * time_blocks_take - move the chunks waiting in a ring into the store
 * @tb: the store
 * @ring: the ring a builder fills (consumer side)
 *
 * Returns 0 or -ENOMEM (what could not be kept is counted as lost).
 */
int time_blocks_take(struct time_blocks *tb, struct record_ring *ring);

/**
 * time_blocks_json - the "time_blocks" object of a result
 * @tb: the store
 * @builder_lost: blocks a builder could not hand over (its lost count)
 *
 * {"block_ns", "buckets": the layout's name, "histograms": [[bucket,
 * count, ...] per block], "lost"}. Returns a new reference, or NULL.
 */
json_t *time_blocks_json(const struct time_blocks *tb, uint64_t builder_lost);

/**
 * time_blocks_from_json - read a "time_blocks" object back
 * @doc: the document @value was parsed into by jsondoc_parse(), whose
 *	 number arrays are packed; NULL for a plain jansson tree
 * @value: the object
 * @tb: receives the blocks (base_ns is the block length, shift 0, the
 *	layout the one named); release with time_blocks_release() whatever
 *	the outcome
 * @why: receives the reason when it cannot be read
 * @size: room in @why
 *
 * Returns 0, -EINVAL (malformed: @why says why) or -ENOMEM.
 */
int time_blocks_from_json(struct jsondoc *doc, const json_t *value, struct time_blocks *tb,
			  char *why, size_t size);

#endif
