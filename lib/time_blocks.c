// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/jsondoc.h"
#include "latscope/log.h"
#include "latscope/serial.h"
#include "latscope/time_blocks.h"

#define KEYS (HIST_BUCKETS + 1) /* the buckets and the overflow */

/* the header word of a chunk */
#define HEADER_ENTRIES(h) ((unsigned int)((h)&7))
#define HEADER_LAST(h) (((h) >> 3) & 1)
#define HEADER_SEQ(h) ((unsigned int)(((h) >> 4) & 0xfff))
#define HEADER_INDEX(h) ((h) >> 16)

size_t time_block_builder_bytes(void)
{
	return KEYS * sizeof(uint32_t) + KEYS * sizeof(uint16_t);
}

void time_block_builder_init(struct time_block_builder *b, void *memory, uint64_t length)
{
	memset(b, 0, sizeof(*b));
	b->counts = memory;
	b->touched = (uint16_t *)(b->counts + KEYS);
	b->length = length ? length : 1;
}

/* the open block into @ring, all of its chunks or none; the counts are cleared */
static void hand_over(struct time_block_builder *b, struct record_ring *ring)
{
	unsigned int n = b->nr_touched,
		     chunks = (n + TIME_BLOCK_CHUNK_ENTRIES - 1) / TIME_BLOCK_CHUNK_ENTRIES;
	unsigned int i, k, seq;
	struct time_block_chunk chunk;

	if (!n)
		return;
	if (record_ring_room(ring) < chunks) {
		__atomic_store_n(&b->lost, b->lost + 1, __ATOMIC_RELAXED);
		for (i = 0; i < n; i++)
			b->counts[b->touched[i]] = 0;
		b->nr_touched = 0;
		return;
	}
	for (seq = 0, i = 0; seq < chunks; seq++) {
		for (k = 0; k < TIME_BLOCK_CHUNK_ENTRIES && i < n; k++, i++) {
			unsigned int bucket = b->touched[i];

			chunk.entry[k] = (uint64_t)bucket << 32 | b->counts[bucket];
			b->counts[bucket] = 0;
		}
		chunk.header = b->index << 16 | (uint64_t)seq << 4 |
			       (uint64_t)(seq + 1 == chunks) << 3 | k;
		record_ring_push(ring, &chunk);
	}
	b->nr_touched = 0;
}

void time_block_builder_close(struct time_block_builder *b, struct record_ring *ring, uint64_t at)
{
	uint64_t later = (at - b->end) / b->length + 1;

	hand_over(b, ring);
	b->index += later;
	b->end += later * b->length;
}

void time_block_builder_flush(struct time_block_builder *b, struct record_ring *ring)
{
	hand_over(b, ring);
}

const char *time_block_layout_name(enum time_block_layout layout)
{
	return layout == TIME_BLOCK_NATIVE_COARSE ? "native/2" : "log-linear";
}

unsigned int time_block_layout_keys(enum time_block_layout layout)
{
	return layout == TIME_BLOCK_NATIVE_COARSE ? NATIVE_COARSE_KEYS : KEYS;
}

bool time_block_bounds(enum time_block_layout layout, unsigned int key, uint64_t *low,
		       uint64_t *high)
{
	if (layout == TIME_BLOCK_NATIVE_COARSE) {
		*low = native_coarse_low(key);
		*high = native_coarse_high(key);
		return true;
	}
	if (key >= HIST_BUCKETS)
		return false;
	*low = hist_bucket_low(key);
	*high = hist_bucket_high(key);
	return true;
}

void time_blocks_init(struct time_blocks *tb, uint64_t base_ns)
{
	memset(tb, 0, sizeof(*tb));
	tb->base_ns = base_ns;
}

static void block_release(struct time_block *block)
{
	free(block->entries);
	memset(block, 0, sizeof(*block));
}

void time_blocks_release(struct time_blocks *tb)
{
	unsigned int i;

	for (i = 0; i < TIME_BLOCKS_MAX; i++)
		block_release(&tb->blocks[i]);
	block_release(&tb->pending.block);
	tb->nr = 0;
}

int time_blocks_copy(struct time_blocks *to, const struct time_blocks *from,
		     struct time_block_entry **entries, unsigned int *cap)
{
	struct time_block_entry *at;
	unsigned int total = 0, i;

