// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "latscope/record_ring.h"

size_t record_ring_bytes(size_t capacity, size_t record_size)
{
	return capacity * record_size;
}

int record_ring_init(struct record_ring *ring, void *memory, size_t capacity, size_t record_size)
{
	if (capacity < 2 || (capacity & (capacity - 1)) || !record_size || record_size % 8 ||
	    record_size > 8 * RECORD_RING_MAX_WORDS)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->slots = memory;
	ring->mask = capacity - 1;
	ring->words = (unsigned int)(record_size / 8);
	return 0;
}

size_t record_ring_take(struct record_ring *ring, void *out, size_t max)
{
	/* acquire: the records up to head are complete */
	uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE), tail = ring->tail;
	size_t n = head - tail < max ? (size_t)(head - tail) : max;
	size_t first = (size_t)(tail & ring->mask), until_end = (size_t)ring->mask + 1 - first;
	size_t record = (size_t)ring->words * 8;

	if (!n)
		return 0;
	/* at most two runs: to the end of the memory, then from its start */
	if (n <= until_end) {
		memcpy(out, ring->slots + first * ring->words, n * record);
	} else {
		memcpy(out, ring->slots + first * ring->words, until_end * record);
		memcpy((char *)out + until_end * record, ring->slots, (n - until_end) * record);
	}
	/* release: the slots are read before the producer may reuse them */
	__atomic_store_n(&ring->tail, tail + n, __ATOMIC_RELEASE);
	return n;
}

size_t record_ring_waiting(const struct record_ring *ring)
{
	return (size_t)(__atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) - ring->tail);
}

uint64_t record_ring_dropped(const struct record_ring *ring)
{
	return __atomic_load_n(&ring->dropped, __ATOMIC_RELAXED);
}

uint64_t record_ring_pushed(const struct record_ring *ring)
{
	return __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
}

size_t record_ring_capacity(const struct record_ring *ring)
{
	return (size_t)ring->mask + 1;
}

uint64_t record_ring_drain_interval(const struct record_ring *ring, uint64_t taken,
				    uint64_t elapsed_ns, uint64_t longest_ns)
{
	double quarter = (double)record_ring_capacity(ring) / 4, interval;

	if (!taken || !elapsed_ns)
		return longest_ns;
	/* quarter / (taken / elapsed): the time a quarter of the ring takes */
	interval = quarter * (double)elapsed_ns / (double)taken;
	if (interval >= (double)longest_ns)
		return longest_ns;
	if (interval <= (double)RECORD_RING_SHORTEST_DRAIN_NS)
		return RECORD_RING_SHORTEST_DRAIN_NS < longest_ns ? RECORD_RING_SHORTEST_DRAIN_NS :
								    longest_ns;
	return (uint64_t)interval;
}
