/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_RECORD_RING_H
#define LATSCOPE_RECORD_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A single-producer, single-consumer ring of fixed-size records: how a
 * measuring thread hands what it finds (a noise gap, a timer spike) to the
 * main thread without a lock, a system call or a cache line it shares in
 * the common case. The producer pushes; the consumer, on a housekeeping
 * CPU, takes everything a few times a second into storage of its own
 * choosing: a growing array for one run (noise), windows it drops as they
 * age (monitor). The ring's size only bounds how long the consumer may fall
 * behind: a push into a full ring is refused and counted, never blocks and
 * never overwrites what the consumer has not taken.
 *
 * A record is the caller's struct of 8-byte words (struct noise_gap,
 * struct timer_spike), up to RECORD_RING_MAX_WORDS of them. The producer's
 * fields and the consumer's live on separate cache lines; the producer
 * looks at the consumer's position only when the ring looks full, so a
 * push costs the record's stores and one release store.
 */
#define RECORD_RING_MAX_WORDS 8

struct record_ring {
	/* the producer's: only the measuring thread writes them */
	uint64_t head; /* records pushed */
	uint64_t tail_seen; /* the consumer's tail when last looked at */
	uint64_t dropped; /* pushes refused: the ring was full */
	uint64_t *slots; /* capacity records of words each */
	uint64_t mask; /* capacity - 1 */
	unsigned int words; /* a record's size in 8-byte words */
	/* the consumer's */
	uint64_t tail __attribute__((aligned(64))); /* records taken */
} __attribute__((aligned(64)));

/* Bytes of memory a ring of @capacity records of @record_size bytes needs. */
size_t record_ring_bytes(size_t capacity, size_t record_size);

/**
 * record_ring_init - set up an empty ring over the caller's memory
 * @ring: the ring
 * @memory: record_ring_bytes() of 8-byte aligned memory, owned by the
 *	    caller (allocate it where the producer runs: it writes every slot)
 * @capacity: records it holds: a power of two, at least 2
 * @record_size: bytes of a record: a multiple of 8, at most
 *		 8 * RECORD_RING_MAX_WORDS
 *
 * Returns 0, or -EINVAL for another capacity or size.
 */
int record_ring_init(struct record_ring *ring, void *memory, size_t capacity, size_t record_size);

/*
 * Producer only: copy @record (8-byte aligned, the ring's record size) in.
 * Returns false, and counts the record as dropped, when the consumer has
 * not taken enough to make room.
 */
static inline bool record_ring_push(struct record_ring *ring, const void *record)
{
	const uint64_t *from = record;
	uint64_t head = ring->head, *slot;
	unsigned int i;

	if (head - ring->tail_seen > ring->mask) {
		/* acquire: the consumer is done reading the slots it freed */
		ring->tail_seen = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
		if (head - ring->tail_seen > ring->mask) {
			__atomic_store_n(&ring->dropped, ring->dropped + 1, __ATOMIC_RELAXED);
			return false;
		}
	}
	slot = ring->slots + (head & ring->mask) * ring->words;
	for (i = 0; i < ring->words; i++)
		slot[i] = from[i];
	/* release: the record is complete before the consumer can see it */
	__atomic_store_n(&ring->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Producer only: how many records a push would find room for now (one
 * acquire load of the consumer's position). For a producer that hands over
 * several records that belong together, all or none.
 */
static inline size_t record_ring_room(struct record_ring *ring)
{
	ring->tail_seen = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	return (size_t)(ring->mask + 1 - (ring->head - ring->tail_seen));
}

/**
 * record_ring_take - consumer only: move the oldest records out
 * @ring: the ring
 * @out: receives up to @max records, oldest first (8-byte aligned)
 * @max: room in @out, in records
 *
 * Every record pushed before the call began is taken once @max allows.
 * Returns how many were taken.
 */
size_t record_ring_take(struct record_ring *ring, void *out, size_t max);

/* Records waiting to be taken (consumer only). */
size_t record_ring_waiting(const struct record_ring *ring);

/* Pushes refused so far because the ring was full (any thread). */
uint64_t record_ring_dropped(const struct record_ring *ring);

/* Records pushed so far (any thread). */
uint64_t record_ring_pushed(const struct record_ring *ring);

/* Capacity in records. */
size_t record_ring_capacity(const struct record_ring *ring);

/* The shortest pause record_ring_drain_interval() advises. */
#define RECORD_RING_SHORTEST_DRAIN_NS 1000000ULL

/**
 * record_ring_drain_interval - how long the consumer may sleep
 * @ring: the ring
 * @taken: records the last drain took
 * @elapsed_ns: time since the drain before it
 * @longest_ns: the longest pause the consumer wants
 *
 * At the rate just seen, the ring fills a quarter of its capacity in the
 * returned time: the headroom absorbs a burst or a consumer held off by
 * its own CPU. Never below RECORD_RING_SHORTEST_DRAIN_NS nor above
 * @longest_ns.
 */
uint64_t record_ring_drain_interval(const struct record_ring *ring, uint64_t taken,
				    uint64_t elapsed_ns, uint64_t longest_ns);

#endif
