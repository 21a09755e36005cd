// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latscope/monitor_blocks.h"

_Static_assert((NATIVE_SLOTS - 1) % NATIVE_COARSE_SLOTS == 0,
	       "coarse keys hold whole groups of slots");

void monitor_blocks_init(struct monitor_blocks *b)
{
	memset(b, 0, sizeof(*b));
	time_blocks_init(&b->store, TIME_BLOCK_NS);
	b->store.layout = TIME_BLOCK_NATIVE_COARSE;
}

void monitor_blocks_release(struct monitor_blocks *b)
{
	time_blocks_release(&b->store);
	monitor_blocks_init(b);
}

int monitor_blocks_copy(struct monitor_blocks *to, const struct monitor_blocks *from,
			struct time_block_entry **entries, unsigned int *cap)
{
	int ret = time_blocks_copy(&to->store, &from->store, entries, cap);

	if (ret)
		return ret;
	to->start_ns = from->start_ns;
	to->from_ns = from->from_ns;
	memcpy(to->last, from->last, sizeof(to->last));
	return 0;
}

/* a reading's counts per coarse key */
static void coarse_counts(const struct monitor_cpu_reading *r, uint64_t *keys)
{
	unsigned int i;

	memset(keys, 0, NATIVE_COARSE_KEYS * sizeof(*keys));
	keys[0] = r->zero_count;
	for (i = 0; i < r->nr; i++)
		keys[native_coarse_key(r->first + i)] += r->counts[i];
}

void monitor_blocks_begin(struct monitor_blocks *b, const struct monitor_cpu_reading *reading,
			  uint64_t now_ns)
{
	coarse_counts(reading, b->last);
	if (!b->start_ns)
		b->start_ns = now_ns / TIME_BLOCK_NS * TIME_BLOCK_NS;
	b->from_ns = now_ns;
}

int monitor_blocks_fold(struct monitor_blocks *b, const struct monitor_cpu_reading *reading,
			uint64_t now_ns)
{
	struct time_block_entry entries[NATIVE_COARSE_KEYS];
	uint64_t now[NATIVE_COARSE_KEYS], middle;
	unsigned int key, nr = 0;

	coarse_counts(reading, now);
	for (key = 0; key < NATIVE_COARSE_KEYS; key++) {
		if (now[key] == b->last[key])
			continue;
		entries[nr].bucket = key;
		entries[nr++].count = now[key] - b->last[key];
	}
	memcpy(b->last, now, sizeof(now));
	middle = b->from_ns / 2 + now_ns / 2;
	b->from_ns = now_ns;
	if (!nr)
		return 0;
	/* a wall clock set back before the first block: its first block */
	return time_blocks_add(&b->store,
			       middle > b->start_ns ? (middle - b->start_ns) / TIME_BLOCK_NS : 0,
			       entries, nr);
}

uint64_t monitor_blocks_next_end(const struct monitor_blocks *b, uint64_t now_ns)
{
	uint64_t length = time_blocks_length(&b->store);

	if (now_ns < b->start_ns)
		return b->start_ns;
	return now_ns - (now_ns - b->start_ns) % length + length;
}

bool monitor_blocks_hold(const struct time_blocks *tb, const uint64_t *keys)
{
	uint64_t want[NATIVE_COARSE_KEYS];
	unsigned int i, e;
	bool hold = true;

	memcpy(want, keys, sizeof(want));
	for (i = 0; hold && i < tb->nr; i++) {
		const struct time_block *block = &tb->blocks[i];

		for (e = 0; hold && e < block->nr; e++) {
			hold = block->entries[e].bucket < NATIVE_COARSE_KEYS &&
			       block->entries[e].count <= want[block->entries[e].bucket];
			if (hold)
				want[block->entries[e].bucket] -= block->entries[e].count;
		}
	}
	for (i = 0; hold && i < NATIVE_COARSE_KEYS; i++)
		hold = !want[i];
	return hold;
}

bool monitor_blocks_add_up(const struct monitor_blocks *b,
			   const struct monitor_cpu_reading *reading)
{
	uint64_t want[NATIVE_COARSE_KEYS];

	coarse_counts(reading, want);
	return monitor_blocks_hold(&b->store, want);
}

int monitor_blocks_read(struct jsondoc *doc, const json_t *value, struct monitor_blocks *b,
			char *why, size_t size)
{
	const json_t *start = json_object_get(value, "start_ns");
	uint64_t length;
	int ret;

	monitor_blocks_init(b);
	ret = time_blocks_from_json(doc, value, &b->store, why, size);
	if (ret)
		return ret;
	length = b->store.base_ns;
	b->store.base_ns = TIME_BLOCK_NS;
	while (b->store.shift < 40 && time_blocks_length(&b->store) < length)
		b->store.shift++;
	if (b->store.layout != TIME_BLOCK_NATIVE_COARSE ||
	    time_blocks_length(&b->store) != length) {
		snprintf(why, size,
			 "time_blocks are not native/2 blocks of 100 ms times a power of two");
		return -EINVAL;
	}
	if (!json_is_integer(start) || json_integer_value(start) <= 0 ||
	    json_integer_value(start) % (json_int_t)TIME_BLOCK_NS) {
		snprintf(why, size, "time_blocks has no start_ns on the 100 ms grid");
		return -EINVAL;
	}
	b->start_ns = (uint64_t)json_integer_value(start);
	return 0;
}

int monitor_blocks_parse(struct jsondoc *doc, const json_t *value, struct monitor_blocks *b,
			 const struct monitor_cpu_reading *reading, char *why, size_t size)
{
	int ret;

	if (!value) {
		monitor_blocks_init(b);
		/* written before blocks: its history is in no block, and says so */
		b->store.lost = reading->count ? 1 : 0;
		return 0;
	}
	ret = monitor_blocks_read(doc, value, b, why, size);
	if (ret)
		return ret;
	/* one a monitor wrote always adds up, unless it says some were lost */
	if (!b->store.lost && !monitor_blocks_add_up(b, reading)) {
		snprintf(why, size, "its time blocks do not add up to its counts");
		return -EINVAL;
	}
	return 0;
}
