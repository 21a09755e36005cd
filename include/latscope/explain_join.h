/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_JOIN_H
#define LATSCOPE_EXPLAIN_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/explain.h"
#include "latscope/period.h"

/*
 * One story from two searches. The periodicity search runs on the list of
 * spikes (a noise run's gaps) and, in the attribution engine, on each
 * cause's own occurrences. The join ties them together, a pure function of
 * a finished engine and the spike list's sources:
 *
 * - each periodic source of the spike list gets the causes of its
 *   occurrences: those taking part in at least a fifth of them, most first
 *   (at least the most frequent one);
 * - each cause gets every train it has: those its own search found, and,
 *   for each source it is a cause of and no own train matches, a train
 *   joined from the source, so every period the list shows is in the
 *   cause's row too;
 * - each train says what it shares its windows with: the other causes in
 *   at least half of them ("with local_timer": the VM exit of a tick and
 *   the tick), or none in half of them ("alone").
 */
#define EXPLAIN_SOURCE_CAUSES 4
#define EXPLAIN_TRAIN_WITH 3

/* A window's place among the spike list's sources: which one and which slot. */
struct window_source {
	uint8_t source; /* an index into the sources, or PERIOD_UNASSIGNED */
	int64_t slot; /* period_slot() of the window's start */
};

struct explain_source_cause {
	uint32_t cause; /* an index into the engine's causes */
	uint64_t occurrences; /* of the source's occurrences it took part in */
	uint64_t duration_ns; /* its median part in one occurrence */
};

struct explain_source {
	uint64_t occurrences; /* the source's slots holding a window */
	struct explain_source_cause causes[EXPLAIN_SOURCE_CAUSES]; /* most first */
	unsigned int nr_causes;
	/* the first nr_main took part in at least half of the occurrences; when
	 * none did, the first is still the main one */
	unsigned int nr_main;
};

struct explain_train {
	/* an own train's nested_in is an index into the cause's own trains
	 * (own_index): explain_train_nested_in() finds it among these */
	struct period_source period;
	bool from_source; /* joined from the spike list, not found by the cause's own search */
	uint8_t own_index; /* its index in the cause's trains, or PERIOD_UNASSIGNED when joined */
	uint8_t source; /* the spike list's source it is, or PERIOD_UNASSIGNED */
	uint32_t with[EXPLAIN_TRAIN_WITH]; /* other causes in half its windows, most first */
	unsigned int nr_with;
	bool alone; /* no other cause in at least half of its windows */
	size_t phase_group; /* the index of the cause's first train of this period */
};

struct explain_join;

/**
 * explain_join_new - join a finished engine's causes and trains with the
 * periodic sources of its spike list
 * @engine: a finished engine (explain_cpu_finish())
 * @sources: @nr_sources sources of the spike list (may be 0)
 * @nr_sources: how many, at most PERIOD_MAX_SOURCES
 * @windows: per window tag below @nr_windows, where it sits among @sources;
 *	     windows with other tags belong to no source (NULL: none do)
 * @nr_windows: how many entries @windows has
 *
 * Returns the join, to free with explain_join_free(), or NULL when memory
 * ran out. It refers to @engine's causes by index: the engine must outlive it.
 */
struct explain_join *explain_join_new(const struct explain_cpu *engine,
				      const struct period_source *sources, unsigned int nr_sources,
				      const struct window_source *windows, size_t nr_windows);

void explain_join_free(struct explain_join *join);

/*
 * A cause's own trains as the join would give them, with no sources: for
 * when there is no join (memory ran out). Fills @trains (room for
 * PERIOD_MAX_SOURCES) and returns how many.
 */
unsigned int explain_own_trains(const struct explain_cause *cause, struct explain_train *trains);

/*
 * The train of @trains (one cause's, @nr of them) that train @t is nested
 * in (its durations are what it adds to that one's), or -1.
 */
int explain_train_nested_in(const struct explain_train *trains, unsigned int nr, unsigned int t);

/* The causes of source @source (NULL beyond the sources). */
const struct explain_source *explain_join_source(const struct explain_join *join,
						 unsigned int source);

/* The trains of cause @cause, most occurrences first; *nr receives how many. */
const struct explain_train *explain_join_trains(const struct explain_join *join, unsigned int cause,
						unsigned int *nr);

#endif
