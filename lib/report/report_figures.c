// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plots of a report, each drawn through the plot module from the
 * result model: histograms, exceedance curves, events over time, monitor
 * windows, spike anatomy, cause shares, IRQ rates and overlays.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/hist.h"
#include "report_internal.h"

/* colours of causes: the same kind has the same colour on every plot */
const char *report_cause_colour(enum run_cause_kind kind)
{
	switch (kind) {
	case RUN_CAUSE_TIMER_DELAY:
		return "#D55E00"; /* vermillion */
	case RUN_CAUSE_IRQ:
		return "#0072B2"; /* blue */
	case RUN_CAUSE_VECTOR:
		return "#56B4E9"; /* sky blue */
	case RUN_CAUSE_SOFTIRQ:
		return "#009E73"; /* bluish green */
	case RUN_CAUSE_NMI:
		return "#000000";
	case RUN_CAUSE_THREAD:
		return "#CC79A7"; /* reddish purple */
	case RUN_CAUSE_SCHEDULING:
		return "#E69F00"; /* orange */
	case RUN_CAUSE_THROTTLING:
		return "#F0E442"; /* yellow */
	case RUN_CAUSE_UNEXPLAINED:
		return PLOT_GREY;
	default:
		return "#CCCCCC";
	}
}

/*
 * The budget in black dash-dot, and missed periods in grey: every palette
 * colour is some CPU's or input's on a page, and a line in one of them would
 * read as that series.
 */
static const struct plot_style budget_style = { "#000000", 1.5, "8 3 2 3", 0 };
static const struct plot_style max_style_base = { "#333333", 1, "3 3", 0 };

static const char *measure_noun(enum run_measure m)
{
	return m == RUN_MEASURE_NOISE ? "gap" : "latency";
}

double report_series_max(const struct run_series *s)
{
	const struct run_histogram *h = &s->histogram;

	if (run_has(s->max_ns))
		return (double)s->max_ns;
	if (h->present && h->overflow && run_has(h->overflow_from_ns))
		return (double)h->overflow_from_ns;
	if (h->present && h->nr_buckets)
		return (double)h->buckets[h->nr_buckets - 1].high_ns;
	return NAN;
}

uint64_t report_series_samples(const struct run_series *s)
{
	if (run_has(s->count))
		return s->count;
	if (s->histogram.present)
		return s->histogram.total;
	return 0;
}

static int compare_buckets(const void *a, const void *b)
{
	const struct run_bucket *x = a, *y = b;

	if (x->low_ns != y->low_ns)
		return x->low_ns < y->low_ns ? -1 : 1;
	return x->high_ns < y->high_ns ? -1 : x->high_ns > y->high_ns;
}

int report_merge_histograms(const struct run_series *series, unsigned int count,
			    struct run_histogram *merged)
{
	size_t n = 0, i, kept;
	unsigned int k;

	memset(merged, 0, sizeof(*merged));
	merged->overflow_from_ns = RUN_NONE;
	for (k = 0; k < count; k++)
		if (series[k].histogram.present)
			n += series[k].histogram.nr_buckets;
	merged->buckets = malloc((n ? n : 1) * sizeof(*merged->buckets));
	if (!merged->buckets)
		return -ENOMEM;
	for (k = 0, n = 0; k < count; k++) {
		const struct run_histogram *h = &series[k].histogram;

		if (!h->present)
			continue;
		merged->present = true;
		if (h->nr_buckets)
			memcpy(merged->buckets + n, h->buckets,
			       h->nr_buckets * sizeof(*h->buckets));
		n += h->nr_buckets;
		merged->total += h->total;
		merged->overflow += h->overflow;
		if (h->overflow && run_has(h->overflow_from_ns) &&
		    (!run_has(merged->overflow_from_ns) ||
		     h->overflow_from_ns < merged->overflow_from_ns))
			merged->overflow_from_ns = h->overflow_from_ns;
	}
	if (n)
		qsort(merged->buckets, n, sizeof(*merged->buckets), compare_buckets);
	for (i = 1, kept = n ? 1 : 0; i < n; i++) {
		struct run_bucket *last = &merged->buckets[kept - 1];

		if (last->low_ns == merged->buckets[i].low_ns &&
		    last->high_ns == merged->buckets[i].high_ns)
			last->count += merged->buckets[i].count;
		else
			merged->buckets[kept++] = merged->buckets[i];
	}
	merged->nr_buckets = (unsigned int)kept;
	return 0;
}

/* the range of values of a set of histograms: lowest bucket, highest value */
static void value_range(const struct run_series *series, unsigned int count, double *low,
			double *high)
{
	unsigned int k;

	*low = INFINITY;
	*high = 0;
	for (k = 0; k < count; k++) {
		const struct run_histogram *h = &series[k].histogram;
		double max = report_series_max(&series[k]);

		if (!h->present || !h->total)
			continue;
		if (h->nr_buckets)
			*low = fmin(*low, (double)h->buckets[0].low_ns);
		if (isfinite(max))
			*high = fmax(*high, max);
		if (h->nr_buckets)
			*high = fmax(*high, (double)h->buckets[h->nr_buckets - 1].high_ns);
	}
	if (!isfinite(*low))
		*low = 1;
}

void report_budget_marker(struct plot *p, double budget_ns, const struct plot_style *style,
			  bool vertical)
{
	char label[64], value[32];

	snprintf(label, sizeof(label), "budget %s",
		 plot_format_duration(budget_ns, value, sizeof(value)));
	if (vertical)
		plot_vmarker(p, budget_ns, label, style);
	else
		plot_hmarker(p, budget_ns, label, style);
}

static void budget_marker(const struct report *r, struct plot *p, bool vertical)
{
	if (r->options.budget_ns)
		report_budget_marker(p, (double)r->options.budget_ns, &budget_style, vertical);
}

void report_legend_below(struct plot_spec *spec, bool below, unsigned int rows)
{
	spec->legend_outside = below;
	spec->legend_rows = rows;
	if (below)
		spec->height += 18.0 * rows;
}

void report_exceedance_axes(struct plot_spec *spec, double x_min, double x_max, double tail)
{
	spec->x_type = PLOT_LOG;
	spec->x_quantity = PLOT_DURATION;
	spec->x_min = x_min;
	spec->x_max = x_max;
	spec->y_type = PLOT_LOG;
	spec->y_quantity = PLOT_PROBABILITY;
	spec->y_min = tail / 2;
	spec->y_max = 1;
}

/*
 * The style of a series: by its place in the run, so that a CPU keeps its
 * colour on every plot of an input; in a plot of its own when the run has
 * more series than colours, plain blue.
 */
static void series_style(const struct report *r, const struct figure *f, unsigned int k,
			 double width, struct plot_style *style)
{
	const struct run *run = r->inputs[f->input].run;

	if (run->nr_series > REPORT_SERIES_PER_PLOT)
		plot_series_style(f->count == 1 ? 0 : k, width, style);
	else
		plot_series_style(f->first + k, width, style);
}

