/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic event streams for the periodicity search: a reproducible
 * generator, a growing list of events, and gaps merged as the measuring
 * loop sees them. Used by tests/unit/test_period.c and tests/data/period-sweep.c.
 */
#ifndef LATSCOPE_TESTS_EVENT_STREAM_H
#define LATSCOPE_TESTS_EVENT_STREAM_H

#include <math.h>
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

static inline double gaussian(void)
{
	return sqrt(-2 * log(uniform() + 1e-300)) * cos(2 * M_PI * uniform());
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

#endif
