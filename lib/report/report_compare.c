// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A `latscope compare` result on the page: the verdict, per pair the
 * statistics with their intervals and verdicts, the deadline misses, the
 * tail estimates with their checks, and two plots: both sides' exceedance
 * curves with their intervals, and the return-level plot (the fitted GEV
 * levels against the return period, their intervals at 1 hour, 1 day and
 * 1 year, and the block maxima at their empirical return periods). Read
 * from the document's JSON as compare_document.h describes it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "latscope/gev.h"
#include "latscope/jsondoc.h"
#include "report_internal.h"

/* pairs given plots, those with a change first */
#define REPORT_COMPARE_PAIRS 8

static const char *const side_keys[2] = { "a", "b" };

/* the budget on a compare plot: thinner than the other figures' */
static const struct plot_style budget_style = { "#000000", 1.25, "6 2 1 2", 0 };

/* verdict badges: the page's red for worse and failed checks */
#define BAD "#B3261E"
#define GOOD "#1B7F3B"
#define NEUTRAL "#777777"
#define UNDECIDED "#9A6700"

static const json_t *pair_at(const struct report *r, unsigned int input, unsigned int k)
{
	return json_array_get(json_object_get(r->inputs[input].run->json, "pairs"), k);
}

/* an integer ns, or NAN for null and anything else */
static double ns_of(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * The arrays of numbers of a document read by jsondoc are packed and look
 * empty to jansson (jsondoc.h); these read them either way. An array with
 * a null (an open interval) or a fraction stays a jansson array.
 */
static size_t rows_of(struct jsondoc *doc, const json_t *array)
{
	struct jsondoc_table t;

	if (doc && json_is_array(array) && !jsondoc_table(doc, array, &t))
		return t.rows;
	return json_array_size(array);
}

/* @col of row @row of a table of numbers; for a flat array, col 0 of row @row is item @row */
static double cell_at(struct jsondoc *doc, const json_t *array, size_t row, unsigned int col)
{
	struct jsondoc_table t;
	const json_t *item;

	if (doc && json_is_array(array) && !jsondoc_table(doc, array, &t)) {
		if (row >= t.rows || col >= (t.width ? t.width : 1))
			return NAN;
		return (double)t.values[row * (t.width ? t.width : 1) + col];
	}
	item = json_array_get(array, row);
	return ns_of(json_is_array(item) ? json_array_get(item, col) : col ? NULL : item);
}

static double num_at(struct jsondoc *doc, const json_t *array, size_t k)
{
	return cell_at(doc, array, k, 0);
}

static const char *duration_text(double ns, char *buf, size_t size)
{
	if (!isfinite(ns))
		return "—";
	return plot_format_duration(ns, buf, size);
}

static const char *signed_text(double ns, char *buf, size_t size)
{
	char v[32];

	if (!isfinite(ns))
		return "—";
	snprintf(buf, size, "%s%s", ns < 0 ? "−" : "+",
		 plot_format_duration(fabs(ns), v, sizeof(v)));
	return buf;
}

static bool pair_changed(const json_t *pair)
{
	const json_t *v = json_object_get(pair, "verdicts");

	return json_integer_value(json_object_get(v, "worse")) ||
	       json_integer_value(json_object_get(v, "better"));
}

/* side @side (0: A, 1: B) of a pair's "sides" */
static const json_t *side_of(const json_t *pair, unsigned int side)
{
	return json_object_get(json_object_get(pair, "sides"), side_keys[side]);
}

static bool side_has_curve(const json_t *pair, unsigned int side)
{
	return json_array_size(json_object_get(side_of(pair, side), "exceedance")) > 0;
}

static bool side_fitted(const json_t *pair, unsigned int side)
{
	return json_is_number(json_object_get(
		json_object_get(json_object_get(pair, "gev"), side_keys[side]), "loc_ns"));
}

/* one plot of pair @k: its id "<input>-pair<k + 1>-<suffix>", its title "<what>: <about>" */
static int add_pair_figure(struct report *r, unsigned int input, unsigned int k,
			   enum figure_kind kind, const char *suffix, const char *about)
{
	const char *what = json_string_value(json_object_get(pair_at(r, input, k), "what"));
	struct figure *f;
	char id[96];

	snprintf(id, sizeof(id), "%s-pair%u-%s", r->inputs[input].slug, k + 1, suffix);
	f = report_add_figure(r, kind, input, id);
	if (!f)
		return -ENOMEM;
	f->first = k;
	f->compact = true;
	snprintf(f->title, sizeof(f->title), "%s: %s", what ? what : "pair", about);
	return 0;
}

static int add_pair_figures(struct report *r, unsigned int input, unsigned int k)
{
	const json_t *pair = pair_at(r, input, k);
	int ret;

	if (side_has_curve(pair, 0) || side_has_curve(pair, 1)) {
		ret = add_pair_figure(r, input, k, FIGURE_COMPARE_EXCEEDANCE, "exceedance",
				      "P(value > x), A and B with intervals");
		if (ret)
			return ret;
	}
	if (side_fitted(pair, 0) || side_fitted(pair, 1))
		return add_pair_figure(r, input, k, FIGURE_COMPARE_RETURN_LEVELS, "return-levels",
				       "return levels of the block maxima");
	return 0;
}

static int plan_compare(struct report *r, unsigned int input)
{
	size_t n = json_array_size(json_object_get(r->inputs[input].run->json, "pairs")), k;
	unsigned int planned = 0;
	int pass, ret;

	/* the pairs that changed first, then the others, up to the limit */
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < n && planned < REPORT_COMPARE_PAIRS; k++) {
			if (pair_changed(pair_at(r, input, (unsigned int)k)) != !pass)
				continue;
			ret = add_pair_figures(r, input, (unsigned int)k);
			if (ret)
				return ret;
			planned++;
		}
	return 0;
}

