// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "latscope/record_ring.h"
#include "unit.h"

/* What a noise thread pushes: two words. */
struct ring_record {
	uint64_t stamp, value;
};

static bool push(struct record_ring *ring, uint64_t stamp, uint64_t value)
{
	struct ring_record r = { stamp, value };

	return record_ring_push(ring, &r);
}

static void init(struct record_ring *ring, struct ring_record *records, size_t capacity)
{
	ck_assert_int_eq(record_ring_init(ring, records, capacity, sizeof(*records)), 0);
}

START_TEST(capacity_and_size_are_checked)
{
	struct ring_record records[12];
	struct record_ring ring;

	ck_assert_int_eq(record_ring_init(&ring, records, 12, 16), -EINVAL);
	ck_assert_int_eq(record_ring_init(&ring, records, 1, 16), -EINVAL);
	ck_assert_int_eq(record_ring_init(&ring, records, 8, 12), -EINVAL);
	ck_assert_int_eq(record_ring_init(&ring, records, 8, 0), -EINVAL);
	ck_assert_int_eq(record_ring_init(&ring, records, 2, 8 * RECORD_RING_MAX_WORDS + 8),
			 -EINVAL);
	ck_assert_int_eq(record_ring_init(&ring, records, 8, 16), 0);
	ck_assert_uint_eq(record_ring_capacity(&ring), 8);
	ck_assert_uint_eq(record_ring_bytes(8, 16), sizeof(struct ring_record) * 8);
}
END_TEST

/* A record of four words, as a timer spike is: every word goes through. */
START_TEST(wide_records)
{
	struct spike {
		uint64_t expiry, wakeup, latency, cycle;
	} records[4], out[4], s;
	struct record_ring ring;
	uint64_t i;

	ck_assert_int_eq(record_ring_init(&ring, records, 4, sizeof(s)), 0);
	for (i = 0; i < 6; i++) {
		s = (struct spike){ i, i + 10, 10, 100 + i };
		ck_assert(record_ring_push(&ring, &s) == (i < 5));
		if (i == 1) {
			ck_assert_uint_eq(record_ring_take(&ring, out, 1), 1);
			ck_assert_uint_eq(out[0].cycle, 100);
		}
	}
	ck_assert_uint_eq(record_ring_dropped(&ring), 1);
	ck_assert_uint_eq(record_ring_take(&ring, out, 4), 4);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(out[i].expiry, i + 1);
		ck_assert_uint_eq(out[i].wakeup, i + 11);
		ck_assert_uint_eq(out[i].latency, 10);
		ck_assert_uint_eq(out[i].cycle, 101 + i);
	}
}
END_TEST

/* A full ring refuses, counts, and keeps the oldest records intact. */
START_TEST(full_ring_drops_and_counts)
{
	struct ring_record records[8], out[16];
	struct record_ring ring;
	uint64_t i;
	size_t n;

	init(&ring, records, 8);
	for (i = 0; i < 11; i++)
		ck_assert(push(&ring, i, 100 + i) == (i < 8));
	ck_assert_uint_eq(record_ring_dropped(&ring), 3);
	ck_assert_uint_eq(record_ring_pushed(&ring), 8);
	ck_assert_uint_eq(record_ring_waiting(&ring), 8);
	n = record_ring_take(&ring, out, 16);
	ck_assert_uint_eq(n, 8);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(out[i].stamp, i);
		ck_assert_uint_eq(out[i].value, 100 + i);
	}
	/* room again */
	ck_assert(push(&ring, 50, 51));
	ck_assert_uint_eq(record_ring_take(&ring, out, 16), 1);
	ck_assert_uint_eq(out[0].stamp, 50);
	ck_assert_uint_eq(record_ring_dropped(&ring), 3);
}
END_TEST

/* Pushes and takes of every size, across the wrap: first in, first out. */
START_TEST(wraps_in_order)
{
	struct ring_record records[16], out[16];
	struct record_ring ring;
	uint64_t next_in = 0, next_out = 0, state = 12345;
	int round;
	size_t i, n;

	init(&ring, records, 16);
	for (round = 0; round < 10000; round++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (size_t)(state >> 60); /* 0..15 */
		for (i = 0; i < n && record_ring_waiting(&ring) < 16; i++, next_in++)
			ck_assert(push(&ring, next_in, ~next_in));
		n = record_ring_take(&ring, out, (size_t)((state >> 40) & 15) + 1);
		for (i = 0; i < n; i++, next_out++) {
			ck_assert_uint_eq(out[i].stamp, next_out);
			ck_assert_uint_eq(out[i].value, ~next_out);
		}
	}
	ck_assert_uint_eq(record_ring_dropped(&ring), 0);
}
END_TEST

#define CAPACITY 1024
#define FAST_PUSHES 4000000ULL
#define PACED_PUSHES 200000ULL

struct shared {
	struct record_ring ring;
	uint64_t pushes;
	uint64_t taken; /* written by the consumer */
	bool wait_for_consumer; /* producer: push a half ring, then wait until it is taken */
	bool done;
};

