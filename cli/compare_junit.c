// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "cli.h"
#include "compare_junit.h"
#include "junit_output.h"
#include "latscope/compare_document.h"

/* The first series of a side's first run: where its causes are. */
static const struct run_series *first_series(const struct comparison *c,
					     const struct compare_side *side)
{
	const struct compare_part *part;

	if (!side->nr_parts || !side->parts[0].nr_series)
		return NULL;
	part = &side->parts[0];
	return &c->runs[part->input]->series[part->series[0]];
}

static const char *b_cause(const struct comparison *c, const struct compare_pair *pair, char *buf,
			   size_t size)
{
	const struct run_series *s = first_series(c, &pair->b);
	char total[32];

	if (!s || !s->nr_causes)
		return "the cause is not known (B was measured without --explain)";
	/* the causes are kept largest total first */
	snprintf(buf, size, "most time in B: %s, %s in its spikes", s->causes[0].label,
		 format_duration(s->causes[0].total_ns, total, sizeof(total)));
	return buf;
}

static void stat_case(struct junit_suite *suite, const struct comparison *c,
		      const struct compare_pair_result *p, const struct compare_stat *st,
		      const char *classname, const struct compare_statistics_options *o)
{
	char name[96], role[12], a[32], b[32], limit[32], cause[256];
	struct junit_case *tc;

	snprintf(name, sizeof(name), "%s vs A, %s: %s",
		 compare_role_name(p->pair->b.group, role, sizeof(role)), p->pair->what, st->name);
	tc = junit_suite_case(suite, classname, name);
	if (st->has_a && st->has_b)
		junit_case_output(suite, tc, "A %s, B %s", format_duration(st->a_ns, a, sizeof(a)),
				  format_duration(st->b_ns, b, sizeof(b)));
	switch (st->verdict) {
	case COMPARE_WORSE:
		if (!o->fail_worse)
			break;
		format_duration(
			(uint64_t)compare_threshold_ns(st->a_ns, &o->settings.stats.practical),
			limit, sizeof(limit));
		junit_case_set(suite, tc, JUNIT_FAILED, "worse",
			       "%s worse: B %s against A %s; %s, beyond the practical threshold "
			       "%s; %s",
			       st->name, b, a, st->reason, limit,
			       b_cause(c, p->pair, cause, sizeof(cause)));
		return;
	case COMPARE_INCONCLUSIVE:
	case COMPARE_NOT_AVAILABLE:
		junit_case_set(suite, tc, JUNIT_SKIPPED, NULL, "%s: %s",
			       compare_verdict_name(st->verdict), st->reason);
		return;
	default:
		break;
	}
	junit_case_output(suite, tc, "%s: %s", compare_verdict_name(st->verdict), st->reason);
}

void comparison_junit_cases(struct junit_suite *suite, const struct comparison *c,
			    const char *classname, const struct compare_statistics_options *o)
{
	unsigned int i, k;

	for (i = 0; i < c->result.nr_pairs; i++) {
		const struct compare_pair_result *p = &c->result.pairs[i];

		for (k = 0; k < p->nr_stats; k++)
			stat_case(suite, c, p, &p->stats[k], classname, o);
	}
}

void comparison_junit(struct junit_suite *suite, const struct comparison *c, const char *command,
		      const struct compare_statistics_options *o, const char *result_path)
{
	char classname[32];

	snprintf(classname, sizeof(classname), "latscope.%s", command);
	junit_output_start(suite, command, NULL, result_path);
	if (c->plan.nr_groups > 1 && c->plan.group_first[1] < c->nr_runs)
		junit_output_host(suite, &c->runs[c->plan.group_first[1]]->host);
	comparison_junit_cases(suite, c, classname, o);
}