static double budget_of(const struct report *r, const struct figure *f)
{
	const json_t *params = json_object_get(r->inputs[f->input].run->json, "params");
	double budget = ns_of(json_object_get(params, "budget_ns"));

	if (r->options.budget_ns)
		return (double)r->options.budget_ns;
	return budget;
}

static void side_label(const json_t *pair, unsigned int side, char *buf, size_t size)
{
	snprintf(buf, size, "%s: %s", side ? "B" : "A",
		 json_string_value(json_object_get(pair, side_keys[side])) ?: "?");
}

static int draw_exceedance(const struct report *r, const struct figure *f, struct textbuf *out,
			   bool standalone)
{
	const json_t *pair = pair_at(r, f->input, f->first);
	struct jsondoc *doc = r->inputs[f->input].run->doc;
	struct plot_spec spec = { 0 };
	double low = INFINITY, high = 0, tail = 1, budget = budget_of(r, f);
	char label[160];
	struct plot p;
	unsigned int s;
	size_t i;
	int ret;

	for (s = 0; s < 2; s++) {
		const json_t *side = side_of(pair, s);
		const json_t *curve = json_object_get(side, "exceedance");
		double samples = ns_of(json_object_get(side, "samples"));

		for (i = 0; i < json_array_size(curve); i++) {
			const json_t *ci = json_object_get(json_array_get(curve, i), "ci_ns");

			low = fmin(low, num_at(doc, ci, 0));
			high = fmax(high, num_at(doc, ci, 1));
		}
		high = fmax(high, ns_of(json_object_get(side, "max_ns")));
		if (samples > 0)
			tail = fmin(tail, 1 / samples);
	}
	if (!(high > 0) || !isfinite(low))
		return 0;
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = strcmp(json_string_value(json_object_get(
				      json_array_get(json_object_get(r->inputs[f->input].run->json,
								     "inputs"),
						     0),
				      "command")) ?:
				      "",
			      "noise") ?
			       "latency x" :
			       "gap x";
	spec.y_title = "P(value > x)";
	spec.width = 460;
	spec.height = 320;
	report_exceedance_axes(&spec, fmax(low, 1), high * 1.05, tail);
	spec.standalone = standalone;
	report_legend_below(&spec, true, 3);
	spec.description = "exceedance curves of A and B: the probability that a value exceeds "
			   "x, each point with its bootstrap interval";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		return ret;
	for (s = 0; s < 2; s++) {
		const json_t *side = side_of(pair, s);
		const json_t *curve = json_object_get(side, "exceedance");
		size_t n = json_array_size(curve);
		double x[48], y[48], lo[48], hi[48], bars_x[3 * 48], bars_y[3 * 48];
		double max = ns_of(json_object_get(side, "max_ns"));
		double samples = ns_of(json_object_get(side, "samples"));
		struct plot_style line, bound;

		if (n > 47)
			n = 47;
		for (i = 0; i < n; i++) {
			const json_t *point = json_array_get(curve, i);
			const json_t *ci = json_object_get(point, "ci_ns");

			x[i] = ns_of(json_object_get(point, "value_ns"));
			y[i] = 1 - json_number_value(json_object_get(point, "percent")) / 100;
			lo[i] = num_at(doc, ci, 0);
			hi[i] = num_at(doc, ci, 1);
			bars_x[3 * i] = lo[i];
			bars_x[3 * i + 1] = hi[i];
			bars_x[3 * i + 2] = NAN;
			bars_y[3 * i] = bars_y[3 * i + 1] = y[i];
			bars_y[3 * i + 2] = NAN;
		}
		plot_series_style(s, 2, &line);
		bound = line;
		bound.width = 1;
		bound.dash = "3 2";
		bound.opacity = 0.6;
		/* the interval's ends as a band, and each point's interval as a bar */
		plot_line(&p, lo, y, n, &bound);
		plot_line(&p, hi, y, n, &bound);
		bound.dash = NULL;
		plot_line(&p, bars_x, bars_y, 3 * n, &bound);
		/* the curve goes on to the max, the value exceeded by no sample */
		if (isfinite(max) && samples > 0 && n < 48) {
			x[n] = max;
			y[n] = 1 / samples;
			plot_line(&p, x, y, n + 1, &line);
			plot_dots(&p, &x[n], &y[n], 1, 3, &line);
		} else {
			plot_line(&p, x, y, n, &line);
		}
		side_label(pair, s, label, sizeof(label));
		plot_legend(&p, label, &line, false);
	}
	{
		struct plot_style bound;
		char text[64];

		plot_series_style(0, 1, &bound);
		bound.colour = PLOT_GREY;
		bound.dash = "3 2";
		snprintf(text, sizeof(text), "%g%% interval of each point",
			 100 * json_number_value(json_object_get(
				       json_object_get(r->inputs[f->input].run->json, "params"),
				       "confidence")));
		plot_legend(&p, text, &bound, false);
	}
	if (isfinite(budget))
		report_budget_marker(&p, budget, &budget_style, true);
	plot_end(&p);
	return 0;
}

