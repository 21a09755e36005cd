// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which plots a page holds, in page order: decided once from the inputs,
 * so that the page, the SVG files and the tests see the same list.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

static void slugify(const char *text, char *out, size_t size)
{
	size_t n = 0;
	bool dash = false;

	for (; text && *text && n + 1 < size; text++) {
		char c = *text;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && n)
				out[n++] = '-';
			if (n + 1 < size)
				out[n++] = c;
			dash = false;
		} else {
			dash = true;
		}
	}
	out[n] = '\0';
}

static struct figure *add_figure(struct report *r, enum figure_kind kind, unsigned int input,
				 const char *id_fmt, ...) __attribute__((format(printf, 4, 5)));

static struct figure *add_figure(struct report *r, enum figure_kind kind, unsigned int input,
				 const char *id_fmt, ...)
{
	struct figure *f;
	char id[96];
	va_list ap;
	unsigned int i, suffix = 1;

	if (r->nr_figures == r->cap_figures) {
		unsigned int cap = r->cap_figures ? r->cap_figures * 2 : 32;
		struct figure *grown = realloc(r->figures, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		r->figures = grown;
		r->cap_figures = cap;
	}
	f = &r->figures[r->nr_figures];
	memset(f, 0, sizeof(*f));
	va_start(ap, id_fmt);
	vsnprintf(id, sizeof(id), id_fmt, ap);
	va_end(ap);
	/* ids name files: keep them unique */
	snprintf(f->id, sizeof(f->id), "%s", id);
	for (i = 0; i < r->nr_figures; i++)
		if (!strcmp(r->figures[i].id, f->id)) {
			snprintf(f->id, sizeof(f->id), "%.80s-%u", id, ++suffix);
			i = (unsigned int)-1;
		}
	f->kind = kind;
	f->input = input;
	f->cpu = -1;
	r->nr_figures++;
	return f;
}

static double series_low(const struct run_series *s)
{
	const struct run_histogram *h = &s->histogram;

	if (!h->present || !h->nr_buckets)
		return NAN;
	return fmax((double)h->buckets[0].low_ns, 1);
}

static const char *noun(enum run_measure m, bool plural)
{
	if (m == RUN_MEASURE_NOISE)
		return plural ? "gaps" : "gap";
	return plural ? "latencies" : "latency";
}

/* histograms: all series in one plot (up to 8), else one plot each */
static int plan_histograms(struct report *r, unsigned int i, bool log_x)
{
	const struct report_input *in = &r->inputs[i];
	const struct run *run = in->run;
	enum figure_kind kind = log_x ? FIGURE_HISTOGRAM_LOG : FIGURE_HISTOGRAM;
	const char *what = log_x ? "log-histogram" : "histogram";
	struct figure *f;
	unsigned int k;

	if (run->nr_series <= REPORT_SERIES_PER_PLOT) {
		f = add_figure(r, kind, i, "%s-%s", in->slug, what);
		if (!f)
			return -ENOMEM;
		f->count = run->nr_series;
		snprintf(f->title, sizeof(f->title), "%s: histogram of %s%s", in->label,
			 noun(run->series[0].measure, true), log_x ? " (log x)" : "");
		return 0;
	}
	for (k = 0; k < run->nr_series; k++) {
		char slug[48];

		slugify(run->series[k].label, slug, sizeof(slug));
		f = add_figure(r, kind, i, "%s-%s-%s", in->slug, what, slug);
		if (!f)
			return -ENOMEM;
		f->first = k;
		f->count = 1;
		f->compact = true;
		snprintf(f->title, sizeof(f->title), "%s%s", run->series[k].label,
			 log_x ? " (log x)" : "");
	}
	return 0;
}

static int compare_max(const void *a, const void *b, void *series)
{
	const struct run_series *s = series;
	double x = report_series_max(&s[*(const unsigned int *)a]);
	double y = report_series_max(&s[*(const unsigned int *)b]);

	if (!isfinite(x))
		x = -1;
	if (!isfinite(y))
		y = -1;
	return x > y ? -1 : x < y;
}

static bool has_timed_spikes(const struct run_series *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_worst; i++)
		if (run_has(s->worst[i].t_ns))
			return true;
	return false;
}