	for (i = 0; i < from->nr; i++)
		total += from->blocks[i].nr;
	/* one buffer for all: at 256 CPUs a copy of every block's own is 65,000 of them */
	at = array_grow(*entries, cap, total ? total : 1, sizeof(*at));
	if (!at)
		return -ENOMEM;
	*entries = at;
	memset(to, 0, sizeof(*to));
	to->layout = from->layout;
	to->base_ns = from->base_ns;
	to->shift = from->shift;
	to->nr = from->nr;
	to->lost = from->lost;
	for (i = 0; i < from->nr; i++) {
		to->blocks[i] = from->blocks[i];
		to->blocks[i].entries = at;
		to->blocks[i].cap = from->blocks[i].nr;
		/* a block with no entry may have no array at all */
		if (from->blocks[i].nr)
			memcpy(at, from->blocks[i].entries, from->blocks[i].nr * sizeof(*at));
		at += from->blocks[i].nr;
	}
	return 0;
}

static int compare_entries(const void *x, const void *y)
{
	const struct time_block_entry *a = x, *b = y;

	return a->bucket < b->bucket ? -1 : a->bucket > b->bucket;
}

/* @into += @from (both ascending, each bucket once); @from is left as it was */
static int block_merge(struct time_block *into, const struct time_block_entry *from,
		       unsigned int nr)
{
	struct time_block_entry *merged;
	unsigned int i = 0, k = 0, n = 0;

	if (!nr)
		return 0;
	merged = malloc((size_t)(into->nr + nr) * sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	while (i < into->nr || k < nr) {
		if (k == nr || (i < into->nr && into->entries[i].bucket < from[k].bucket)) {
			merged[n++] = into->entries[i++];
		} else if (i == into->nr || from[k].bucket < into->entries[i].bucket) {
			merged[n++] = from[k++];
		} else {
			merged[n] = into->entries[i++];
			merged[n++].count += from[k++].count;
		}
	}
	for (k = 0; k < nr; k++)
		into->count += from[k].count;
	free(into->entries);
	into->entries = merged;
	into->nr = into->cap = n;
	into->serial = serial_next();
	return 0;
}

/* blocks 2j and 2j + 1 become block j: the block length doubles */
static int halve(struct time_blocks *tb)
{
	unsigned int j;
	int ret;

	for (j = 0; j < TIME_BLOCKS_MAX / 2; j++) {
		struct time_block *first = &tb->blocks[2 * j], *second = &tb->blocks[2 * j + 1];

		ret = block_merge(first, second->entries, second->nr);
		if (ret)
			return ret;
		block_release(second);
		if (j) {
			tb->blocks[j] = *first;
			memset(first, 0, sizeof(*first));
		}
	}
	tb->nr = (tb->nr + 1) / 2;
	tb->shift++;
	return 0;
}

int time_blocks_add(struct time_blocks *tb, uint64_t index, const struct time_block_entry *entries,
		    unsigned int nr)
{
	struct time_block_entry *sorted;
	uint64_t slot;
	int ret;

	while (tb->shift < 63 && (index >> tb->shift) >= TIME_BLOCKS_MAX) {
		ret = halve(tb);
		if (ret)
			goto lost;
	}
	slot = index >> tb->shift;
	if (slot >= TIME_BLOCKS_MAX) {
		ret = -ERANGE;
		goto lost;
	}
	sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	if (!sorted) {
		ret = -ENOMEM;
		goto lost;
	}
	memcpy(sorted, entries, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), compare_entries);
	ret = block_merge(&tb->blocks[slot], sorted, nr);
	free(sorted);
	if (ret)
		goto lost;
	if (nr && slot + 1 > tb->nr)
		tb->nr = (unsigned int)slot + 1;
	return 0;
lost:
	tb->lost++;
	return ret;
}

int time_blocks_remove(struct time_blocks *tb, uint64_t index, uint64_t ns)
{
	uint32_t bucket = ns <= HIST_MAX_NS ? hist_bucket_of(ns) : TIME_BLOCK_OVERFLOW;
	uint64_t slot = index >> tb->shift;
	struct time_block *block;
	unsigned int i;

	block = slot < tb->nr ? &tb->blocks[slot] : NULL;
	for (i = 0; block && i < block->nr; i++) {
		if (block->entries[i].bucket != bucket)
			continue;
		block->count--;
		block->serial = serial_next();
		if (!--block->entries[i].count) {
			memmove(&block->entries[i], &block->entries[i + 1],
				(block->nr - i - 1) * sizeof(block->entries[0]));
			block->nr--;
		}
		return 0;
	}
	tb->lost++;
	return -ENOENT;
}

