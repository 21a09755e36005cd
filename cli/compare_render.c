// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope compare's text output. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "compare_render.h"
#include "latscope/compare_document.h"

/* statistics named in the summary line before "and N more" */
#define SUMMARY_MENTIONS 6
/* the narrowest column of A's tail estimate */
#define TAIL_COLUMN 34

static const char *signed_us(int64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%+.3f", (double)ns / 1e3);
	return buf;
}

/* a duration that may be open (infinite) or absent */
static const char *level_text(double ns, char *buf, size_t size)
{
	if (isnan(ns))
		return "-";
	if (!isfinite(ns) || ns >= 9.2e18)
		return ns > 0 ? "open" : "-open";
	if (ns < 0)
		ns = 0;
	return format_duration((uint64_t)llround(ns), buf, size);
}

/* a group's name: its one file, or its first and how many more */
static const char *group_name(const struct compare_plan *plan, const char *const *names,
			      unsigned int g, char *buf, size_t size)
{
	if (plan->group_size[g] == 1)
		snprintf(buf, size, "%s", names[plan->group_first[g]]);
	else
		snprintf(buf, size, "%s and %u more", names[plan->group_first[g]],
			 plan->group_size[g] - 1);
	return buf;
}

/* what reading an input left out or assumed, as import said it (report shows them too) */
static void print_notes(FILE *out, const struct run *const *runs, const char *const *names,
			unsigned int nr_runs)
{
	unsigned int i, k;

	for (i = 0; i < nr_runs; i++)
		for (k = 0; k < runs[i]->nr_notes; k++)
			fprintf(out, "  note: %s: %s\n", names[i], runs[i]->notes[k]);
}

/* one line per input; a group of paired rounds (ab) in one line */
static void print_inputs(FILE *out, const struct run *const *runs, const char *const *names,
			 unsigned int nr_runs, const struct compare_settings *s,
			 const struct compare_plan *plan)
{
	unsigned int i, g = 0;
	char role[12], when[40], t[32];

	for (i = 0; i < nr_runs; i++) {
		const struct run *run = runs[i];

		if (g + 1 < plan->nr_groups && i == plan->group_first[g + 1])
			g++;
		if (plan->paired) {
			if (i == plan->group_first[g])
				fprintf(out, "%s %s = %s .. %s (%s, %u rounds)\n",
					g ? "        " : "compare:",
					compare_role_name(g, role, sizeof(role)), names[i],
					names[i + plan->group_size[g] - 1],
					run_kind_name(run->kind), plan->group_size[g]);
			continue;
		}
		when[0] = '\0';
		if (run->start_ns != RUN_NO_TIME) {
			time_t seconds = (time_t)(run->start_ns / 1000000000);
			struct tm tm;

			if (gmtime_r(&seconds, &tm))
				strftime(when, sizeof(when), ", %Y-%m-%d %H:%M:%S UTC", &tm);
		}
		fprintf(out, "%s %s = %s (%s, %u series%s)\n", i ? "        " : "compare:",
			i == plan->group_first[g] ? compare_role_name(g, role, sizeof(role)) : " ",
			names[i], run_kind_name(run->kind), run->nr_series, when);
	}
	print_notes(out, runs, names, nr_runs);
	fprintf(out,
		"paired by %s%s; %g%% intervals; a change counts when it exceeds %g%% of A and "
		"%s\n",
		compare_by_name(plan->by),
		plan->paired	    ? ", rounds paired in order" :
		plan->nr_groups > 2 ? ", each against A" :
				      "",
		s->stats.confidence * 100, s->stats.practical.fraction * 100,
		format_duration(s->stats.practical.ns, t, sizeof(t)));
}

/* how the side's values were resampled, in words */
static void side_resampling(FILE *out, const char *role, const struct compare_sample *sample)
{
	const struct compare_units *u = &sample->units;
	char t[32];

	if (!sample->has_hist)
		return;
	if (!u->block_ns) {
		fprintf(out, "  %s: no time blocks: its values are resampled as if independent\n",
			role);
		return;
	}
	fprintf(out, "  %s: time blocks of %s (%u at the fewest a run), lag-1 autocorrelation %.2f",
		role, format_duration(u->block_ns, t, sizeof(t)), u->fewest_blocks, u->lag1);
	if (u->correlated)
		fprintf(out, ": the blocks stay correlated, the interval is too narrow");
	fputc('\n', out);
	if (u->note[0])
		fprintf(out, "  %s: %s\n", role, u->note);
}