/* what the return-level plot reads of one side of a pair */
struct side_tail {
	const json_t *gev; /* the side's object in the pair's "gev" */
	const json_t *largest; /* its block maxima: rows of [return period s, ns] */
	const json_t *levels; /* its return levels */
	struct gev_params fit;
	double block_s;
};

/* the tail of side @side (0: A, 1: B) of @pair, false when it has no fit */
static bool side_tail(const json_t *pair, unsigned int side, struct side_tail *t)
{
	const json_t *gev = json_object_get(json_object_get(pair, "gev"), side_keys[side]);

	t->gev = gev;
	t->largest =
		json_object_get(json_object_get(side_of(pair, side), "block_maxima"), "largest");
	t->levels = json_object_get(gev, "return_levels");
	t->fit.loc = ns_of(json_object_get(gev, "loc_ns"));
	t->fit.scale = ns_of(json_object_get(gev, "scale_ns"));
	t->fit.shape = ns_of(json_object_get(gev, "shape"));
	t->block_s = ns_of(json_object_get(gev, "block_ns")) / 1e9;
	return isfinite(t->fit.loc) && t->fit.scale > 0 && isfinite(t->fit.shape) && t->block_s > 0;
}

static int draw_return_levels(const struct report *r, const struct figure *f, struct textbuf *out,
			      bool standalone)
{
	static const struct {
		double s;
		const char *name;
	} marks[] = { { 3600, "1 h" }, { 86400, "1 d" }, { 365 * 86400.0, "1 y" } };
	const json_t *pair = pair_at(r, f->input, f->first);
	struct jsondoc *doc = r->inputs[f->input].run->doc;
	struct plot_spec spec = { 0 };
	double low = INFINITY, high = 0, shortest = INFINITY, longest = 365 * 86400.0 * 2;
	double budget = budget_of(r, f);
	char label[160];
	struct plot p;
	unsigned int s;
	size_t i;
	int ret;

	for (s = 0; s < 2; s++) {
		struct side_tail tail;

		if (!side_tail(pair, s, &tail))
			continue;
		shortest = fmin(shortest, tail.block_s);
		for (i = 0; i < rows_of(doc, tail.largest); i++) {
			low = fmin(low, cell_at(doc, tail.largest, i, 1));
			high = fmax(high, cell_at(doc, tail.largest, i, 1));
			longest = fmax(longest, cell_at(doc, tail.largest, i, 0) * 1.5);
		}
		for (i = 0; i < json_array_size(tail.levels); i++) {
			const json_t *ci = json_object_get(json_array_get(tail.levels, i), "ci_ns");

			high = fmax(high, ns_of(json_object_get(json_array_get(tail.levels, i),
								"value_ns")));
			if (isfinite(num_at(doc, ci, 1)))
				high = fmax(high, num_at(doc, ci, 1));
		}
		/* where the fitted curve starts */
		low = fmin(low, gev_return_level(&tail.fit, 1 / 1.5));
	}
	if (!isfinite(shortest) || !(high > 0) || !isfinite(low))
		return 0;
	spec.id = f->id;
	spec.title = f->title;
	spec.x_title = "return period";
	spec.y_title = "return level";
	spec.width = 460;
	spec.height = 320;
	spec.x_type = PLOT_LOG;
	spec.x_quantity = PLOT_DURATION;
	spec.x_min = shortest * 1e9;
	spec.x_max = longest * 1e9;
	spec.y_type = PLOT_LOG;
	spec.y_quantity = PLOT_DURATION;
	spec.y_min = fmax(low * 0.8, 1);
	spec.y_max = high * 1.25;
	spec.standalone = standalone;
	report_legend_below(&spec, true, 3);
	spec.description = "return levels: the latency a block maximum exceeds on average once "
			   "per return period, from the GEV fit, with profile-likelihood "
			   "intervals, and the block maxima at their empirical return periods";
	ret = plot_begin(&p, out, &spec);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		static const struct plot_style mark = { PLOT_GREY, 1, "2 3", 0 };

		plot_vmarker(&p, marks[i].s * 1e9, marks[i].name, &mark);
	}
	for (s = 0; s < 2; s++) {
		double x[64], y[64], bx[3 * 8], by[3 * 8], px[64], py[64];
		struct plot_style line, dots;
		struct side_tail tail;
		bool reliable;
		double t;
		size_t n = 0, m = 0, b = 0;

		if (!side_tail(pair, s, &tail))
			continue;
		reliable = json_is_true(json_object_get(tail.gev, "reliable"));
		plot_series_style(s, 2, &line);
		/* an unreliable fit is drawn dashed: the checks failed */
		if (!reliable)
			line.dash = "6 3";
		for (t = tail.block_s * 1.5; t <= longest && n < 64;
		     t *= pow(longest / tail.block_s, 1.0 / 60))
			if (tail.block_s / t < 1) {
				x[n] = t * 1e9;
				y[n++] = gev_return_level(&tail.fit, tail.block_s / t);
			}
		plot_line(&p, x, y, n, &line);
		for (i = 0; i < rows_of(doc, tail.largest) && m < 64; i++, m++) {
			px[m] = cell_at(doc, tail.largest, i, 0) * 1e9;
			py[m] = cell_at(doc, tail.largest, i, 1);
		}
		dots = line;
		dots.dash = NULL;
		dots.opacity = 0.7;
		plot_dots(&p, px, py, m, 2, &dots);
		for (i = 0; i < json_array_size(tail.levels) && b < 8; i++, b++) {
			const json_t *l = json_array_get(tail.levels, i);
			const json_t *ci = json_object_get(l, "ci_ns");
			double period = ns_of(json_object_get(l, "period_s")) * 1e9;

			bx[3 * b] = bx[3 * b + 1] = period;
			bx[3 * b + 2] = NAN;
			/* an open end runs off the plot */
			by[3 * b] =
				isfinite(num_at(doc, ci, 0)) ? num_at(doc, ci, 0) : spec.y_min / 10;
			by[3 * b + 1] =
				isfinite(num_at(doc, ci, 1)) ? num_at(doc, ci, 1) : spec.y_max * 10;
			by[3 * b + 2] = NAN;
			if (!json_is_array(ci))
				by[3 * b] = by[3 * b + 1] = NAN;
			plot_dots(&p, &period, &(double){ ns_of(json_object_get(l, "value_ns")) },
				  1, 3.5, &dots);
		}
		dots.width = 2;
		dots.opacity = 0;
		plot_line(&p, bx, by, 3 * b, &dots);
		side_label(pair, s, label, sizeof(label));
		if (!reliable)
			snprintf(label + strlen(label), sizeof(label) - strlen(label),
				 " (unreliable)");
		plot_legend(&p, label, &line, false);
	}
	{
		struct plot_style note = { PLOT_GREY, 1.5, NULL, 0 };

		plot_legend(&p, "dots: block maxima; bars: intervals of the 1 h, 1 d, 1 y levels",
			    &note, false);
	}
	if (isfinite(budget))
		report_budget_marker(&p, budget, &budget_style, false);
	plot_end(&p);
	return 0;
}