/* a chunk's entries onto the block that is on its way */
static int pending_append(struct time_block_pending *p, const struct time_block_chunk *chunk)
{
	unsigned int n = HEADER_ENTRIES(chunk->header), k;
	struct time_block_entry *grown;

	grown = array_grow(p->block.entries, &p->block.cap, p->block.nr + n,
			   sizeof(*p->block.entries));
	if (!grown)
		return -ENOMEM;
	p->block.entries = grown;
	for (k = 0; k < n; k++) {
		grown[p->block.nr].bucket = (uint32_t)(chunk->entry[k] >> 32);
		grown[p->block.nr++].count = chunk->entry[k] & UINT32_MAX;
	}
	return 0;
}

static int take_chunk(struct time_blocks *tb, const struct time_block_chunk *chunk)
{
	struct time_block_pending *p = &tb->pending;
	uint64_t h = chunk->header;
	unsigned int k;
	int ret;

	if (HEADER_SEQ(h) == 0) {
		if (p->open) /* a block whose end never came: cannot happen, counted */
			tb->lost++;
		p->block.nr = 0;
		p->index = HEADER_INDEX(h);
		p->next_seq = 0;
		p->open = true;
	}
	if (!p->open || HEADER_SEQ(h) != p->next_seq || HEADER_INDEX(h) != p->index) {
		p->open = false;
		tb->lost++;
		return 0;
	}
	for (k = 0; k < HEADER_ENTRIES(h); k++)
		if ((chunk->entry[k] >> 32) >= KEYS) {
			p->open = false;
			tb->lost++;
			return 0;
		}
	ret = pending_append(p, chunk);
	if (ret) {
		p->open = false;
		tb->lost++;
		return ret;
	}
	p->next_seq++;
	if (!HEADER_LAST(h))
		return 0;
	p->open = false;
	return time_blocks_add(tb, p->index, p->block.entries, p->block.nr);
}

int time_blocks_take(struct time_blocks *tb, struct record_ring *ring)
{
	struct time_block_chunk batch[64];
	size_t n, i;
	int ret = 0;

	while ((n = record_ring_take(ring, batch, sizeof(batch) / sizeof(batch[0]))))
		for (i = 0; i < n; i++)
			if (take_chunk(tb, &batch[i]))
				ret = -ENOMEM;
	return ret;
}

json_t *time_blocks_json(const struct time_blocks *tb, uint64_t builder_lost)
{
	json_t *list = json_array(), *block, *o;
	unsigned int i, k;

	if (!list)
		return NULL;
	for (i = 0; i < tb->nr; i++) {
		block = json_array();
		if (!block || json_array_append_new(list, block)) {
			json_decref(list);
			return NULL;
		}
		for (k = 0; k < tb->blocks[i].nr; k++) {
			json_array_append_new(block, json_integer(tb->blocks[i].entries[k].bucket));
			json_array_append_new(
				block, json_integer((json_int_t)tb->blocks[i].entries[k].count));
		}
	}
	o = json_pack("{sIsssosI}", "block_ns", (json_int_t)time_blocks_length(tb), "buckets",
		      time_block_layout_name(tb->layout), "histograms", list, "lost",
		      (json_int_t)(tb->lost + builder_lost));
	return o;
}