static void *producer(void *arg)
{
	struct shared *s = arg;
	uint64_t i;

	for (i = 0; i < s->pushes; i++) {
		if (s->wait_for_consumer && i % (CAPACITY / 2) == 0)
			while (__atomic_load_n(&s->taken, __ATOMIC_ACQUIRE) < i)
				sched_yield();
		push(&s->ring, i, i * 3);
	}
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The consumer takes into a growing array. Returns the array; *n receives
 * how many it took. With @slow it first waits until the producer has
 * overrun the ring twice, then pauses between takes, so the producer is
 * always faster.
 */
static struct ring_record *consume(struct shared *s, bool slow, size_t *n)
{
	struct ring_record *stored = malloc(s->pushes * sizeof(*stored));
	struct timespec pause = { 0, 200000 };
	bool done;
	size_t got;

	*n = 0;
	if (slow)
		while (record_ring_pushed(&s->ring) + record_ring_dropped(&s->ring) <
			       2 * CAPACITY &&
		       !__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			sched_yield();
	for (;;) {
		done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
		got = record_ring_take(&s->ring, stored + *n, s->pushes - *n);
		*n += got;
		__atomic_store_n(&s->taken, *n, __ATOMIC_RELEASE);
		/* once done was seen, one more take empties the ring */
		if (done && !got)
			break;
		if (slow)
			nanosleep(&pause, NULL);
		else if (!got)
			sched_yield();
	}
	return stored;
}

/* A producer faster than the consumer: every record is taken or counted. */
START_TEST(faster_producer_counts_exact)
{
	struct ring_record *records = malloc(CAPACITY * sizeof(*records)), *stored;
	struct shared s = { .pushes = FAST_PUSHES };
	uint64_t missing = 0;
	pthread_t thread;
	size_t n, i;

	init(&s.ring, records, CAPACITY);
	pthread_create(&thread, NULL, producer, &s);
	stored = consume(&s, true, &n);
	pthread_join(thread, NULL);
	ck_assert_uint_ge(record_ring_dropped(&s.ring), CAPACITY);
	ck_assert_uint_eq(n + record_ring_dropped(&s.ring), FAST_PUSHES);
	ck_assert_uint_eq(record_ring_pushed(&s.ring), n);
	/* what was taken is intact and in order; the holes are the drops */
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(stored[i].value, stored[i].stamp * 3);
		if (i)
			ck_assert_uint_gt(stored[i].stamp, stored[i - 1].stamp);
		missing += stored[i].stamp - (i ? stored[i - 1].stamp + 1 : 0);
	}
	missing += FAST_PUSHES - 1 - stored[n - 1].stamp;
	ck_assert_uint_eq(missing, record_ring_dropped(&s.ring));
	free(stored);
	free(records);
}
END_TEST

/* A consumer that keeps up (the ring never holds more than half): nothing lost. */
START_TEST(consumer_keeping_up_loses_nothing)
{
	struct ring_record *records = malloc(CAPACITY * sizeof(*records)), *stored;
	struct shared s = { .pushes = PACED_PUSHES, .wait_for_consumer = true };
	pthread_t thread;
	size_t n, i;

	init(&s.ring, records, CAPACITY);
	pthread_create(&thread, NULL, producer, &s);
	stored = consume(&s, false, &n);
	pthread_join(thread, NULL);
	ck_assert_uint_eq(record_ring_dropped(&s.ring), 0);
	ck_assert_uint_eq(n, PACED_PUSHES);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(stored[i].stamp, i);
		ck_assert_uint_eq(stored[i].value, i * 3);
	}
	free(stored);
	free(records);
}
END_TEST

START_TEST(drain_interval_follows_the_rate)
{
	struct ring_record records[1024];
	struct record_ring ring;
	const uint64_t longest = 250000000;

	init(&ring, records, 1024);
	/* nothing came: the longest pause */
	ck_assert_uint_eq(record_ring_drain_interval(&ring, 0, 100000000, longest), longest);
	/* 256 records in 100 ms: a quarter ring (256) takes 100 ms */
	ck_assert_uint_eq(record_ring_drain_interval(&ring, 256, 100000000, longest), 100000000);
	/* slow: capped at the longest */
	ck_assert_uint_eq(record_ring_drain_interval(&ring, 10, 100000000, longest), longest);
	/* a flood: not below the shortest */
	ck_assert_uint_eq(record_ring_drain_interval(&ring, 1000000, 1000000, longest),
			  RECORD_RING_SHORTEST_DRAIN_NS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("record_ring");
	TCase *tc = tcase_create("record_ring");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, capacity_and_size_are_checked);
	tcase_add_test(tc, wide_records);
	tcase_add_test(tc, full_ring_drops_and_counts);
	tcase_add_test(tc, wraps_in_order);
	tcase_add_test(tc, faster_producer_counts_exact);
	tcase_add_test(tc, consumer_keeping_up_loses_nothing);
	tcase_add_test(tc, drain_interval_follows_the_rate);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