static int plan_measurement(struct report *r, unsigned int i)
{
	const struct report_input *in = &r->inputs[i];
	const struct run *run = in->run;
	double low = INFINITY, high = 0;
	unsigned int k, n, *order;
	bool windows = false, worst = false, causes = false;
	struct figure *f;
	int ret;

	for (k = 0; k < run->nr_series; k++) {
		const struct run_series *s = &run->series[k];

		if (isfinite(series_low(s)))
			low = fmin(low, series_low(s));
		if (isfinite(report_series_max(s)))
			high = fmax(high, report_series_max(s));
		windows |= s->nr_windows > 0;
		worst |= s->nr_worst > 0;
		causes |= s->nr_causes > 0;
	}
	if (isfinite(low) && high > 0) {
		ret = plan_histograms(r, i, false);
		/* values spanning two decades or more: the log-x view shows the body */
		if (!ret && high / low >= 100)
			ret = plan_histograms(r, i, true);
		if (ret)
			return ret;
		for (k = 0; k < run->nr_series; k += REPORT_SERIES_PER_PLOT) {
			f = add_figure(r, FIGURE_EXCEEDANCE, i, "%s-exceedance%s", in->slug,
				       run->nr_series > REPORT_SERIES_PER_PLOT ? "-group" : "");
			if (!f)
				return -ENOMEM;
			f->first = k;
			f->count = run->nr_series - k < REPORT_SERIES_PER_PLOT ?
					   run->nr_series - k :
					   REPORT_SERIES_PER_PLOT;
			f->compact = run->nr_series > REPORT_SERIES_PER_PLOT;
			if (run->nr_series > REPORT_SERIES_PER_PLOT)
				snprintf(f->title, sizeof(f->title), "%s: P(%s > x), %s to %s",
					 in->label, noun(run->series[0].measure, false),
					 run->series[k].label, run->series[k + f->count - 1].label);
			else
				snprintf(f->title, sizeof(f->title), "%s: P(%s > x)", in->label,
					 noun(run->series[0].measure, false));
		}
	}
	/* events over time: the series with the largest values first */
	order = malloc(run->nr_series * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (k = 0, n = 0; k < run->nr_series; k++)
		/* a monitor's windows show its time; a few spikes add nothing to them */
		if (run->series[k].nr_events ||
		    (has_timed_spikes(&run->series[k]) && !run->series[k].nr_windows))
			order[n++] = k;
	if (n)
		qsort_r(order, n, sizeof(*order), compare_max, run->series);
	for (k = 0; k < n && k < REPORT_EVENT_PLOTS; k++) {
		const struct run_series *s = &run->series[order[k]];
		char slug[48];

		slugify(s->label, slug, sizeof(slug));
		f = add_figure(r, FIGURE_EVENTS, i, "%s-over-time-%s", in->slug, slug);
		if (!f) {
			free(order);
			return -ENOMEM;
		}
		f->first = order[k];
		f->count = 1;
		f->compact = n > 1;
		snprintf(f->title, sizeof(f->title), "%s: %s over the run, %s", in->label,
			 s->nr_events ? noun(s->measure, true) : "the worst spikes", s->label);
		if (!s->nr_events)
			snprintf(f->caption, sizeof(f->caption),
				 "This input gives times only for its %u worst spikes, drawn here; "
				 "an input that lists every %s shows them all.",
				 s->nr_worst, noun(s->measure, false));
		else if (!s->events_complete)
			snprintf(f->caption, sizeof(f->caption),
				 "The %zu %s this input lists above its threshold (it may not list "
				 "every one). Drawn: the largest per 2 × 3 px cell.",
				 s->nr_events, noun(s->measure, true));
	}
	if (n > REPORT_EVENT_PLOTS) {
		/* say which series were left out, on the last plot */
		f = &r->figures[r->nr_figures - 1];
		snprintf(f->caption + strlen(f->caption), sizeof(f->caption) - strlen(f->caption),
			 "%sShown: the %d series with the largest values of %u.",
			 f->caption[0] ? " " : "", REPORT_EVENT_PLOTS, n);
	}
	free(order);
	for (k = 0; windows && k < run->nr_series; k += REPORT_SERIES_PER_PLOT) {
		f = add_figure(r, FIGURE_WINDOWS, i, "%s-windows", in->slug);
		if (!f)
			return -ENOMEM;
		f->first = k;
		f->count = run->nr_series - k < REPORT_SERIES_PER_PLOT ? run->nr_series - k :
									 REPORT_SERIES_PER_PLOT;
		f->compact = run->nr_series > REPORT_SERIES_PER_PLOT;
		snprintf(f->title, sizeof(f->title), "%s: maximum per window", in->label);
	}
	if (worst) {
		bool timeline = false;
		unsigned int j;

		for (k = 0; k < run->nr_series; k++)
			for (j = 0; j < run->series[k].nr_worst; j++)
				timeline |= run->series[k].worst[j].nr_timeline > 0;
		f = add_figure(r, FIGURE_ANATOMY, i, "%s-anatomy", in->slug);
		if (!f)
			return -ENOMEM;
		snprintf(f->title, sizeof(f->title), "%s: anatomy of the worst spikes", in->label);
		if (!timeline)
			snprintf(
				f->caption, sizeof(f->caption),
				"Each of the worst spikes split by what delayed the wake-up or took "
				"the CPU, the largest part first: this input keeps no timeline of "
				"them.");
	}
	if (causes) {
		f = add_figure(r, FIGURE_SHARES, i, "%s-causes", in->slug);
		if (!f)
			return -ENOMEM;
		snprintf(f->title, sizeof(f->title), "%s: share of lost time per cause", in->label);
	}
	return 0;
}

static bool cpu_in(const struct run *run, int cpu)
{
	unsigned int k;

	for (k = 0; k < run->nr_series; k++)
		if (run->series[k].cpu == cpu)
			return true;
	return false;
}

/* every input taking part measured @cpu only: its overlay is the one of all series */
static bool only_cpu(const struct report *r, enum run_measure measure, int cpu)
{
	unsigned int i, k;

	for (i = 0; i < r->nr_inputs; i++) {
		const struct run *run = r->inputs[i].run;

		if (!run_is_measurement(run) || run->series[0].measure != measure)
			continue;
		for (k = 0; k < run->nr_series; k++)
			if (run->series[k].cpu != cpu)
				return false;
	}
	return true;
}

static int plan_overlays(struct report *r, enum run_measure measure)
{
	const char *what = measure == RUN_MEASURE_NOISE ? "noise" : "latency";
	unsigned int i, k, taking = 0, cpus = 0;
	struct figure *f;

	for (i = 0; i < r->nr_inputs; i++)
		if (run_is_measurement(r->inputs[i].run) &&
		    r->inputs[i].run->series[0].measure == measure)
			taking++;
	if (taking < 2)
		return 0;
	f = add_figure(r, FIGURE_OVERLAY_EXCEEDANCE, 0, "compare-%s-exceedance", what);
	if (!f)
		return -ENOMEM;
	f->measure = measure;
	f->compact = true;
	snprintf(f->title, sizeof(f->title), "P(%s > x) of each input, all its series",
		 measure == RUN_MEASURE_NOISE ? "gap" : "latency");
	f = add_figure(r, FIGURE_OVERLAY_HISTOGRAM, 0, "compare-%s-histogram", what);
	if (!f)
		return -ENOMEM;
	f->measure = measure;
	f->compact = true;
	snprintf(f->title, sizeof(f->title), "%s histogram of each input (log x)",
		 measure == RUN_MEASURE_NOISE ? "gap" : "latency");
	/* one CPU at a time where two inputs or more measured it */
	for (i = 0; i < r->nr_inputs && cpus < REPORT_OVERLAY_CPUS; i++) {
		const struct run *run = r->inputs[i].run;

		if (!run_is_measurement(run) || run->series[0].measure != measure)
			continue;
		for (k = 0; k < run->nr_series && cpus < REPORT_OVERLAY_CPUS; k++) {
			int cpu = run->series[k].cpu;
			unsigned int j, seen = 0, earlier = 0;

			if (cpu < 0)
				continue;
			for (j = 0; j < r->nr_inputs; j++) {
				const struct run *other = r->inputs[j].run;

				if (!run_is_measurement(other) ||
				    other->series[0].measure != measure || !cpu_in(other, cpu))
					continue;
				seen++;
				if (j < i)
					earlier++;
			}
			/* once per CPU, and only CPUs that two inputs share */
			if (seen < 2 || earlier || (k && run->series[k - 1].cpu == cpu) ||
			    only_cpu(r, measure, cpu))
				continue;
			f = add_figure(r, FIGURE_OVERLAY_EXCEEDANCE, 0, "compare-%s-cpu%d", what,
				       cpu);
			if (!f)
				return -ENOMEM;
			f->measure = measure;
			f->compact = true;
			f->cpu = cpu;
			snprintf(f->title, sizeof(f->title), "P(%s > x) on cpu %d",
				 measure == RUN_MEASURE_NOISE ? "gap" : "latency", cpu);
			cpus++;
		}
	}
	return 0;
}

static bool irq_has_rates(const struct run *run)
{
	return json_array_size(json_object_get(run->json, "cpu_loads")) ||
	       json_array_size(json_object_get(run->json, "cpus"));
}

int report_plan_figures(struct report *r)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < r->nr_inputs && !ret; i++) {
		const struct run *run = r->inputs[i].run;
		const struct report_part *part = report_part_of(run->kind);

		if (run_is_measurement(run)) {
			ret = plan_measurement(r, i);
		} else if (part && part->plan) {
			ret = part->plan(r, i);
		} else if (run->kind == RUN_IRQ && irq_has_rates(run)) {
			struct figure *f =
				add_figure(r, FIGURE_IRQ, i, "%s-irq-rates", r->inputs[i].slug);

			if (!f)
				return -ENOMEM;
			snprintf(f->title, sizeof(f->title), "%s: interrupts per CPU%s",
				 r->inputs[i].label,
				 json_object_get(run->json, "cpu_loads") ?
					 ", before and after the plan" :
					 "");
		}
	}
	if (!ret)
		ret = plan_overlays(r, RUN_MEASURE_TIMER);
	if (!ret)
		ret = plan_overlays(r, RUN_MEASURE_NOISE);
	return ret;
}

