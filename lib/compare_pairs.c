// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/compare_pairs.h"
#include "latscope/cpuset.h"

const char *compare_by_name(enum compare_by by)
{
	switch (by) {
	case COMPARE_BY_CPU:
		return "cpu";
	case COMPARE_BY_THREAD:
		return "thread";
	case COMPARE_BY_ALL:
		break;
	}
	return "all";
}

const char *compare_measure_name(enum run_measure measure)
{
	return measure == RUN_MEASURE_NOISE ? "OS noise" : "timer latency";
}

void compare_plan_release(struct compare_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->nr_pairs; i++) {
		free(plan->pairs[i].a.series);
		free(plan->pairs[i].b.series);
	}
	free(plan->pairs);
	free(plan->unpaired);
	plan->pairs = NULL;
	plan->unpaired = NULL;
	plan->nr_pairs = plan->nr_unpaired = 0;
}

static int refuse(struct compare_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(struct compare_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(plan->error, sizeof(plan->error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* what an input measures; every series the same */
static int input_measure(struct compare_plan *plan, const struct run *run, const char *name,
			 enum run_measure *measure)
{
	unsigned int i;

	if (!run_kind_measures(run->kind))
		return refuse(plan,
			      "%s: a %s result is not a measurement (compare reads noise, timer, "
			      "monitor, cyclictest and oslat results)",
			      name, run_kind_name(run->kind));
	if (!run->nr_series)
		return refuse(plan, "%s: no CPU or thread was measured", name);
	*measure = run->series[0].measure;
	for (i = 1; i < run->nr_series; i++)
		if (run->series[i].measure != *measure)
			return refuse(plan, "%s: its series measure different things", name);
	return 0;
}

/* the CPU or thread a series is paired by; -1 when it has none */
static int series_key(const struct run_series *s, enum compare_by by)
{
	return by == COMPARE_BY_CPU ? s->cpu : s->thread;
}

/* the keys an input has; every series must have one */
static int input_keys(struct compare_plan *plan, const struct run *run, const char *name,
		      struct cpuset *keys)
{
	unsigned int i;
	int key;

	cpuset_clear(keys);
	for (i = 0; i < run->nr_series; i++) {
		const struct run_series *s = &run->series[i];

		key = series_key(s, plan->by);
		if (key >= CPUSET_MAX_CPUS)
			return refuse(plan, "%s: %s is numbered beyond %d", name, s->label,
				      CPUSET_MAX_CPUS - 1);
		if (key >= 0) {
			cpuset_add(keys, (unsigned int)key);
			continue;
		}
		if (plan->by == COMPARE_BY_CPU)
			return refuse(plan,
				      "%s: %s was not pinned to a CPU, so it cannot be paired by "
				      "CPU: pair by thread or compare all series",
				      name, s->label ? s->label : "a series");
		return refuse(plan,
			      "%s: a %s result measures CPUs, not numbered threads: pair by CPU "
			      "or compare all series",
			      name, run_kind_name(run->kind));
	}
	return 0;
}

/* the series of @run paired by @key (every series for COMPARE_BY_ALL) */
static int take_series(const struct run *run, enum compare_by by, int key, unsigned int input,
		       struct compare_side *side)
{
	unsigned int i, n = 0;

	side->input = input;
	side->series = malloc((run->nr_series ? run->nr_series : 1) * sizeof(*side->series));
	if (!side->series)
		return -ENOMEM;
	for (i = 0; i < run->nr_series; i++)
		if (by == COMPARE_BY_ALL || series_key(&run->series[i], by) == key)
			side->series[n++] = i;
	side->nr_series = n;
	return 0;
}

static struct compare_pair *add_pair(struct compare_plan *plan, unsigned int *cap)
{
	struct compare_pair *grown =
		array_grow(plan->pairs, cap, plan->nr_pairs + 1, sizeof(*plan->pairs));

	if (!grown)
		return NULL;
	plan->pairs = grown;
	memset(&grown[plan->nr_pairs], 0, sizeof(*grown));
	return &grown[plan->nr_pairs++];
}

static int add_unpaired(struct compare_plan *plan, unsigned int *cap, unsigned int input,
			unsigned int other, int key, const char *other_name)
{
	struct compare_unpaired *grown =
		array_grow(plan->unpaired, cap, plan->nr_unpaired + 1, sizeof(*plan->unpaired));
	struct compare_unpaired *u;
	const char *noun = compare_by_name(plan->by);

	if (!grown)
		return -ENOMEM;
	plan->unpaired = grown;
	u = &grown[plan->nr_unpaired++];
	u->input = input;
	u->other = other;
	snprintf(u->what, sizeof(u->what), "%s %d", noun, key);
	snprintf(u->reason, sizeof(u->reason), "%s has no %s %d: not compared", other_name, noun,
		 key);
	return 0;
}

static int pair_by_key(struct compare_plan *plan, const struct run *const *runs,
		       const char *const *names, unsigned int x, const struct cpuset *a_keys,
		       unsigned int *pair_cap, unsigned int *unpaired_cap)
{
	struct cpuset x_keys, common, only;
	char a_list[96], x_list[96];
	const char *noun = compare_by_name(plan->by);
	int key, ret;

	ret = input_keys(plan, runs[x], names[x], &x_keys);
	if (ret)
		return ret;
	cpuset_and(&common, a_keys, &x_keys);
	if (cpuset_empty(&common))
		return refuse(plan,
			      "no %s was measured in both %s (%ss %s) and %s (%ss %s): compare all "
			      "series to compare the inputs as wholes",
			      noun, names[0], noun,
			      cpuset_format_list(a_keys, a_list, sizeof(a_list)), names[x], noun,
			      cpuset_format_list(&x_keys, x_list, sizeof(x_list)));
	cpuset_for_each(key, &common) {
		struct compare_pair *p = add_pair(plan, pair_cap);

		if (!p)
			return -ENOMEM;
		snprintf(p->what, sizeof(p->what), "%s %d", noun, key);
		p->cpu = plan->by == COMPARE_BY_CPU ? key : -1;
		p->thread = plan->by == COMPARE_BY_THREAD ? key : -1;
		if (take_series(runs[0], plan->by, key, 0, &p->a) ||
		    take_series(runs[x], plan->by, key, x, &p->b))
			return -ENOMEM;
	}
	cpuset_andnot(&only, a_keys, &x_keys);
	cpuset_for_each(key, &only)
		if (add_unpaired(plan, unpaired_cap, 0, x, key, names[x]))
			return -ENOMEM;
	cpuset_andnot(&only, &x_keys, a_keys);
	cpuset_for_each(key, &only)
		if (add_unpaired(plan, unpaired_cap, x, 0, key, names[0]))
			return -ENOMEM;
	return 0;
}

int compare_plan_make(const struct run *const *runs, const char *const *names, unsigned int nr_runs,
		      enum compare_by by, struct compare_plan *plan)
{
	unsigned int pair_cap = 0, unpaired_cap = 0, x;
	enum run_measure a_measure, measure;
	struct cpuset a_keys;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->by = by;
	if (nr_runs < 2)
		return refuse(plan, "compare needs two inputs at least");
	for (x = 0; x < nr_runs; x++) {
		ret = input_measure(plan, runs[x], names[x], x ? &measure : &a_measure);
		if (ret)
			return ret;
		if (x && measure != a_measure)
			return refuse(plan,
				      "%s (%s, %s) and %s (%s, %s) measure different things: "
				      "compare timer results with timer results and noise with "
				      "noise",
				      names[0], run_kind_name(runs[0]->kind),
				      compare_measure_name(a_measure), names[x],
				      run_kind_name(runs[x]->kind), compare_measure_name(measure));
	}
	if (by != COMPARE_BY_ALL) {
		ret = input_keys(plan, runs[0], names[0], &a_keys);
		if (ret)
			return ret;
	}
	for (x = 1; x < nr_runs; x++) {
		struct compare_pair *p;

		if (by != COMPARE_BY_ALL) {
			ret = pair_by_key(plan, runs, names, x, &a_keys, &pair_cap, &unpaired_cap);
			if (ret)
				return ret;
			continue;
		}
		p = add_pair(plan, &pair_cap);
		if (!p)
			return -ENOMEM;
		snprintf(p->what, sizeof(p->what), "all");
		p->cpu = p->thread = -1;
		if (take_series(runs[0], by, -1, 0, &p->a) ||
		    take_series(runs[x], by, -1, x, &p->b))
			return -ENOMEM;
	}
	return 0;
}