/* what the intervals rest on, once per pair */
static void print_method(FILE *out, const struct compare_pair_result *p)
{
	const struct compare_stat *row = &p->stats[0];
	const struct compare_sample *a = &p->a->sample, *b = &p->b->sample;

	switch (row->method) {
	case COMPARE_METHOD_VALUES:
		fprintf(out, "  intervals: the values as if independent (neither input has time "
			     "blocks); one run a side does not measure the variation between "
			     "runs: repeat each side (compare A1 A2 A3 --vs B1 B2 B3) or "
			     "interleave them (latscope ab)\n");
		return;
	case COMPARE_METHOD_BLOCKS:
		fprintf(out, "  intervals: one run a side, its time blocks resampled; the "
			     "variation between runs is not measured: repeat each side (compare "
			     "A1 A2 A3 --vs B1 B2 B3) or interleave them (latscope ab)\n");
		break;
	case COMPARE_METHOD_RUNS:
		fprintf(out,
			"  intervals: %u and %u runs resampled, each run whole: the variation "
			"between runs is in the interval\n",
			a->nr_runs, b->nr_runs);
		/* a side of one run beside them is resampled by its blocks */
		if (a->nr_runs == 1)
			side_resampling(out, "A", a);
		if (b->nr_runs == 1)
			side_resampling(out, "B", b);
		return;
	case COMPARE_METHOD_ROUNDS:
		fprintf(out, "  intervals: %u round pairs resampled\n", a->nr_runs);
		return;
	}
	side_resampling(out, "A", a);
	side_resampling(out, "B", b);
}

/* with rounds: what this many could find, and how many would find 5% */
static void print_power(FILE *out, const struct compare_pair_result *p)
{
	char d[32], five[32];
	unsigned int i;

	for (i = 0; i < p->nr_stats; i++) {
		const struct compare_stat *row = &p->stats[i];

		if (!row->has_power)
			continue;
		fprintf(out,
			"  power %s: %u rounds find a change of %s us with 80%% power; 5%% of A "
			"(%s us) takes ",
			row->name, row->units, format_us(row->detectable_ns, d, sizeof(d)),
			format_us(row->a_ns / 20, five, sizeof(five)));
		if (row->rounds_for_5pct == UINT32_MAX)
			fprintf(out, "over a million rounds");
		else
			fprintf(out, "%u rounds", row->rounds_for_5pct);
		fprintf(out, "%s\n",
			row->power_from_a ?
				" (B's change varies between rounds: from A's own spread)" :
				"");
	}
}

static void print_stats(FILE *out, const struct compare_pair_result *p, double confidence)
{
	char a[32], b[32], d[32], lo[32], hi[32], interval[72], head[32];
	unsigned int i;

	snprintf(head, sizeof(head), "%g%% interval (us)", confidence * 100);
	fprintf(out, "  %-10s %13s %13s %13s %24s  %s\n", "", "A (us)", "B (us)", "B - A (us)",
		head, "verdict");
	for (i = 0; i < p->nr_stats; i++) {
		const struct compare_stat *row = &p->stats[i];

		if (row->has_ci)
			snprintf(interval, sizeof(interval), "%s .. %s",
				 signed_us(row->ci_ns[0], lo, sizeof(lo)),
				 signed_us(row->ci_ns[1], hi, sizeof(hi)));
		else
			snprintf(interval, sizeof(interval), "-");
		fprintf(out, "  %-10s %13s %13s %13s %24s  %s\n", row->name,
			row->has_a ? format_us(row->a_ns, a, sizeof(a)) : "n/a",
			row->has_b ? format_us(row->b_ns, b, sizeof(b)) : "n/a",
			row->has_diff ? signed_us(row->diff_ns, d, sizeof(d)) : "-", interval,
			compare_verdict_name(row->verdict));
	}
	if (p->a->sample.has_hist && p->b->sample.has_hist)
		fprintf(out, "  %-10s %13" PRIu64 " %13" PRIu64 "\n", "samples",
			p->a->sample.samples, p->b->sample.samples);
	/* why a statistic was not compared or decided, and what else a verdict rests on */
	for (i = 0; i < p->nr_stats; i++) {
		const struct compare_stat *row = &p->stats[i];

		if ((row->verdict == COMPARE_NOT_AVAILABLE && strcmp(row->name, "max")) ||
		    (row->verdict == COMPARE_INCONCLUSIVE && row->method >= COMPARE_METHOD_RUNS))
			fprintf(out, "  %s: %s\n", row->name, row->reason);
	}
	if (p->a->sample.has_hist && p->b->sample.has_hist) {
		print_method(out, p);
		print_power(out, p);
	}
	if (p->nr_stats && p->stats[p->nr_stats - 1].has_diff)
		fprintf(out, "  max: exact, but a run's max grows with its length and no interval "
			     "exists for it: see the return levels\n");
}