/* the page ------------------------------------------------------------------ */

static void td(struct textbuf *out, const char *text, bool number)
{
	textbuf_puts(out, number ? "<td class=\"n\">" : "<td>");
	textbuf_escape(out, text);
	textbuf_puts(out, "</td>");
}

static void stats_table(struct jsondoc *doc, const json_t *pair, double confidence,
			struct textbuf *out)
{
	const json_t *stats = json_object_get(pair, "stats");
	char a[48], b[48], c[128];
	size_t k;

	textbuf_printf(out,
		       "<div class=\"scroll\"><table><thead><tr><th></th><th class=\"n\">A</th>"
		       "<th class=\"n\">B</th><th class=\"n\">B − A</th><th class=\"n\">%g%% "
		       "interval</th><th>verdict</th><th>why</th></tr></thead><tbody>\n",
		       confidence * 100);
	for (k = 0; k < json_array_size(stats); k++) {
		const json_t *s = json_array_get(stats, k), *ci = json_object_get(s, "ci_ns");
		const char *verdict = json_string_value(json_object_get(s, "verdict")) ?: "n/a";

		textbuf_puts(out, "<tr>");
		td(out, json_string_value(json_object_get(s, "name")) ?: "?", false);
		td(out, duration_text(ns_of(json_object_get(s, "a_ns")), a, sizeof(a)), true);
		td(out, duration_text(ns_of(json_object_get(s, "b_ns")), b, sizeof(b)), true);
		td(out, signed_text(ns_of(json_object_get(s, "diff_ns")), c, sizeof(c)), true);
		if (rows_of(doc, ci) == 2) {
			snprintf(c, sizeof(c), "%s … %s",
				 signed_text(num_at(doc, ci, 0), a, sizeof(a)),
				 signed_text(num_at(doc, ci, 1), b, sizeof(b)));
			td(out, c, true);
		} else {
			td(out, "—", true);
		}
		textbuf_printf(out, "<td><span class=\"badge\" style=\"background:%s\">",
			       !strcmp(verdict, "worse")	? BAD :
			       !strcmp(verdict, "better")	? GOOD :
			       !strcmp(verdict, "inconclusive") ? UNDECIDED :
								  NEUTRAL);
		textbuf_escape(out, verdict);
		textbuf_puts(out, "</span></td><td class=\"muted\">");
		textbuf_escape(out, json_string_value(json_object_get(s, "reason")) ?: "");
		textbuf_puts(out, "</td></tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
}

static void misses_table(struct jsondoc *doc, const json_t *pair, struct textbuf *out)
{
	const json_t *misses = json_object_get(pair, "misses");
	unsigned int s;

	if (!json_is_object(misses))
		return;
	textbuf_printf(out, "<h4>Deadline misses above %s</h4>",
		       duration_text(ns_of(json_object_get(json_object_get(misses, "a") ?:
								   json_object_get(misses, "b"),
							   "budget_ns")),
				     (char[32]){ 0 }, 32));
	textbuf_puts(out, "<div class=\"scroll\"><table><thead><tr><th></th>"
			  "<th class=\"n\">misses</th><th class=\"n\">of</th>"
			  "<th class=\"n\">fraction (exact interval)</th>"
			  "<th class=\"n\">per hour (interval)</th></tr></thead><tbody>\n");
	for (s = 0; s < 2; s++) {
		const json_t *m = json_object_get(misses, side_keys[s]);
		const json_t *ci = json_object_get(m, "ci"),
			     *hour = json_object_get(m, "per_hour_ci");
		char text[128];

		textbuf_printf(out, "<tr><td>%s</td>", s ? "B" : "A");
		if (!json_is_object(m)) {
			textbuf_puts(out,
				     "<td colspan=\"4\" class=\"muted\">no histogram</td></tr>\n");
			continue;
		}
		snprintf(text, sizeof(text), "%.0f", num_at(doc, json_object_get(m, "misses"), 0));
		td(out, text, true);
		snprintf(text, sizeof(text), "%lld",
			 (long long)json_integer_value(json_object_get(m, "samples")));
		td(out, text, true);
		snprintf(text, sizeof(text), "%.4g%% (%.4g … %.4g%%)",
			 100 * json_number_value(json_object_get(m, "fraction")),
			 100 * num_at(doc, ci, 0), 100 * num_at(doc, ci, 1));
		td(out, text, true);
		if (json_is_number(json_object_get(m, "per_hour")))
			snprintf(text, sizeof(text), "%.4g (%.4g … %.4g)",
				 json_number_value(json_object_get(m, "per_hour")),
				 num_at(doc, hour, 0), num_at(doc, hour, 1));
		else
			snprintf(text, sizeof(text), "—");
		td(out, text, true);
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
}

static void level_cell(struct jsondoc *doc, const json_t *level, struct textbuf *out)
{
	const json_t *ci = json_object_get(level, "ci_ns");
	char v[32], lo[32], hi[32], text[128];

	if (!json_is_number(json_object_get(level, "value_ns"))) {
		td(out, "n/a", true);
		return;
	}
	if (json_is_array(ci))
		snprintf(text, sizeof(text), "%s (%s … %s)",
			 duration_text(ns_of(json_object_get(level, "value_ns")), v, sizeof(v)),
			 isfinite(num_at(doc, ci, 0)) ?
				 duration_text(num_at(doc, ci, 0), lo, sizeof(lo)) :
				 "open",
			 isfinite(num_at(doc, ci, 1)) ?
				 duration_text(num_at(doc, ci, 1), hi, sizeof(hi)) :
				 "open");
	else
		snprintf(text, sizeof(text), "%s",
			 duration_text(ns_of(json_object_get(level, "value_ns")), v, sizeof(v)));
	td(out, text, true);
}

static void gev_table(struct jsondoc *doc, const json_t *pair, struct textbuf *out)
{
	static const char *const checks[] = { "shape", "independence", "stationarity", "fit" };
	const json_t *gev = json_object_get(pair, "gev"), *g[2], *levels;
	unsigned int s, c;
	size_t k;
	char text[96];

	g[0] = json_object_get(gev, "a");
	g[1] = json_object_get(gev, "b");
	textbuf_puts(out, "<h4>Extremes: GEV fit to the block maxima</h4>");
	if (!json_is_number(json_object_get(g[0], "loc_ns")) &&
	    !json_is_number(json_object_get(g[1], "loc_ns"))) {
		for (s = 0; s < 2; s++) {
			textbuf_printf(out, "<p class=\"muted\">%s: ", s ? "B" : "A");
			textbuf_escape(out,
				       json_string_value(json_object_get(g[s], "error")) ?: "");
			textbuf_puts(out, "</p>\n");
		}
		return;
	}
	textbuf_puts(out, "<div class=\"scroll\"><table><thead><tr><th></th><th class=\"n\">A"
			  "</th><th class=\"n\">B</th></tr></thead><tbody>\n");
	levels = json_object_get(g[json_is_number(json_object_get(g[0], "loc_ns")) ? 0 : 1],
				 "return_levels");
	for (k = 0; k < json_array_size(levels); k++) {
		double period =
			json_number_value(json_object_get(json_array_get(levels, k), "period_s"));

		textbuf_printf(out, "<tr><td>%s return level</td>",
			       period == 3600	       ? "1-hour" :
			       period == 86400	       ? "1-day" :
			       period == 365 * 86400.0 ? "1-year" :
							 "other");
		for (s = 0; s < 2; s++)
			level_cell(doc, json_array_get(json_object_get(g[s], "return_levels"), k),
				   out);
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "<tr><td>P(above the budget within a day)</td>");
	for (s = 0; s < 2; s++) {
		const json_t *e = json_object_get(g[s], "exceedance");
		const json_t *ci = json_object_get(e, "p_day_ci");

		if (json_is_number(json_object_get(e, "p_day")) && rows_of(doc, ci) == 2)
			snprintf(text, sizeof(text), "%.3g (%.3g … %.3g)",
				 json_number_value(json_object_get(e, "p_day")), num_at(doc, ci, 0),
				 num_at(doc, ci, 1));
		else
			snprintf(text, sizeof(text), "—");
		td(out, text, true);
	}
	textbuf_puts(out, "</tr>\n<tr><td>blocks</td>");
	for (s = 0; s < 2; s++) {
		char d[32];

		snprintf(text, sizeof(text), "%lld × %s",
			 (long long)json_integer_value(json_object_get(g[s], "blocks")),
			 duration_text(ns_of(json_object_get(g[s], "block_ns")), d, sizeof(d)));
		td(out, text, true);
	}
	textbuf_puts(out, "</tr>\n");
	for (c = 0; c < 4; c++) {
		textbuf_printf(out, "<tr><td>check: %s</td>", checks[c]);
		for (s = 0; s < 2; s++) {
			const json_t *check =
				json_object_get(json_object_get(g[s], "checks"), checks[c]);

			if (!check) {
				td(out, "—", false);
				continue;
			}
			textbuf_printf(
				out, "<td><span class=\"badge\" style=\"background:%s\">%s</span> ",
				json_is_true(json_object_get(check, "pass")) ? GOOD : BAD,
				json_is_true(json_object_get(check, "pass")) ? "pass" : "fail");
			textbuf_puts(out, "<span class=\"muted\">");
			textbuf_escape(out,
				       json_string_value(json_object_get(check, "says")) ?: "");
			textbuf_puts(out, "</span></td>");
		}
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "<tr><td>reliable</td>");
	for (s = 0; s < 2; s++)
		td(out,
		   json_is_true(json_object_get(g[s], "reliable"))   ? "yes" :
		   json_string_value(json_object_get(g[s], "error")) ?:
								       "no: a check failed",
		   false);
	textbuf_puts(out, "</tr>\n<tr><td>long enough?</td>");
	for (s = 0; s < 2; s++)
		td(out,
		   json_string_value(json_object_get(json_object_get(g[s], "long_enough"), "says")) ?:
			   "—",
		   false);
	textbuf_puts(out, "</tr>\n</tbody></table></div>\n");
}

static int pair_figures(const struct report *r, unsigned int input, unsigned int k,
			struct textbuf *out)
{
	unsigned int i;
	bool any = false;
	int ret;

	for (i = 0; i < r->nr_figures; i++) {
		const struct figure *f = &r->figures[i];

		if ((f->kind != FIGURE_COMPARE_EXCEEDANCE &&
		     f->kind != FIGURE_COMPARE_RETURN_LEVELS) ||
		    f->input != input || f->first != k)
			continue;
		if (!any)
			textbuf_puts(out, "<div class=\"grid\">\n");
		any = true;
		ret = report_emit_figure(r, f, out, NULL);
		if (ret)
			return ret;
	}
	if (any)
		textbuf_puts(out, "</div>\n");
	return 0;
}

static int compare_body(const struct report *r, unsigned int input, struct textbuf *out)
{
	const json_t *json = r->inputs[input].run->json;
	const json_t *pairs = json_object_get(json, "pairs");
	const json_t *unpaired = json_object_get(json, "unpaired");
	const json_t *params = json_object_get(json, "params");
	struct jsondoc *doc = r->inputs[input].run->doc;
	double confidence = json_number_value(json_object_get(params, "confidence"));
	size_t k;
	int ret;

	textbuf_puts(out, "<p class=\"summary\"><b>Verdict:</b> ");
	textbuf_escape(out, json_string_value(json_object_get(json, "summary"))		?:
				    json_string_value(json_object_get(json, "verdict")) ?:
				    "none given");
	textbuf_puts(out, "</p>\n<p class=\"sub\">");
	textbuf_printf(out,
		       "Paired by %s; %g%% intervals; a change counts when it is told apart from "
		       "none and exceeds %g%% of A and ",
		       json_string_value(json_object_get(params, "by")) ?: "cpu", confidence * 100,
		       100 * json_number_value(json_object_get(json_object_get(params, "practical"),
							       "fraction")));
	textbuf_escape(
		out,
		duration_text(ns_of(json_object_get(json_object_get(params, "practical"), "ns")),
			      (char[32]){ 0 }, 32));
	textbuf_puts(out, ". The max has no interval and no verdict: a run's max grows with its "
			  "length; the return levels say how high it goes.</p>\n");
	for (k = 0; k < json_array_size(pairs); k++) {
		const json_t *pair = json_array_get(pairs, k);

		textbuf_puts(out, "<h3>");
		textbuf_escape(out, json_string_value(json_object_get(pair, "what")) ?: "pair");
		/* file names as code: a long path wraps instead of widening a phone's page */
		textbuf_puts(out, ": <code>");
		textbuf_escape(out, json_string_value(json_object_get(pair, "a")) ?: "A");
		textbuf_puts(out, "</code> → <code>");
		textbuf_escape(out, json_string_value(json_object_get(pair, "b")) ?: "B");
		textbuf_puts(out, "</code></h3>\n");
		stats_table(doc, pair, confidence, out);
		misses_table(doc, pair, out);
		gev_table(doc, pair, out);
		ret = pair_figures(r, input, (unsigned int)k, out);
		if (ret)
			return ret;
	}
	if (json_array_size(unpaired)) {
		textbuf_puts(out, "<h3>Not paired</h3><ul>\n");
		for (k = 0; k < json_array_size(unpaired); k++) {
			const json_t *u = json_array_get(unpaired, k);

			textbuf_puts(out, "<li><code>");
			textbuf_escape(out, json_string_value(json_object_get(u, "file")) ?: "");
			textbuf_puts(out, "</code> ");
			textbuf_escape(out, json_string_value(json_object_get(u, "what")) ?: "");
			textbuf_puts(out, ": ");
			textbuf_escape(out, json_string_value(json_object_get(u, "reason")) ?: "");
			textbuf_puts(out, "</li>\n");
		}
		textbuf_puts(out, "</ul>\n");
	}
	return 0;
}

static const struct report_figure_kind figure_kinds[] = {
	{ FIGURE_COMPARE_EXCEEDANCE, draw_exceedance },
	{ FIGURE_COMPARE_RETURN_LEVELS, draw_return_levels },
};

const struct report_part report_compare_part = {
	.figures = figure_kinds,
	.nr_figures = sizeof(figure_kinds) / sizeof(figure_kinds[0]),
	.input = RUN_COMPARE,
	.plan = plan_compare,
	.body = compare_body,
};
