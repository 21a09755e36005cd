// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/explain_join.h"

/* a cause of a source takes part in at least this share of its occurrences */
#define SOURCE_CAUSE_SHARE 0.2
/* ... and a main cause in at least this share; company likewise */
#define MAIN_SHARE 0.5
#define NO_TRAIN UINT32_MAX

struct explain_join {
	unsigned int nr_sources;
	struct explain_source sources[PERIOD_MAX_SOURCES];
	unsigned int nr_causes;
	unsigned int *first_train; /* per cause, and one past the last: into trains */
	struct explain_train *trains;
};

/* Work space: what each cause has on each source. */
struct cause_on_sources {
	uint64_t slots[PERIOD_MAX_SOURCES]; /* distinct slots of the source it took part in */
	uint8_t joined[PERIOD_MAX_SOURCES]; /* needs a joined train for the source */
	uint32_t own_link[PERIOD_MAX_SOURCES]; /* its own train for the source, or NO_TRAIN */
};

static bool in_source(const struct window_source *windows, size_t nr_windows, uint64_t tag,
		      unsigned int nr_sources)
{
	return windows && tag < nr_windows && windows[tag].source < nr_sources;
}

/* Distinct slots of each source holding a window. */
static void count_source_slots(struct explain_join *j, const struct window_source *windows,
			       size_t nr_windows)
{
	int64_t last[PERIOD_MAX_SOURCES];
	unsigned int s;
	size_t w;

	for (s = 0; s < PERIOD_MAX_SOURCES; s++)
		last[s] = INT64_MIN;
	for (w = 0; windows && w < nr_windows; w++) {
		s = windows[w].source;
		if (s >= j->nr_sources || windows[w].slot == last[s])
			continue;
		last[s] = windows[w].slot;
		j->sources[s].occurrences++;
	}
}

/* Occurrences come in window order, so the slots of one source never go back. */
static void count_cause_slots(const struct explain_cause *cause, struct cause_on_sources *on,
			      unsigned int nr_sources, const struct window_source *windows,
			      size_t nr_windows)
{
	int64_t last[PERIOD_MAX_SOURCES];
	unsigned int s, i;

	for (s = 0; s < PERIOD_MAX_SOURCES; s++) {
		last[s] = INT64_MIN;
		on->own_link[s] = NO_TRAIN;
	}
	for (i = 0; i < cause->nr_occurrences; i++) {
		uint64_t tag = cause->occurrences[i].window;

		if (!in_source(windows, nr_windows, tag, nr_sources))
			continue;
		s = windows[tag].source;
		if (windows[tag].slot == last[s])
			continue;
		last[s] = windows[tag].slot;
		on->slots[s]++;
	}
}

static int compare_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * A cause's part in each slot of a source (the windows of one slot add up):
 * the median and the largest. Returns -ENOMEM or 0.
 */
static int slot_durations(const struct explain_cause *cause, unsigned int source,
			  const struct window_source *windows, size_t nr_windows, uint64_t nr_slots,
			  uint64_t *median, uint64_t *max)
{
	uint64_t *parts = malloc((nr_slots ? nr_slots : 1) * sizeof(*parts)), n = 0;
	int64_t last = INT64_MIN;
	unsigned int i;

	if (!parts)
		return -ENOMEM;
	for (i = 0; i < cause->nr_occurrences; i++) {
		uint64_t tag = cause->occurrences[i].window;

		if (!in_source(windows, nr_windows, tag, source + 1) ||
		    windows[tag].source != source)
			continue;
		if (windows[tag].slot == last && n) {
			parts[n - 1] += cause->occurrences[i].ns;
			continue;
		}
		if (n == nr_slots)
			break;
		last = windows[tag].slot;
		parts[n++] = cause->occurrences[i].ns;
	}
	qsort(parts, n, sizeof(*parts), compare_u64);
	*median = n ? parts[(n - 1) / 2] : 0;
	*max = n ? parts[n - 1] : 0;
	free(parts);
	return 0;
}