static const char *series_name(const struct report_input *in, const struct run_series *s, char *buf,
			       size_t size)
{
	(void)in;
	snprintf(buf, size, "%s", s->label ? s->label : "?");
	return buf;
}

/* histograms ------------------------------------------------------------- */

/* a histogram as steps: edges[n + 1] and heights[n], contiguous */
struct steps {
	double *edges;
	double *heights;
	size_t n;
};

static void steps_release(struct steps *s)
{
	free(s->edges);
	free(s->heights);
	s->edges = s->heights = NULL;
	s->n = 0;
}

static double steps_top(const struct steps *s)
{
	double top = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		top = fmax(top, s->heights[i]);
	return top;
}

/*
 * Linear bins of width @step from 0: each bucket whole into the bin of its
 * middle, so counts stay whole (a single sample shows as 1) and the total is
 * kept; the caller picks bins no narrower than the widest bucket.
 */
static int linear_steps(const struct run_histogram *h, double step, size_t nr, struct steps *s)
{
	size_t i;

	s->n = nr;
	s->edges = malloc((nr + 1) * sizeof(*s->edges));
	s->heights = calloc(nr ? nr : 1, sizeof(*s->heights));
	if (!s->edges || !s->heights)
		return -ENOMEM;
	for (i = 0; i <= nr; i++)
		s->edges[i] = (double)i * step;
	for (i = 0; h->present && i < h->nr_buckets; i++) {
		double mid = ((double)h->buckets[i].low_ns + (double)h->buckets[i].high_ns) / 2;
		size_t bin = (size_t)floor(mid / step);

		s->heights[bin < nr ? bin : nr - 1] += (double)h->buckets[i].count;
	}
	return 0;
}

/*
 * Log bins, @nr between @low and @high, as "samples per bin": a bucket
 * narrower than a bin lands whole in the bin of its middle, and a wider one
 * (the peers' 1 us buckets at small values) is spread over the bins its
 * range covers, in proportion to the log width it has in each, rather than
 * piled at its middle. Bucket counts are conserved. With @normalize the
 * heights are shares of the samples.
 */
static int log_steps(const struct run_histogram *h, double low, double high, size_t nr,
		     bool normalize, struct steps *s)
{
	double width = (log10(high) - log10(low)) / (double)nr, base = log10(low);
	size_t i, j;

	s->n = nr;
	s->edges = malloc((nr + 1) * sizeof(*s->edges));
	s->heights = calloc(nr, sizeof(*s->heights));
	if (!s->edges || !s->heights)
		return -ENOMEM;
	for (i = 0; i <= nr; i++)
		s->edges[i] = pow(10, base + width * (double)i);
	for (i = 0; h->present && i < h->nr_buckets; i++) {
		const struct run_bucket *b = &h->buckets[i];
		double top = (double)b->high_ns + 1, bottom, from, to, span;
		long first, last, k;

		/* a bucket from 0 is drawn over its top decade: a log axis has no 0 */
		bottom = fmax(fmax((double)b->low_ns, top / 10), low);
		if (top <= bottom)
			top = bottom * 1.0001;
		from = (log10(bottom) - base) / width;
		to = (log10(top) - base) / width;
		span = to - from;
		first = (long)floor(from);
		last = (long)floor(to - 1e-12);
		/* narrower than a bin: whole, in the bin of its middle, so counts stay whole */
		if (span < 1)
			first = last = (long)floor((from + to) / 2), from = (double)first,
			to = from + 1, span = 1;
		for (k = first; k <= last; k++) {
			double part = (fmin(to, (double)k + 1) - fmax(from, (double)k)) / span;
			long bin = k < 0 ? 0 : k >= (long)nr ? (long)nr - 1 : k;

			s->heights[bin] += (double)b->count * part;
		}
	}
	if (normalize && h->total)
		for (j = 0; j < nr; j++)
			s->heights[j] /= (double)h->total;
	return 0;
}

/* lines under the x axis: values a histogram holds beyond its buckets */
static unsigned int overflow_lines(const struct run_series *series, unsigned int count)
{
	unsigned int k, n = 0;

	for (k = 0; k < count; k++)
		n += series[k].histogram.present && series[k].histogram.overflow;
	return n < 3 ? n : 3;
}

static void overflow_notes(struct plot *p, const struct run_series *series, unsigned int count)
{
	char line[160], from[32], n[32];
	unsigned int k, lines = 0;

	/* under the x axis, outside the data area */
	if (overflow_lines(series, count))
		plot_unclip(p);

	for (k = 0; k < count && lines < 3; k++) {
		const struct run_histogram *h = &series[k].histogram;

		if (!h->present || !h->overflow)
			continue;
		if (run_has(h->overflow_from_ns))
			snprintf(line, sizeof(line),
				 "%s: %s samples beyond the histogram (≥ %s, shaded)",
				 series[k].label,
				 plot_format_count((double)h->overflow, n, sizeof(n)),
				 plot_format_duration((double)h->overflow_from_ns, from,
						      sizeof(from)));
		else
			snprintf(line, sizeof(line), "%s: %s samples beyond the histogram",
				 series[k].label,
				 plot_format_count((double)h->overflow, n, sizeof(n)));
		plot_text(p, p->left,
			  p->height - 8 - 15.0 * (overflow_lines(series, count) - 1 - lines),
			  "start", line, 10.5, "fill=\"#555555\"");
		lines++;
	}
}

/*
 * How many log bins between @low and @high for @samples samples: finer with
 * more samples (about twice their cube root a decade, as the usual rules
 * for bin counts go), so a run of a few thousand samples is not drawn as
 * noise, and 10 to 50 a decade whatever the count.
 */
static size_t log_bins(uint64_t samples, double low, double high)
{
	double per_decade = fmin(fmax(2 * cbrt((double)samples), 10), 50);
	double decades = fmax(log10(high) - log10(low), 0.1);

	return (size_t)fmin(fmax(ceil(per_decade * decades), 10), 400);
}

/* the bins of @s below the value from which @h knows only a count */
static size_t known_bins(const struct run_histogram *h, const struct steps *s)
{
	size_t n = s->n;

	if (!h->overflow || !run_has(h->overflow_from_ns))
		return n;
	while (n && s->edges[n - 1] >= (double)h->overflow_from_ns)
		n--;
	return n;
}

/*
 * The range beyond a histogram's buckets, shaded: values fell there (the
 * note under the plot counts them) but the file does not say where, so an
 * empty line there would read as "none".
 */
static void shade_overflow(struct plot *p, const struct run_series *series, unsigned int count)
{
	double from = INFINITY;
	unsigned int k;

	for (k = 0; k < count; k++) {
		const struct run_histogram *h = &series[k].histogram;

		if (h->present && h->overflow && run_has(h->overflow_from_ns))
			from = fmin(from, (double)h->overflow_from_ns);
	}
	if (isfinite(from) && from < p->x.max)
		plot_rect(p, fmax(from, p->x.min), p->y.min, p->x.max, p->y.max, "rgba(0,0,0,0.06)",
			  "beyond the histogram: only the count is known");
}

