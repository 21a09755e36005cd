// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scales, ticks and axes, and the SVG of plots. Why hand-written SVG and
 * not cairo or gnuplot: see include/latscope/plot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/plot.h"

#define FONT "system-ui, &quot;DejaVu Sans&quot;, sans-serif"
#define TICK_FONT 11.0
#define TITLE_FONT 14.0
#define AXIS_FONT 12.0
/* average advance of a character of the tick font, for layout */
#define CHAR_WIDTH(size) ((size)*0.58)

/* Okabe & Ito (2008), ordered for lines on white: yellow last */
static const char *const palette[PLOT_COLOURS] = {
	"#0072B2", /* blue */
	"#D55E00", /* vermillion */
	"#009E73", /* bluish green */
	"#CC79A7", /* reddish purple */
	"#E69F00", /* orange */
	"#56B4E9", /* sky blue */
	"#000000", /* black */
	"#F0E442", /* yellow */
};

const char *plot_colour(unsigned int index)
{
	return palette[index % PLOT_COLOURS];
}

void plot_series_style(unsigned int index, double width, struct plot_style *style)
{
	style->colour = palette[index % (PLOT_COLOURS - 1)];
	style->width = width;
	style->dash = index >= PLOT_COLOURS - 1 ? "5 3" : NULL;
	style->opacity = 0;
}

/* the smallest positive value a log scale shows */
#define LOG_FLOOR 1e-300

void plot_scale_init(struct plot_scale *s, enum plot_scale_type type, double min, double max,
		     double from, double to)
{
	if (!isfinite(min))
		min = 0;
	if (!isfinite(max))
		max = min;
	if (max < min) {
		double t = min;

		min = max;
		max = t;
	}
	if (type == PLOT_LOG) {
		if (max <= 0)
			max = 1;
		if (min <= 0)
			min = max / 10 > LOG_FLOOR ? max / 10 : LOG_FLOOR;
		if (max <= min)
			max = min * 10;
	} else if (max <= min) {
		max = min ? min + fabs(min) : 1;
	}
	s->type = type;
	s->min = min;
	s->max = max;
	s->from = from;
	s->to = to;
}

double plot_scale_map(const struct plot_scale *s, double value)
{
	double at;

	if (s->type == PLOT_LOG) {
		if (value <= 0)
			value = s->min / 1e6 > LOG_FLOOR ? s->min / 1e6 : LOG_FLOOR;
		at = (log10(value) - log10(s->min)) / (log10(s->max) - log10(s->min));
	} else {
		at = (value - s->min) / (s->max - s->min);
	}
	return s->from + at * (s->to - s->from);
}

static const struct plot_unit units[] = {
	{ "ns", 1 },
	{ "us", 1e3 },
	{ "ms", 1e6 },
	{ "s", 1e9 },
};

const struct plot_unit *plot_duration_unit(double span_ns)
{
	int i;

	span_ns = fabs(span_ns);
	for (i = 3; i > 0; i--)
		if (span_ns >= units[i].ns)
			return &units[i];
	return &units[0];
}

/* three significant digits, trailing zeros dropped, locale-independent */
static void format_significant(double value, char *buf, size_t size)
{
	struct textbuf b;
	int decimals;

	if (value == 0) {
		snprintf(buf, size, "0");
		return;
	}
	decimals = 2 - (int)floor(log10(fabs(value)));
	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	textbuf_init(&b);
	textbuf_number(&b, value, decimals);
	snprintf(buf, size, "%s", textbuf_text(&b));
	textbuf_release(&b);
}