/* The causes of each source: a fifth of its occurrences or more, most first. */
static int attribute_sources(struct explain_join *j, const struct explain_cause *causes,
			     struct cause_on_sources *on, const struct window_source *windows,
			     size_t nr_windows)
{
	unsigned int s, c, k, at;
	uint64_t max;
	int ret;

	for (s = 0; s < j->nr_sources; s++) {
		struct explain_source *src = &j->sources[s];
		double occurrences = (double)src->occurrences;

		for (c = 0; c < j->nr_causes; c++) {
			uint64_t slots = on[c].slots[s];

			if (!slots || (double)slots < SOURCE_CAUSE_SHARE * occurrences)
				continue;
			for (at = 0; at < src->nr_causes; at++)
				if (slots > src->causes[at].occurrences)
					break;
			if (at >= EXPLAIN_SOURCE_CAUSES)
				continue;
			if (src->nr_causes == EXPLAIN_SOURCE_CAUSES)
				src->nr_causes--;
			memmove(&src->causes[at + 1], &src->causes[at],
				(src->nr_causes - at) * sizeof(*src->causes));
			src->causes[at] = (struct explain_source_cause){ c, slots, 0 };
			src->nr_causes++;
		}
		/* the most frequent cause is named even below a fifth */
		for (c = 0; !src->nr_causes && c < j->nr_causes; c++)
			if (on[c].slots[s] &&
			    (!src->nr_causes || on[c].slots[s] > src->causes[0].occurrences)) {
				src->causes[0] =
					(struct explain_source_cause){ c, on[c].slots[s], 0 };
				src->nr_causes = 1;
			}
		for (k = 0; k < src->nr_causes; k++) {
			ret = slot_durations(&causes[src->causes[k].cause], s, windows, nr_windows,
					     src->causes[k].occurrences,
					     &src->causes[k].duration_ns, &max);
			if (ret)
				return ret;
			if ((double)src->causes[k].occurrences >= MAIN_SHARE * occurrences)
				src->nr_main = k + 1;
		}
		if (!src->nr_main && src->nr_causes)
			src->nr_main = 1;
	}
	return 0;
}

/*
 * Which own train of a cause is a source: one of the same period whose
 * occurrences lie mostly in the source's windows. (Their phases cannot be
 * compared: the cause's times are on the trace's timeline, the source's on
 * the spike list's.)
 */
static void link_own_trains(struct explain_join *j, const struct explain_cause *cause,
			    struct cause_on_sources *on, const struct period_source *sources,
			    const struct window_source *windows, size_t nr_windows)
{
	uint64_t in[PERIOD_MAX_SOURCES][PERIOD_MAX_SOURCES] = { { 0 } };
	uint64_t total[PERIOD_MAX_SOURCES] = { 0 };
	unsigned int i, k, s;

	for (i = 0; cause->occurrence_train && i < cause->nr_occurrences; i++) {
		uint64_t tag = cause->occurrences[i].window;

		k = cause->occurrence_train[i];
		if (k >= cause->nr_trains)
			continue;
		total[k]++;
		if (in_source(windows, nr_windows, tag, j->nr_sources))
			in[k][windows[tag].source]++;
	}
	for (k = 0; k < cause->nr_trains; k++) {
		for (s = 0; s < j->nr_sources; s++) {
			if (on->own_link[s] != NO_TRAIN ||
			    !period_same_period(&cause->trains[k], &sources[s]) ||
			    (double)in[k][s] < MAIN_SHARE * (double)total[k])
				continue;
			on->own_link[s] = k;
			break;
		}
	}
}

static int compare_trains(const void *x, const void *y)
{
	const struct explain_train *a = x, *b = y;

	if (a->period.seen != b->period.seen)
		return a->period.seen < b->period.seen ? 1 : -1;
	return a->period.period_ns < b->period.period_ns ?
		       -1 :
		       a->period.period_ns > b->period.period_ns;
}