static int malformed(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int malformed(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* one block from its flat list of bucket, count pairs */
static int block_from_values(const int64_t *v, size_t n, unsigned int keys,
			     struct time_block *block, unsigned int index, char *why, size_t size)
{
	int64_t last = -1;
	size_t i;

	if (n % 2)
		return malformed(why, size, "block %u is not a list of bucket, count pairs", index);
	block->entries = malloc((n ? n / 2 : 1) * sizeof(*block->entries));
	if (!block->entries)
		return -ENOMEM;
	block->cap = (unsigned int)(n / 2);
	for (i = 0; i < n; i += 2) {
		if (v[i] <= last || v[i] >= keys)
			return malformed(why, size,
					 "block %u: bucket %lld is out of order or beyond the "
					 "layout (0..%u)",
					 index, (long long)v[i], keys - 1);
		if (v[i + 1] <= 0)
			return malformed(why, size, "block %u: bucket %lld has a count of %lld",
					 index, (long long)v[i], (long long)v[i + 1]);
		if (block->count > UINT64_MAX - (uint64_t)v[i + 1])
			return malformed(why, size, "block %u: its counts overflow", index);
		block->entries[block->nr].bucket = (uint32_t)v[i];
		block->entries[block->nr++].count = (uint64_t)v[i + 1];
		block->count += (uint64_t)v[i + 1];
		last = v[i];
	}
	block->serial = serial_next();
	return 0;
}

/* the integers of an array: a packed table of @doc, or a plain jansson array */
static int block_from_json(struct jsondoc *doc, const json_t *array, unsigned int keys,
			   struct time_block *block, unsigned int index, char *why, size_t size)
{
	struct jsondoc_table t;
	int64_t *plain;
	size_t n, i;
	int ret;

	if (!json_is_array(array))
		return malformed(why, size, "block %u is not a list", index);
	if (doc) {
		if (jsondoc_table(doc, array, &t) || (t.rows && t.width != 1))
			return malformed(why, size, "block %u is not a list of integers", index);
		return block_from_values(t.values, t.rows, keys, block, index, why, size);
	}
	n = json_array_size(array);
	plain = malloc((n ? n : 1) * sizeof(*plain));
	if (!plain)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *item = json_array_get(array, i);

		if (!json_is_integer(item)) {
			free(plain);
			return malformed(why, size, "block %u holds a value that is not an integer",
					 index);
		}
		plain[i] = json_integer_value(item);
	}
	ret = block_from_values(plain, n, keys, block, index, why, size);
	free(plain);
	return ret;
}

int time_blocks_from_json(struct jsondoc *doc, const json_t *value, struct time_blocks *tb,
			  char *why, size_t size)
{
	const json_t *list = json_object_get(value, "histograms");
	const json_t *length = json_object_get(value, "block_ns");
	const json_t *layout = json_object_get(value, "buckets");
	const json_t *lost = json_object_get(value, "lost");
	struct jsondoc_table rows = { 0 };
	bool packed;
	size_t i, n;
	int ret;

	time_blocks_init(tb, 0);
	if (!json_is_object(value))
		return malformed(why, size, "time_blocks is not an object");
	if (!json_is_integer(length) || json_integer_value(length) <= 0)
		return malformed(why, size, "time_blocks has no positive block_ns");
	if (json_is_string(layout) &&
	    !strcmp(json_string_value(layout), time_block_layout_name(TIME_BLOCK_NATIVE_COARSE)))
		tb->layout = TIME_BLOCK_NATIVE_COARSE;
	else if (!json_is_string(layout) || strcmp(json_string_value(layout), "log-linear"))
		return malformed(why, size,
				 "time_blocks: unknown bucket layout (expected \"log-linear\" or "
				 "\"native/2\")");
	if (lost && (!json_is_integer(lost) || json_integer_value(lost) < 0))
		return malformed(why, size, "time_blocks: lost is not a count");
	if (!json_is_array(list))
		return malformed(why, size, "time_blocks: histograms is not a list");
	/* blocks of one length are packed into one table by the document's parser */
	packed = doc && !jsondoc_table(doc, list, &rows) && rows.rows;
	if (packed && rows.width < 2)
		return malformed(why, size, "time_blocks: histograms is not a list of blocks");
	n = packed ? rows.rows : json_array_size(list);
	if (n > TIME_BLOCKS_MAX)
		return malformed(why, size, "time_blocks: more than %d blocks", TIME_BLOCKS_MAX);
	tb->base_ns = (uint64_t)json_integer_value(length);
	tb->lost = lost ? (uint64_t)json_integer_value(lost) : 0;
	for (i = 0; i < n; i++) {
		ret = packed ? block_from_values(rows.values + i * rows.width, rows.width,
						 time_block_layout_keys(tb->layout), &tb->blocks[i],
						 (unsigned int)i, why, size) :
			       block_from_json(doc, json_array_get(list, i),
					       time_block_layout_keys(tb->layout), &tb->blocks[i],
					       (unsigned int)i, why, size);
		if (ret)
			return ret;
	}
	tb->nr = (unsigned int)n;
	return 0;
}