/* a rate per hour: whole numbers from 100 on, else 3 significant digits */
static const char *rate_text(double v, char *buf, size_t size)
{
	if (v >= 100)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.3g", v);
	return buf;
}

static void print_misses_side(FILE *out, const char *role, const struct compare_side_result *r)
{
	const struct miss_rate *m = &r->misses;
	char r0[32], r1[32], r2[32];

	if (!r->has_misses) {
		fprintf(out, "    %s  n/a: %s\n", role,
			r->sample.has_hist ? "not computed" : r->sample.no_hist);
		return;
	}
	fprintf(out, "    %s  %" PRIu64 " of %" PRIu64 " (%.4g%%, %.4g .. %.4g%%)", role,
		m->misses_low, m->samples, m->fraction * 100, m->ci[0] * 100, m->ci[1] * 100);
	if (m->misses_low != m->misses_high)
		fprintf(out, " [%" PRIu64 "-%" PRIu64 ": a bucket straddles the budget]",
			m->misses_low, m->misses_high);
	if (m->has_rate)
		fprintf(out, ", %s per hour (%s .. %s)", rate_text(m->per_hour, r0, sizeof(r0)),
			rate_text(m->per_hour_ci[0], r1, sizeof(r1)),
			rate_text(m->per_hour_ci[1], r2, sizeof(r2)));
	fputc('\n', out);
}

static void print_misses(FILE *out, const struct compare_pair_result *p,
			 const struct compare_settings *s)
{
	char t[32];

	if (!s->has_budget)
		return;
	fprintf(out, "  misses above %s (exact %g%% intervals)\n",
		format_duration(s->budget_ns, t, sizeof(t)), s->stats.confidence * 100);
	print_misses_side(out, "A", p->a);
	print_misses_side(out, "B", p->b);
}

/* "3.211 ms (2.900 ms .. 3.800 ms)" */
static const char *with_interval(double value, bool has_ci, const double ci[2], char *buf,
				 size_t size)
{
	char v[32], lo[32], hi[32];

	if (has_ci)
		snprintf(buf, size, "%s (%s .. %s)", level_text(value, v, sizeof(v)),
			 level_text(ci[0], lo, sizeof(lo)), level_text(ci[1], hi, sizeof(hi)));
	else
		snprintf(buf, size, "%s", level_text(value, v, sizeof(v)));
	return buf;
}

/* "1-hour", "1-day", "1-year", else the period in seconds */
static const char *period_name(double period_s, char *buf, size_t size)
{
	if (period_s == 3600)
		return "1-hour";
	if (period_s == 86400)
		return "1-day";
	if (period_s == 365 * 86400.0)
		return "1-year";
	snprintf(buf, size, "%g-s", period_s);
	return buf;
}