/* the x range of a linear histogram and its bin width */
static double linear_bins(const struct run_series *series, unsigned int count, double high,
			  size_t *nr)
{
	double widest = 1, step;
	unsigned int k;
	size_t i;

	/*
	 * OSADL's plot starts at 0. Bins of a round width, at least ~2 px and
	 * no narrower than the widest bucket, so that no bin between two filled
	 * ones stays empty only because of the bucket layout.
	 */
	for (k = 0; k < count; k++)
		for (i = 0; series[k].histogram.present && i < series[k].histogram.nr_buckets; i++)
			widest = fmax(widest, (double)(series[k].histogram.buckets[i].high_ns -
						       series[k].histogram.buckets[i].low_ns + 1));
	step = plot_nice_step(fmax(high / 250, widest));
	*nr = (size_t)ceil(high * 1.03 / step);
	return step;
}

static int draw_histogram(const struct report *r, const struct figure *f, struct textbuf *out,
			  bool standalone, bool log_x)
{
	const struct report_input *in = &r->inputs[f->input];
	const struct run_series *series = in->run->series + f->first;
	struct plot_spec spec = { 0 };
	struct steps *steps;
	struct plot p;
	double low, high, top = 0, step = 0;
	char y_title[96], unit_text[32], name[96], legend[160], value[32];
	unsigned int k, notes;
	size_t nr = 200;
	int ret = 0;

	value_range(series, f->count, &low, &high);
	if (!(high > 0))
		return 0;
	steps = calloc(f->count, sizeof(*steps));
	if (!steps)
		return -ENOMEM;
	if (log_x) {
		uint64_t fewest = UINT64_MAX;

		for (k = 0; k < f->count; k++)
			if (series[k].histogram.present && series[k].histogram.total)
				fewest = series[k].histogram.total < fewest ?
						 series[k].histogram.total :
						 fewest;
		low = pow(10, floor(log10(fmax(low, 1))));
		high = high * 1.05;
		nr = log_bins(fewest, low, high);
		snprintf(y_title, sizeof(y_title), "samples per bin (%.0f bins a decade)",
			 (double)nr / (log10(high) - log10(low)));
	} else {
		step = linear_bins(series, f->count, high, &nr);
		low = 0;
		high = (double)nr * step;
		snprintf(y_title, sizeof(y_title), "samples per %s bin",
			 plot_format_duration(step, unit_text, sizeof(unit_text)));
	}
	for (k = 0; k < f->count && !ret; k++) {
		if (!series[k].histogram.present)
			continue;
		ret = log_x ? log_steps(&series[k].histogram, low, high, nr, false, &steps[k]) :
			      linear_steps(&series[k].histogram, step, nr, &steps[k]);
		top = fmax(top, steps_top(&steps[k]));
	}
	if (ret)
		goto out;
	notes = overflow_lines(series, f->count);
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = measure_noun(series[0].measure);
	spec.y_title = y_title;
	spec.width = f->compact ? 460 : 640;
	spec.height = (f->compact ? 280 : 360) + 15.0 * notes;
	spec.x_type = log_x ? PLOT_LOG : PLOT_LINEAR;
	spec.x_quantity = PLOT_DURATION;
	spec.x_min = low;
	spec.x_max = high;
	spec.x_exact = !log_x;
	spec.y_type = PLOT_LOG;
	spec.y_quantity = PLOT_COUNT;
	/*
	 * Below 1, as OSADL's 0.8: a bin of one sample stands above the axis;
	 * on log x a sample may be split between two bins, so lower still.
	 */
	spec.y_min = log_x ? 0.25 : 0.5;
	spec.y_max = pow(10, ceil(log10(fmax(top, 1) * 1.5)));
	spec.y_exact = true;
	spec.standalone = standalone;
	spec.bottom_space = 15.0 * notes;
	report_legend_below(&spec, f->count > 3, (f->count + 1) / 2);
	spec.description = "histogram of the measured values, log count";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		goto out;
	shade_overflow(&p, series, f->count);
	for (k = 0; k < f->count; k++) {
		struct plot_style style, max_style = max_style_base;
		double max = report_series_max(&series[k]);

		series_style(r, f, k, 1.5, &style);
		if (!series[k].histogram.present)
			continue;
		/* beyond its last bucket a histogram knows a count, not where: no line there */
		plot_steps(&p, steps[k].edges, steps[k].heights,
			   known_bins(&series[k].histogram, &steps[k]), &style);
		max_style.colour = style.colour;
		if (isfinite(max)) {
			snprintf(legend, sizeof(legend), "max %s",
				 plot_format_duration(max, value, sizeof(value)));
			plot_vmarker(&p, max, f->count == 1 ? legend : NULL, &max_style);
		}
		snprintf(legend, sizeof(legend), "%s (max %s)",
			 series_name(in, &series[k], name, sizeof(name)),
			 plot_format_duration(max, value, sizeof(value)));
		if (f->count > 1)
			plot_legend(&p, legend, &style, false);
	}
	budget_marker(r, &p, true);
	overflow_notes(&p, series, f->count);
	plot_end(&p);
out:
	for (k = 0; k < f->count; k++)
		steps_release(&steps[k]);
	free(steps);
	return ret;
}

/* exceedance ------------------------------------------------------------- */

/*
 * P(X > x) from a histogram: known exactly at bucket edges only, so drawn as
 * a staircase that drops at each bucket's upper edge. Between edges it shows
 * the larger, known value: the tail is never drawn lighter than it is.
 * Points within half a pixel of the last add nothing and are skipped.
 */
static void exceedance_curve(struct plot *p, const struct run_histogram *h, double max,
			     const struct plot_style *style)
{
	double *x, *y, above, level = 1;
	size_t n = 0, i;

	if (!h->present || !h->total || !h->nr_buckets)
		return;
	x = malloc((2 * (size_t)h->nr_buckets + 4) * sizeof(*x));
	y = malloc((2 * (size_t)h->nr_buckets + 4) * sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return;
	}
	above = (double)h->total;
	x[n] = fmax((double)h->buckets[0].low_ns, p->x.min);
	y[n++] = 1;
	for (i = 0; i < h->nr_buckets; i++) {
		double edge = (double)h->buckets[i].high_ns + 1, next;

		above -= (double)h->buckets[i].count;
		next = above / (double)h->total;
		if (above <= 0)
			break;
		if (fabs(plot_scale_map(&p->y, next) - plot_scale_map(&p->y, level)) < 0.5 &&
		    i + 1 < h->nr_buckets)
			continue;
		x[n] = edge;
		y[n++] = level;
		x[n] = edge;
		y[n++] = next;
		level = next;
	}
	if (above > 0 && isfinite(max) && max > x[n - 1]) {
		/* values beyond the histogram: only their count is known, dashed */
		struct plot_style dashed = *style;
		double tail_x[3] = { x[n - 1], max, max };
		double tail_y[3] = { level, level, 1.0 / (double)h->total };

		plot_line(p, x, y, n, style);
		dashed.dash = "4 3";
		plot_line(p, tail_x, tail_y, 3, &dashed);
	} else {
		/* the last samples: flat to the max, then down to the one that reached it */
		if (isfinite(max) && max > x[n - 1]) {
			x[n] = max;
			y[n++] = level;
			x[n] = max;
			y[n++] = 1.0 / (double)h->total;
		}
		plot_line(p, x, y, n, style);
	}
	free(x);
	free(y);
}