/* Every cause's trains: its own, then those joined from the sources. */
static int build_trains(struct explain_join *j, const struct explain_cause *causes,
			struct cause_on_sources *on, const struct period_source *sources,
			const struct window_source *windows, size_t nr_windows)
{
	struct period_source periods[PERIOD_MAX_SOURCES * 2];
	size_t groups[PERIOD_MAX_SOURCES * 2], t;
	unsigned int c, k, s, n = 0;
	int ret;

	j->first_train = calloc(j->nr_causes + 1, sizeof(*j->first_train));
	if (!j->first_train)
		return -ENOMEM;
	for (s = 0; s < j->nr_sources; s++)
		for (k = 0; k < j->sources[s].nr_causes; k++) {
			c = j->sources[s].causes[k].cause;
			on[c].joined[s] = on[c].own_link[s] == NO_TRAIN;
		}
	for (c = 0; c < j->nr_causes; c++) {
		j->first_train[c] = n;
		n += causes[c].nr_trains;
		for (s = 0; s < j->nr_sources; s++)
			n += on[c].joined[s];
	}
	j->first_train[j->nr_causes] = n;
	j->trains = calloc(n ? n : 1, sizeof(*j->trains));
	if (!j->trains)
		return -ENOMEM;
	for (c = 0; c < j->nr_causes; c++) {
		struct explain_train *first = &j->trains[j->first_train[c]], *train = first;
		unsigned int count = j->first_train[c + 1] - j->first_train[c];

		for (k = 0; k < causes[c].nr_trains; k++, train++) {
			train->period = causes[c].trains[k];
			train->own_index = (uint8_t)k;
			train->source = PERIOD_UNASSIGNED;
			for (s = 0; s < j->nr_sources; s++)
				if (on[c].own_link[s] == k)
					train->source = (uint8_t)s;
		}
		for (s = 0; s < j->nr_sources; s++) {
			uint64_t median, max;

			if (!on[c].joined[s])
				continue;
			ret = slot_durations(&causes[c], s, windows, nr_windows, on[c].slots[s],
					     &median, &max);
			if (ret)
				return ret;
			train->period = sources[s];
			train->period.seen = on[c].slots[s];
			/* the cause's own part, not what a nested source adds */
			train->period.duration_ns = median;
			train->period.max_duration_ns = max;
			train->period.nested_in = PERIOD_UNASSIGNED;
			train->from_source = true;
			train->own_index = PERIOD_UNASSIGNED;
			train->source = (uint8_t)s;
			train++;
		}
		qsort(first, count, sizeof(*first), compare_trains);
		/* at most PERIOD_MAX_SOURCES own trains and one per source */
		for (t = 0; t < count; t++)
			periods[t] = first[t].period;
		period_phase_groups(periods, count, groups);
		for (t = 0; t < count; t++)
			first[t].phase_group = groups[t];
	}
	return 0;
}

/* One cause's occurrence in one window, for grouping by window. */
struct member {
	uint64_t window;
	uint32_t cause;
	uint32_t occurrence;
};

static int compare_members(const void *x, const void *y)
{
	const struct member *a = x, *b = y;

	if (a->window != b->window)
		return a->window < b->window ? -1 : 1;
	return a->cause < b->cause ? -1 : a->cause > b->cause;
}

/* Every occurrence grouped by window, and where each one landed. */
struct windows_index {
	struct member *members; /* sorted by window */
	size_t nr_members;
	size_t *group_end; /* per member: one past the last member of its window */
	size_t *group_start;
	size_t *position; /* per occurrence (cause_first[c] + i): its member */
	size_t *cause_first; /* per cause: its first occurrence's slot in position */
};

static void index_free(struct windows_index *x)
{
	free(x->members);
	free(x->group_end);
	free(x->group_start);
	free(x->position);
	free(x->cause_first);
}

static int index_windows(struct windows_index *x, const struct explain_cause *causes,
			 unsigned int nr_causes)
{
	size_t n = 0, at, end, m;
	unsigned int c, i;

	memset(x, 0, sizeof(*x));
	x->cause_first = malloc((nr_causes + 1) * sizeof(*x->cause_first));
	if (!x->cause_first)
		return -ENOMEM;
	for (c = 0; c < nr_causes; c++) {
		x->cause_first[c] = n;
		n += causes[c].nr_occurrences;
	}
	x->cause_first[nr_causes] = n;
	x->nr_members = n;
	n = n ? n : 1;
	x->members = malloc(n * sizeof(*x->members));
	x->group_end = malloc(n * sizeof(*x->group_end));
	x->group_start = malloc(n * sizeof(*x->group_start));
	x->position = malloc(n * sizeof(*x->position));
	if (!x->members || !x->group_end || !x->group_start || !x->position)
		return -ENOMEM;
	for (c = 0, at = 0; c < nr_causes; c++)
		for (i = 0; i < causes[c].nr_occurrences; i++)
			x->members[at++] = (struct member){ causes[c].occurrences[i].window, c, i };
	qsort(x->members, x->nr_members, sizeof(*x->members), compare_members);
	for (at = 0; at < x->nr_members; at = end) {
		for (end = at + 1;
		     end < x->nr_members && x->members[end].window == x->members[at].window; end++)
			;
		for (m = at; m < end; m++) {
			x->group_start[m] = at;
			x->group_end[m] = end;
			x->position[x->cause_first[x->members[m].cause] +
				    x->members[m].occurrence] = m;
		}
	}
	return 0;
}

