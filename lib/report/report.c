// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The page of `latscope report`: header, summary in words, tables and the
 * plots of report_figures.c, as one self-contained HTML file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope-config.h"
#include "latscope/hist.h"
#include "latscope/log.h"
#include "report_internal.h"

static bool series_is_empty(const struct run_series *s, const char **why)
{
	uint64_t samples = report_series_samples(s);

	if (s->histogram.present && !s->histogram.total) {
		*why = "the histogram is empty";
		return true;
	}
	if (!samples && !s->nr_windows) {
		*why = "no samples";
		return true;
	}
	if (samples == 1) {
		*why = "one sample, too few for a report";
		return true;
	}
	return false;
}

static bool input_is_usable(const struct run *run)
{
	const char *why;
	unsigned int k;

	if (!run_kind_measures(run->kind))
		return true;
	if (!run->nr_series) {
		log_error("%s: no CPU or thread was measured", run->path);
		return false;
	}
	for (k = 0; k < run->nr_series; k++)
		if (series_is_empty(&run->series[k], &why)) {
			log_error("%s: %s: %s", run->path, run->series[k].label, why);
			return false;
		}
	return true;
}

static int add_input(struct report *r, struct run *run, const char *label, unsigned int *cap)
{
	if (r->nr_inputs == *cap) {
		unsigned int grown_cap = *cap ? *cap * 2 : 8;
		struct report_input *grown = realloc(r->inputs, grown_cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->inputs = grown;
		*cap = grown_cap;
	}
	memset(&r->inputs[r->nr_inputs], 0, sizeof(r->inputs[0]));
	r->inputs[r->nr_inputs].run = run;
	report_name_input(r, r->nr_inputs, label);
	r->nr_inputs++;
	return 0;
}

struct report *report_new(struct run *const *runs, const char *const *labels, unsigned int nr_runs,
			  const struct report_options *options)
{
	struct report *r;
	unsigned int i, j, cap = 0;

	if (!nr_runs)
		return NULL;
	for (i = 0; i < nr_runs; i++) {
		if (!input_is_usable(runs[i]))
			return NULL;
		for (j = 0; j < runs[i]->nr_parts; j++)
			if (!input_is_usable(runs[i]->parts[j]))
				return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto nomem;
	if (options)
		r->options = *options;
	snprintf(r->title, sizeof(r->title), "%s",
		 options && options->title && *options->title ? options->title : "latscope report");
	for (i = 0; i < nr_runs; i++) {
		const char *label = labels ? labels[i] : NULL;
		unsigned int whole = r->nr_inputs;

		if (add_input(r, runs[i], label, &cap))
			goto nomem;
		/* a doctor's parts are inputs of their own, named after it */
		for (j = 0; j < runs[i]->nr_parts; j++) {
			char name[160];

			snprintf(name, sizeof(name), "%s: %s", r->inputs[whole].label,
				 runs[i]->parts[j]->command ? runs[i]->parts[j]->command : "part");
			if (add_input(r, runs[i]->parts[j], name, &cap))
				goto nomem;
		}
	}
	/* each measuring input keeps one colour wherever inputs are overlaid */
	for (i = 0, j = 0; i < r->nr_inputs; i++)
		if (run_is_measurement(r->inputs[i].run))
			r->inputs[i].colour = j++;
	if (report_plan_figures(r))
		goto nomem;
	return r;
nomem:
	log_error("report: out of memory");
	report_free(r);
	return NULL;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->inputs);
	free(r->figures);
	free(r);
}

/* formatting helpers ---------------------------------------------------------- */

static const char *duration(uint64_t ns, char *buf, size_t size)
{
	if (!run_has(ns))
		return "—";
	return plot_format_duration((double)ns, buf, size);
}

static const char *utc_time(int64_t ns, char *buf, size_t size)
{
	time_t t;
	struct tm tm;

	if (ns == RUN_NO_TIME)
		return "—";
	t = (time_t)(ns / 1000000000LL);
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return buf;
}

static const char *count_text(uint64_t n, char *buf, size_t size)
{
	char digits[32];
	size_t len, i, at = 0;

	if (!run_has(n))
		return "—";
	len = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	for (i = 0; i < len && at + 4 < size; i++) {
		buf[at++] = digits[i];
		/* thin spaces between thousands: readable in any locale */
		if ((len - i - 1) % 3 == 0 && i + 1 < len) {
			memcpy(buf + at, "\xe2\x80\x89", 3);
			at += 3;
		}
	}
	buf[at] = '\0';
	return buf;
}

/* a share in percent with two significant digits: "2.3%", "0.00061%" */
static const char *percent_text(double fraction, char *buf, size_t size)
{
	double percent = fraction * 100;
	int decimals;

	if (percent <= 0) {
		snprintf(buf, size, "0%%");
		return buf;
	}
	decimals = percent >= 10 ? 0 : 1 - (int)floor(log10(percent));
	if (decimals > 8)
		decimals = 8;
	snprintf(buf, size, "%.*f%%", decimals, percent);
	return buf;
}

/* a period with the precision periods are found to: "4.000 ms", "1000.0 ms" */
static const char *period_text(uint64_t ns, char *buf, size_t size)
{
	const struct plot_unit *u;
	double value;

	if (!run_has(ns))
		return "—";
	u = plot_duration_unit((double)ns);
	value = (double)ns / u->ns;
	snprintf(buf, size, "%.*f %s", value >= 100 ? 1 : 3, value, u->name);
	return buf;
}

static void cell(struct textbuf *out, const char *text, bool number)
{
	textbuf_puts(out, number ? "<td class=\"n\">" : "<td>");
	textbuf_escape(out, text);
	textbuf_puts(out, "</td>");
}

/* How long a run ran, from its start and end: "3.33 s"; "—" when they do not say */
static const char *run_span_text(const struct run *run, char *buf, size_t size)
{
	int64_t span;

	if (run->start_ns == RUN_NO_TIME || run->end_ns == RUN_NO_TIME ||
	    run->end_ns < run->start_ns)
		return "—";
	span = run->end_ns - run->start_ns;
	/* the same instant: written at the end only (irq), or timed to the second */
	if (!span)
		return "—";
	return plot_format_duration((double)span, buf, size);
}

static void cpuset_text(const struct cpuset *set, char *buf, size_t size)
{
	cpuset_format_list(set, buf, size);
	if (!buf[0])
		snprintf(buf, size, "none");
}

/* page parts --------------------------------------------------------------------- */

static const char css[] =
	"*{box-sizing:border-box}"
	"body{margin:0 auto;max-width:1180px;padding:20px 24px 48px;"
	"font:15px/1.5 system-ui,\"DejaVu Sans\",sans-serif;color:#1d1d1f;background:#fff}"
	"h1{font-size:1.7em;margin:.1em 0 .2em}"
	"h2{font-size:1.3em;margin:2.2em 0 .6em;padding-bottom:.25em;border-bottom:2px solid #e4e7eb}"
	"h3{font-size:1.05em;margin:1.6em 0 .5em;color:#333}"
	"p{margin:.5em 0}"
	".sub{color:#555;margin:0 0 1em}"
	".summary{background:#f3f6fa;border-left:4px solid #0072B2;padding:.75em 1em;"
	"margin:1em 0;font-size:1.02em;overflow-wrap:anywhere}"
	".kind{font-size:.7em;font-weight:normal;color:#555;margin-left:.5em}"
	"table{border-collapse:collapse;font-size:13px;margin:.5em 0}"
	"th,td{padding:4px 10px 4px 0;border-bottom:1px solid #eceef1;text-align:left;"
	"vertical-align:top}"
	"th{font-weight:600;color:#444;border-bottom:1px solid #cfd4da}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	/* a row's name and a period stay on one line: the table scrolls instead */
	"table.stats td:first-child,table.periodic td:first-child,"
	"table.causes td:last-child{white-space:nowrap}"
	".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}"
	"code,.cmd{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace;font-size:12.5px;"
	"overflow-wrap:anywhere}"
	"figure{margin:.8em 0 1.4em;min-width:0}"
	"figure svg{display:block;width:100%;height:auto;max-width:760px}"
	"figcaption{font-size:13px;color:#555;margin-top:.3em;max-width:760px}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:8px 24px}"
	".grid figure{margin:.2em 0}"
	".notes{font-size:13px;color:#6b4e00;background:#fff8e6;padding:.4em .8em .4em 1.8em;"
	"border-radius:3px}"
	".finding{border:1px solid #e4e7eb;border-left-width:5px;border-radius:3px;"
	"padding:.5em .9em;margin:.6em 0;break-inside:avoid}"
	".finding h4{margin:0 0 .2em;font-size:14.5px}"
	".finding dl{margin:.3em 0 0;display:grid;grid-template-columns:max-content 1fr;"
	"gap:.15em .8em;font-size:13px}"
	".finding dt{color:#555}.finding dd{margin:0}"
	".badge{display:inline-block;font-size:11px;font-weight:600;padding:0 .5em;"
	"border-radius:2px;margin-right:.4em;color:#fff;vertical-align:1px}"
	".sev-fatal{border-left-color:#000}.sev-fatal .badge.sev{background:#000}"
	".sev-high{border-left-color:#D55E00}.sev-high .badge.sev{background:#D55E00}"
	".sev-medium{border-left-color:#E69F00}.sev-medium .badge.sev{background:#B07800}"
	".sev-low{border-left-color:#56B4E9}.sev-low .badge.sev{background:#2B7BB0}"
	".sev-info{border-left-color:#999}.sev-info .badge.sev{background:#777}"
	".badge.fail{background:#B3261E}.badge.warn{background:#8A6D00}"
	".muted{color:#666;font-size:13px}"
	"footer{margin-top:3em;font-size:12px;color:#777}"
	"@media (max-width:640px){body{padding:12px 12px 32px;font-size:14px}"
	"figure{margin-left:-8px;margin-right:-8px}.grid{grid-template-columns:minmax(0,1fr)}"
	".finding dl{grid-template-columns:1fr}"
	"table.inputs thead{display:none}table.inputs tr{display:block;padding:.4em 0;"
	"border-bottom:1px solid #eceef1}table.inputs td{display:block;border:0;padding:1px 0}"
	"table.inputs td.meta{display:inline-block;text-align:left;margin-right:1em}"
	"table.inputs td.meta::before{content:attr(data-label) \" \";color:#666}}"
	"@media print{body{max-width:none;padding:0;font-size:11pt}"
	"h2{break-after:avoid}figure,table,.summary{break-inside:avoid}"
	".scroll{overflow:visible}}";

int report_emit_figure(const struct report *r, const struct figure *f, struct textbuf *out,
		       const char *caption)
{
	size_t before;
	int ret;

	textbuf_printf(out, "<figure id=\"fig-%s\"><div class=\"scroll\">\n", f->id);
	before = out->len;
	ret = report_figure_svg(r, f, out, false);
	if (ret)
		return ret;
	if (out->len == before)
		textbuf_puts(out, "<p class=\"muted\">nothing to draw</p>");
	textbuf_puts(out, "</div>");
	if (caption) {
		textbuf_puts(out, "<figcaption>");
		textbuf_escape(out, caption);
		textbuf_puts(out, "</figcaption>");
	}
	textbuf_puts(out, "</figure>\n");
	return 0;
}

/* how many figures of @kind input @i has */
static unsigned int count_figures(const struct report *r, unsigned int i, enum figure_kind kind)
{
	unsigned int k, n = 0;

	for (k = 0; k < r->nr_figures; k++)
		n += r->figures[k].kind == kind && r->figures[k].input == i;
	return n;
}

/* every figure of @kind for input @i, in a grid when there are several */
static int emit_kind(const struct report *r, unsigned int i, enum figure_kind kind,
		     struct textbuf *out, const char *caption)
{
	unsigned int k, n = count_figures(r, i, kind);
	int ret;

	if (!n)
		return 0;
	if (n > 1)
		textbuf_puts(out, "<div class=\"grid\">\n");
	for (k = 0; k < r->nr_figures; k++) {
		if (r->figures[k].kind != kind || r->figures[k].input != i)
			continue;
		ret = report_emit_figure(r, &r->figures[k], out,
					 r->figures[k].caption[0] ? r->figures[k].caption :
					 n > 1			  ? NULL :
								    caption);
		if (ret)
			return ret;
	}
	if (n > 1) {
		textbuf_puts(out, "</div>\n");
		if (caption) {
			textbuf_puts(out, "<p class=\"muted\">");
			textbuf_escape(out, caption);
			textbuf_puts(out, "</p>\n");
		}
	}
	return 0;
}

/*
 * The value of a percentile: as the input gave it, else from its histogram.
 * A percentile needs at least one sample beyond it to mean more than the
 * max (p99.99 of 3000 samples is the max): then none, and *@too_few.
 */
static bool series_percentile(const struct run_series *s, double percent, uint64_t *ns,
			      bool *from_histogram, bool *too_few)
{
	uint64_t samples = report_series_samples(s);
	unsigned int i;

	*from_histogram = false;
	if (samples && (double)samples * (1 - percent / 100) < 1) {
		*too_few = true;
		return false;
	}
	for (i = 0; i < s->nr_percentiles; i++)
		if (fabs(s->percentiles[i].percent - percent) < 1e-9) {
			*ns = s->percentiles[i].ns;
			return true;
		}
	if (s->histogram.present && (double)s->histogram.total * (1 - percent / 100) >= 1 &&
	    !run_histogram_quantile(&s->histogram, percent / 100, ns)) {
		*from_histogram = true;
		return true;
	}
	return false;
}

static void stats_table(const struct report *r, const struct run *run, struct textbuf *out)
{
	/* the project's one list of reported percentiles */
	const double *percents = hist_reported_percentiles;
	bool noise = run->series[0].measure == RUN_MEASURE_NOISE, any_missed = false,
	     any_lost = false, approximate = false, too_few = false, unknown = false;
	char a[48], b[48];
	unsigned int k;
	size_t i;

	for (k = 0; k < run->nr_series; k++) {
		any_missed |= run_has(run->series[k].missed);
		any_lost |= run_has(run->series[k].lost_ns);
	}
	textbuf_puts(out, "<div class=\"scroll\"><table class=\"stats\"><thead><tr><th></th>"
			  "<th class=\"n\">samples</th><th class=\"n\">min</th>"
			  "<th class=\"n\">avg</th>");
	for (i = 0; i < HIST_NR_REPORTED; i++)
		textbuf_printf(out, "<th class=\"n\">p%g</th>", percents[i]);
	textbuf_puts(out, "<th class=\"n\">max</th>");
	if (r->options.budget_ns)
		textbuf_puts(out, "<th class=\"n\">above budget</th>");
	if (any_missed)
		textbuf_puts(out, "<th class=\"n\">missed periods</th>");
	if (any_lost && noise)
		textbuf_puts(out, "<th class=\"n\">lost to gaps</th>");
	textbuf_puts(out, "</tr></thead><tbody>\n");
	for (k = 0; k < run->nr_series; k++) {
		const struct run_series *s = &run->series[k];
		uint64_t ns;
		bool from_histogram;

		textbuf_puts(out, "<tr>");
		cell(out, s->label, false);
		cell(out, count_text(report_series_samples(s), a, sizeof(a)), true);
		cell(out, duration(s->min_ns, a, sizeof(a)), true);
		cell(out, isfinite(s->avg_ns) ? plot_format_duration(s->avg_ns, a, sizeof(a)) : "—",
		     true);
		for (i = 0; i < HIST_NR_REPORTED; i++) {
			bool few = false;

			if (!series_percentile(s, percents[i], &ns, &from_histogram, &few)) {
				too_few |= few;
				unknown |= !few;
				cell(out, "—", true);
				continue;
			}
			snprintf(b, sizeof(b), "%s%s", from_histogram ? "≤ " : "",
				 duration(ns, a, sizeof(a)));
			approximate |= from_histogram;
			cell(out, b, true);
		}
		cell(out, duration(s->max_ns, a, sizeof(a)), true);
		if (r->options.budget_ns) {
			bool exact;
			uint64_t above =
				run_histogram_above(&s->histogram, r->options.budget_ns, &exact);

			if (!s->histogram.present) {
				cell(out, "—", true);
			} else {
				char c[32];

				snprintf(b, sizeof(b), "%s%s (%s)", exact ? "" : "≤ ",
					 count_text(above, a, sizeof(a)),
					 percent_text(s->histogram.total ?
							      (double)above /
								      (double)s->histogram.total :
							      0.0,
						      c, sizeof(c)));
				cell(out, b, true);
			}
		}
		if (any_missed)
			cell(out, count_text(s->missed, a, sizeof(a)), true);
		if (any_lost && noise)
			cell(out, duration(s->lost_ns, a, sizeof(a)), true);
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
	if (approximate)
		textbuf_puts(out, "<p class=\"muted\">≤: read from the histogram, the upper bound "
				  "of the bucket that holds the percentile.</p>\n");
	if (too_few || unknown)
		textbuf_printf(out, "<p class=\"muted\">—: %s%s%s.</p>\n",
			       unknown ? "not in the file" : "", unknown && too_few ? "; " : "",
			       too_few ? "too few samples for that percentile (p99.99 needs "
					 "10 000 and more; below that it is the max)" :
					 "");
}

static void notes(const struct run *run, struct textbuf *out)
{
	unsigned int i;

	if (!run->nr_notes)
		return;
	textbuf_puts(out, "<ul class=\"notes\">");
	for (i = 0; i < run->nr_notes; i++) {
		textbuf_puts(out, "<li>");
		textbuf_escape(out, run->notes[i]);
		textbuf_puts(out, "</li>");
	}
	textbuf_puts(out, "</ul>\n");
}

struct cause_sum {
	const struct run_cause *cause;
	double total;
	uint64_t spikes;
	uint64_t max;
};

static int compare_sums(const void *a, const void *b)
{
	const struct cause_sum *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

static void causes_table(const struct run *run, struct textbuf *out)
{
	struct cause_sum *sums;
	unsigned int n = 0, k, i, j;
	double explained = 0, all = 0;
	char a[48], b[112];

	for (k = 0; k < run->nr_series; k++)
		n += run->series[k].nr_causes;
	if (!n)
		return;
	sums = calloc(n, sizeof(*sums));
	if (!sums)
		return;
	for (k = 0, n = 0; k < run->nr_series; k++) {
		const struct run_series *s = &run->series[k];

		if (run_has(s->explained_ns))
			explained += (double)s->explained_ns;
		for (i = 0; i < s->nr_causes; i++) {
			const struct run_cause *c = &s->causes[i];

			for (j = 0; j < n; j++)
				if (!strcmp(sums[j].cause->label, c->label))
					break;
			if (j == n)
				sums[n++] = (struct cause_sum){ .cause = c };
			sums[j].total += (double)c->total_ns;
			if (run_has(c->spikes))
				sums[j].spikes += c->spikes;
			if (run_has(c->max_ns) && c->max_ns > sums[j].max)
				sums[j].max = c->max_ns;
			all += (double)c->total_ns;
		}
	}
	if (explained <= 0)
		explained = all;
	qsort(sums, n, sizeof(*sums), compare_sums);
	textbuf_puts(out, "<div class=\"scroll\"><table class=\"causes\"><thead><tr><th>cause</th>"
			  "<th>kind</th>"
			  "<th class=\"n\">spikes</th><th class=\"n\">time</th>"
			  "<th class=\"n\">share</th><th class=\"n\">largest</th><th>recurs</th>"
			  "</tr></thead><tbody>\n");
	for (i = 0; i < n && i < 15; i++) {
		const struct run_cause *c = sums[i].cause;

		textbuf_puts(out, "<tr>");
		cell(out, c->label, false);
		cell(out, run_cause_kind_name(c->kind), false);
		cell(out, count_text(sums[i].spikes, a, sizeof(a)), true);
		cell(out, plot_format_duration(sums[i].total, a, sizeof(a)), true);
		snprintf(b, sizeof(b), "%.1f%%",
			 explained > 0 ? 100 * sums[i].total / explained : 0);
		cell(out, b, true);
		cell(out,
		     sums[i].max ? plot_format_duration((double)sums[i].max, a, sizeof(a)) : "—",
		     true);
		if (run_has(c->period_ns)) {
			char d[32];

			snprintf(b, sizeof(b), "%s every %s",
				 duration(c->period_duration_ns, d, sizeof(d)),
				 period_text(c->period_ns, a, sizeof(a)));
			cell(out, b, false);
		} else {
			cell(out, "", false);
		}
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
	if (n > 15)
		textbuf_printf(out, "<p class=\"muted\">and %u more causes</p>\n", n - 15);
	free(sums);
}

static void periodic_table(const struct run *run, struct textbuf *out)
{
	char a[32], b[32], c[32];
	unsigned int k, i, rows = 0;

	for (k = 0; k < run->nr_series; k++)
		rows += run->series[k].nr_periodic;
	if (!rows)
		return;
	textbuf_puts(out,
		     "<h3>Periodic sources</h3><div class=\"scroll\"><table class=\"periodic\">"
		     "<thead><tr>"
		     "<th></th><th class=\"n\">gap</th><th class=\"n\">every</th>"
		     "<th class=\"n\">jitter</th><th class=\"n\">seen</th><th>cause</th></tr>"
		     "</thead><tbody>\n");
	for (k = 0, rows = 0; k < run->nr_series && rows < 40; k++)
		for (i = 0; i < run->series[k].nr_periodic && rows < 40; i++, rows++) {
			const struct run_periodic *p = &run->series[k].periodic[i];
			char seen[64];

			textbuf_puts(out, "<tr>");
			cell(out, run->series[k].label, false);
			cell(out, duration(p->duration_ns, a, sizeof(a)), true);
			cell(out, period_text(p->period_ns, b, sizeof(b)), true);
			cell(out, duration(p->jitter_ns, c, sizeof(c)), true);
			if (run_has(p->seen) && run_has(p->expected))
				snprintf(seen, sizeof(seen), "%llu of %llu",
					 (unsigned long long)p->seen,
					 (unsigned long long)p->expected);
			else
				snprintf(seen, sizeof(seen), "—");
			cell(out, seen, true);
			cell(out, p->cause ? p->cause : "", false);
			textbuf_puts(out, "</tr>\n");
		}
	textbuf_puts(out, "</tbody></table></div>\n");
}

static void input_meta(const struct run *run, struct textbuf *out)
{
	char a[64], b[64];

	textbuf_puts(out, "<p class=\"sub\">");
	textbuf_escape(out, run->path);
	textbuf_puts(out, " · ");
	textbuf_escape(out, run_format_name(run->format));
	if (run->schema)
		textbuf_printf(out, " (latscope/%u)", run->schema);
	if (run->start_ns != RUN_NO_TIME) {
		textbuf_puts(out, " · ");
		textbuf_escape(out, utc_time(run->start_ns, a, sizeof(a)));
		if (run->end_ns != RUN_NO_TIME && run->end_ns >= run->start_ns) {
			textbuf_puts(out, " for ");
			textbuf_escape(out, run_span_text(run, b, sizeof(b)));
		}
	}
	if (run->stopped)
		textbuf_puts(out, " · stopped before its end");
	textbuf_puts(out, "</p>\n");
	if (run->command_line) {
		textbuf_puts(out, "<p><code class=\"cmd\">");
		textbuf_escape(out, run->command_line);
		textbuf_puts(out, "</code></p>\n");
	}
}

static void heading(const struct report_input *in, struct textbuf *out, const char *what)
{
	textbuf_printf(out, "<section id=\"in-%s\">\n<h2>", in->slug);
	textbuf_escape(out, in->label);
	textbuf_puts(out, "<span class=\"kind\">");
	textbuf_escape(out, what);
	textbuf_puts(out, "</span></h2>\n");
}

static const char *measure_text(const struct run *run)
{
	switch (run->kind) {
	case RUN_NOISE:
		return "OS noise (latscope noise)";
	case RUN_TIMER:
		return "timer latency (latscope timer)";
	case RUN_MONITOR:
		return "timer latency (latscope monitor)";
	case RUN_CYCLICTEST:
		return "timer latency (cyclictest)";
	case RUN_OSLAT:
		return "OS noise (oslat)";
	default:
		return run_kind_name(run->kind);
	}
}

/* why an input has no histogram plots, and how to get them */
static void no_histogram(const struct run *run, struct textbuf *out)
{
	textbuf_puts(out, "<p class=\"muted\">This file has no histogram, so only the min, "
			  "average and max are known: no histogram or tail plots.");
	if (run->kind == RUN_CYCLICTEST)
		textbuf_puts(out, " cyclictest keeps one with <code>-h N</code> "
				  "(<code>--histogram=N</code>, e.g. <code>-h 400</code>: buckets "
				  "of 1 us up to N us).");
	textbuf_puts(out, "</p>\n");
}

static int measurement_section(const struct report *r, unsigned int i, struct textbuf *out)
{
	const struct report_input *in = &r->inputs[i];
	const struct run *run = in->run;
	bool noise = run->series[0].measure == RUN_MEASURE_NOISE;
	int ret;

	heading(in, out, measure_text(run));
	input_meta(run, out);
	notes(run, out);
	stats_table(r, run, out);
	if (count_figures(r, i, FIGURE_HISTOGRAM) || count_figures(r, i, FIGURE_HISTOGRAM_LOG))
		textbuf_puts(out, "<h3>Histogram</h3>\n");
	else
		no_histogram(run, out);
	ret = emit_kind(r, i, FIGURE_HISTOGRAM, out,
			"Linear x, log y, as OSADL plots cyclictest: every bin holds the samples "
			"of its width; the dashed line marks the max.");
	if (!ret)
		ret = emit_kind(r, i, FIGURE_HISTOGRAM_LOG, out,
				"The same on a log x axis: the values span decades, and the body "
				"of the distribution shows here.");
	if (ret)
		return ret;
	if (count_figures(r, i, FIGURE_EXCEEDANCE))
		textbuf_puts(out, "<h3>Tail</h3>\n");
	ret = emit_kind(r, i, FIGURE_EXCEEDANCE, out,
			"How likely a value exceeds x: the tail the max alone hides. Dots mark "
			"the percentiles from p99 on (those the run has samples beyond) and the "
			"max; dashed: values beyond the histogram, of which only the count is "
			"known.");
	if (ret)
		return ret;
	if (count_figures(r, i, FIGURE_EVENTS) || count_figures(r, i, FIGURE_WINDOWS))
		textbuf_puts(out, "<h3>Over time</h3>\n");
	ret = emit_kind(r, i, FIGURE_EVENTS, out,
			noise ? "Every recorded gap against the time it happened; a periodic "
				"source shows as a stripe. Drawn: the largest gap per 2 × 3 px "
				"cell, so each column's maximum is exact." :
				"Every recorded latency above the threshold against the time it "
				"happened. Drawn: the largest per 2 × 3 px cell.");
	if (!ret)
		ret = emit_kind(r, i, FIGURE_WINDOWS, out,
				"The maximum of each window (OSADL's long-term plot), the largest "
				"per pixel column; marks under the curves: windows with missed "
				"periods.");
	if (ret)
		return ret;
	if (count_figures(r, i, FIGURE_ANATOMY) || count_figures(r, i, FIGURE_SHARES)) {
		textbuf_puts(out, "<h3>What caused the spikes</h3>\n");
		ret = emit_kind(r, i, FIGURE_ANATOMY, out,
				"Each of the worst spikes from its start: what delayed the wake-up "
				"or took the CPU, in order.");
		if (!ret)
			ret = emit_kind(r, i, FIGURE_SHARES, out, NULL);
		if (ret)
			return ret;
		causes_table(run, out);
	}
	periodic_table(run, out);
	textbuf_puts(out, "</section>\n");
	return 0;
}

static const char *const severities[] = { "fatal", "high", "medium", "low", "info" };

static void evidence_list(const json_t *evidence, struct textbuf *out)
{
	size_t i;

	textbuf_puts(out, "<dd>");
	for (i = 0; i < json_array_size(evidence); i++) {
		const json_t *e = json_array_get(evidence, i);
		const char *key;
		json_t *v;
		bool first = true;

		textbuf_puts(out, "<div>");
		if (json_is_string(e)) {
			textbuf_puts(out, "<code>");
			textbuf_escape(out, json_string_value(e));
			textbuf_puts(out, "</code>");
		}
		json_object_foreach((json_t *)e, key, v)
		{
			char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

			if (!first)
				textbuf_puts(out, " · ");
			first = false;
			if (strcmp(key, "path") && strcmp(key, "value")) {
				textbuf_escape(out, key);
				textbuf_puts(out, ": ");
			}
			if (!text && !*json_string_value(v)) {
				/* an empty file (no isolated CPUs) says something too */
				textbuf_puts(out, "<span class=\"muted\">(empty)</span>");
			} else {
				textbuf_puts(out, "<code>");
				textbuf_escape(out, text ? text : json_string_value(v));
				textbuf_puts(out, "</code>");
			}
			free(text);
		}
		textbuf_puts(out, "</div>");
	}
	textbuf_puts(out, "</dd>");
}

static void finding(const json_t *f, const char *severity, struct textbuf *out)
{
	const char *status = json_string_value(json_object_get(f, "status"));
	static const struct {
		const char *key;
		const char *title;
	} fields[] = { { "expected", "expected" }, { "fix", "fix" } };
	size_t i;

	textbuf_printf(out, "<div class=\"finding sev-%s\"><h4><span class=\"badge sev\">%s</span>",
		       severity, severity);
	textbuf_printf(out, "<span class=\"badge %s\">",
		       status && !strcmp(status, "fail") ? "fail" : "warn");
	textbuf_escape(out, status ? status : "?");
	textbuf_puts(out, "</span>");
	textbuf_escape(out, json_string_value(json_object_get(f, "title")));
	textbuf_puts(out, " <code class=\"muted\">");
	textbuf_escape(out, json_string_value(json_object_get(f, "id")));
	textbuf_puts(out, "</code></h4>\n");
	if (json_string_value(json_object_get(f, "detail"))) {
		textbuf_puts(out, "<p>");
		textbuf_escape(out, json_string_value(json_object_get(f, "detail")));
		textbuf_puts(out, "</p>");
	}
	if (json_string_value(json_object_get(f, "why"))) {
		textbuf_puts(out, "<p class=\"muted\">");
		textbuf_escape(out, json_string_value(json_object_get(f, "why")));
		textbuf_puts(out, "</p>");
	}
	textbuf_puts(out, "<dl>");
	if (json_array_size(json_object_get(f, "evidence"))) {
		textbuf_puts(out, "<dt>evidence</dt>");
		evidence_list(json_object_get(f, "evidence"), out);
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *text = json_string_value(json_object_get(f, fields[i].key));

		if (!text)
			continue;
		textbuf_printf(out, "<dt>%s</dt><dd>", fields[i].title);
		if (!strcmp(fields[i].key, "fix"))
			textbuf_puts(out, "<code>");
		textbuf_escape(out, text);
		if (!strcmp(fields[i].key, "fix"))
			textbuf_puts(out, "</code>");
		textbuf_puts(out, "</dd>");
	}
	textbuf_puts(out, "</dl></div>\n");
}

static void audit_section(const struct report *r, unsigned int i, struct textbuf *out)
{
	const struct report_input *in = &r->inputs[i];
	const json_t *findings = json_object_get(in->run->json, "findings");
	unsigned int failed = 0, warned = 0, passed = 0, skipped = 0;
	size_t k, s;

	heading(in, out, "real-time readiness audit (latscope check)");
	input_meta(in->run, out);
	for (k = 0; k < json_array_size(findings); k++) {
		const char *status =
			json_string_value(json_object_get(json_array_get(findings, k), "status"));

		if (!status)
			continue;
		failed += !strcmp(status, "fail");
		warned += !strcmp(status, "warn");
		passed += !strcmp(status, "pass");
		skipped += !strcmp(status, "skip");
	}
	textbuf_printf(out, "<p>%u rules failed, %u warned, %u passed, %u were skipped.</p>\n",
		       failed, warned, passed, skipped);
	for (s = 0; s < sizeof(severities) / sizeof(severities[0]); s++) {
		bool header = false;

		for (k = 0; k < json_array_size(findings); k++) {
			const json_t *f = json_array_get(findings, k);
			const char *severity = json_string_value(json_object_get(f, "severity"));
			const char *status = json_string_value(json_object_get(f, "status"));

			if (!severity || strcmp(severity, severities[s]) || !status ||
			    (strcmp(status, "fail") && strcmp(status, "warn")))
				continue;
			if (!header) {
				textbuf_printf(out, "<h3>Severity %s</h3>\n", severities[s]);
				header = true;
			}
			finding(f, severities[s], out);
		}
	}
	if (passed || skipped) {
		textbuf_puts(out,
			     "<h3>Passed and skipped</h3><div class=\"scroll\"><table><tbody>");
		for (k = 0; k < json_array_size(findings); k++) {
			const json_t *f = json_array_get(findings, k);
			const char *status = json_string_value(json_object_get(f, "status"));

			if (!status || (strcmp(status, "pass") && strcmp(status, "skip")))
				continue;
			textbuf_puts(out, "<tr>");
			cell(out, status, false);
			cell(out, json_string_value(json_object_get(f, "title")), false);
			cell(out, json_string_value(json_object_get(f, "detail")), false);
			textbuf_puts(out, "</tr>\n");
		}
		textbuf_puts(out, "</tbody></table></div>\n");
	}
	textbuf_puts(out, "</section>\n");
}

static void json_cell(struct textbuf *out, const json_t *v)
{
	char *text;

	if (json_is_string(v)) {
		cell(out, json_string_value(v), false);
		return;
	}
	text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	cell(out, text ? text : "—", false);
	free(text);
}

static int irq_section(const struct report *r, unsigned int i, struct textbuf *out)
{
	const struct report_input *in = &r->inputs[i];
	const json_t *json = in->run->json;
	const json_t *moves = json_object_get(json, "moves");
	const json_t *unmovable = json_object_get(json, "unmovable");
	char what[96];
	size_t k;
	int ret;

	snprintf(what, sizeof(what), "interrupts (latscope irq %s)",
		 in->run->subcommand ? in->run->subcommand : "");
	heading(in, out, what);
	input_meta(in->run, out);
	ret = emit_kind(r, i, FIGURE_IRQ, out,
			"Device interrupts per second on each CPU; shaded: the RT CPUs, which "
			"should receive none.");
	if (ret)
		return ret;
	if (json_is_array(moves)) {
		textbuf_printf(out, "<h3>Moves (%zu)</h3>\n", json_array_size(moves));
		if (json_array_size(moves)) {
			textbuf_puts(out, "<div class=\"scroll\"><table><thead><tr><th>irq</th>"
					  "<th>name</th><th>from</th><th>to</th><th>why</th></tr>"
					  "</thead><tbody>\n");
			for (k = 0; k < json_array_size(moves); k++) {
				const json_t *m = json_array_get(moves, k);

				textbuf_puts(out, "<tr>");
				json_cell(out, json_object_get(m, "irq"));
				json_cell(out, json_object_get(m, "name"));
				json_cell(out, json_object_get(m, "from"));
				json_cell(out, json_object_get(m, "to"));
				json_cell(out, json_object_get(m, "reason"));
				textbuf_puts(out, "</tr>\n");
			}
			textbuf_puts(out, "</tbody></table></div>\n");
		}
	}
	if (json_array_size(unmovable)) {
		textbuf_printf(out,
			       "<h3>Cannot be moved (%zu)</h3><div class=\"scroll\"><table>"
			       "<thead><tr><th>irq</th><th>name</th><th>why</th></tr></thead>"
			       "<tbody>\n",
			       json_array_size(unmovable));
		for (k = 0; k < json_array_size(unmovable); k++) {
			const json_t *m = json_array_get(unmovable, k);

			textbuf_puts(out, "<tr>");
			json_cell(out, json_object_get(m, "irq"));
			json_cell(out, json_object_get(m, "name"));
			json_cell(out, json_object_get(m, "reason"));
			textbuf_puts(out, "</tr>\n");
		}
		textbuf_puts(out, "</tbody></table></div>\n");
	}
	textbuf_puts(out, "</section>\n");
	return 0;
}

/* compare and doctor results: their fields as tables, tolerant of their shape */
static void generic_section(const struct report *r, unsigned int i, struct textbuf *out)
{
	const struct report_input *in = &r->inputs[i];
	const json_t *json = in->run->json;
	const json_t *pairs = json_object_get(json, "pairs");
	const json_t *fixes = json_object_get(json, "fixes");
	const json_t *verdict = json_object_get(json, "verdict");
	const struct report_part *part = report_part_of(in->run->kind);
	size_t k, j;

	heading(in, out,
		in->run->kind == RUN_COMPARE ? "comparison (latscope compare)" :
					       "diagnosis (latscope doctor)");
	input_meta(in->run, out);
	if (part && part->body) {
		/* its own tables and plots; a failure leaves its mark in @out */
		part->body(r, i, out);
		textbuf_puts(out, "</section>\n");
		return;
	}
	if (verdict) {
		textbuf_puts(out, "<p class=\"summary\"><b>Verdict:</b> ");
		if (json_is_string(verdict)) {
			textbuf_escape(out, json_string_value(verdict));
		} else {
			char *text = json_dumps(verdict, JSON_COMPACT);

			textbuf_puts(out, "<code>");
			textbuf_escape(out, text);
			textbuf_puts(out, "</code>");
			free(text);
		}
		textbuf_puts(out, "</p>\n");
	}
	for (k = 0; k < json_array_size(pairs); k++) {
		const json_t *p = json_array_get(pairs, k), *stats = json_object_get(p, "stats");

		textbuf_puts(out, "<h3>");
		textbuf_escape(out, json_string_value(json_object_get(p, "a")));
		textbuf_puts(out, " → ");
		textbuf_escape(out, json_string_value(json_object_get(p, "b")));
		textbuf_puts(
			out,
			"</h3><div class=\"scroll\"><table><thead><tr><th></th>"
			"<th class=\"n\">A</th><th class=\"n\">B</th><th class=\"n\">B − A</th>"
			"<th class=\"n\">interval</th><th>verdict</th></tr></thead><tbody>\n");
		for (j = 0; j < json_array_size(stats); j++) {
			const json_t *s = json_array_get(stats, j),
				     *ci = json_object_get(s, "ci_ns");
			char a[32], b[32], c[80];

			textbuf_puts(out, "<tr>");
			json_cell(out, json_object_get(s, "name"));
			cell(out,
			     duration(json_is_integer(json_object_get(s, "a_ns")) ?
					      (uint64_t)json_integer_value(
						      json_object_get(s, "a_ns")) :
					      RUN_NONE,
				      a, sizeof(a)),
			     true);
			cell(out,
			     duration(json_is_integer(json_object_get(s, "b_ns")) ?
					      (uint64_t)json_integer_value(
						      json_object_get(s, "b_ns")) :
					      RUN_NONE,
				      b, sizeof(b)),
			     true);
			if (json_is_number(json_object_get(s, "diff_ns"))) {
				double d = json_number_value(json_object_get(s, "diff_ns"));

				snprintf(c, sizeof(c), "%s%s", d < 0 ? "−" : "+",
					 plot_format_duration(fabs(d), a, sizeof(a)));
				cell(out, c, true);
			} else {
				cell(out, "—", true);
			}
			if (json_array_size(ci) == 2) {
				snprintf(c, sizeof(c), "%s … %s",
					 plot_format_duration(
						 json_number_value(json_array_get(ci, 0)), a,
						 sizeof(a)),
					 plot_format_duration(
						 json_number_value(json_array_get(ci, 1)), b,
						 sizeof(b)));
				cell(out, c, true);
			} else {
				cell(out, "—", true);
			}
			json_cell(out, json_object_get(s, "verdict"));
			textbuf_puts(out, "</tr>\n");
		}
		textbuf_puts(out, "</tbody></table></div>\n");
	}
	if (json_array_size(fixes)) {
		textbuf_puts(out, "<h3>Fixes, by measured impact</h3><ol>\n");
		for (k = 0; k < json_array_size(fixes); k++) {
			const json_t *f = json_array_get(fixes, k);
			const char *key;
			json_t *v;

			textbuf_puts(out, "<li>");
			json_object_foreach((json_t *)f, key, v)
			{
				char *text =
					json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

				textbuf_puts(out, "<b>");
				textbuf_escape(out, key);
				textbuf_puts(out, "</b>: ");
				textbuf_escape(out, text ? text : json_string_value(v));
				textbuf_puts(out, " ");
				free(text);
			}
			textbuf_puts(out, "</li>\n");
		}
		textbuf_puts(out, "</ol>\n");
	}
	textbuf_puts(out, "</section>\n");
}

/* the header: what was read and where it ran ------------------------------------ */

static void inputs_table(const struct report *r, struct textbuf *out)
{
	char a[64], b[64];
	unsigned int i;

	textbuf_puts(out, "<h2>Inputs</h2><div class=\"scroll\"><table class=\"inputs\"><thead>"
			  "<tr><th></th>"
			  "<th>what</th><th>command line</th><th>started</th><th>ran</th>"
			  "<th>host</th></tr></thead><tbody>\n");
	for (i = 0; i < r->nr_inputs; i++) {
		const struct run *run = r->inputs[i].run;

		textbuf_printf(out, "<tr><td><a href=\"#in-%s\">", r->inputs[i].slug);
		textbuf_escape(out, r->inputs[i].label);
		textbuf_puts(out, "</a><br><span class=\"muted\">");
		textbuf_escape(out, run->path);
		textbuf_puts(out, "</span></td>");
		snprintf(a, sizeof(a), "%s%s%s", run_kind_name(run->kind),
			 run->subcommand ? " " : "", run->subcommand ? run->subcommand : "");
		cell(out, a, false);
		textbuf_puts(out, "<td><code class=\"cmd\">");
		textbuf_escape(out, run->command_line ? run->command_line : "—");
		textbuf_puts(out, "</code></td>");
		/* on a phone the row is a block: these three say what they are */
		textbuf_puts(out, "<td class=\"meta\" data-label=\"started\">");
		textbuf_escape(out, utc_time(run->start_ns, a, sizeof(a)));
		textbuf_puts(out, "</td><td class=\"n meta\" data-label=\"ran\">");
		textbuf_escape(out, run_span_text(run, b, sizeof(b)));
		textbuf_puts(out, "</td><td class=\"meta\" data-label=\"host\">");
		textbuf_escape(out, run->host.nodename ? run->host.nodename : "—");
		textbuf_puts(out, "</td>");
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
}

/* two inputs ran on one host when what both say of it agrees */
static bool same_text(const char *a, const char *b)
{
	return !a || !b || !strcmp(a, b);
}

static bool same_host(const struct run_host *a, const struct run_host *b)
{
	return a->nodename && b->nodename && !strcmp(a->nodename, b->nodename) &&
	       same_text(a->kernel, b->kernel) && same_text(a->kernel_version, b->kernel_version) &&
	       same_text(a->cmdline, b->cmdline) && same_text(a->cpu_model, b->cpu_model);
}

static void host_row(struct textbuf *out, const char *name, const char *value)
{
	if (!value)
		return;
	textbuf_puts(out, "<tr><th>");
	textbuf_escape(out, name);
	textbuf_puts(out, "</th><td>");
	textbuf_escape(out, value);
	textbuf_puts(out, "</td></tr>\n");
}

static void hosts(const struct report *r, struct textbuf *out)
{
	unsigned int i, j;
	bool header = false;

	for (i = 0; i < r->nr_inputs; i++) {
		const struct run_host *h = &r->inputs[i].run->host;
		char list[256], kernel[512];

		if (!h->nodename && !h->kernel)
			continue;
		for (j = 0; j < i; j++)
			if (same_host(&r->inputs[j].run->host, h))
				break;
		if (j < i)
			continue;
		if (!header) {
			textbuf_puts(out, "<h2>Hosts</h2>\n");
			header = true;
		}
		textbuf_puts(out, "<div class=\"scroll\"><table class=\"host\"><tbody>\n");
		host_row(out, "host", h->nodename);
		snprintf(kernel, sizeof(kernel), "%s%s%s", h->kernel ? h->kernel : "?",
			 h->kernel_version ? " " : "", h->kernel_version ? h->kernel_version : "");
		host_row(out, "kernel", kernel);
		if (h->preempt_rt_known)
			host_row(out, "PREEMPT_RT", h->preempt_rt ? "yes" : "no");
		host_row(out, "command line", h->cmdline);
		host_row(out, "CPU", h->cpu_model);
		if (h->has_cpus) {
			cpuset_text(&h->online, list, sizeof(list));
			host_row(out, "online CPUs", list);
			cpuset_text(&h->isolated, list, sizeof(list));
			host_row(out, "isolated CPUs", list);
			cpuset_text(&h->nohz_full, list, sizeof(list));
			host_row(out, "nohz_full CPUs", list);
			cpuset_text(&h->housekeeping, list, sizeof(list));
			host_row(out, "housekeeping CPUs", list);
		}
		host_row(out, "virtualization", h->virtualization);
		host_row(out, "clocksource", h->clocksource);
		textbuf_puts(out, "<tr><th>inputs</th><td>");
		for (j = i; j < r->nr_inputs; j++)
			if (j == i || same_host(&r->inputs[j].run->host, h)) {
				if (j != i)
					textbuf_puts(out, ", ");
				textbuf_escape(out, r->inputs[j].label);
			}
		textbuf_puts(out, "</td></tr>\n</tbody></table></div>\n");
	}
}

/* the summary in words ------------------------------------------------------------ */

struct worst {
	const struct report_input *input;
	const struct run_series *series;
	double max;
};

static void find_worst(const struct report *r, enum run_measure measure, struct worst *w)
{
	unsigned int i, k;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < r->nr_inputs; i++) {
		const struct run *run = r->inputs[i].run;

		if (!run_is_measurement(run))
			continue;
		for (k = 0; k < run->nr_series; k++) {
			double max = report_series_max(&run->series[k]);

			if (run->series[k].measure != measure || !isfinite(max) || max <= w->max)
				continue;
			*w = (struct worst){ &r->inputs[i], &run->series[k], max };
		}
	}
}

/* the largest part of the series' worst spike, or its largest cause */
static void top_cause(const struct run_series *s, struct textbuf *out)
{
	const struct run_spike *worst = NULL;
	char a[32], b[32];
	unsigned int i;

	for (i = 0; i < s->nr_worst; i++)
		if (!worst || s->worst[i].duration_ns > worst->duration_ns)
			worst = &s->worst[i];
	if (worst && worst->nr_split) {
		textbuf_puts(out, "; its worst spike was mostly ");
		textbuf_escape(out, worst->split[0].label);
		textbuf_printf(out, " (%s of %s)",
			       plot_format_duration((double)worst->split[0].ns, a, sizeof(a)),
			       plot_format_duration((double)worst->duration_ns, b, sizeof(b)));
	}
	if (s->nr_causes) {
		double all = 0;

		for (i = 0; i < s->nr_causes; i++)
			all += (double)s->causes[i].total_ns;
		if (run_has(s->explained_ns) && s->explained_ns)
			all = (double)s->explained_ns;
		textbuf_puts(out, worst && worst->nr_split ?
					  ", and over the run the cause that took "
					  "the most time was " :
					  "; the cause that took the most time was ");
		textbuf_escape(out, s->causes[0].label);
		if (all > 0)
			textbuf_printf(out, " (%.0f%%)", 100 * (double)s->causes[0].total_ns / all);
	}
}

/* "The worst ... was X, on SERIES of “INPUT”; its worst spike was ..." */
static bool worst_sentence(const struct worst *w, const char *what, struct textbuf *out)
{
	char a[32];

	if (!w->series)
		return false;
	textbuf_printf(out, "%s was <b>%s</b>, on ", what,
		       plot_format_duration(w->max, a, sizeof(a)));
	textbuf_escape(out, w->series->label);
	textbuf_puts(out, " of “");
	textbuf_escape(out, w->input->label);
	textbuf_puts(out, "”");
	top_cause(w->series, out);
	textbuf_puts(out, ". ");
	return true;
}

/* per measuring input: how many of its samples exceeded the budget */
static void budget_summary(const struct report *r, struct textbuf *out)
{
	char a[48], b[48], c[32];
	unsigned int i, k, listed = 0, more = 0;

	textbuf_printf(out, "Against the budget of %s: ",
		       plot_format_duration((double)r->options.budget_ns, a, sizeof(a)));
	for (i = 0; i < r->nr_inputs; i++) {
		const struct run *run = r->inputs[i].run;
		uint64_t above = 0, total = 0;
		bool exact = true, any = false;

		if (!run_is_measurement(run))
			continue;
		for (k = 0; k < run->nr_series; k++) {
			bool e;

			if (!run->series[k].histogram.present)
				continue;
			above += run_histogram_above(&run->series[k].histogram,
						     r->options.budget_ns, &e);
			exact &= e;
			total += run->series[k].histogram.total;
			any = true;
		}
		if (!any)
			continue;
		if (listed == 4) {
			more++;
			continue;
		}
		textbuf_printf(out, "%s%s%s of %s %s of “", listed ? "; " : "",
			       exact ? "" : "at most ", count_text(above, a, sizeof(a)),
			       count_text(total, b, sizeof(b)),
			       run->series[0].measure == RUN_MEASURE_NOISE ? "loops" : "wake-ups");
		textbuf_escape(out, r->inputs[i].label);
		textbuf_printf(
			out, "” (%s)",
			percent_text(total ? (double)above / (double)total : 0.0, c, sizeof(c)));
		listed++;
	}
	if (more)
		textbuf_printf(out, "; and %u more input%s", more, more == 1 ? "" : "s");
	textbuf_puts(out, " exceeded it. ");
}

static void summary(const struct report *r, struct textbuf *out)
{
	struct worst timer, noise;
	unsigned int i;
	bool said = false;

	textbuf_puts(out, "<p class=\"summary\">");
	find_worst(r, RUN_MEASURE_TIMER, &timer);
	find_worst(r, RUN_MEASURE_NOISE, &noise);
	said |= worst_sentence(&timer, "The worst timer wake-up latency", out);
	said |= worst_sentence(&noise, "The largest OS noise gap", out);
	if (r->options.budget_ns && said)
		budget_summary(r, out);
	for (i = 0; i < r->nr_inputs; i++) {
		const struct run *run = r->inputs[i].run;
		const json_t *findings = json_object_get(run->json, "findings");
		unsigned int failed = 0, warned = 0, named = 0;
		size_t k;

		if (run->kind == RUN_CHECK) {
			for (k = 0; k < json_array_size(findings); k++) {
				const char *status = json_string_value(
					json_object_get(json_array_get(findings, k), "status"));

				failed += status && !strcmp(status, "fail");
				warned += status && !strcmp(status, "warn");
			}
			textbuf_puts(out, "The audit “");
			textbuf_escape(out, r->inputs[i].label);
			textbuf_printf(out, "” failed %u rule%s", failed, failed == 1 ? "" : "s");
			for (k = 0; k < json_array_size(findings) && named < 3; k++) {
				const json_t *f = json_array_get(findings, k);
				const char *status =
					json_string_value(json_object_get(f, "status"));
				const char *severity =
					json_string_value(json_object_get(f, "severity"));

				if (!status || strcmp(status, "fail") || !severity ||
				    (strcmp(severity, "fatal") && strcmp(severity, "high")))
					continue;
				textbuf_puts(out, named ? ", " : " (");
				textbuf_escape(out, json_string_value(json_object_get(f, "title")));
				textbuf_printf(out, ": %s", severity);
				named++;
			}
			textbuf_printf(out, "%s and warned on %u. ", named ? ")" : "", warned);
			said = true;
		} else if (run->kind == RUN_IRQ &&
			   json_is_array(json_object_get(run->json, "moves"))) {
			textbuf_puts(out, "The IRQ plan “");
			textbuf_escape(out, r->inputs[i].label);
			textbuf_printf(out, "” moves %zu IRQ%s",
				       json_array_size(json_object_get(run->json, "moves")),
				       json_array_size(json_object_get(run->json, "moves")) == 1 ?
					       "" :
					       "s");
			if (json_array_size(json_object_get(run->json, "unmovable")))
				textbuf_printf(
					out, "; %zu cannot be moved",
					json_array_size(json_object_get(run->json, "unmovable")));
			textbuf_puts(out, ". ");
			said = true;
		} else if (run->kind == RUN_COMPARE &&
			   json_is_string(json_object_get(run->json, "verdict"))) {
			textbuf_puts(out, "The comparison “");
			textbuf_escape(out, r->inputs[i].label);
			textbuf_puts(out, "”: ");
			textbuf_escape(out,
				       json_string_value(json_object_get(run->json, "verdict")));
			textbuf_puts(out, ". ");
			said = true;
		}
	}
	if (!said)
		textbuf_puts(out, "No input holds a measurement, an audit or an IRQ plan.");
	textbuf_puts(out, "</p>\n");
}

static int comparison_section(const struct report *r, struct textbuf *out)
{
	unsigned int k;
	bool any = false;
	int ret;

	for (k = 0; k < r->nr_figures; k++)
		any |= r->figures[k].kind == FIGURE_OVERLAY_EXCEEDANCE ||
		       r->figures[k].kind == FIGURE_OVERLAY_HISTOGRAM;
	if (!any)
		return 0;
	textbuf_puts(out, "<section id=\"compare\">\n<h2>Inputs side by side</h2>\n"
			  "<p class=\"sub\">One colour per input; histograms as shares of each "
			  "input's samples, so that runs of different lengths compare.</p>\n"
			  "<div class=\"grid\">\n");
	for (k = 0; k < r->nr_figures; k++) {
		if (r->figures[k].kind != FIGURE_OVERLAY_EXCEEDANCE &&
		    r->figures[k].kind != FIGURE_OVERLAY_HISTOGRAM)
			continue;
		ret = report_emit_figure(r, &r->figures[k], out, NULL);
		if (ret)
			return ret;
	}
	textbuf_puts(out, "</div>\n</section>\n");
	return 0;
}

int report_html(struct report *r, struct textbuf *out)
{
	unsigned int i;
	int ret = 0;

	textbuf_puts(out,
		     "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"generator\" content=\"latscope " LATSCOPE_VERSION "\">\n"
		     "<title>");
	textbuf_escape(out, r->title);
	textbuf_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
	textbuf_escape(out, r->title);
	textbuf_printf(out,
		       "</h1>\n<p class=\"sub\">%u input%s, drawn by latscope %s</p>\n</header>\n",
		       r->nr_inputs, r->nr_inputs == 1 ? "" : "s", LATSCOPE_VERSION);
	/* a diagnosis leads: its verdict and fixes before anything measured */
	for (i = 0; i < r->nr_inputs; i++)
		if (r->inputs[i].run->kind == RUN_DOCTOR)
			report_doctor_section(r, i, out);
	summary(r, out);
	inputs_table(r, out);
	hosts(r, out);
	for (i = 0; i < r->nr_inputs && !ret; i++) {
		const struct run *run = r->inputs[i].run;

		if (run_is_measurement(run))
			ret = measurement_section(r, i, out);
		else if (run->kind == RUN_CHECK)
			audit_section(r, i, out);
		else if (run->kind == RUN_IRQ)
			ret = irq_section(r, i, out);
		else if (run->kind == RUN_COMPARE)
			generic_section(r, i, out);
	}
	if (!ret)
		ret = comparison_section(r, out);
	if (ret)
		return ret;
	textbuf_puts(out, "<footer>Made by latscope " LATSCOPE_VERSION
			  ". This page is one file: it loads nothing and runs no script.</footer>\n"
			  "</body>\n</html>\n");
	return textbuf_error(out);
}

int report_write_html(struct report *r, const char *path)
{
	struct textbuf page;
	int ret;

	textbuf_init(&page);
	ret = report_html(r, &page);
	if (!ret)
		ret = textbuf_write_file(&page, path);
	textbuf_release(&page);
	return ret;
}