struct figure *report_add_figure(struct report *r, enum figure_kind kind, unsigned int input,
				 const char *id)
{
	return add_figure(r, kind, input, "%s", id);
}

unsigned int report_nr_plots(const struct report *report)
{
	return report->nr_figures;
}

static void make_slug(struct report *r, unsigned int i)
{
	struct report_input *in = &r->inputs[i];
	unsigned int j, suffix = 1;
	char slug[40];

	slugify(in->label, slug, sizeof(slug));
	if (!slug[0])
		snprintf(slug, sizeof(slug), "input%u", i + 1);
	snprintf(in->slug, sizeof(in->slug), "%s", slug);
	for (j = 0; j < r->nr_inputs; j++)
		if (j != i && !strcmp(r->inputs[j].slug, in->slug)) {
			snprintf(in->slug, sizeof(in->slug), "%s-%u", slug, ++suffix);
			j = (unsigned int)-1;
		}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void report_name_input(struct report *r, unsigned int i, const char *label)
{
	struct report_input *in = &r->inputs[i];
	const char *base = base_name(in->run->path), *dot;
	unsigned int j, suffix = 1;

	in->slug[0] = '\0';
	in->named = label && *label;
	if (in->named) {
		snprintf(in->label, sizeof(in->label), "%s", label);
	} else {
		dot = strrchr(base, '.');
		if (dot && dot != base && (!strcmp(dot, ".json") || !strcmp(dot, ".txt")))
			snprintf(in->label, sizeof(in->label), "%.*s", (int)(dot - base), base);
		else
			snprintf(in->label, sizeof(in->label), "%s", base);
		/* files that differ only in their extension both keep it */
		for (j = 0; j < i; j++)
			if (!strcmp(r->inputs[j].label, in->label)) {
				snprintf(in->label, sizeof(in->label), "%s", base);
				if (!r->inputs[j].named) {
					snprintf(r->inputs[j].label, sizeof(r->inputs[j].label),
						 "%s", base_name(r->inputs[j].run->path));
					make_slug(r, j);
				}
			}
	}
	for (j = 0; j < i; j++)
		if (!strcmp(r->inputs[j].label, in->label)) {
			size_t len = strlen(in->label);

			snprintf(in->label + (len < sizeof(in->label) - 8 ? len :
									    sizeof(in->label) - 8),
				 8, " (%u)", ++suffix);
			j = (unsigned int)-1;
		}
	make_slug(r, i);
}