/*
 * Whether occurrence @i of @cause belongs to @train, and in which of its
 * slots: an own train's slots are on the cause's timeline, a joined
 * train's are the source's.
 */
static bool occurrence_in_train(const struct explain_join *j, const struct explain_cause *cause,
				unsigned int i, const struct explain_train *train,
				const struct window_source *windows, size_t nr_windows,
				int64_t *slot)
{
	uint64_t tag = cause->occurrences[i].window;

	if (!train->from_source) {
		if (!cause->occurrence_train || cause->occurrence_train[i] != train->own_index)
			return false;
		*slot = period_slot(&train->period, cause->occurrences[i].t_ns);
		return true;
	}
	if (!in_source(windows, nr_windows, tag, j->nr_sources) ||
	    windows[tag].source != train->source)
		return false;
	*slot = windows[tag].slot;
	return true;
}

/* Keep @cause in the train's company when it is among its largest. */
static void offer_company(struct explain_train *train, const uint32_t *count, uint32_t cause)
{
	unsigned int k;

	for (k = 0; k < train->nr_with; k++)
		if (count[cause] > count[train->with[k]])
			break;
	if (k >= EXPLAIN_TRAIN_WITH)
		return;
	if (train->nr_with == EXPLAIN_TRAIN_WITH)
		train->nr_with--;
	memmove(&train->with[k + 1], &train->with[k], (train->nr_with - k) * sizeof(*train->with));
	train->with[k] = cause;
	train->nr_with++;
}

/* Company counted per occurrence of a train: all the windows of one slot. */
struct company_count {
	uint32_t *count; /* per cause: slots it shares with the train */
	uint64_t *mark; /* per cause: the last slot it was counted in */
	uint32_t *touched; /* causes with a count, to clear them after the train */
	unsigned int nr_touched;
	uint64_t slot_id; /* grows over every slot of every train: marks never need clearing */
	uint64_t total, alone;
	bool others; /* the current slot holds another cause */
};

static void end_slot(struct company_count *k)
{
	if (k->slot_id && !k->others)
		k->alone++;
	k->others = false;
}

/*
 * What each train shares its occurrences with: for each of its slots, the
 * other causes of the windows there, each counted once per slot, in one
 * scratch array cleared after each train (only the entries it touched).
 */
static int find_company(struct explain_join *j, const struct explain_cause *causes,
			const struct window_source *windows, size_t nr_windows)
{
	struct company_count k = { 0 };
	struct windows_index x;
	unsigned int c, i, t;
	int ret = -ENOMEM;
	int64_t slot, last;
	size_t b, m;

	if (!j->first_train[j->nr_causes])
		return 0;
	k.count = calloc(j->nr_causes, sizeof(*k.count));
	k.mark = calloc(j->nr_causes, sizeof(*k.mark));
	k.touched = malloc(j->nr_causes * sizeof(*k.touched));
	if (!k.count || !k.mark || !k.touched || index_windows(&x, causes, j->nr_causes))
		goto out;
	for (c = 0; c < j->nr_causes; c++) {
		for (t = j->first_train[c]; t < j->first_train[c + 1]; t++) {
			struct explain_train *train = &j->trains[t];
			uint64_t first_id = k.slot_id + 1;

			k.nr_touched = 0;
			k.total = k.alone = 0;
			k.others = false;
			last = INT64_MIN;
			for (i = 0; i < causes[c].nr_occurrences; i++) {
				if (!occurrence_in_train(j, &causes[c], i, train, windows,
							 nr_windows, &slot))
					continue;
				if (slot != last || k.slot_id < first_id) {
					if (k.slot_id >= first_id)
						end_slot(&k);
					k.slot_id++;
					k.total++;
					last = slot;
				}
				m = x.position[x.cause_first[c] + i];
				for (b = x.group_start[m]; b < x.group_end[m]; b++) {
					uint32_t other = x.members[b].cause;

					if (other == c)
						continue;
					k.others = true;
					if (k.mark[other] == k.slot_id)
						continue;
					k.mark[other] = k.slot_id;
					if (!k.count[other]++)
						k.touched[k.nr_touched++] = other;
				}
			}
			if (k.slot_id >= first_id)
				end_slot(&k);
			train->alone = k.total && (double)k.alone >= MAIN_SHARE * (double)k.total;
			for (i = 0; i < k.nr_touched; i++)
				if ((double)k.count[k.touched[i]] >= MAIN_SHARE * (double)k.total)
					offer_company(train, k.count, k.touched[i]);
			for (i = 0; i < k.nr_touched; i++)
				k.count[k.touched[i]] = 0;
		}
	}
	ret = 0;
out:
	if (k.count && k.mark && k.touched)
		index_free(&x);
	free(k.count);
	free(k.mark);
	free(k.touched);
	return ret;
}

