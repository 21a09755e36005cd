// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a table keeps for its IRQs and that never moves once kept: the
 * names and chips, and the cpu sets, each distinct set once. A cpu set is
 * 1 KiB (CPUSET_MAX_CPUS bits): kept in each IRQ, the affinity and the
 * effective affinity of a 10,000-IRQ machine were 20 MB to allocate and
 * write, while such a machine has a few hundred distinct sets ("0-1023",
 * a queue's spread, one CPU each). The file reads of several threads keep
 * sets at once: a mutex guards the store.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irq_internal.h"

/* a block of storage; blocks are never moved nor freed before the store */
struct block {
	struct block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

#define BLOCK_SIZE (64 * 1024)

struct irq_store {
	pthread_mutex_t lock;
	struct block *blocks;
	/* open addressing, a power of two of slots, at most half full */
	const struct cpuset **sets;
	uint64_t *hashes;
	size_t nr_sets, nr_slots;
	const struct cpuset *empty;
};

/* @size bytes that stay where they are, aligned for a cpuset; NULL when out of memory */
static void *take(struct irq_store *store, size_t size)
{
	struct block *block = store->blocks;

	size = (size + 15) & ~(size_t)15;
	if (!block || block->size - block->used < size) {
		size_t room = size > BLOCK_SIZE ? size : BLOCK_SIZE;

		block = malloc(sizeof(*block) + room);
		if (!block)
			return NULL;
		block->used = 0;
		block->size = room;
		block->next = store->blocks;
		store->blocks = block;
	}
	block->used += size;
	return block->data + block->used - size;
}

static uint64_t hash_of(const struct cpuset *set)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < CPUSET_WORDS; i++) {
		h ^= set->words[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static int grow_slots(struct irq_store *store)
{
	size_t nr = store->nr_slots ? store->nr_slots * 2 : 1024, i, slot;
	const struct cpuset **sets = calloc(nr, sizeof(*sets));
	uint64_t *hashes = calloc(nr, sizeof(*hashes));

	if (!sets || !hashes) {
		free(sets);
		free(hashes);
		return -ENOMEM;
	}
	for (i = 0; i < store->nr_slots; i++) {
		if (!store->sets[i])
			continue;
		for (slot = store->hashes[i] & (nr - 1); sets[slot]; slot = (slot + 1) & (nr - 1))
			;
		sets[slot] = store->sets[i];
		hashes[slot] = store->hashes[i];
	}
	free(store->sets);
	free(store->hashes);
	store->sets = sets;
	store->hashes = hashes;
	store->nr_slots = nr;
	return 0;
}

/* under the lock */
static const struct cpuset *keep_cpus(struct irq_store *store, const struct cpuset *set)
{
	uint64_t hash = hash_of(set);
	struct cpuset *kept;
	size_t slot;

	if (2 * (store->nr_sets + 1) > store->nr_slots && grow_slots(store))
		return NULL;
	for (slot = hash & (store->nr_slots - 1); store->sets[slot];
	     slot = (slot + 1) & (store->nr_slots - 1))
		if (store->hashes[slot] == hash && cpuset_equal(store->sets[slot], set))
			return store->sets[slot];
	kept = take(store, sizeof(*kept));
	if (!kept)
		return NULL;
	*kept = *set;
	store->sets[slot] = kept;
	store->hashes[slot] = hash;
	store->nr_sets++;
	return kept;
}

struct irq_store *irq_store_new(void)
{
	struct irq_store *store = calloc(1, sizeof(*store));
	struct cpuset none;

	if (!store)
		return NULL;
	pthread_mutex_init(&store->lock, NULL);
	cpuset_clear(&none);
	store->empty = keep_cpus(store, &none);
	if (!store->empty) {
		irq_store_free(store);
		return NULL;
	}
	return store;
}

void irq_store_free(struct irq_store *store)
{
	struct block *block, *next;

	if (!store)
		return;
	for (block = store->blocks; block; block = next) {
		next = block->next;
		free(block);
	}
	free(store->sets);
	free(store->hashes);
	pthread_mutex_destroy(&store->lock);
	free(store);
}

const struct cpuset *irq_store_cpus(struct irq_store *store, const struct cpuset *set)
{
	const struct cpuset *kept;

	pthread_mutex_lock(&store->lock);
	kept = keep_cpus(store, set);
	pthread_mutex_unlock(&store->lock);
	return kept;
}

const struct cpuset *irq_store_empty(const struct irq_store *store)
{
	return store->empty;
}

const char *irq_store_text(struct irq_store *store, const char *text, size_t len)
{
	char *kept;

	pthread_mutex_lock(&store->lock);
	kept = take(store, len + 1);
	pthread_mutex_unlock(&store->lock);
	if (!kept)
		return NULL;
	memcpy(kept, text, len);
	kept[len] = '\0';
	return kept;
}
