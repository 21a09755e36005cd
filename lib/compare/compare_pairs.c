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

static void side_release(struct compare_side *side)
{
	unsigned int i;

	for (i = 0; i < side->nr_parts; i++)
		free(side->parts[i].series);
	free(side->parts);
	side->parts = NULL;
	side->nr_parts = 0;
}

void compare_plan_release(struct compare_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->nr_pairs; i++) {
		side_release(&plan->pairs[i].a);
		side_release(&plan->pairs[i].b);
	}
	free(plan->pairs);
	free(plan->unpaired);
	free(plan->group_first);
	free(plan->group_size);
	plan->pairs = NULL;
	plan->unpaired = NULL;
	plan->group_first = plan->group_size = NULL;
	plan->nr_pairs = plan->nr_unpaired = plan->nr_groups = 0;
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
		       struct compare_part *part)
{
	unsigned int i, n = 0;

	part->input = input;
	part->series = malloc((run->nr_series ? run->nr_series : 1) * sizeof(*part->series));
	if (!part->series)
		return -ENOMEM;
	for (i = 0; i < run->nr_series; i++)
		if (by == COMPARE_BY_ALL || series_key(&run->series[i], by) == key)
			part->series[n++] = i;
	part->nr_series = n;
	return 0;
}

/* a side of group @g: the series of @key of each of its runs */
static int take_side(const struct compare_plan *plan, const struct run *const *runs, unsigned int g,
		     int key, struct compare_side *side)
{
	unsigned int i;

	side->group = g;
	side->parts = calloc(plan->group_size[g], sizeof(*side->parts));
	if (!side->parts)
		return -ENOMEM;
	side->nr_parts = plan->group_size[g];
	for (i = 0; i < side->nr_parts; i++) {
		unsigned int input = plan->group_first[g] + i;

		if (take_series(runs[input], plan->by, key, input, &side->parts[i]))
			return -ENOMEM;
	}
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

/* the inputs of groups 0 and @g, in order */
static unsigned int pair_inputs(const struct compare_plan *plan, unsigned int g,
				unsigned int *inputs)
{
	unsigned int n = 0, i, k, groups[2] = { 0, g };

	for (k = 0; k < 2; k++)
		for (i = 0; i < plan->group_size[groups[k]]; i++)
			inputs[n++] = plan->group_first[groups[k]] + i;
	return n;
}

static int pair_by_key(struct compare_plan *plan, const struct run *const *runs,
		       const char *const *names, unsigned int g, const struct cpuset *keys,
		       unsigned int *pair_cap, unsigned int *unpaired_cap)
{
	unsigned int *inputs =
		malloc((plan->group_size[0] + plan->group_size[g]) * sizeof(*inputs));
	unsigned int n, i, a_last = plan->group_size[0] - 1, first_b;
	const char *noun = compare_by_name(plan->by);
	struct cpuset common, all, only;
	char a_list[96], x_list[96];
	int key, ret = 0;

	if (!inputs)
		return -ENOMEM;
	n = pair_inputs(plan, g, inputs);
	first_b = inputs[a_last + 1];
	common = keys[inputs[0]];
	all = keys[inputs[0]];
	for (i = 1; i < n; i++) {
		cpuset_and(&common, &common, &keys[inputs[i]]);
		cpuset_or(&all, &all, &keys[inputs[i]]);
	}
	if (cpuset_empty(&common)) {
		ret = refuse(plan,
			     "no %s was measured in both %s (%ss %s) and %s (%ss %s): compare all "
			     "series to compare the inputs as wholes",
			     noun, names[inputs[0]], noun,
			     cpuset_format_list(&keys[inputs[0]], a_list, sizeof(a_list)),
			     names[first_b], noun,
			     cpuset_format_list(&keys[first_b], x_list, sizeof(x_list)));
		goto out;
	}
	cpuset_for_each(key, &common) {
		struct compare_pair *p = add_pair(plan, pair_cap);

		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		snprintf(p->what, sizeof(p->what), "%s %d", noun, key);
		p->cpu = plan->by == COMPARE_BY_CPU ? key : -1;
		p->thread = plan->by == COMPARE_BY_THREAD ? key : -1;
		if (take_side(plan, runs, 0, key, &p->a) || take_side(plan, runs, g, key, &p->b)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* each key not every run has: named once, by the first run that lacks it */
	cpuset_andnot(&only, &all, &common);
	cpuset_for_each(key, &only) {
		unsigned int has = 0, lacks = 0;

		for (i = n; i-- > 0;) {
			if (cpuset_has(&keys[inputs[i]], (unsigned int)key))
				has = inputs[i];
			else
				lacks = inputs[i];
		}
		ret = add_unpaired(plan, unpaired_cap, has, lacks, key, names[lacks]);
		if (ret)
			goto out;
	}
out:
	free(inputs);
	return ret;
}

/* the wake-up period of @run's series on @cpu as thread @thread; 0: none known */
static uint64_t interval_of(const struct run *run, int cpu, int thread)
{
	unsigned int i;

	for (i = 0; i < run->nr_series; i++)
		if (run->series[i].cpu == cpu && run->series[i].thread == thread &&
		    run_has(run->series[i].interval_ns))
			return run->series[i].interval_ns;
	return 0;
}

/*
 * The runs of a group are runs of one setup: the command of the first, and
 * each series' wake-up period where both runs say it.
 */
static int check_group(struct compare_plan *plan, const struct run *const *runs,
		       const char *const *names, unsigned int g)
{
	unsigned int first = plan->group_first[g], i, k;
	const struct run *a = runs[first];

	for (i = first + 1; i < first + plan->group_size[g]; i++) {
		const struct run *x = runs[i];

		if (x->kind != a->kind)
			return refuse(plan,
				      "%s: a %s result among the runs of %s (%s): the runs of a "
				      "side must be runs of one command",
				      names[i], run_kind_name(x->kind), names[first],
				      run_kind_name(a->kind));
		for (k = 0; k < x->nr_series; k++) {
			const struct run_series *s = &x->series[k];
			uint64_t mine = run_has(s->interval_ns) ? s->interval_ns : 0;
			uint64_t theirs = interval_of(a, s->cpu, s->thread);

			if (mine && theirs && mine != theirs)
				return refuse(plan,
					      "%s: %s wakes every %llu us, in %s every %llu us: "
					      "the runs of a side must be runs of one setup",
					      names[i], s->label, (unsigned long long)(mine / 1000),
					      names[first], (unsigned long long)(theirs / 1000));
		}
	}
	return 0;
}

/* the groups' first inputs and sizes, checked */
static int make_groups(struct compare_plan *plan, const char *const *names, unsigned int nr_runs,
		       const unsigned int *group_of, bool paired)
{
	unsigned int i;

	if (group_of[0] != 0)
		return refuse(plan, "the first input must be A's");
	for (i = 1; i < nr_runs; i++)
		if (group_of[i] != group_of[i - 1] && group_of[i] != group_of[i - 1] + 1)
			return refuse(plan, "%s: the groups of the inputs are out of order",
				      names[i]);
	plan->nr_groups = group_of[nr_runs - 1] + 1;
	if (plan->nr_groups < 2)
		return refuse(plan, "compare needs something to compare with A");
	plan->group_first = calloc(plan->nr_groups, sizeof(*plan->group_first));
	plan->group_size = calloc(plan->nr_groups, sizeof(*plan->group_size));
	if (!plan->group_first || !plan->group_size)
		return -ENOMEM;
	for (i = nr_runs; i-- > 0;) {
		plan->group_first[group_of[i]] = i;
		plan->group_size[group_of[i]]++;
	}
	if (paired && (plan->nr_groups != 2 || plan->group_size[0] != plan->group_size[1]))
		return refuse(plan, "paired runs need two groups of as many runs (%u and %u)",
			      plan->group_size[0], plan->nr_groups > 1 ? plan->group_size[1] : 0);
	plan->paired = paired;
	return 0;
}

int compare_plan_make_groups(const struct run *const *runs, const char *const *names,
			     unsigned int nr_runs, const unsigned int *group_of, bool paired,
			     enum compare_by by, struct compare_plan *plan)
{
	unsigned int pair_cap = 0, unpaired_cap = 0, x, g;
	enum run_measure a_measure, measure;
	struct cpuset *keys = NULL;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->by = by;
	if (nr_runs < 2)
		return refuse(plan, "compare needs two inputs at least");
	ret = make_groups(plan, names, nr_runs, group_of, paired);
	if (ret)
		return ret;
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
	for (g = 0; g < plan->nr_groups; g++) {
		ret = check_group(plan, runs, names, g);
		if (ret)
			return ret;
	}
	if (by != COMPARE_BY_ALL) {
		keys = malloc(nr_runs * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		for (x = 0; x < nr_runs && !ret; x++)
			ret = input_keys(plan, runs[x], names[x], &keys[x]);
	}
	for (g = 1; g < plan->nr_groups && !ret; g++) {
		struct compare_pair *p;

		if (by != COMPARE_BY_ALL) {
			ret = pair_by_key(plan, runs, names, g, keys, &pair_cap, &unpaired_cap);
			continue;
		}
		p = add_pair(plan, &pair_cap);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		snprintf(p->what, sizeof(p->what), "all");
		p->cpu = p->thread = -1;
		if (take_side(plan, runs, 0, -1, &p->a) || take_side(plan, runs, g, -1, &p->b))
			ret = -ENOMEM;
	}
	free(keys);
	return ret;
}

int compare_plan_make(const struct run *const *runs, const char *const *names, unsigned int nr_runs,
		      enum compare_by by, struct compare_plan *plan)
{
	unsigned int *group_of = malloc((nr_runs ? nr_runs : 1) * sizeof(*group_of)), i;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (!group_of)
		return -ENOMEM;
	for (i = 0; i < nr_runs; i++)
		group_of[i] = i;
	ret = compare_plan_make_groups(runs, names, nr_runs, group_of, false, by, plan);
	free(group_of);
	return ret;
}
