// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "latscope/compare_document.h"
#include "compare_json.h"

const char *compare_role_name(unsigned int group, char *buf, size_t size)
{
	if (group < 26)
		snprintf(buf, size, "%c", 'A' + group);
	else
		snprintf(buf, size, "%u", group + 1);
	return buf;
}

static json_t *u64_or_null(uint64_t v)
{
	return run_has(v) && v <= INT64_MAX ? json_integer((json_int_t)v) : json_null();
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* ISO 8601 in UTC, as result_new() writes times */
static json_t *wall_time(int64_t ns)
{
	time_t seconds;
	struct tm tm;
	char text[40];

	if (ns == RUN_NO_TIME)
		return json_null();
	seconds = (time_t)(ns / 1000000000);
	if (!gmtime_r(&seconds, &tm) || !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return json_null();
	return json_string(text);
}

json_t *compare_document_params(const struct compare_settings *s, enum compare_by by)
{
	json_t *p = json_object(), *percentiles = json_array();
	unsigned int i;

	if (!p || !percentiles) {
		json_decref(p);
		json_decref(percentiles);
		return NULL;
	}
	for (i = 0; i < s->nr_percentiles; i++)
		json_array_append_new(percentiles, json_real(s->percentiles[i]));
	json_object_set_new(p, "by", json_string(compare_by_name(by)));
	json_object_set_new(p, "percentiles", percentiles);
	json_object_set_new(p, "confidence", json_real(s->stats.confidence));
	json_object_set_new(p, "practical",
			    json_pack("{sfsI}", "fraction", s->stats.practical.fraction, "ns",
				      (json_int_t)s->stats.practical.ns));
	json_object_set_new(p, "budget_ns",
			    s->has_budget ? json_integer((json_int_t)s->budget_ns) : json_null());
	return p;
}

/* the group of an input */
static unsigned int group_of(const struct compare_plan *plan, unsigned int input)
{
	unsigned int g;

	for (g = plan->nr_groups; g-- > 1;)
		if (input >= plan->group_first[g])
			return g;
	return 0;
}

/* import's notes on the input, as report prints them: what was left out or assumed */
static json_t *run_notes_json(const struct run *run)
{
	json_t *list = json_array();
	unsigned int k;

	for (k = 0; list && k < run->nr_notes; k++)
		json_array_append_new(list, json_string(run->notes[k]));
	return list;
}

json_t *compare_document_inputs(const struct run *const *runs, const char *const *names,
				unsigned int nr_runs, const struct compare_plan *plan)
{
	json_t *list = json_array();
	unsigned int i, g;
	char role[12];

	for (i = 0; list && i < nr_runs; i++) {
		const struct run *run = runs[i];
		json_t *o = json_object();

		g = group_of(plan, i);
		json_object_set_new(o, "file", json_string(names[i]));
		json_object_set_new(o, "role",
				    json_string(compare_role_name(g, role, sizeof(role))));
		json_object_set_new(o, "run", json_integer(i - plan->group_first[g] + 1));
		json_object_set_new(o, "command", json_string(run_kind_name(run->kind)));
		json_object_set_new(o, "format", json_string(run_format_name(run->format)));
		json_object_set_new(o, "command_line",
				    run->command_line ? json_string(run->command_line) :
							json_null());
		json_object_set_new(o, "start_time", wall_time(run->start_ns));
		json_object_set_new(o, "series", json_integer(run->nr_series));
		json_object_set_new(o, "notes", run_notes_json(run));
		json_array_append_new(list, o);
	}
	return list;
}

static json_t *curve_json(const struct compare_side_result *r)
{
	json_t *list = json_array();
	unsigned int i;

	for (i = 0; i < r->nr_curve; i++) {
		const struct compare_point *p = &r->curve[i];

		json_array_append_new(list,
				      json_pack("{sfsIs[II]}", "percent", p->percent, "value_ns",
						(json_int_t)p->value_ns, "ci_ns",
						(json_int_t)p->ci_ns[0], (json_int_t)p->ci_ns[1]));
	}
	return list;
}

static json_t *blocks_json(const struct compare_side_result *r)
{
	const struct compare_sample *s = &r->sample;
	json_t *largest = json_array();
	unsigned int i;

	for (i = 0; i < r->nr_maxima; i++)
		json_array_append_new(largest, json_pack("[fI]", r->maxima[i].period_s,
							 (json_int_t)r->maxima[i].value_ns));
	return json_pack("{sIsosos o}", "blocks", (json_int_t)s->nr_blocks, "block_ns",
			 s->block_ns ? json_integer((json_int_t)s->block_ns) : json_null(), "note",
			 s->blocks_note[0] ? json_string(s->blocks_note) : json_null(), "largest",
			 largest);
}

/* how the side's runs were cut for resampling */
static json_t *resampling_json(const struct compare_units *u)
{
	return json_pack("{sosososbso}", "block_ns",
			 u->block_ns ? json_integer((json_int_t)u->block_ns) : json_null(),
			 "fewest_blocks",
			 u->block_ns ? json_integer(u->fewest_blocks) : json_null(), "lag1",
			 real_or_null(u->lag1), "correlated", u->correlated, "note",
			 u->note[0] ? json_string(u->note) : json_null());
}

static json_t *side_json(const struct run *const *runs, const char *const *names,
			 const struct compare_side *side, const struct compare_side_result *r)
{
	const struct run *first = runs[side->parts[0].input];
	const struct compare_sample *s = &r->sample;
	json_t *o = json_object(), *series = json_array(), *files = json_array();
	unsigned int i;
	char role[12];

	for (i = 0; i < side->parts[0].nr_series; i++)
		json_array_append_new(series,
				      json_string(first->series[side->parts[0].series[i]].label));
	for (i = 0; i < side->nr_parts; i++)
		json_array_append_new(files, json_string(names[side->parts[i].input]));
	json_object_set_new(o, "role",
			    json_string(compare_role_name(side->group, role, sizeof(role))));
	json_object_set_new(o, "input", json_integer(side->parts[0].input));
	json_object_set_new(o, "file", json_string(names[side->parts[0].input]));
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "runs", json_integer(side->nr_parts));
	json_object_set_new(o, "series", series);
	json_object_set_new(o, "samples", s->has_hist ? u64_or_null(s->samples) : json_null());
	json_object_set_new(o, "samples_per_s",
			    s->samples_per_s > 0 ? real_or_null(s->samples_per_s) : json_null());
	json_object_set_new(o, "min_ns", s->has_hist ? u64_or_null(s->hist.min_ns) : json_null());
	json_object_set_new(o, "max_ns", s->has_hist ? u64_or_null(s->hist.max_ns) : json_null());
	if (!s->has_hist)
		json_object_set_new(o, "no_histogram", json_string(s->no_hist));
	json_object_set_new(o, "exceedance", curve_json(r));
	json_object_set_new(o, "block_maxima", blocks_json(r));
	if (s->has_hist)
		json_object_set_new(o, "resampling", resampling_json(&s->units));
	return o;
}

/*
 * "before.json cpu 1", or the file alone when every series is compared;
 * a side of several runs is named by its first and how many more.
 */
static json_t *side_label(const char *const *names, const struct compare_side *side,
			  const struct compare_pair *p)
{
	const char *name = names[side->parts[0].input];
	char runs[48] = "";

	if (side->nr_parts > 1)
		snprintf(runs, sizeof(runs), " and %u more", side->nr_parts - 1);
	if (p->cpu < 0 && p->thread < 0)
		return json_sprintf("%s%s", name, runs);
	return json_sprintf("%s%s %s", name, runs, p->what);
}

static json_t *pair_json(const struct run *const *runs, const char *const *names,
			 const struct compare_pair_result *p, bool with_misses)
{
	const struct compare_pair *pair = p->pair;
	json_t *o = json_object(), *stats = json_array();
	unsigned int i;

	json_object_set_new(o, "what", json_string(pair->what));
	json_object_set_new(o, "cpu", pair->cpu >= 0 ? json_integer(pair->cpu) : json_null());
	json_object_set_new(o, "thread",
			    pair->thread >= 0 ? json_integer(pair->thread) : json_null());
	json_object_set_new(o, "a", side_label(names, &pair->a, pair));
	json_object_set_new(o, "b", side_label(names, &pair->b, pair));
	json_object_set_new(o, "sides",
			    json_pack("{soso}", "a", side_json(runs, names, &pair->a, p->a), "b",
				      side_json(runs, names, &pair->b, p->b)));
	for (i = 0; i < p->nr_stats; i++)
		json_array_append_new(stats, compare_stat_json(&p->stats[i]));
	json_object_set_new(o, "stats", stats);
	if (with_misses)
		json_object_set_new(
			o, "misses",
			json_pack("{soso}", "a",
				  p->a->has_misses ? miss_rate_json(&p->a->misses) : json_null(),
				  "b",
				  p->b->has_misses ? miss_rate_json(&p->b->misses) : json_null()));
	json_object_set_new(o, "gev",
			    json_pack("{soso}", "a", tail_estimate_json(&p->a->tail), "b",
				      tail_estimate_json(&p->b->tail)));
	json_object_set_new(o, "verdicts",
			    json_pack("{sisisisisi}", "worse", p->worse, "better", p->better,
				      "same", p->same, "inconclusive", p->inconclusive, "n/a",
				      p->not_available));
	return o;
}

json_t *compare_document_pairs(const struct run *const *runs, const char *const *names,
			       const struct compare_result *r)
{
	json_t *list = json_array();
	bool with_misses = false;
	unsigned int i;

	for (i = 0; i < r->nr_sides; i++)
		with_misses |= r->sides[i].has_misses;
	for (i = 0; list && i < r->nr_pairs; i++) {
		json_t *pair = pair_json(runs, names, &r->pairs[i], with_misses);

		if (!pair || json_array_append_new(list, pair)) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

json_t *compare_document_unpaired(const struct compare_plan *plan, const char *const *names)
{
	json_t *list = json_array();
	unsigned int i;

	for (i = 0; list && i < plan->nr_unpaired; i++) {
		const struct compare_unpaired *u = &plan->unpaired[i];

		json_array_append_new(list, json_pack("{ssssss}", "file", names[u->input], "what",
						      u->what, "reason", u->reason));
	}
	return list;
}