static void tail_cell(const struct tail_estimate *t, int row, const struct compare_settings *s,
		      char *buf, size_t size)
{
	char a[32];

	if (!t->fitted) {
		snprintf(buf, size, "-");
		return;
	}
	if (row < (int)t->nr_levels) {
		const struct tail_level *l = &t->levels[row];

		if (!l->available)
			snprintf(buf, size, "n/a");
		else
			with_interval(l->value_ns, l->has_ci, l->ci_ns, buf, size);
		return;
	}
	switch (row - (int)t->nr_levels) {
	case 0:
		snprintf(buf, size, "%u x %s", t->blocks,
			 format_duration(t->block_ns, a, sizeof(a)));
		break;
	case 1:
		if (t->has_exceedance && t->has_p_day_ci)
			snprintf(buf, size, "%.3g (%.3g .. %.3g)", t->p_day, t->p_day_ci[0],
				 t->p_day_ci[1]);
		else if (t->has_exceedance)
			snprintf(buf, size, "%.3g", t->p_day);
		else
			snprintf(buf, size, s->has_budget ? "n/a" : "-");
		break;
	case 2:
		snprintf(buf, size, "%.3f (%.3f .. %.3f)", t->fit.est.shape, t->shape.ci[0],
			 t->shape.ci[1]);
		break;
	default: {
		const struct tail_check *checks[] = { &t->shape, &t->independence, &t->stationarity,
						      &t->fit_quality };
		static const char *const names[] = { "shape", "independence", "stationarity",
						     "fit" };
		size_t used;
		unsigned int i;

		if (t->reliable) {
			snprintf(buf, size, "yes, every check passed");
			break;
		}
		used = (size_t)snprintf(buf, size, "NO: failed");
		for (i = 0; i < 4 && used < size; i++)
			if (!checks[i]->pass)
				used += (size_t)snprintf(buf + used, size - used, " %s", names[i]);
	}
	}
}

static void print_tail(FILE *out, const struct compare_pair_result *p,
		       const struct compare_settings *s)
{
	const struct tail_estimate *ta = &p->a->tail, *tb = &p->b->tail;
	const struct tail_estimate *both[2] = { ta, tb };
	unsigned int levels = ta->fitted ? ta->nr_levels : tb->nr_levels, k;
	char name[48], a[96], b[96], budget[32], period[16];
	int row;

	fprintf(out, "  extremes (GEV fit to the block maxima)\n");
	if (ta->fitted || tb->fitted) {
		int width = TAIL_COLUMN;

		/* B's column starts where every A cell ends */
		for (row = 0; row < (int)levels + 4; row++) {
			tail_cell(ta, row, s, a, sizeof(a));
			if ((int)strlen(a) >= width)
				width = (int)strlen(a) + 1;
		}
		fprintf(out, "    %-26s %-*s %s\n", "", width, "A", "B");
		for (row = 0; row < (int)levels + 4; row++) {
			if (row < (int)levels) {
				const struct tail_estimate *t = ta->fitted ? ta : tb;

				snprintf(name, sizeof(name), "%s return level",
					 period_name(t->levels[row].period_s, period,
						     sizeof(period)));
			} else {
				static const char *const names[] = { "blocks", "", "shape",
								     "reliable" };

				snprintf(name, sizeof(name), "%s", names[row - (int)levels]);
				if (row == (int)levels + 1) {
					if (!s->has_budget)
						continue;
					snprintf(name, sizeof(name), "P(above %s in a day)",
						 format_duration(s->budget_ns, budget,
								 sizeof(budget)));
				}
			}
			tail_cell(ta, row, s, a, sizeof(a));
			tail_cell(tb, row, s, b, sizeof(b));
			fprintf(out, "    %-26s %-*s %s\n", name, width, a, b);
		}
	}
	for (k = 0; k < 2; k++) {
		const struct tail_estimate *t = both[k];
		const struct tail_check *checks[] = { &t->shape, &t->independence, &t->stationarity,
						      &t->fit_quality };
		const char *role = k ? "B" : "A";
		unsigned int i;

		if (!t->fitted) {
			fprintf(out, "    %s: %s\n", role, t->error);
			continue;
		}
		for (i = 0; i < 4; i++)
			if (!checks[i]->pass)
				fprintf(out, "    %s: %s\n", role, checks[i]->says);
		fprintf(out, "    %s: long enough? %s\n", role, t->long_enough.says);
	}
}

static void print_pair(FILE *out, const struct run *const *runs, const char *const *names,
		       const struct compare_plan *plan, const struct compare_pair_result *p,
		       const struct compare_settings *s)
{
	const struct compare_pair *pair = p->pair;
	const struct compare_part *a = &pair->a.parts[0], *b = &pair->b.parts[0];
	char role[12], an[160], bn[160];

	fprintf(out, "\n%s: A %s, %s %s", pair->what, group_name(plan, names, 0, an, sizeof(an)),
		compare_role_name(pair->b.group, role, sizeof(role)),
		group_name(plan, names, pair->b.group, bn, sizeof(bn)));
	if (a->nr_series > 1 || b->nr_series > 1) {
		fprintf(out, " (%u and %u series merged)", a->nr_series, b->nr_series);
	} else {
		const char *al = runs[a->input]->series[a->series[0]].label;
		const char *bl = runs[b->input]->series[b->series[0]].label;

		/* the series' own names, when they say more than the pairing */
		if (al && bl && strcmp(al, bl))
			fprintf(out, " (%s; %s)", al, bl);
		else if (al && strcmp(al, pair->what))
			fprintf(out, " (%s)", al);
	}
	fputc('\n', out);
	print_stats(out, p, s->stats.confidence);
	print_misses(out, p, s);
	print_tail(out, p, s);
}

