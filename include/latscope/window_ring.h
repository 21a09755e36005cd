/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_WINDOW_RING_H
#define LATSCOPE_WINDOW_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "latscope/monitor_cpu.h"

/*
 * The closed windows of one CPU, oldest first, for at least `capacity`
 * windows (35 days of 5-minute windows by default). Windows are only
 * appended and read in order, so they are kept in blocks as a flag byte and
 * variable-length integers, saying only how a window differs from the one
 * before: 4 bytes for a usual window (the next index, as many samples, the
 * same p99 slot, nothing missed, its max) instead of 40, which keeps a
 * 256-CPU monitor with 35 days of windows small (10 MB). The oldest block goes when the ring is full.
 */
struct window_ring;

/**
 * window_ring_new - an empty ring
 * @capacity: the fewest windows kept once that many were appended
 * Returns a ring to free with window_ring_free(), or NULL.
 */
struct window_ring *window_ring_new(size_t capacity);
void window_ring_free(struct window_ring *ring);

/**
 * window_ring_copy - the windows of @from into @to, for a reader that must
 * not hold up the one appending (a checkpoint written behind)
 * @to: a ring of @from's capacity; what it held is replaced, its buffers
 *	reused (copied into again and again, it stops allocating)
 * @from: the ring
 * Returns 0, -EINVAL (another capacity) or -ENOMEM (@to then holds no
 * meaningful windows until the next copy succeeds).
 */
int window_ring_copy(struct window_ring *to, const struct window_ring *from);

/* Append a window. Returns 0 or -ENOMEM (the ring is unchanged). */
int window_ring_append(struct window_ring *ring, const struct monitor_window *window);

/* Windows kept. */
size_t window_ring_count(const struct window_ring *ring);

/* Bytes held, for the memory figures. */
size_t window_ring_bytes(const struct window_ring *ring);

/* A reading position, oldest window first; valid while the ring is unchanged. */
struct window_ring_cursor {
	const struct window_ring *ring;
	size_t block, offset, in_block;
	struct monitor_window previous;
};

void window_ring_begin(const struct window_ring *ring, struct window_ring_cursor *cursor);

/* Returns true and fills @window with the next window, false at the end. */
bool window_ring_next(struct window_ring_cursor *cursor, struct monitor_window *window);

/*
 * The ring is a list of blocks of up to 256 windows, oldest first; only
 * the newest is appended to, and a full block never changes until it is
 * dropped whole. A reader that keeps something made of a full block (the
 * checkpoint's text of its windows) knows it again by its serial, which
 * no other block of any ring in the process has, and which a copy keeps.
 */
struct window_ring_block {
	uint64_t serial;
	unsigned int nr; /* windows in it */
	bool full; /* no window is appended to it any more */
};

/* The ring's blocks, oldest first. */
size_t window_ring_blocks(const struct window_ring *ring);

/* Block @block (< window_ring_blocks()) of @ring. */
struct window_ring_block window_ring_block(const struct window_ring *ring, size_t block);

/* A cursor at the first window of block @block: its windows, then the next blocks'. */
void window_ring_begin_block(const struct window_ring *ring, size_t block,
			     struct window_ring_cursor *cursor);

#endif