struct explain_join *explain_join_new(const struct explain_cpu *engine,
				      const struct period_source *sources, unsigned int nr_sources,
				      const struct window_source *windows, size_t nr_windows)
{
	struct explain_join *j = calloc(1, sizeof(*j));
	const struct explain_cause *causes;
	struct cause_on_sources *on = NULL;
	unsigned int c, nr_causes;

	if (!j)
		return NULL;
	causes = explain_cpu_causes(engine, &nr_causes);
	j->nr_causes = nr_causes;
	j->nr_sources = nr_sources < PERIOD_MAX_SOURCES ? nr_sources : PERIOD_MAX_SOURCES;
	on = calloc(nr_causes ? nr_causes : 1, sizeof(*on));
	if (!on)
		goto fail;
	count_source_slots(j, windows, nr_windows);
	for (c = 0; c < nr_causes; c++) {
		count_cause_slots(&causes[c], &on[c], j->nr_sources, windows, nr_windows);
		link_own_trains(j, &causes[c], &on[c], sources, windows, nr_windows);
	}
	if (attribute_sources(j, causes, on, windows, nr_windows) ||
	    build_trains(j, causes, on, sources, windows, nr_windows) ||
	    find_company(j, causes, windows, nr_windows))
		goto fail;
	free(on);
	return j;
fail:
	free(on);
	explain_join_free(j);
	return NULL;
}

void explain_join_free(struct explain_join *j)
{
	if (!j)
		return;
	free(j->first_train);
	free(j->trains);
	free(j);
}

const struct explain_source *explain_join_source(const struct explain_join *j, unsigned int source)
{
	return source < j->nr_sources ? &j->sources[source] : NULL;
}

unsigned int explain_own_trains(const struct explain_cause *cause, struct explain_train *trains)
{
	unsigned int nr = cause->nr_trains < PERIOD_MAX_SOURCES ? cause->nr_trains :
								  PERIOD_MAX_SOURCES,
		     t;
	size_t groups[PERIOD_MAX_SOURCES];

	period_phase_groups(cause->trains, nr, groups);
	for (t = 0; t < nr; t++)
		trains[t] = (struct explain_train){ .period = cause->trains[t],
						    .own_index = (uint8_t)t,
						    .source = PERIOD_UNASSIGNED,
						    .phase_group = groups[t] };
	return nr;
}

int explain_train_nested_in(const struct explain_train *trains, unsigned int nr, unsigned int t)
{
	uint8_t outer = trains[t].period.nested_in;
	unsigned int k;

	if (trains[t].from_source || outer == PERIOD_UNASSIGNED)
		return -1;
	for (k = 0; k < nr; k++)
		if (!trains[k].from_source && trains[k].own_index == outer)
			return (int)k;
	return -1;
}

const struct explain_train *explain_join_trains(const struct explain_join *j, unsigned int cause,
						unsigned int *nr)
{
	if (cause >= j->nr_causes) {
		*nr = 0;
		return NULL;
	}
	*nr = j->first_train[cause + 1] - j->first_train[cause];
	return &j->trains[j->first_train[cause]];
}
