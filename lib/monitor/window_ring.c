// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/serial.h"
#include "latscope/window_ring.h"

#define BLOCK_WINDOWS 256
/* the most one window takes: a flag byte and five varints of up to 10 bytes */
#define WINDOW_MAX_BYTES 51

/*
 * A window is a flag byte, then only what is not as usual, then its max:
 * most windows follow the previous one (the next index, as many samples,
 * the same p99 slot) and miss nothing, and take 4 bytes.
 */
#define SAME_INDEX_STEP 0x01 /* index = previous + 1 */
#define SAME_COUNT 0x02
#define SAME_P99 0x04
#define NOTHING_MISSED 0x08 /* missed 0 and not partial */

struct block {
	uint8_t *bytes;
	unsigned int used, capacity;
	unsigned int nr; /* windows in it */
	uint64_t serial; /* unique in the process: a full block is known by it */
	struct monitor_window last; /* the last appended, for the next delta */
};

struct window_ring {
	size_t capacity;
	struct block *blocks; /* circular, max_blocks of them */
	size_t max_blocks, first, nr_blocks;
	size_t count;
};

struct window_ring *window_ring_new(size_t capacity)
{
	struct window_ring *ring = calloc(1, sizeof(*ring));

	if (!ring)
		return NULL;
	ring->capacity = capacity ? capacity : 1;
	/* full blocks for the capacity, and the one being filled */
	ring->max_blocks = (ring->capacity + BLOCK_WINDOWS - 1) / BLOCK_WINDOWS + 1;
	ring->blocks = calloc(ring->max_blocks, sizeof(*ring->blocks));
	if (!ring->blocks) {
		free(ring);
		return NULL;
	}
	return ring;
}

void window_ring_free(struct window_ring *ring)
{
	size_t i;

	if (!ring)
		return;
	for (i = 0; i < ring->max_blocks; i++)
		free(ring->blocks[i].bytes);
	free(ring->blocks);
	free(ring);
}

int window_ring_copy(struct window_ring *to, const struct window_ring *from)
{
	size_t i;

	if (to->max_blocks != from->max_blocks)
		return -EINVAL;
	/* from the copy's first slot, into the buffers an earlier copy left */
	for (i = 0; i < from->nr_blocks; i++) {
		const struct block *b = &from->blocks[(from->first + i) % from->max_blocks];
		struct block *into = &to->blocks[i];
		uint8_t *bytes = array_grow(into->bytes, &into->capacity, b->used, 1);

		if (!bytes)
			return -ENOMEM;
		memcpy(bytes, b->bytes, b->used);
		into->bytes = bytes;
		into->used = b->used;
		into->nr = b->nr;
		into->serial = b->serial;
		into->last = b->last;
	}
	to->first = 0;
	to->nr_blocks = from->nr_blocks;
	to->count = from->count;
	return 0;
}

static uint8_t *put_varint(uint8_t *p, uint64_t value)
{
	while (value >= 0x80) {
		*p++ = (uint8_t)(value | 0x80);
		value >>= 7;
	}
	*p++ = (uint8_t)value;
	return p;
}

