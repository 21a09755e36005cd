// SPDX-License-Identifier: GPL-2.0-or-later
/* What latscope doctor prints: the verdict first, then the ranked fixes. */
#include <ctype.h>
#include <string.h>

#include "cli.h"
#include "doctor_run.h"
#include "latscope/plot.h"

/* causes listed under a fix; the JSON has them all */
#define CAUSES_SHOWN 4

static const char *part_measure(enum doctor_part part)
{
	return part == DOCTOR_TIMER ? "of the timer's spike time" : "of the noise's lost time";
}

static void print_level(FILE *out, const struct doctor_cpu_verdict *c)
{
	const struct doctor_return_level *r = &c->return_level;
	char a[32], b[32], v[32];

	if (!c->timer) {
		fprintf(out, "%-28s", "-");
		return;
	}
	if (!r->available) {
		/* the reason's first words; the JSON has all of it */
		fprintf(out, "%-28.*s", (int)strcspn(r->says, ":"), r->says);
		return;
	}
	format_duration((uint64_t)(r->value_ns + 0.5), v, sizeof(v));
	if (r->has_ci && r->ci_ns[1] < 1e18)
		fprintf(out, "%s (%s-%s)%-*s", v,
			format_duration((uint64_t)r->ci_ns[0], a, sizeof(a)),
			format_duration((uint64_t)r->ci_ns[1], b, sizeof(b)), 2,
			r->reliable ? "" : "?");
	else
		fprintf(out, "%-26s%s", v, r->reliable ? "  " : " ?");
}

static void print_verdict(FILE *out, const struct doctor_run *d)
{
	const struct doctor_verdict *v = &d->verdict;
	struct doctor_top_cause top[3];
	char a[32], b[32], c[32], word[16];
	unsigned int i, n;
	bool unreliable = false;
	size_t k;

	snprintf(word, sizeof(word), "%s", doctor_readiness_name(v->readiness));
	for (k = 0; word[k]; k++)
		word[k] = (char)toupper((unsigned char)word[k]);
	fprintf(out, "Verdict: %s: %s\n", word,
		strchr(v->says, ':') ? strchr(v->says, ':') + 2 : v->says);
	fprintf(out, "  RT CPUs %s (%s)\n", d->rt_list, d->rt_source);
	if (v->nr_cpus) {
		fprintf(out, "\n  %-4s %-11s %-11s %-28s %-11s %s\n", "cpu", "timer worst",
			"p99.99", "1-hour return level", "noise worst", "lost");
		for (i = 0; i < v->nr_cpus; i++) {
			const struct doctor_cpu_verdict *cv = &v->cpus[i];

			fprintf(out, "  %-4d %-11s %-11s ", cv->cpu,
				cv->timer ? format_duration(cv->timer_max_ns, a, sizeof(a)) : "-",
				cv->timer && cv->timer_p9999_ns != UINT64_MAX ?
					format_duration(cv->timer_p9999_ns, b, sizeof(b)) :
					"-");
			print_level(out, cv);
			fprintf(out, " %-11s %s%s\n",
				cv->noise ? format_duration(cv->noise_max_ns, c, sizeof(c)) : "-",
				cv->noise ?
					plot_format_share(cv->noise_lost_fraction, a, sizeof(a)) :
					"-",
				cv->over_budget ? "   over budget" : "");
			unreliable |= cv->timer && cv->return_level.available &&
				      !cv->return_level.reliable;
		}
		if (unreliable)
			fprintf(out, "  ? the fit's checks failed: the level does not weigh in the "
				     "verdict (see the JSON)\n");
	}
	n = doctor_top_causes(&d->fixes, top, 3);
	for (i = 0; i < n; i++)
		fprintf(out, "  %s %s (cpu %d): %s %s\n",
			i ? "          " : "top causes:", top[i].cause->label, top[i].cause->cpu,
			plot_format_share(top[i].cause->share, a, sizeof(a)),
			part_measure(top[i].cause->part));
	for (i = 0; i < v->nr_not_seen; i++)
		fprintf(out, "  %s %s\n", i ? "          " : "not seen:  ", v->not_seen[i]);
	if (!d->pm_qos)
		fprintf(out, "  note: %s\n", d->pm_qos_note);
	if (d->noise_note[0])
		fprintf(out, "  note: %s\n", d->noise_note);
}

