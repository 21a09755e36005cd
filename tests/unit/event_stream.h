/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic event streams for the periodicity search: a reproducible
 * generator, a growing list of events, and gaps merged as the measuring
 * loop sees them. Used by tests/unit/test_period.c and tests/data/period-sweep.c.
 */
#ifndef LATSCOPE_TESTS_EVENT_STREAM_H
#define LATSCOPE_TESTS_EVENT_STREAM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "latscope/period.h"

/* A reproducible generator, so a failure can be replayed: set rng_state first. */
static uint64_t rng_state;

static inline double uniform(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Each draw in its own statement: the order of a product's operands is the compiler's. */
static inline double gaussian(void)
{
	double radius = sqrt(-2 * log(uniform() + 1e-300));

	return radius * cos(2 * M_PI * uniform());
}

struct event_list {
	struct period_event *events;
	size_t n, cap;
};

/* An event at @t (ns; none before 0) lasting @duration, with @causes. */
static inline void add_caused_event(struct event_list *list, double t, uint64_t duration,
				    uint64_t causes)
{
	if (t < 0)
		return;
	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 1024;
		list->events = realloc(list->events, list->cap * sizeof(*list->events));
		if (!list->events)
			abort();
	}
	list->events[list->n++] = (struct period_event){ (uint64_t)t, duration, causes };
}

static inline void add_event(struct event_list *list, double t, uint64_t duration)
{
	add_caused_event(list, t, duration, 0);
}

static inline int compare_events(const void *x, const void *y)
{
	const struct period_event *a = x, *b = y;

	return a->t_ns < b->t_ns ? -1 : a->t_ns > b->t_ns;
}

/* In time order, gaps that overlap made one gap, as the measuring loop sees them. */
static inline void merge_overlapping(struct event_list *list)
{
	size_t i, n = 0;

	qsort(list->events, list->n, sizeof(*list->events), compare_events);
	for (i = 0; i < list->n; i++) {
		struct period_event *last = n ? &list->events[n - 1] : NULL;
		const struct period_event *e = &list->events[i];

		if (last && e->t_ns < last->t_ns + last->duration_ns) {
			if (e->t_ns + e->duration_ns > last->t_ns + last->duration_ns)
				last->duration_ns = e->t_ns + e->duration_ns - last->t_ns;
			last->causes |= e->causes;
			continue;
		}
		list->events[n++] = *e;
	}
	list->n = n;
}

/*
 * The scene of tests/system/noise-nested, drawn over what the machine
 * picks at random (tests/data/period-sweep replays thousands of draws): a
 * thread every 2 ms spinning 10 us, every third wake-up 60 us, at a random
 * phase to the host's 1 ms train (which fills a random share of its slots,
 * with a random jitter and length), the guest's 4 ms tick, host stalls and
 * random events, over NESTED_DRAW_RUN_NS.
 */
struct nested_draw {
	double thread_phase, host_fill, host_length, host_jitter, tick_phase, random_rate;
	int stalls;
};

#define NESTED_DRAW_RUN_NS (5 * 1000000000ULL)

/* Draw @seed's figures; the generator goes on from there for its events. */
static inline struct nested_draw nested_draw_of(long seed)
{
	struct nested_draw d;
	int warm;

	rng_state = (uint64_t)seed * 7919 + 1;
	for (warm = 0; warm < 5; warm++)
		uniform();
	d.thread_phase = uniform() * 1e6;
	d.host_fill = 0.5 + 0.5 * uniform();
	d.host_length = (10 + 30 * uniform()) * 1e3;
	d.host_jitter = (1 + 10 * uniform()) * 1e3;
	d.tick_phase = uniform() * 4e6;
	d.random_rate = 1 + 200 * uniform();
	d.stalls = (int)(uniform() * 20);
	return d;
}

/*
 * An event of @duration ns drawn before its time @at, as gcc draws a
 * call's arguments (right to left), in which order every seeded scene
 * was first drawn: each draw in its own statement, so that every
 * compiler makes the same stream from a seed.
 */
#define ADD_DRAWN(list, at, duration, causes)                       \
	do {                                                        \
		uint64_t drawn_duration = (uint64_t)(duration);     \
		add_caused_event(list, at, drawn_duration, causes); \
	} while (0)

/*
 * @d's events into @list, merged as the loop sees them; with @causes the
 * host's are cause 0, the thread's 1, the tick's 2, the random ones 3
 * (without, none has a cause, as without --explain).
 */
static inline void add_nested_draw(struct event_list *list, const struct nested_draw *d,
				   bool causes)
{
	const double ms = 1e6, us = 1e3;
	double t;
	int k;

	for (k = 0; k * 2 * ms < NESTED_DRAW_RUN_NS; k++)
		ADD_DRAWN(list, d->thread_phase + k * 2 * ms + 2 * us * gaussian(),
			  (k % 3 == 0 ? 60 : 10) * us + 2000 * uniform(), causes ? 2 : 0);
	for (k = 0; k * ms < NESTED_DRAW_RUN_NS; k++)
		if (uniform() < d->host_fill)
			ADD_DRAWN(list, k * ms + d->host_jitter * gaussian(),
				  8 * us + d->host_length * uniform(), causes ? 1 : 0);
	for (k = 0; k * 4 * ms < NESTED_DRAW_RUN_NS; k++)
		ADD_DRAWN(list, d->tick_phase + k * 4 * ms + 2 * us * gaussian(),
			  11 * us + 3000 * uniform(), causes ? 4 : 0);
	for (k = 0; k < d->stalls; k++)
		ADD_DRAWN(list, uniform() * NESTED_DRAW_RUN_NS, 16 * ms + 8 * ms * uniform(),
			  causes ? 1 : 0);
	for (t = 0;;) {
		t += -log(uniform() + 1e-300) / d->random_rate * 1e9;
		if (t >= NESTED_DRAW_RUN_NS)
			break;
		ADD_DRAWN(list, t, 1500 + 20000 * uniform(), causes ? 8 : 0);
	}
	merge_overlapping(list);
}

#endif