void compare_render(FILE *out, const struct run *const *runs, const char *const *names,
		    unsigned int nr_runs, const struct compare_plan *plan,
		    const struct compare_result *r, const struct compare_settings *s)
{
	unsigned int i;

	print_inputs(out, runs, names, nr_runs, s, plan);
	for (i = 0; i < r->nr_pairs; i++)
		print_pair(out, runs, names, plan, &r->pairs[i], s);
	if (plan->nr_unpaired)
		fprintf(out, "\nnot paired:\n");
	for (i = 0; i < plan->nr_unpaired; i++)
		fprintf(out, "  %s %s: %s\n", names[plan->unpaired[i].input],
			plan->unpaired[i].what, plan->unpaired[i].reason);
	fputs("\nverdict: ", out);
	compare_render_summary(out, r, plan, names);
}

/* "cpu 1 p99.9 (+812.300 us)" for each row of @verdict, up to SUMMARY_MENTIONS */
static void mention(FILE *out, const struct compare_result *r, enum compare_verdict verdict,
		    unsigned int group)
{
	unsigned int i, k, said = 0, more = 0;
	char d[32];

	for (i = 0; i < r->nr_pairs; i++) {
		const struct compare_pair_result *p = &r->pairs[i];

		if (p->pair->b.group != group)
			continue;
		for (k = 0; k < p->nr_stats; k++) {
			if (p->stats[k].verdict != verdict)
				continue;
			if (said == SUMMARY_MENTIONS) {
				more++;
				continue;
			}
			fprintf(out, "%s%s%s%s (%s us)", said ? ", " : " on ",
				p->pair->cpu >= 0 || p->pair->thread >= 0 ? p->pair->what : "",
				p->pair->cpu >= 0 || p->pair->thread >= 0 ? " " : "",
				p->stats[k].name, signed_us(p->stats[k].diff_ns, d, sizeof(d)));
			said++;
		}
	}
	if (more)
		fprintf(out, " and %u more", more);
}

void compare_render_summary(FILE *out, const struct compare_result *r,
			    const struct compare_plan *plan, const char *const *names)
{
	unsigned int i, g, decided = 0, inconclusive = 0, not_available = 0;
	const char *verdict = compare_result_verdict(r);
	char a[160], b[160];

	for (i = 0; i < r->nr_pairs; i++) {
		decided += r->pairs[i].same + r->pairs[i].worse + r->pairs[i].better;
		inconclusive += r->pairs[i].inconclusive;
		not_available += r->pairs[i].not_available;
	}
	fprintf(out, "%s:", verdict);
	group_name(plan, names, 0, a, sizeof(a));
	for (g = 1; g < plan->nr_groups; g++) {
		unsigned int worse = 0, better = 0;

		for (i = 0; i < r->nr_pairs; i++)
			if (r->pairs[i].pair->b.group == g) {
				worse += r->pairs[i].worse;
				better += r->pairs[i].better;
			}
		group_name(plan, names, g, b, sizeof(b));
		if (worse) {
			fprintf(out, " %s is worse than %s", b, a);
			mention(out, r, COMPARE_WORSE, g);
			fputc(';', out);
		}
		if (better) {
			fprintf(out, " %s is better than %s", b, a);
			mention(out, r, COMPARE_BETTER, g);
			fputc(';', out);
		}
	}
	if (!strcmp(verdict, "same"))
		fprintf(out, " every statistic compared lies within the practical threshold;");
	else if (!strcmp(verdict, "inconclusive"))
		fprintf(out, " no statistic is shown to differ, nor to be the same;");
	fprintf(out, " %u decided, %u inconclusive, %u n/a\n", decided, inconclusive,
		not_available);
}