static void print_shares(FILE *out, const struct doctor_fix *f)
{
	char a[32], b[32], m[32];
	bool both = f->share[DOCTOR_TIMER] > 0 && f->share[DOCTOR_NOISE] > 0;

	fprintf(out, "     accounts for ");
	if (f->share[DOCTOR_TIMER] > 0)
		fprintf(out, "%s %s", plot_format_share(f->share[DOCTOR_TIMER], a, sizeof(a)),
			part_measure(DOCTOR_TIMER));
	if (both)
		fprintf(out, " and ");
	if (f->share[DOCTOR_NOISE] > 0)
		fprintf(out, "%s %s", plot_format_share(f->share[DOCTOR_NOISE], b, sizeof(b)),
			part_measure(DOCTOR_NOISE));
	fprintf(out, "; up to %s at once\n", format_duration(f->max_ns, m, sizeof(m)));
}

static void print_cause(FILE *out, const struct doctor_cause *c, bool first)
{
	char a[32], p[32];

	fprintf(out, "     %s %s: %s, cpu %d, %llu %s%s, up to %s", first ? "from:" : "     ",
		c->label, doctor_part_name(c->part), c->cpu, (unsigned long long)c->spikes,
		c->part == DOCTOR_TIMER ? "spike" : "gap", c->spikes == 1 ? "" : "s",
		format_duration(c->max_ns, a, sizeof(a)));
	if (c->period_ns)
		fprintf(out, ", every %s", format_duration(c->period_ns, p, sizeof(p)));
	fputc('\n', out);
}

/* The reasons of the causes shown, each once: most causes of a fix share one. */
static void print_reasons(FILE *out, const struct doctor_fix *f, unsigned int shown)
{
	unsigned int k, seen;

	for (k = 0; k < shown; k++) {
		for (seen = 0; seen < k; seen++)
			if (!strcmp(f->causes[seen].why, f->causes[k].why))
				break;
		if (seen == k)
			fprintf(out, "     %s %s\n", k ? "     " : "why: ", f->causes[k].why);
	}
}

static void print_fix(FILE *out, const struct doctor_fix *f, unsigned int rank)
{
	unsigned int k, shown = f->nr_causes < CAUSES_SHOWN ? f->nr_causes : CAUSES_SHOWN;

	fprintf(out, "\n  %u. %s", rank, f->title);
	if (f->finding_id[0] && f->finding_read)
		fprintf(out, "  [%s: %s, %s]", f->finding_id, f->finding_severity,
			f->finding_status);
	else if (f->finding_id[0])
		fprintf(out, "  [%s]", f->finding_id);
	fprintf(out, "\n     %s %s\n",
		f->kind == DOCTOR_FIX_UNKNOWN ? "next:" : "fix: ", f->action);
	if (f->note[0])
		fprintf(out, "     note: %s\n", f->note);
	print_shares(out, f);
	for (k = 0; k < shown; k++)
		print_cause(out, &f->causes[k], !k);
	if (f->nr_causes > shown)
		fprintf(out, "           and %u more (the JSON lists them)\n",
			f->nr_causes - shown);
	print_reasons(out, f, shown);
}

void doctor_print(FILE *out, const struct doctor_run *d)
{
	const struct doctor_fixes *fixes = &d->fixes;
	unsigned int i;

	print_verdict(out, d);
	if (fixes->nr_known) {
		fprintf(out, "\nFixes, by measured impact\n");
		for (i = 0; i < fixes->nr_known; i++)
			print_fix(out, &fixes->fixes[i], i + 1);
	} else if ((d->parts.timer && !fixes->untraced[DOCTOR_TIMER]) ||
		   (d->parts.noise && !fixes->untraced[DOCTOR_NOISE])) {
		fprintf(out, "\nFixes: none: no measured cause has a known fix\n");
	} else if (d->parts.timer || d->parts.noise) {
		fprintf(out, "\nFixes: not known: the causes were not traced (see 'not seen')\n");
	}
	if (fixes->nr_fixes > fixes->nr_known) {
		fprintf(out, "\nCauses without a known fix\n");
		for (i = fixes->nr_known; i < fixes->nr_fixes; i++)
			print_fix(out, &fixes->fixes[i], i - fixes->nr_known + 1);
	}
}
