/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_PERIOD_H
#define LATSCOPE_PERIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Periodicity detection: which of a list of events (gaps, spikes, one
 * cause's occurrences) recur with a period. A pure function of the list.
 *
 * Each source is a train t = phase + k * period (k integer) within a
 * tolerance; occurrences may be missing. Harmonics (2x, 3x the period) of a
 * found source are not reported separately; several interleaved trains are.
 * A slower source in phase with a faster one (a 4 ms tick on every fourth
 * slot of a 1 ms train, every third wake-up of a thread spinning longer) is
 * a source of its own when its occurrences differ from the faster train's:
 * longer, or with a cause the others lack. It is nested in the faster one:
 * its gaps hold the faster one's occurrences, so its durations are what it
 * adds to them. The faster source still counts those slots as its own
 * occurrences (it was there, inside the slower one's gap); its duration
 * and jitter come from its other slots.
 */
struct period_event {
	uint64_t t_ns; /* when it started, since the run began; ascending */
	uint64_t duration_ns;
	/*
	 * Optional: what made it, one bit per cause (bit c % 64 for cause c),
	 * 0 when unknown. Events of one train that differ in their causes are
	 * told apart like events that differ in length.
	 */
	uint64_t causes;
};

struct period_source {
	uint64_t period_ns;
	uint64_t phase_ns; /* first occurrence slot after the run began */
	uint64_t jitter_ns; /* standard deviation of occurrence times around the train */
	uint64_t duration_ns; /* median duration of its occurrences (nested: beyond the other's) */
	uint64_t max_duration_ns;
	uint64_t seen; /* occurrences found */
	uint64_t expected; /* slots of the train within the run */
	/*
	 * slots with no occurrence of its own that lie inside a faster
	 * source's gap: the two came together and the gap hid this one
	 */
	uint64_t hidden;
	/*
	 * the faster source it is nested in, an index into the list it came
	 * in, or PERIOD_UNASSIGNED
	 */
	uint8_t nested_in;
};

struct period_params {
	uint64_t run_ns; /* length of the run the events come from */
	uint64_t min_period_ns; /* 0: 20 us */
	uint64_t max_period_ns; /* 0: a third of the run */
};

#define PERIOD_MAX_SOURCES 8
#define PERIOD_UNASSIGNED 0xff

/**
 * period_detect - find the periodic sources among events
 * @events: @nr_events events sorted by t_ns
 * @nr_events: how many
 * @params: the run's length and the period range
 * @sources: receives up to @max_sources sources, most occurrences first
 * @max_sources: room in @sources (at most PERIOD_MAX_SOURCES are found)
 * @assignment: optional, @nr_events entries: the index of the source each
 *		event belongs to, or PERIOD_UNASSIGNED
 *
 * Returns the number of sources found, or -ENOMEM.
 */
int period_detect(const struct period_event *events, size_t nr_events,
		  const struct period_params *params, struct period_source *sources,
		  size_t max_sources, uint8_t *assignment);

/* The slot of a source's train nearest to @t_ns: round((t - phase) / period). */
int64_t period_slot(const struct period_source *source, uint64_t t_ns);

/* Whether two trains have one period (within 0.2%): the same clock drives them. */
bool period_same_period(const struct period_source *a, const struct period_source *b);

/**
 * period_phase_groups - group the trains that share one period
 * @sources: @n trains
 * @n: how many
 * @group: receives, per train, the index of the first train of its period
 *	   and nesting; trains of one group differ only in phase (the search
 *	   merges trains of one period and one phase). A train nested in
 *	   another (its duration what it adds to that one's gaps) is never
 *	   grouped with a free one, nor with one nested elsewhere.
 *
 * Returns the number of groups.
 */
size_t period_phase_groups(const struct period_source *sources, size_t n, size_t *group);

#endif