char *plot_format_duration(double ns, char *buf, size_t size)
{
	const struct plot_unit *u;
	char number[32];

	if (!isfinite(ns)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	/* the unit of the value as it will read: 999.6 ns rounds to "1 us" */
	u = plot_duration_unit(fabs(ns) >= 999.5 && fabs(ns) < 1000 ? 1000 : ns);
	format_significant(ns / u->ns, number, sizeof(number));
	if (!strcmp(number, "1000") && u->ns < 1e9) {
		u++;
		snprintf(number, sizeof(number), "1");
	}
	snprintf(buf, size, "%s %s", number, u->name);
	return buf;
}

char *plot_format_share(double fraction, char *buf, size_t size)
{
	double p = fraction * 100;

	if (p >= 9.95 || p == 0)
		snprintf(buf, size, "%.0f%%", p);
	else if (p >= 0.095)
		snprintf(buf, size, "%.1f%%", p);
	else
		snprintf(buf, size, "<0.1%%");
	return buf;
}

char *plot_format_count(double count, char *buf, size_t size)
{
	static const struct {
		double scale;
		const char *suffix;
	} steps[] = { { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
	char number[32];
	size_t i;

	if (!isfinite(count)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (fabs(count) >= steps[i].scale) {
			format_significant(count / steps[i].scale, number, sizeof(number));
			snprintf(buf, size, "%s%s", number, steps[i].suffix);
			return buf;
		}
	format_significant(count, number, sizeof(number));
	snprintf(buf, size, "%s", number);
	return buf;
}

double plot_nice_step(double raw)
{
	double power, fraction;

	if (!(raw > 0))
		return 1;
	power = pow(10, floor(log10(raw)));
	fraction = raw / power;
	if (fraction <= 1.0 + 1e-9)
		return power;
	if (fraction <= 2.0 + 1e-9)
		return 2 * power;
	if (fraction <= 5.0 + 1e-9)
		return 5 * power;
	return 10 * power;
}

/* 1, 2 or 5 times a power of ten, the nearest to @raw: tick steps */
static double round_step(double raw)
{
	double power, fraction;

	if (!(raw > 0))
		return 1;
	power = pow(10, floor(log10(raw)));
	fraction = raw / power;
	if (fraction < 1.5)
		return power;
	if (fraction < 3)
		return 2 * power;
	if (fraction < 7)
		return 5 * power;
	return 10 * power;
}

/* wall-clock steps in seconds: round minutes, hours and days */
static const double clock_steps[] = {
	1,    2,    5,	  10,	 15,	30,    60,    120,    300,    600,    900,
	1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 345600, 604800, 1209600,
};

static double clock_step(double span_s, unsigned int target)
{
	size_t i;

	for (i = 0; i < sizeof(clock_steps) / sizeof(clock_steps[0]); i++)
		if (span_s / clock_steps[i] <= target)
			return clock_steps[i];
	return plot_nice_step(span_s / target / 86400) * 86400;
}

/* the divisor of values on a linear axis, and the step of its ticks */
static void linear_step(const struct plot_scale *s, enum plot_quantity q, unsigned int target,
			double *divisor, double *step, const char **unit)
{
	double span;

	*divisor = 1;
	*unit = "";
	if (!target)
		target = 5;
	if (q == PLOT_DURATION) {
		const struct plot_unit *u = plot_duration_unit(fmax(fabs(s->min), fabs(s->max)));

		*divisor = u->ns;
		*unit = u->name;
	} else if (q == PLOT_WALLCLOCK) {
		*divisor = 1e9;
		*step = clock_step((s->max - s->min) / 1e9, target);
		return;
	}
	span = (s->max - s->min) / *divisor;
	*step = round_step(span / target);
}

void plot_scale_nice(struct plot_scale *s, enum plot_quantity q, unsigned int ticks)
{
	double divisor, step;
	const char *unit;

	if (s->type == PLOT_LOG) {
		s->min = pow(10, floor(log10(s->min) + 1e-9));
		s->max = pow(10, ceil(log10(s->max) - 1e-9));
		if (s->max <= s->min)
			s->max = s->min * 10;
		return;
	}
	linear_step(s, q, ticks, &divisor, &step, &unit);
	s->min = floor(s->min / divisor / step + 1e-9) * step * divisor;
	s->max = ceil(s->max / divisor / step - 1e-9) * step * divisor;
	if (s->max <= s->min)
		s->max = s->min + step * divisor;
}

static int decimals_for(double step)
{
	int d = (int)ceil(-log10(step) - 1e-9);

	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static void clock_label(double epoch_ns, double step_s, char *buf, size_t size)
{
	time_t t = (time_t)floor(epoch_ns / 1e9);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (step_s >= 86400 || (!tm.tm_hour && !tm.tm_min && !tm.tm_sec && step_s >= 60))
		snprintf(buf, size, "%02d-%02d", tm.tm_mon + 1, tm.tm_mday);
	else if (step_s >= 60)
		snprintf(buf, size, "%02d:%02d", tm.tm_hour, tm.tm_min);
	else
		snprintf(buf, size, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void linear_label(double value, double divisor, double step, enum plot_quantity q, char *buf,
			 size_t size)
{
	struct textbuf b;
	double shown = value / divisor;

	if (fabs(shown) < step * 1e-6)
		shown = 0;
	textbuf_init(&b);
	switch (q) {
	case PLOT_COUNT:
		if (fabs(shown) >= 10000) {
			plot_format_count(shown, buf, size);
			return;
		}
		textbuf_number(&b, shown, decimals_for(step));
		break;
	case PLOT_FRACTION:
		textbuf_number(&b, shown * 100, decimals_for(step * 100));
		textbuf_puts(&b, "%");
		break;
	default:
		textbuf_number(&b, shown, decimals_for(step));
	}
	snprintf(buf, size, "%s", textbuf_text(&b));
	textbuf_release(&b);
}

/* superscript digits for 10⁻³ */
static void power_label(int exponent, char *buf, size_t size)
{
	static const char *const super[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
	char digits[16];
	size_t at;
	int i, n = snprintf(digits, sizeof(digits), "%d", abs(exponent));

	at = (size_t)snprintf(buf, size, "10%s", exponent < 0 ? "⁻" : "");
	for (i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s", super[digits[i] - '0']);
}

static void log_label(double value, enum plot_quantity q, char *buf, size_t size)
{
	int exponent = (int)lround(log10(value));

	switch (q) {
	case PLOT_DURATION:
		plot_format_duration(value, buf, size);
		break;
	case PLOT_PROBABILITY:
	case PLOT_FRACTION:
		if (value >= 0.01 || fabs(value - pow(10, exponent)) > value * 1e-6) {
			struct textbuf b;

			textbuf_init(&b);
			textbuf_number(&b, q == PLOT_FRACTION ? value * 100 : value, 6);
			if (q == PLOT_FRACTION)
				textbuf_puts(&b, "%");
			snprintf(buf, size, "%s", textbuf_text(&b));
			textbuf_release(&b);
		} else {
			power_label(exponent, buf, size);
		}
		break;
	default:
		plot_format_count(value, buf, size);
	}
}

static unsigned int log_ticks(const struct plot_scale *s, enum plot_quantity q, unsigned int target,
			      struct plot_tick *ticks)
{
	int first = (int)floor(log10(s->min) + 1e-9), last = (int)ceil(log10(s->max) - 1e-9);
	int decades = last - first, every = 1, e, m;
	double span = log10(s->max) - log10(s->min);
	unsigned int n = 0;
	double lo = s->min * (1 - 1e-9), hi = s->max * (1 + 1e-9);

	if (!target)
		target = 5;
	while (decades / every + 1 > (int)target)
		every++;
	for (e = first; e <= last && n < PLOT_MAX_TICKS; e++) {
		for (m = 1; m <= 9 && n < PLOT_MAX_TICKS; m++) {
			double v = m * pow(10, e);
			bool labelled;

			if (v < lo || v > hi)
				continue;
			/* label whole multiples of the stride: 1, 1k, 1M rather than 100, 100k */
			if (m == 1)
				labelled = ((e % every) + every) % every == 0;
			else if (span < 2)
				labelled = m == 2 || m == 5;
			else if (decades <= 4)
				labelled = false;
			else
				continue;
			ticks[n].value = v;
			ticks[n].minor = !labelled;
			ticks[n].label[0] = '\0';
			if (labelled)
				log_label(v, q, ticks[n].label, sizeof(ticks[n].label));
			n++;
		}
	}
	return n;
}

unsigned int plot_ticks(const struct plot_scale *s, enum plot_quantity q, unsigned int target,
			struct plot_tick *ticks, char *unit, size_t unit_size)
{
	double divisor, step, v, first;
	const char *name;
	unsigned int n = 0;

	if (unit && unit_size)
		unit[0] = '\0';
	if (s->type == PLOT_LOG)
		return log_ticks(s, q, target, ticks);
	linear_step(s, q, target, &divisor, &step, &name);
	if (unit && unit_size)
		snprintf(unit, unit_size, "%s", q == PLOT_WALLCLOCK ? "UTC" : name);
	first = ceil(s->min / divisor / step - 1e-9) * step;
	for (v = first; v * divisor <= s->max + step * divisor * 1e-9 && n < PLOT_MAX_TICKS;
	     v = first + step * n) {
		ticks[n].value = v * divisor;
		ticks[n].minor = false;
		if (q == PLOT_WALLCLOCK)
			clock_label(v * divisor, step, ticks[n].label, sizeof(ticks[n].label));
		else
			linear_label(v * divisor, divisor, step, q, ticks[n].label,
				     sizeof(ticks[n].label));
		n++;
	}
	return n;
}

/* SVG writing ------------------------------------------------------------ */

static void number(struct plot *p, double v)
{
	textbuf_number(p->out, v, 1);
}

/* the start of a <path> across the data area at pixel row @at (or column) */
static void across(struct plot *p, double at, bool horizontal)
{
	textbuf_puts(p->out, "<path d=\"M");
	number(p, horizontal ? p->left : at);
	textbuf_puts(p->out, " ");
	number(p, horizontal ? at : p->top);
	textbuf_puts(p->out, horizontal ? "H" : "V");
	number(p, horizontal ? p->right : p->bottom);
	textbuf_puts(p->out, "\"");
}

static void style_attributes(struct plot *p, const struct plot_style *style, bool fill)
{
	const char *colour = style && style->colour ? style->colour : palette[0];

	if (fill) {
		textbuf_printf(p->out, " fill=\"%s\"", colour);
	} else {
		textbuf_printf(p->out, " fill=\"none\" stroke=\"%s\" stroke-width=\"", colour);
		textbuf_number(p->out, style && style->width > 0 ? style->width : 1.5, 2);
		textbuf_puts(p->out, "\"");
		if (style && style->dash)
			textbuf_printf(p->out, " stroke-dasharray=\"%s\"", style->dash);
	}
	if (style && style->opacity > 0 && style->opacity < 1) {
		textbuf_puts(p->out, fill ? " fill-opacity=\"" : " stroke-opacity=\"");
		textbuf_number(p->out, style->opacity, 2);
		textbuf_puts(p->out, "\"");
	}
}

void plot_text(struct plot *p, double px, double py, const char *anchor, const char *text,
	       double size, const char *extra_attributes)
{
	textbuf_puts(p->out, "<text x=\"");
	number(p, px);
	textbuf_puts(p->out, "\" y=\"");
	number(p, py);
	textbuf_puts(p->out, "\"");
	if (anchor && strcmp(anchor, "start"))
		textbuf_printf(p->out, " text-anchor=\"%s\"", anchor);
	if (size > 0) {
		textbuf_puts(p->out, " font-size=\"");
		textbuf_number(p->out, size, 1);
		textbuf_puts(p->out, "\"");
	}
	if (extra_attributes)
		textbuf_printf(p->out, " %s", extra_attributes);
	textbuf_puts(p->out, ">");
	textbuf_escape(p->out, text);
	textbuf_puts(p->out, "</text>\n");
}

static void sanitize_id(const char *id, char *out, size_t size)
{
	size_t i;

	if (!id || !*id)
		id = "plot";
	for (i = 0; id[i] && i + 1 < size; i++) {
		char c = id[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					 (c >= '0' && c <= '9') || c == '-' || c == '_' ?
				 c :
				 '_';
	}
	out[i] = '\0';
	/* an XML id starts with a letter */
	if (!((out[0] >= 'a' && out[0] <= 'z') || (out[0] >= 'A' && out[0] <= 'Z')))
		out[0] = 'p';
}

/* a label cut to fit a tick, on a character boundary, with an ellipsis */
static void shorten(const char *text, char *out, size_t size)
{
	size_t len = strlen(text ? text : ""), cut;

	if (!text)
		text = "";
	if (len < size) {
		memcpy(out, text, len + 1);
		return;
	}
	cut = size - 4;
	while (cut && (text[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(out, text, cut);
	memcpy(out + cut, "…", 4);
}

static double label_width(const struct plot_tick *ticks, unsigned int n)
{
	size_t longest = 0, len;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* UTF-8 continuation bytes take no room */
		const char *c;

		for (len = 0, c = ticks[i].label; *c; c++)
			if ((*c & 0xc0) != 0x80)
				len++;
		if (len > longest)
			longest = len;
	}
	return (double)longest * CHAR_WIDTH(TICK_FONT);
}

static void axis_title(char *buf, size_t size, const char *title, const char *unit)
{
	if (unit && *unit)
		snprintf(buf, size, "%s (%s)", title ? title : "", unit);
	else
		snprintf(buf, size, "%s", title ? title : "");
}

static void draw_axes(struct plot *p, const struct plot_spec *spec, struct plot_tick *xt,
		      unsigned int nx, const char *x_unit, struct plot_tick *yt, unsigned int ny,
		      const char *y_unit)
{
	char title[160];
	unsigned int i;
	double at;

	/* grid and ticks */
	textbuf_puts(p->out, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
	for (i = 0; i < ny; i++) {
		if (yt[i].minor || p->categorical)
			continue;
		across(p, plot_scale_map(&p->y, yt[i].value), true);
		textbuf_puts(p->out, "/>\n");
	}
	for (i = 0; i < nx; i++) {
		if (xt[i].minor)
			continue;
		across(p, plot_scale_map(&p->x, xt[i].value), false);
		textbuf_puts(p->out, "/>\n");
	}
	textbuf_puts(p->out, "</g>\n<g stroke=\"#555555\" stroke-width=\"1\">\n<path d=\"");
	for (i = 0; i < ny; i++) {
		at = plot_scale_map(&p->y, yt[i].value);
		textbuf_puts(p->out, "M");
		number(p, p->left - (yt[i].minor ? 3 : 5));
		textbuf_puts(p->out, " ");
		number(p, at);
		textbuf_puts(p->out, "H");
		number(p, p->left);
	}
	for (i = 0; i < nx; i++) {
		at = plot_scale_map(&p->x, xt[i].value);
		textbuf_puts(p->out, "M");
		number(p, at);
		textbuf_puts(p->out, " ");
		number(p, p->bottom);
		textbuf_puts(p->out, "V");
		number(p, p->bottom + (xt[i].minor ? 3 : 5));
	}
	textbuf_puts(p->out, "\"/>\n<path fill=\"none\" d=\"M");
	number(p, p->left);
	textbuf_puts(p->out, " ");
	number(p, p->top);
	textbuf_puts(p->out, "V");
	number(p, p->bottom);
	textbuf_puts(p->out, "H");
	number(p, p->right);
	textbuf_puts(p->out, "\"/>\n</g>\n<g fill=\"#333333\">\n");
	for (i = 0; i < ny; i++)
		if (!yt[i].minor)
			plot_text(p, p->left - 8, plot_scale_map(&p->y, yt[i].value) + 4, "end",
				  yt[i].label, TICK_FONT, NULL);
	for (i = 0; i < nx; i++)
		if (!xt[i].minor)
			plot_text(p, plot_scale_map(&p->x, xt[i].value), p->bottom + 18, "middle",
				  xt[i].label, TICK_FONT, NULL);
	axis_title(title, sizeof(title), spec->x_title, x_unit);
	plot_text(p, (p->left + p->right) / 2, p->bottom + 36, "middle", title, AXIS_FONT, NULL);
	axis_title(title, sizeof(title), spec->y_title, y_unit);
	if (title[0]) {
		char rotate[96];

		snprintf(rotate, sizeof(rotate), "transform=\"rotate(-90 14 %d)\"",
			 (int)((p->top + p->bottom) / 2));
		plot_text(p, 14, (p->top + p->bottom) / 2, "middle", title, AXIS_FONT, rotate);
	}
	textbuf_puts(p->out, "</g>\n");
}

int plot_begin(struct plot *p, struct textbuf *out, const struct plot_spec *spec)
{
	struct plot_tick xt[PLOT_MAX_TICKS], yt[PLOT_MAX_TICKS];
	char x_unit[16], y_unit[16];
	unsigned int nx, ny, x_target, y_target;
	double legend_space;

	memset(p, 0, sizeof(*p));
	p->out = out;
	sanitize_id(spec->id, p->id, sizeof(p->id));
	p->width = spec->width > 0 ? spec->width : 640;
	p->height = spec->height > 0 ? spec->height : 360;
	p->x_quantity = spec->x_quantity;
	p->y_quantity = spec->y_quantity;
	p->legend_outside = spec->legend_outside;
	if ((spec->x_type == PLOT_LOG && !(spec->x_max > 0)) ||
	    (spec->y_type == PLOT_LOG && !(spec->y_max > 0)))
		return -EINVAL;

	legend_space =
		spec->legend_outside ? 8 + 18.0 * (spec->legend_rows ? spec->legend_rows : 1) : 0;
	p->top = spec->title && *spec->title ? 34 : 12;
	p->bottom = p->height - 46 - legend_space - spec->bottom_space;
	/* the y ticks decide the left margin: lay them out first */
	if (spec->nr_y_categories) {
		unsigned int i;

		p->categorical = true;
		plot_scale_init(&p->y, PLOT_LINEAR, 0, spec->nr_y_categories, p->top, p->bottom);
		ny = spec->nr_y_categories < PLOT_MAX_TICKS ? spec->nr_y_categories :
							      PLOT_MAX_TICKS;
		for (i = 0; i < ny; i++) {
			yt[i].value = i + 0.5;
			yt[i].minor = false;
			shorten(spec->y_categories[i], yt[i].label, sizeof(yt[i].label));
		}
		y_unit[0] = '\0';
	} else {
		plot_scale_init(&p->y, spec->y_type, spec->y_min, spec->y_max, p->bottom, p->top);
		y_target = (unsigned int)fmax(2, (p->bottom - p->top) / 42);
		if (!spec->y_exact)
			plot_scale_nice(&p->y, spec->y_quantity, y_target);
		ny = plot_ticks(&p->y, spec->y_quantity, y_target, yt, y_unit, sizeof(y_unit));
	}
	p->left = 30 + label_width(yt, ny) + 10;
	p->right = p->width - 18;
	plot_scale_init(&p->x, spec->x_type, spec->x_min, spec->x_max, p->left, p->right);
	x_target = (unsigned int)fmax(2, (p->right - p->left) /
						 (spec->x_quantity == PLOT_WALLCLOCK ? 90 : 70));
	if (!spec->x_exact && spec->x_quantity != PLOT_WALLCLOCK)
		plot_scale_nice(&p->x, spec->x_quantity, x_target);
	nx = plot_ticks(&p->x, spec->x_quantity, x_target, xt, x_unit, sizeof(x_unit));
	/* the last tick's label is centred on it: the right margin must hold its half */
	if (nx && !xt[nx - 1].minor) {
		double half = label_width(&xt[nx - 1], 1) / 2;

		/* the width is an estimate: keep a few px more than it says */
		if (plot_scale_map(&p->x, xt[nx - 1].value) + half > p->width - 8) {
			p->right = p->width - 8 - half;
			p->x.to = p->right;
		}
	}

	if (spec->standalone)
		textbuf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				  "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	else
		textbuf_puts(out, "<svg");
	textbuf_printf(out, " class=\"plot\" id=\"%s\" viewBox=\"0 0 ", p->id);
	number(p, p->width);
	textbuf_puts(out, " ");
	number(p, p->height);
	textbuf_puts(out, "\"");
	if (spec->standalone) {
		textbuf_puts(out, " width=\"");
		number(p, p->width);
		textbuf_puts(out, "\" height=\"");
		number(p, p->height);
		textbuf_puts(out, "\"");
	}
	textbuf_printf(out,
		       " role=\"img\" aria-labelledby=\"%s-t\" font-family=\"" FONT
		       "\" font-size=\"12\">\n<title id=\"%s-t\">",
		       p->id, p->id);
	textbuf_escape(out, spec->title);
	textbuf_puts(out, "</title>\n");
	if (spec->description) {
		textbuf_puts(out, "<desc>");
		textbuf_escape(out, spec->description);
		textbuf_puts(out, "</desc>\n");
	}
	textbuf_puts(out, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	if (spec->title && *spec->title)
		plot_text(p, 12, 20, "start", spec->title, TITLE_FONT, "font-weight=\"600\"");
	textbuf_printf(out, "<clipPath id=\"%s-c\"><rect x=\"", p->id);
	number(p, p->left);
	textbuf_puts(out, "\" y=\"");
	number(p, p->top - 1);
	textbuf_puts(out, "\" width=\"");
	number(p, p->right - p->left + 1);
	textbuf_puts(out, "\" height=\"");
	number(p, p->bottom - p->top + 2);
	textbuf_puts(out, "\"/></clipPath>\n");
	draw_axes(p, spec, xt, nx, x_unit, yt, ny, y_unit);
	textbuf_printf(out, "<g clip-path=\"url(#%s-c)\">\n", p->id);
	return 0;
}

void plot_legend(struct plot *p, const char *label, const struct plot_style *style, bool box)
{
	if (p->nr_legend == sizeof(p->legend) / sizeof(p->legend[0]))
		return;
	snprintf(p->legend[p->nr_legend].label, sizeof(p->legend[0].label), "%s", label);
	p->legend[p->nr_legend].style = *style;
	p->legend[p->nr_legend].box = box;
	p->nr_legend++;
}

static double text_width(const char *text, double size)
{
	size_t n = 0;

	for (; *text; text++)
		if ((*text & 0xc0) != 0x80)
			n++;
	return (double)n * CHAR_WIDTH(size);
}

static void legend_entry(struct plot *p, unsigned int i, double x, double y)
{
	const struct plot_style *s = &p->legend[i].style;

	if (p->legend[i].box) {
		textbuf_puts(p->out, "<rect x=\"");
		number(p, x);
		textbuf_puts(p->out, "\" y=\"");
		number(p, y - 9);
		textbuf_printf(p->out, "\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			       s->colour ? s->colour : palette[0]);
	} else {
		textbuf_puts(p->out, "<path d=\"M");
		number(p, x);
		textbuf_puts(p->out, " ");
		number(p, y - 4);
		textbuf_puts(p->out, "h18\"");
		style_attributes(p, s, false);
		textbuf_puts(p->out, "/>\n");
	}
	plot_text(p, x + 24, y, "start", p->legend[i].label, TICK_FONT, NULL);
}

void plot_unclip(struct plot *p)
{
	if (!p->unclipped)
		textbuf_puts(p->out, "</g>\n");
	p->unclipped = true;
}

void plot_end(struct plot *p)
{
	unsigned int i;
	double widest = 0, x, y;

	plot_unclip(p);
	if (p->nr_legend) {
		for (i = 0; i < p->nr_legend; i++)
			widest = fmax(widest, text_width(p->legend[i].label, TICK_FONT));
		textbuf_puts(p->out, "<g class=\"legend\" fill=\"#333333\">\n");
		if (p->legend_outside) {
			/* rows under the x axis title, as many entries a row as fit */
			double column = widest + 36, left = p->left;

			x = left;
			y = p->bottom + 60;
			for (i = 0; i < p->nr_legend; i++) {
				if (x > left && x + column > p->width - 8) {
					x = left;
					y += 18;
				}
				legend_entry(p, i, x, y);
				x += column;
			}
		} else {
			/* a box in the top right corner of the data area */
			double w = widest + 36, h = 8 + 16.0 * p->nr_legend;

			x = p->right - w - 6;
			y = p->top + 6;
			textbuf_puts(p->out, "<rect x=\"");
			number(p, x);
			textbuf_puts(p->out, "\" y=\"");
			number(p, y);
			textbuf_puts(p->out, "\" width=\"");
			number(p, w);
			textbuf_puts(p->out, "\" height=\"");
			number(p, h);
			textbuf_puts(p->out, "\" fill=\"#ffffff\" fill-opacity=\"0.85\" "
					     "stroke=\"#cccccc\"/>\n");
			for (i = 0; i < p->nr_legend; i++)
				legend_entry(p, i, x + 6, y + 16 + 16.0 * i);
		}
		textbuf_puts(p->out, "</g>\n");
	}
	textbuf_puts(p->out, "</svg>\n");
}

static void point(struct plot *p, char command, double x, double y)
{
	char c[2] = { command, '\0' };

	textbuf_puts(p->out, c);
	number(p, plot_scale_map(&p->x, x));
	textbuf_puts(p->out, " ");
	number(p, plot_scale_map(&p->y, y));
}

void plot_line(struct plot *p, const double *x, const double *y, size_t n,
	       const struct plot_style *style)
{
	bool pen_down = false;
	size_t i;

	if (!n)
		return;
	textbuf_puts(p->out, "<path stroke-linejoin=\"round\" d=\"");
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i])) {
			pen_down = false;
			continue;
		}
		point(p, pen_down ? 'L' : 'M', x[i], y[i]);
		pen_down = true;
	}
	textbuf_puts(p->out, "\"");
	style_attributes(p, style, false);
	textbuf_puts(p->out, "/>\n");
}

void plot_steps(struct plot *p, const double *edges, const double *heights, size_t n,
		const struct plot_style *style)
{
	double base = p->bottom + 1, level, at;
	size_t i;

	if (!n)
		return;
	textbuf_puts(p->out, "<path d=\"M");
	number(p, plot_scale_map(&p->x, edges[0]));
	textbuf_puts(p->out, " ");
	number(p, base);
	for (i = 0; i < n; i++) {
		level = heights[i] > p->y.min ||
					(p->y.type == PLOT_LINEAR && heights[i] >= p->y.min) ?
				plot_scale_map(&p->y, heights[i]) :
				base;
		textbuf_puts(p->out, "V");
		number(p, level);
		at = plot_scale_map(&p->x, edges[i + 1]);
		textbuf_puts(p->out, "H");
		number(p, at);
	}
	textbuf_puts(p->out, "V");
	number(p, base);
	textbuf_puts(p->out, "\"");
	style_attributes(p, style, false);
	textbuf_puts(p->out, "/>\n");
}

void plot_dots(struct plot *p, const double *x, const double *y, size_t n, double radius,
	       const struct plot_style *style)
{
	const char *colour = style && style->colour ? style->colour : palette[0];
	size_t i;

	if (!n)
		return;
	/* zero-length round-capped segments: the most compact dots SVG has */
	textbuf_printf(p->out, "<path stroke=\"%s\" stroke-linecap=\"round\" stroke-width=\"",
		       colour);
	textbuf_number(p->out, radius * 2, 1);
	textbuf_puts(p->out, "\"");
	if (style && style->opacity > 0 && style->opacity < 1) {
		textbuf_puts(p->out, " stroke-opacity=\"");
		textbuf_number(p->out, style->opacity, 2);
		textbuf_puts(p->out, "\"");
	}
	textbuf_puts(p->out, " d=\"");
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		point(p, 'M', x[i], y[i]);
		textbuf_puts(p->out, "h0");
	}
	textbuf_puts(p->out, "\"/>\n");
}

void plot_rect(struct plot *p, double x0, double y0, double x1, double y1, const char *colour,
	       const char *tooltip)
{
	double a = plot_scale_map(&p->x, x0), b = plot_scale_map(&p->x, x1);
	double c = plot_scale_map(&p->y, y0), d = plot_scale_map(&p->y, y1);

	textbuf_puts(p->out, "<rect x=\"");
	number(p, fmin(a, b));
	textbuf_puts(p->out, "\" y=\"");
	number(p, fmin(c, d));
	textbuf_puts(p->out, "\" width=\"");
	number(p, fmax(fabs(b - a), 0.5));
	textbuf_puts(p->out, "\" height=\"");
	number(p, fabs(d - c));
	textbuf_printf(p->out, "\" fill=\"%s\"", colour ? colour : palette[0]);
	if (tooltip) {
		textbuf_puts(p->out, "><title>");
		textbuf_escape(p->out, tooltip);
		textbuf_puts(p->out, "</title></rect>\n");
	} else {
		textbuf_puts(p->out, "/>\n");
	}
}

void plot_vmarker(struct plot *p, double x, const char *label, const struct plot_style *style)
{
	double at = plot_scale_map(&p->x, x);

	across(p, at, false);
	style_attributes(p, style, false);
	textbuf_puts(p->out, "/>\n");
	if (label && *label) {
		/* beside the line, on the side with room */
		bool left = at > (p->left + p->right) / 2;
		char fill[48];

		snprintf(fill, sizeof(fill), "fill=\"%s\"",
			 style && style->colour ? style->colour : "#333333");
		plot_text(p, left ? at - 4 : at + 4, p->top + 12, left ? "end" : "start", label,
			  TICK_FONT, fill);
	}
}

void plot_hmarker(struct plot *p, double y, const char *label, const struct plot_style *style)
{
	double at = plot_scale_map(&p->y, y);
	char fill[48];

	across(p, at, true);
	style_attributes(p, style, false);
	textbuf_puts(p->out, "/>\n");
	if (label && *label) {
		snprintf(fill, sizeof(fill), "fill=\"%s\"",
			 style && style->colour ? style->colour : "#333333");
		plot_text(p, p->left + 4, at - 4, "start", label, TICK_FONT, fill);
	}
}

void plot_point_label(struct plot *p, double x, double y, const char *label,
		      const struct plot_style *style)
{
	double px = plot_scale_map(&p->x, x), py = plot_scale_map(&p->y, y);
	const char *colour = style && style->colour ? style->colour : palette[0];
	bool left = px > p->right - 90;
	char fill[48];

	textbuf_puts(p->out, "<circle cx=\"");
	number(p, px);
	textbuf_puts(p->out, "\" cy=\"");
	number(p, py);
	textbuf_printf(p->out, "\" r=\"3\" fill=\"%s\"/>\n", colour);
	if (label && *label) {
		snprintf(fill, sizeof(fill), "fill=\"%s\"", colour);
		plot_text(p, left ? px - 6 : px + 6, py - 5, left ? "end" : "start", label, 10.5,
			  fill);
	}
}

/* reduction ---------------------------------------------------------------- */

int plot_reducer_init(struct plot_reducer *r, const struct plot_scale *x,
		      const struct plot_scale *y, double cell_width, double cell_height)
{
	double w = fabs(x->to - x->from), h = fabs(y->to - y->from);
	size_t cells, i;

	r->x = x;
	r->y = y;
	r->cell_width = cell_width > 0 ? cell_width : 1;
	r->cell_height = cell_height;
	r->columns = (unsigned int)ceil(w / r->cell_width);
	if (!r->columns)
		r->columns = 1;
	r->rows = cell_height > 0 ? (unsigned int)ceil(h / cell_height) : 1;
	if (!r->rows)
		r->rows = 1;
	r->added = 0;
	cells = (size_t)r->columns * r->rows;
	r->cells = malloc(cells * sizeof(*r->cells));
	if (!r->cells)
		return -ENOMEM;
	for (i = 0; i < cells; i++) {
		r->cells[i].x = NAN;
		r->cells[i].y = NAN;
	}
	return 0;
}

static unsigned int cell_of(const struct plot_scale *s, double value, double size,
			    unsigned int count)
{
	double at = plot_scale_map(s, value), low = fmin(s->from, s->to);
	double index = floor((at - low) / size);

	if (!(index >= 0))
		return 0;
	if (index >= count)
		return count - 1;
	return (unsigned int)index;
}

void plot_reducer_add(struct plot_reducer *r, double x, double y)
{
	unsigned int column, row;
	struct plot_point *cell;

	if (!isfinite(x) || !isfinite(y))
		return;
	column = cell_of(r->x, x, r->cell_width, r->columns);
	row = r->rows > 1 ? cell_of(r->y, y, r->cell_height, r->rows) : 0;
	cell = &r->cells[(size_t)column * r->rows + row];
	if (isnan(cell->y) || y > cell->y) {
		cell->x = x;
		cell->y = y;
	}
	r->added++;
}

size_t plot_reducer_points(const struct plot_reducer *r, struct plot_point **points)
{
	size_t cells = (size_t)r->columns * r->rows, i, n = 0;

	*points = NULL;
	for (i = 0; i < cells; i++)
		n += !isnan(r->cells[i].y);
	if (!n)
		return 0;
	*points = malloc(n * sizeof(**points));
	if (!*points)
		return 0;
	for (i = 0, n = 0; i < cells; i++)
		if (!isnan(r->cells[i].y))
			(*points)[n++] = r->cells[i];
	return n;
}

void plot_reducer_release(struct plot_reducer *r)
{
	free(r->cells);
	r->cells = NULL;
}