static void mark_percentiles(struct plot *p, const struct run_series *s,
			     const struct run_histogram *h, const struct plot_style *style,
			     bool labels)
{
	const double *wanted = hist_reported_percentiles;
	char label[64], value[32];
	size_t i;
	unsigned int j;

	if (!h->present || !h->total)
		return;
	for (i = 0; i < HIST_NR_REPORTED; i++) {
		double tail = 1 - wanted[i] / 100, at = NAN;
		uint64_t ns;

		/* the tail: the body's percentiles crowd the top of the plot */
		if (wanted[i] < 99)
			continue;

		/* a percentile needs samples beyond it to mean anything */
		if ((double)h->total * tail < 1)
			break;
		for (j = 0; s && j < s->nr_percentiles; j++)
			if (fabs(s->percentiles[j].percent - wanted[i]) < 1e-9)
				at = (double)s->percentiles[j].ns;
		if (!isfinite(at) && !run_histogram_quantile(h, wanted[i] / 100, &ns))
			at = (double)ns;
		if (!isfinite(at) || at <= 0)
			continue;
		/* where the max's own dot and label are (the last samples): they say it */
		if (s && isfinite(report_series_max(s)) &&
		    fabs(plot_scale_map(&p->x, at) - plot_scale_map(&p->x, report_series_max(s))) <
			    40 &&
		    fabs(plot_scale_map(&p->y, tail) -
			 plot_scale_map(&p->y, 1 / (double)h->total)) < 14)
			continue;
		snprintf(label, sizeof(label), "p%g %s", wanted[i],
			 plot_format_duration(at, value, sizeof(value)));
		plot_point_label(p, at, tail, labels ? label : NULL, style);
	}
}

static double smallest_tail(const struct run_histogram *h)
{
	return h->present && h->total ? 1.0 / (double)h->total : 1;
}

static int draw_exceedance(const struct report *r, const struct figure *f, struct textbuf *out,
			   bool standalone)
{
	const struct report_input *in = &r->inputs[f->input];
	const struct run_series *series = in->run->series + f->first;
	struct plot_spec spec = { 0 };
	struct plot p;
	double low, high, tail = 1;
	char legend[160], value[32], name[96], x_title[64], y_title[64];
	unsigned int k;
	int ret;

	value_range(series, f->count, &low, &high);
	if (!(high > 0))
		return 0;
	for (k = 0; k < f->count; k++)
		tail = fmin(tail, smallest_tail(&series[k].histogram));
	snprintf(x_title, sizeof(x_title), "%s x", measure_noun(series[0].measure));
	spec.id = f->id;
	spec.title = f->title;
	snprintf(y_title, sizeof(y_title), "P(%s > x)", measure_noun(series[0].measure));
	spec.x_title = x_title;
	spec.y_title = y_title;
	spec.width = f->compact ? 460 : 640;
	spec.height = f->compact ? 300 : 380;
	report_exceedance_axes(&spec, fmax(low, 1), high * 1.05, tail);
	spec.standalone = standalone;
	report_legend_below(&spec, f->count > 3, (f->count + 2) / 3);
	spec.description = "exceedance curve: the probability that a value exceeds x";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		return ret;
	for (k = 0; k < f->count; k++) {
		struct plot_style style;
		const struct run_histogram *h = &series[k].histogram;
		double max = report_series_max(&series[k]);

		series_style(r, f, k, 1.75, &style);
		if (!h->present)
			continue;
		exceedance_curve(&p, h, max, &style);
		/* labels for one curve; with several, the table above has the numbers */
		mark_percentiles(&p, &series[k], h, &style, f->count == 1);
		if (isfinite(max) && h->total) {
			snprintf(legend, sizeof(legend), "max %s",
				 plot_format_duration(max, value, sizeof(value)));
			plot_point_label(&p, max, 1.0 / (double)h->total,
					 f->count == 1 ? legend : NULL, &style);
		}
		snprintf(legend, sizeof(legend), "%s",
			 series_name(in, &series[k], name, sizeof(name)));
		plot_legend(&p, legend, &style, false);
	}
	budget_marker(r, &p, true);
	plot_end(&p);
	return 0;
}

/* gaps and spikes over the run ---------------------------------------------- */

static double run_length(const struct run *run, const struct run_series *s)
{
	double end = 0;
	size_t i;

	if (run_has(s->run_ns))
		return (double)s->run_ns;
	if (run->start_ns != RUN_NO_TIME && run->end_ns != RUN_NO_TIME &&
	    run->end_ns > run->start_ns)
		end = (double)(run->end_ns - run->start_ns);
	for (i = 0; i < s->nr_events; i++)
		end = fmax(end, (double)(s->events[i].t_ns + s->events[i].ns));
	for (i = 0; i < s->nr_worst; i++)
		if (run_has(s->worst[i].t_ns))
			end = fmax(end, (double)(s->worst[i].t_ns + s->worst[i].duration_ns));
	return end > 0 ? end : 1;
}