static const uint8_t *get_varint(const uint8_t *p, uint64_t *value)
{
	unsigned int shift = 0;

	*value = 0;
	while (*p & 0x80 && shift < 63) {
		*value |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	*value |= (uint64_t)*p++ << shift;
	return p;
}

/* a signed change as an unsigned varint: small both ways */
static uint64_t zigzag(uint64_t to, uint64_t from)
{
	int64_t delta = (int64_t)(to - from);

	return ((uint64_t)delta << 1) ^ (uint64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t from, uint64_t value)
{
	return from + (uint64_t)((int64_t)(value >> 1) ^ -(int64_t)(value & 1));
}

static struct block *newest(struct window_ring *ring)
{
	return ring->nr_blocks ?
		       &ring->blocks[(ring->first + ring->nr_blocks - 1) % ring->max_blocks] :
		       NULL;
}

/* A new block for the next window, dropping the oldest when all are used. */
static struct block *start_block(struct window_ring *ring)
{
	struct block *b, *full = newest(ring);
	uint8_t *shrunk;

	/* the block just filled keeps only what it uses */
	if (full && full->used < full->capacity) {
		shrunk = realloc(full->bytes, full->used);
		if (shrunk) {
			full->bytes = shrunk;
			full->capacity = full->used;
		}
	}
	if (ring->nr_blocks == ring->max_blocks) {
		b = &ring->blocks[ring->first];
		ring->count -= b->nr;
		ring->first = (ring->first + 1) % ring->max_blocks;
		ring->nr_blocks--;
		free(b->bytes);
		memset(b, 0, sizeof(*b));
	}
	b = &ring->blocks[(ring->first + ring->nr_blocks) % ring->max_blocks];
	memset(b, 0, sizeof(*b));
	b->serial = serial_next();
	ring->nr_blocks++;
	return b;
}

int window_ring_append(struct window_ring *ring, const struct monitor_window *w)
{
	struct block *b = newest(ring);
	const struct monitor_window zero = { 0 }, *prev;
	uint8_t *p, *grown, *flags;

	if (!b || b->nr == BLOCK_WINDOWS)
		b = start_block(ring);
	grown = array_grow(b->bytes, &b->capacity, b->used + WINDOW_MAX_BYTES, 1);
	if (!grown) {
		if (!b->nr)
			ring->nr_blocks--;
		return -ENOMEM;
	}
	b->bytes = grown;
	p = b->bytes + b->used;
	/* a block's first window is relative to zero: blocks decode alone */
	prev = b->nr ? &b->last : &zero;
	flags = p++;
	*flags = 0;
	if (w->index == prev->index + 1)
		*flags |= SAME_INDEX_STEP;
	else
		p = put_varint(p, zigzag(w->index, prev->index));
	if (w->count == prev->count)
		*flags |= SAME_COUNT;
	else
		p = put_varint(p, zigzag(w->count, prev->count));
	if (w->p99_slot == prev->p99_slot)
		*flags |= SAME_P99;
	else
		p = put_varint(p, zigzag(w->p99_slot, prev->p99_slot));
	if (!w->missed && !w->partial)
		*flags |= NOTHING_MISSED;
	else
		p = put_varint(p, w->missed << 1 | (w->partial ? 1 : 0));
	p = put_varint(p, w->max_ns);
	b->used = (unsigned int)(p - b->bytes);
	b->last = *w;
	b->nr++;
	ring->count++;
	return 0;
}

size_t window_ring_count(const struct window_ring *ring)
{
	return ring->count;
}

size_t window_ring_bytes(const struct window_ring *ring)
{
	size_t bytes = sizeof(*ring) + ring->max_blocks * sizeof(struct block), i;

	for (i = 0; i < ring->max_blocks; i++)
		bytes += ring->blocks[i].capacity;
	return bytes;
}

void window_ring_begin(const struct window_ring *ring, struct window_ring_cursor *cursor)
{
	memset(cursor, 0, sizeof(*cursor));
	cursor->ring = ring;
}

size_t window_ring_blocks(const struct window_ring *ring)
{
	return ring->nr_blocks;
}

struct window_ring_block window_ring_block(const struct window_ring *ring, size_t block)
{
	const struct block *b = &ring->blocks[(ring->first + block) % ring->max_blocks];

	return (struct window_ring_block){ .serial = b->serial,
					   .nr = b->nr,
					   .full = b->nr == BLOCK_WINDOWS };
}

void window_ring_begin_block(const struct window_ring *ring, size_t block,
			     struct window_ring_cursor *cursor)
{
	window_ring_begin(ring, cursor);
	cursor->block = block;
}

bool window_ring_next(struct window_ring_cursor *cur, struct monitor_window *w)
{
	const struct window_ring *ring = cur->ring;
	const struct block *b = NULL; /* set by the loop whenever it breaks out */
	const uint8_t *p;
	uint64_t value;
	uint8_t flags;

	while (cur->block < ring->nr_blocks) {
		b = &ring->blocks[(ring->first + cur->block) % ring->max_blocks];
		if (cur->in_block < b->nr)
			break;
		cur->block++;
		cur->offset = cur->in_block = 0;
		memset(&cur->previous, 0, sizeof(cur->previous));
	}
	if (cur->block >= ring->nr_blocks)
		return false;
	p = b->bytes + cur->offset;
	flags = *p++;
	if (flags & SAME_INDEX_STEP) {
		w->index = cur->previous.index + 1;
	} else {
		p = get_varint(p, &value);
		w->index = unzigzag(cur->previous.index, value);
	}
	if (flags & SAME_COUNT) {
		w->count = cur->previous.count;
	} else {
		p = get_varint(p, &value);
		w->count = unzigzag(cur->previous.count, value);
	}
	if (flags & SAME_P99) {
		w->p99_slot = cur->previous.p99_slot;
	} else {
		p = get_varint(p, &value);
		w->p99_slot = (uint32_t)unzigzag(cur->previous.p99_slot, value);
	}
	if (flags & NOTHING_MISSED) {
		w->missed = 0;
		w->partial = false;
	} else {
		p = get_varint(p, &value);
		w->missed = value >> 1;
		w->partial = value & 1;
	}
	p = get_varint(p, &w->max_ns);
	cur->offset = (size_t)(p - b->bytes);
	cur->in_block++;
	cur->previous = *w;
	return true;
}