static int draw_events(const struct report *r, const struct figure *f, struct textbuf *out,
		       bool standalone)
{
	const struct report_input *in = &r->inputs[f->input];
	const struct run_series *s = &in->run->series[f->first];
	struct plot_style style;
	struct plot_spec spec = { 0 };
	struct plot_reducer reducer;
	struct plot_point *points = NULL, worst = { NAN, NAN };
	struct plot p;
	double low = INFINITY, high = 0, *x, *y;
	char y_title[64], label[96], at[32], size[32];
	size_t i, n;
	bool only_worst = !s->nr_events;
	int ret;

	series_style(r, f, 0, 0, &style);
	style.dash = NULL;
	style.opacity = 0.75;
	for (i = 0; i < s->nr_events; i++) {
		low = fmin(low, (double)s->events[i].ns);
		high = fmax(high, (double)s->events[i].ns);
	}
	for (i = 0; only_worst && i < s->nr_worst; i++) {
		if (!run_has(s->worst[i].t_ns))
			continue;
		low = fmin(low, (double)s->worst[i].duration_ns);
		high = fmax(high, (double)s->worst[i].duration_ns);
	}
	if (!(high > 0))
		return 0;
	if (run_has(s->threshold_ns) && s->threshold_ns > 0)
		low = fmin(low, (double)s->threshold_ns);
	if (r->options.budget_ns)
		high = fmax(high, (double)r->options.budget_ns);
	snprintf(y_title, sizeof(y_title), "%s", measure_noun(s->measure));
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = "time since start";
	spec.y_title = y_title;
	spec.width = f->compact ? 460 : 640;
	spec.height = f->compact ? 260 : 320;
	spec.x_type = PLOT_LINEAR;
	spec.x_quantity = PLOT_DURATION;
	spec.x_min = 0;
	spec.x_max = run_length(in->run, s);
	/* the axis ends where the run did */
	spec.x_exact = true;
	spec.y_type = PLOT_LOG;
	spec.y_quantity = PLOT_DURATION;
	spec.y_min = fmax(low, 1);
	spec.y_max = high * 1.2;
	spec.standalone = standalone;
	spec.description = "size of each recorded gap or spike against the time it happened";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		return ret;
	/* cells of 2 x 3 px: stripes of periodic sources stay, at a bounded size */
	ret = plot_reducer_init(&reducer, &p.x, &p.y, 2, 3);
	if (ret)
		return ret;
	for (i = 0; i < s->nr_events; i++) {
		plot_reducer_add(&reducer, (double)s->events[i].t_ns, (double)s->events[i].ns);
		if (isnan(worst.y) || (double)s->events[i].ns > worst.y)
			worst = (struct plot_point){ (double)s->events[i].t_ns,
						     (double)s->events[i].ns };
	}
	for (i = 0; only_worst && i < s->nr_worst; i++) {
		if (!run_has(s->worst[i].t_ns))
			continue;
		plot_reducer_add(&reducer, (double)s->worst[i].t_ns,
				 (double)s->worst[i].duration_ns);
		if (isnan(worst.y) || (double)s->worst[i].duration_ns > worst.y)
			worst = (struct plot_point){ (double)s->worst[i].t_ns,
						     (double)s->worst[i].duration_ns };
	}
	n = plot_reducer_points(&reducer, &points);
	plot_reducer_release(&reducer);
	x = malloc((n ? n : 1) * sizeof(*x));
	y = malloc((n ? n : 1) * sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		free(points);
		plot_end(&p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		x[i] = points[i].x;
		y[i] = points[i].y;
	}
	plot_dots(&p, x, y, n, only_worst ? 3 : 1.8, &style);
	free(x);
	free(y);
	free(points);
	budget_marker(r, &p, false);
	if (!isnan(worst.y)) {
		struct plot_style mark = { "#333333", 0, NULL, 0 };

		snprintf(label, sizeof(label), "max %s at %s",
			 plot_format_duration(worst.y, size, sizeof(size)),
			 plot_format_duration(worst.x, at, sizeof(at)));
		plot_point_label(&p, worst.x, worst.y, label, &mark);
	}
	plot_end(&p);
	return 0;
}

/* monitor windows ---------------------------------------------------------- */

static int compare_points(const void *a, const void *b)
{
	const struct plot_point *x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

static int draw_windows(const struct report *r, const struct figure *f, struct textbuf *out,
			bool standalone)
{
	const struct report_input *in = &r->inputs[f->input];
	const struct run_series *series = in->run->series + f->first;
	struct plot_spec spec = { 0 };
	struct plot p;
	double first = INFINITY, last = -INFINITY, low = INFINITY, high = 0;
	char name[96];
	unsigned int k;
	size_t i;
	bool any_missed = false;
	int ret;

	for (k = 0; k < f->count; k++)
		for (i = 0; i < series[k].nr_windows; i++) {
			const struct run_window *w = &series[k].windows[i];
			double start =
				(double)w->end_ns -
				(run_has(series[k].window_ns) ? (double)series[k].window_ns : 0);

			first = fmin(first, start);
			last = fmax(last, (double)w->end_ns);
			if (run_has(w->max_ns) && w->max_ns) {
				low = fmin(low, (double)w->max_ns);
				high = fmax(high, (double)w->max_ns);
			}
			any_missed |= run_has(w->missed) && w->missed;
		}
	if (!(high > 0) || !isfinite(first))
		return 0;
	if (r->options.budget_ns)
		high = fmax(high, (double)r->options.budget_ns);
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = "window end";
	spec.y_title = "max latency in the window";
	spec.width = f->compact ? 460 : 720;
	spec.height = f->compact ? 280 : 360;
	spec.x_type = PLOT_LINEAR;
	spec.x_quantity = PLOT_WALLCLOCK;
	spec.x_min = first;
	spec.x_max = last > first ? last : first + 1e9;
	spec.y_type = PLOT_LOG;
	spec.y_quantity = PLOT_DURATION;
	spec.y_min = low / 2;
	spec.y_max = high * 1.5;
	spec.standalone = standalone;
	report_legend_below(&spec, f->count > 4, (f->count + 1 + 2) / 3);
	spec.description = "the largest latency of each monitor window over the run, and windows "
			   "with missed periods";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		return ret;
	for (k = 0; k < f->count; k++) {
		struct plot_style style;
		struct plot_reducer reducer;
		struct plot_point *points;
		double *x, *y;
		size_t n;

		series_style(r, f, k, 1.25, &style);
		/* the maximum per pixel column: the window maxima of OSADL's long-term plot */
		ret = plot_reducer_init(&reducer, &p.x, &p.y, 1, 0);
		if (ret)
			break;
		for (i = 0; i < series[k].nr_windows; i++)
			if (run_has(series[k].windows[i].max_ns))
				plot_reducer_add(&reducer, (double)series[k].windows[i].end_ns,
						 (double)series[k].windows[i].max_ns);
		n = plot_reducer_points(&reducer, &points);
		plot_reducer_release(&reducer);
		if (n)
			qsort(points, n, sizeof(*points), compare_points);
		x = malloc((n ? n : 1) * sizeof(*x));
		y = malloc((n ? n : 1) * sizeof(*y));
		if (x && y) {
			for (i = 0; i < n; i++) {
				x[i] = points[i].x;
				y[i] = points[i].y;
			}
			plot_line(&p, x, y, n, &style);
		}
		free(x);
		free(y);
		free(points);
		plot_legend(&p, series_name(in, &series[k], name, sizeof(name)), &style, false);
	}
	if (any_missed) {
		/* a mark under each pixel column that holds a window with missed periods */
		struct plot_style missed = { "#555555", 0, NULL, 0 };
		struct plot_reducer reducer;
		struct plot_point *points;
		double *x, *y;
		size_t n;

		if (!plot_reducer_init(&reducer, &p.x, &p.y, 1, 0)) {
			for (k = 0; k < f->count; k++)
				for (i = 0; i < series[k].nr_windows; i++)
					if (run_has(series[k].windows[i].missed) &&
					    series[k].windows[i].missed)
						plot_reducer_add(
							&reducer,
							(double)series[k].windows[i].end_ns,
							(double)series[k].windows[i].missed);
			n = plot_reducer_points(&reducer, &points);
			plot_reducer_release(&reducer);
			x = malloc((n ? n : 1) * sizeof(*x));
			y = malloc((n ? n : 1) * sizeof(*y));
			if (x && y) {
				for (i = 0; i < n; i++) {
					x[i] = points[i].x;
					y[i] = p.y.min * pow(p.y.max / p.y.min, 0.02);
				}
				plot_dots(&p, x, y, n, 2.5, &missed);
			}
			free(x);
			free(y);
			free(points);
			plot_legend(&p, "missed periods", &missed, true);
		}
	}
	budget_marker(r, &p, false);
	plot_end(&p);
	return ret;
}

/* anatomy of the worst spikes ---------------------------------------------- */

struct spike_ref {
	const struct run_series *series;
	const struct run_spike *spike;
};

static int compare_spike_refs(const void *a, const void *b)
{
	const struct spike_ref *x = a, *y = b;

	return x->spike->duration_ns > y->spike->duration_ns ?
		       -1 :
		       x->spike->duration_ns < y->spike->duration_ns;
}

static int draw_anatomy(const struct report *r, const struct figure *f, struct textbuf *out,
			bool standalone)
{
	const struct report_input *in = &r->inputs[f->input];
	const struct run *run = in->run;
	struct spike_ref *refs;
	const char **names;
	char(*text)[96];
	struct plot_spec spec = { 0 };
	struct plot p;
	bool kinds[RUN_CAUSE_KINDS] = { false }, timelines = false;
	unsigned int n = 0, k, i, j, shown;
	double longest = 0;
	int ret;

	for (k = 0; k < run->nr_series; k++)
		n += run->series[k].nr_worst;
	if (!n)
		return 0;
	refs = calloc(n, sizeof(*refs));
	names = calloc(n, sizeof(*names));
	text = calloc(n, sizeof(*text));
	if (!refs || !names || !text) {
		free(refs);
		free(names);
		free(text);
		return -ENOMEM;
	}
	for (k = 0, n = 0; k < run->nr_series; k++)
		for (i = 0; i < run->series[k].nr_worst; i++)
			refs[n++] = (struct spike_ref){ &run->series[k], &run->series[k].worst[i] };
	qsort(refs, n, sizeof(*refs), compare_spike_refs);
	shown = n < REPORT_ANATOMY_SPIKES ? n : REPORT_ANATOMY_SPIKES;
	for (i = 0; i < shown; i++) {
		char at[32], size[32];

		if (run_has(refs[i].spike->t_ns))
			snprintf(text[i], sizeof(text[i]), "%s · %s at %s", refs[i].series->label,
				 plot_format_duration((double)refs[i].spike->duration_ns, size,
						      sizeof(size)),
				 plot_format_duration((double)refs[i].spike->t_ns, at, sizeof(at)));
		else
			snprintf(text[i], sizeof(text[i]), "%s · %s", refs[i].series->label,
				 plot_format_duration((double)refs[i].spike->duration_ns, size,
						      sizeof(size)));
		names[i] = text[i];
		longest = fmax(longest, (double)refs[i].spike->duration_ns);
		for (j = 0; j < refs[i].spike->nr_split; j++)
			kinds[refs[i].spike->split[j].kind] = true;
		for (j = 0; j < refs[i].spike->nr_timeline; j++)
			kinds[refs[i].spike->timeline[j].kind] = true;
		timelines |= refs[i].spike->nr_timeline > 0;
	}
	for (k = 0, j = 0; k < RUN_CAUSE_KINDS; k++)
		j += kinds[k];
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = timelines ? "time from the start of the spike" : "duration, by cause";
	spec.width = 720;
	spec.height = 100 + 28.0 * shown;
	spec.x_type = PLOT_LINEAR;
	spec.x_quantity = PLOT_DURATION;
	spec.x_min = 0;
	spec.x_max = longest;
	spec.y_categories = names;
	spec.nr_y_categories = shown;
	spec.standalone = standalone;
	report_legend_below(&spec, true, (j + 3) / 4);
	spec.description = "each of the worst spikes as a bar split into what delayed it";
	ret = plot_begin(&p, out, &spec);
	if (!ret) {
		for (i = 0; i < shown; i++) {
			const struct run_spike *s = refs[i].spike;
			bool timeline = s->nr_timeline > 0;
			const struct run_part *parts = timeline ? s->timeline : s->split;
			unsigned int nr = timeline ? s->nr_timeline : s->nr_split;
			double x = 0;

			for (j = 0; j < nr; j++) {
				char tip[192], size[32];
				double start = timeline && run_has(parts[j].offset_ns) ?
						       (double)parts[j].offset_ns :
						       x;

				snprintf(tip, sizeof(tip), "%s: %s", parts[j].label,
					 plot_format_duration((double)parts[j].ns, size,
							      sizeof(size)));
				plot_rect(&p, start, i + 0.2, start + (double)parts[j].ns, i + 0.8,
					  report_cause_colour(parts[j].kind), tip);
				x = start + (double)parts[j].ns;
			}
		}
		for (k = 0; k < RUN_CAUSE_KINDS; k++) {
			struct plot_style style = { report_cause_colour((enum run_cause_kind)k), 0,
						    NULL, 0 };

			if (kinds[k])
				plot_legend(&p, run_cause_kind_name((enum run_cause_kind)k), &style,
					    true);
		}
		plot_end(&p);
	}
	free(refs);
	free(names);
	free(text);
	return ret;
}

/* share of lost time per cause ----------------------------------------------- */

struct cause_total {
	const char *label;
	enum run_cause_kind kind;
	double ns;
};

static int compare_totals(const void *a, const void *b)
{
	const struct cause_total *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

static int draw_shares(const struct report *r, const struct figure *f, struct textbuf *out,
		       bool standalone)
{
	const struct run *run = r->inputs[f->input].run;
	struct cause_total *totals;
	const char **names;
	char(*text)[96];
	struct plot_spec spec = { 0 };
	struct plot p;
	unsigned int n = 0, k, i, j, shown;
	double all = 0, explained = 0, top = 0;
	int ret;

	for (k = 0; k < run->nr_series; k++)
		n += run->series[k].nr_causes;
	if (!n)
		return 0;
	totals = calloc(n, sizeof(*totals));
	names = calloc(n, sizeof(*names));
	text = calloc(n, sizeof(*text));
	if (!totals || !names || !text) {
		free(totals);
		free(names);
		free(text);
		return -ENOMEM;
	}
	/* one bar per cause label, summed over the CPUs or threads */
	for (k = 0, n = 0; k < run->nr_series; k++) {
		const struct run_series *s = &run->series[k];

		if (run_has(s->explained_ns))
			explained += (double)s->explained_ns;
		for (i = 0; i < s->nr_causes; i++) {
			for (j = 0; j < n; j++)
				if (!strcmp(totals[j].label, s->causes[i].label))
					break;
			if (j == n)
				totals[n++] = (struct cause_total){ s->causes[i].label,
								    s->causes[i].kind, 0 };
			totals[j].ns += (double)s->causes[i].total_ns;
			all += (double)s->causes[i].total_ns;
		}
	}
	/* shares of the explained spikes' time when known (causes may overlap) */
	if (explained <= 0)
		explained = all;
	qsort(totals, n, sizeof(*totals), compare_totals);
	shown = n < REPORT_SHARE_CAUSES ? n : REPORT_SHARE_CAUSES;
	for (i = 0; i < shown; i++) {
		names[i] = totals[i].label;
		top = fmax(top, totals[i].ns / explained);
	}
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = "share of the time lost to explained spikes";
	spec.width = 640;
	spec.height = 90 + 24.0 * shown;
	spec.x_type = PLOT_LINEAR;
	spec.x_quantity = PLOT_FRACTION;
	spec.x_min = 0;
	spec.x_max = fmin(1, fmax(top * 1.25, 0.05));
	spec.y_categories = names;
	spec.nr_y_categories = shown;
	spec.standalone = standalone;
	spec.description = "the causes that took the most time, as a share of all explained time";
	ret = plot_begin(&p, out, &spec);
	if (!ret) {
		for (i = 0; i < shown; i++) {
			char size[32], tip[160];
			double share = totals[i].ns / explained;

			snprintf(tip, sizeof(tip), "%s: %s", totals[i].label,
				 plot_format_duration(totals[i].ns, size, sizeof(size)));
			plot_rect(&p, 0, i + 0.2, share, i + 0.8,
				  report_cause_colour(totals[i].kind), tip);
			snprintf(text[i], sizeof(text[i]), "%.1f%% · %s", share * 100, size);
			/* beside the bar, or inside a bar that reaches the right edge */
			if (plot_scale_map(&p.x, share) + 110 < p.right)
				plot_text(&p, plot_scale_map(&p.x, share) + 4,
					  plot_scale_map(&p.y, i + 0.5) + 4, "start", text[i], 10.5,
					  "fill=\"#333333\"");
			else
				plot_text(&p, plot_scale_map(&p.x, share) - 4,
					  plot_scale_map(&p.y, i + 0.5) + 4, "end", text[i], 10.5,
					  totals[i].kind == RUN_CAUSE_UNEXPLAINED ||
							  totals[i].kind == RUN_CAUSE_THROTTLING ||
							  totals[i].kind == RUN_CAUSE_OTHER ?
						  "fill=\"#000000\"" :
						  "fill=\"#ffffff\"");
		}
		plot_end(&p);
	}
	free(totals);
	free(names);
	free(text);
	return ret;
}

/* IRQ rates per CPU ------------------------------------------------------------ */

struct cpu_rate {
	int cpu;
	double before;
	double after; /* NAN for "irq show" */
	bool rt;
};

static bool set_has(const json_t *set, int cpu, struct jsondoc *doc)
{
	struct jsondoc_table t;
	struct cpuset cpus;
	size_t i;

	if (json_is_string(set))
		return !cpuset_parse_list(json_string_value(set), &cpus) &&
		       cpuset_has(&cpus, (unsigned int)cpu);
	if (!doc || jsondoc_table(doc, set, &t))
		return false;
	for (i = 0; i < t.rows * t.width; i++)
		if (t.values[i] == cpu)
			return true;
	return false;
}

static int compare_rates(const void *a, const void *b)
{
	const struct cpu_rate *x = a, *y = b;

	return x->cpu - y->cpu;
}

static size_t irq_rates(const struct run *run, struct cpu_rate **out)
{
	const json_t *loads = json_object_get(run->json, "cpu_loads");
	const json_t *cpus = json_object_get(run->json, "cpus");
	const json_t *rt = json_object_get(run->json, "rt_cpus");
	const json_t *list = json_is_array(loads) ? loads : cpus;
	struct jsondoc *doc = run->doc;
	struct cpu_rate *rates;
	size_t n = json_array_size(list), i, kept = 0;

	*out = NULL;
	if (!n)
		return 0;
	rates = calloc(n, sizeof(*rates));
	if (!rates)
		return 0;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(list, i);
		const json_t *cpu = json_object_get(e, "cpu");

		if (!json_is_integer(cpu))
			continue;
		rates[kept].cpu = (int)json_integer_value(cpu);
		if (list == loads) {
			rates[kept].before = json_number_value(json_object_get(e, "before"));
			rates[kept].after = json_number_value(json_object_get(e, "after"));
		} else {
			rates[kept].before = json_number_value(json_object_get(e, "rate"));
			rates[kept].after = NAN;
		}
		rates[kept].rt =
			json_is_true(json_object_get(e, "rt")) || set_has(rt, rates[kept].cpu, doc);
		kept++;
	}
	if (kept)
		qsort(rates, kept, sizeof(*rates), compare_rates);
	*out = rates;
	return kept;
}

static bool any_rate(const struct cpu_rate *rates, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rates[i].before > 0 || (isfinite(rates[i].after) && rates[i].after > 0))
			return true;
	return false;
}

static int draw_irq(const struct report *r, const struct figure *f, struct textbuf *out,
		    bool standalone)
{
	const struct run *run = r->inputs[f->input].run;
	static const struct plot_style before = { "#56B4E9", 0, NULL, 0 };
	static const struct plot_style after = { "#0072B2", 0, NULL, 0 };
	struct cpu_rate *rates;
	const char **names;
	char(*text)[48];
	struct plot_spec spec = { 0 };
	struct plot p;
	size_t n = irq_rates(run, &rates), i, shown;
	double top = 1;
	bool has_after = false;
	int ret;

	if (!n)
		return 0;
	shown = n < 64 ? n : 64;
	names = calloc(shown, sizeof(*names));
	text = calloc(shown, sizeof(*text));
	if (!names || !text) {
		free(rates);
		free(names);
		free(text);
		return -ENOMEM;
	}
	for (i = 0; i < shown; i++) {
		snprintf(text[i], sizeof(text[i]), "cpu %d%s", rates[i].cpu,
			 rates[i].rt ? " · RT" : "");
		names[i] = text[i];
		top = fmax(top, rates[i].before);
		if (isfinite(rates[i].after)) {
			top = fmax(top, rates[i].after);
			has_after = true;
		}
	}
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = "device interrupts per second";
	spec.width = 640;
	spec.height = 110 + (has_after ? 30.0 : 22.0) * (double)shown;
	spec.x_type = PLOT_LINEAR;
	spec.x_quantity = PLOT_COUNT;
	spec.x_min = 0;
	spec.x_max = top * 1.1;
	spec.y_categories = names;
	spec.nr_y_categories = (unsigned int)shown;
	spec.standalone = standalone;
	spec.legend_outside = true;
	spec.description = "interrupt rate of each CPU, before and after the IRQ plan; RT CPUs "
			   "marked";
	ret = plot_begin(&p, out, &spec);
	if (!ret) {
		for (i = 0; i < shown; i++) {
			if (rates[i].rt)
				plot_rect(&p, 0, (double)i, p.x.max, (double)i + 1, "#FBE3D3",
					  NULL);
			if (has_after) {
				plot_rect(&p, 0, i + 0.15, rates[i].before, i + 0.5, before.colour,
					  NULL);
				plot_rect(&p, 0, i + 0.5, rates[i].after, i + 0.85, after.colour,
					  NULL);
			} else {
				plot_rect(&p, 0, i + 0.2, rates[i].before, i + 0.8, after.colour,
					  NULL);
			}
		}
		if (top <= 1 && !any_rate(rates, shown))
			plot_text(&p, (p.left + p.right) / 2, (p.top + p.bottom) / 2 + 4, "middle",
				  "no device interrupt on any CPU while the rates were sampled", 11,
				  "fill=\"#555555\"");
		if (has_after) {
			plot_legend(&p, "before the plan", &before, true);
			plot_legend(&p, "after the plan", &after, true);
		} else {
			plot_legend(&p, "now", &after, true);
		}
		for (i = 0; i < shown; i++)
			if (rates[i].rt) {
				struct plot_style rt = { "#FBE3D3", 0, NULL, 0 };

				plot_legend(&p, "RT CPU (should get none)", &rt, true);
				break;
			}
		plot_end(&p);
	}
	free(rates);
	free(names);
	free(text);
	return ret;
}

/* several inputs ------------------------------------------------------------- */

/* the series of an input that an overlay compares: one CPU, or all merged */
static int overlay_histogram(const struct run *run, int cpu, struct run_histogram *merged,
			     double *max)
{
	unsigned int k;
	int ret = 0;

	*max = NAN;
	memset(merged, 0, sizeof(*merged));
	if (cpu < 0) {
		ret = report_merge_histograms(run->series, run->nr_series, merged);
		for (k = 0; k < run->nr_series; k++) {
			double m = report_series_max(&run->series[k]);

			if (isfinite(m))
				*max = isfinite(*max) ? fmax(*max, m) : m;
		}
		return ret;
	}
	for (k = 0; k < run->nr_series; k++)
		if (run->series[k].cpu == cpu) {
			*max = report_series_max(&run->series[k]);
			return report_merge_histograms(&run->series[k], 1, merged);
		}
	return -ENOENT;
}

static int draw_overlay(const struct report *r, const struct figure *f, struct textbuf *out,
			bool standalone)
{
	struct run_histogram *hists;
	double *maxima, low = INFINITY, high = 0, tail = 1;
	struct plot_spec spec = { 0 };
	struct steps *steps = NULL;
	struct plot p;
	bool *taking;
	bool histogram = f->kind == FIGURE_OVERLAY_HISTOGRAM;
	unsigned int k, shown = 0;
	int ret = 0;

	hists = calloc(r->nr_inputs, sizeof(*hists));
	maxima = calloc(r->nr_inputs, sizeof(*maxima));
	taking = calloc(r->nr_inputs, sizeof(*taking));
	steps = calloc(r->nr_inputs, sizeof(*steps));
	if (!hists || !maxima || !taking || !steps) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < r->nr_inputs; k++) {
		const struct run *run = r->inputs[k].run;

		if (!run_is_measurement(run) || run->series[0].measure != f->measure)
			continue;
		if (overlay_histogram(run, f->cpu, &hists[k], &maxima[k]) || !hists[k].present ||
		    !hists[k].total || !hists[k].nr_buckets)
			continue;
		taking[k] = true;
		shown++;
		low = fmin(low, (double)hists[k].buckets[0].low_ns);
		high = fmax(high, (double)hists[k].buckets[hists[k].nr_buckets - 1].high_ns);
		if (isfinite(maxima[k]))
			high = fmax(high, maxima[k]);
		tail = fmin(tail, 1.0 / (double)hists[k].total);
	}
	if (!(high > 0))
		goto out;
	low = pow(10, floor(log10(fmax(low, 1))));
	high *= 1.05;
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = f->measure == RUN_MEASURE_NOISE ? "gap x" : "latency x";
	spec.width = f->compact ? 460 : 640;
	spec.height = f->compact ? 300 : 380;
	report_exceedance_axes(&spec, low, high, tail);
	spec.standalone = standalone;
	report_legend_below(&spec, true, (shown + 1) / 2);
	if (histogram) {
		double top = 0;
		uint64_t fewest = UINT64_MAX;
		size_t nr;

		spec.x_title = f->measure == RUN_MEASURE_NOISE ? "gap" : "latency";
		spec.y_title = "share of samples per bin";
		spec.description = "histograms of several inputs, each as a share of its samples";
		for (k = 0; k < r->nr_inputs; k++)
			if (taking[k] && hists[k].total < fewest)
				fewest = hists[k].total;
		nr = log_bins(fewest, low, high);
		for (k = 0; k < r->nr_inputs && !ret; k++)
			if (taking[k]) {
				ret = log_steps(&hists[k], low, high, nr, true, &steps[k]);
				top = fmax(top, steps_top(&steps[k]));
			}
		if (ret)
			goto out;
		spec.y_max = fmin(1, pow(10, ceil(log10(top * 1.5))));
	} else {
		spec.y_title = f->measure == RUN_MEASURE_NOISE ? "P(gap > x)" : "P(latency > x)";
		spec.description = "exceedance curves of several inputs";
	}
	ret = plot_begin(&p, out, &spec);
	if (ret)
		goto out;
	for (k = 0; k < r->nr_inputs; k++) {
		struct plot_style style;

		plot_series_style(r->inputs[k].colour, 1.6, &style);

		if (!taking[k])
			continue;
		if (histogram) {
			plot_steps(&p, steps[k].edges, steps[k].heights,
				   known_bins(&hists[k], &steps[k]), &style);
		} else {
			exceedance_curve(&p, &hists[k], maxima[k], &style);
			mark_percentiles(&p, NULL, &hists[k], &style, false);
			if (isfinite(maxima[k]))
				plot_point_label(&p, maxima[k], 1.0 / (double)hists[k].total, NULL,
						 &style);
		}
		plot_legend(&p, r->inputs[k].label, &style, false);
	}
	budget_marker(r, &p, true);
	plot_end(&p);
out:
	for (k = 0; hists && k < r->nr_inputs; k++) {
		free(hists[k].buckets);
		if (steps)
			steps_release(&steps[k]);
	}
	free(hists);
	free(maxima);
	free(taking);
	free(steps);
	return ret;
}

static int draw_linear_histogram(const struct report *r, const struct figure *f,
				 struct textbuf *out, bool standalone)
{
	return draw_histogram(r, f, out, standalone, false);
}

static int draw_log_histogram(const struct report *r, const struct figure *f, struct textbuf *out,
			      bool standalone)
{
	return draw_histogram(r, f, out, standalone, true);
}

static const struct report_figure_kind figure_kinds[] = {
	{ FIGURE_HISTOGRAM, draw_linear_histogram },
	{ FIGURE_HISTOGRAM_LOG, draw_log_histogram },
	{ FIGURE_EXCEEDANCE, draw_exceedance },
	{ FIGURE_EVENTS, draw_events },
	{ FIGURE_WINDOWS, draw_windows },
	{ FIGURE_ANATOMY, draw_anatomy },
	{ FIGURE_SHARES, draw_shares },
	{ FIGURE_IRQ, draw_irq },
	{ FIGURE_OVERLAY_EXCEEDANCE, draw_overlay },
	{ FIGURE_OVERLAY_HISTOGRAM, draw_overlay },
};

const struct report_part report_figures_part = {
	.figures = figure_kinds,
	.nr_figures = sizeof(figure_kinds) / sizeof(figure_kinds[0]),
	.input = -1,
};
