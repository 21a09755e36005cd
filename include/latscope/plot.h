/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_PLOT_H
#define LATSCOPE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/textbuf.h"

/*
 * Plots as SVG: scales, nice ticks with units, axes, legends, the colour
 * palette and lossless reduction of long series, in one module that every
 * plot of the project draws through.
 *
 * The SVG is written by hand, as perf's timechart does, rather than through
 * cairo or gnuplot: the plots are lines, steps, dots and rectangles, which
 * take a few hundred lines of C; cairo would pull 20 packages into the build
 * for that and writes text as glyph outlines unless told otherwise, and a
 * gnuplot child costs ~38 ms per plot against ~0.75 ms here. Written by
 * hand, text stays selectable SVG <text>, every string from an input is
 * escaped in one place (textbuf_escape), numbers never depend on the locale,
 * and the output has no reference to anything outside itself.
 */

/* a scale maps data values (ns, counts, probabilities, epoch ns) to pixels */
enum plot_scale_type {
	PLOT_LINEAR,
	PLOT_LOG,
};

struct plot_scale {
	enum plot_scale_type type;
	double min; /* domain; for PLOT_LOG both > 0 */
	double max;
	double from; /* pixels that min and max map to */
	double to;
};

/* what the values of an axis are: decides tick steps, units and labels */
enum plot_quantity {
	PLOT_DURATION, /* ns: labelled in ns, us, ms or s */
	PLOT_COUNT, /* plain numbers: 1, 10, 1k, 1M */
	PLOT_PROBABILITY, /* 0..1, on log axes 1, 0.1, 0.01, 10⁻³ */
	PLOT_FRACTION, /* 0..1 labelled as percent */
	PLOT_WALLCLOCK, /* ns since the epoch, UTC dates and times */
};

/**
 * plot_scale_init - a scale over [min, max] onto pixels [from, to]
 * For PLOT_LOG, min and max at or below 0 are raised to a tiny positive
 * value; min == max is widened so that the scale never divides by zero.
 */
void plot_scale_init(struct plot_scale *s, enum plot_scale_type type, double min, double max,
		     double from, double to);

/* the pixel of @value; values outside the domain map outside the range */
double plot_scale_map(const struct plot_scale *s, double value);

/**
 * plot_scale_nice - widen the domain to round bounds: a multiple of the
 * tick step (linear) or whole decades (log)
 * @s: the scale
 * @q: what its values are
 * @ticks: about how many ticks fit in its pixel range
 */
void plot_scale_nice(struct plot_scale *s, enum plot_quantity q, unsigned int ticks);

/* a unit of duration: "ns" 1, "us" 1e3, "ms" 1e6, "s" 1e9 */
struct plot_unit {
	const char *name;
	double ns;
};

/**
 * plot_duration_unit - the unit in which @span_ns reads best
 * The largest unit in which @span_ns is at least 1 ("2.5 ms", not
 * "2500 us"); ns below 1 us. Returns a pointer to a constant.
 */
const struct plot_unit *plot_duration_unit(double span_ns);

/**
 * plot_format_duration - a duration for people: "950 ns", "21.7 us",
 * "1.04 ms", "3.2 s", with three significant digits
 * Returns @buf.
 */
char *plot_format_duration(double ns, char *buf, size_t size);

/* a share of a whole for people: "62%", "4.0%", "0.3%", "<0.1%"; returns @buf */
char *plot_format_share(double fraction, char *buf, size_t size);

/* a count for people: "950", "12.3k", "1.5M", "2.1G"; returns @buf */
char *plot_format_count(double count, char *buf, size_t size);

/* 1, 2 or 5 times a power of ten: the smallest at least @raw (> 0) */
double plot_nice_step(double raw);

#define PLOT_MAX_TICKS 64

struct plot_tick {
	double value;
	char label[48];
	bool minor; /* drawn as a tick without a label */
};

/**
 * plot_ticks - nice tick values and their labels for an axis
 * @s: the scale (its domain decides the values)
 * @q: what the values are
 * @target: about how many labelled ticks are wanted
 * @ticks: receives up to PLOT_MAX_TICKS ticks, ascending
 * @unit: receives the unit all labels share, for the axis title ("us" on a
 *	  linear duration axis, "" when each label carries its own, as on log
 *	  axes)
 * @unit_size: size of @unit
 *
 * Linear axes step by 1, 2 or 5 times a power of ten of the unit chosen
 * from the domain; log axes tick at decades (and at 2 and 5 times them when
 * the domain spans less than two decades). Returns the number of ticks.
 */
unsigned int plot_ticks(const struct plot_scale *s, enum plot_quantity q, unsigned int target,
			struct plot_tick *ticks, char *unit, size_t unit_size);

/*
 * The palette: Okabe and Ito's eight colours, safe for the common forms of
 * colour blindness, in the order lines are best told apart on white (yellow,
 * weak on white, last). plot_colour(i) is the same colour for the same i on
 * every plot, so one CPU or one input keeps its colour across a page.
 */
#define PLOT_COLOURS 8
const char *plot_colour(unsigned int index);
/* a neutral grey for grids, unexplained causes and context */
#define PLOT_GREY "#999999"

/* how a line or mark is drawn */
struct plot_style {
	const char *colour; /* "#0072B2" */
	double width; /* stroke width in px; 0 for the default 1.5 */
	const char *dash; /* stroke-dasharray ("4 3"), NULL for solid */
	double opacity; /* 0 for opaque */
};

/**
 * plot_series_style - the line of the @index-th series of a plot or page
 * @index: which series (a CPU's place, an input's number)
 * @width: the stroke width
 * @style: receives the style
 *
 * The seven palette colours that read as lines on white, in order; from
 * the eighth on, the same colours dashed (Okabe-Ito yellow is kept for
 * filled areas).
 */
void plot_series_style(unsigned int index, double width, struct plot_style *style);

/* one figure being written */
struct plot {
	struct textbuf *out;
	char id[64]; /* unique on a page: clip paths are named after it */
	double width;
	double height;
	double left; /* the data area, in px */
	double top;
	double right;
	double bottom;
	struct plot_scale x;
	struct plot_scale y;
	enum plot_quantity x_quantity;
	enum plot_quantity y_quantity;
	unsigned int nr_legend;
	struct {
		char label[96];
		struct plot_style style;
		bool box; /* a filled square (bars) instead of a line */
	} legend[24];
	bool legend_outside; /* below the data area rather than inside it */
	bool categorical; /* the y axis names categories */
	bool unclipped; /* the data area's clipping group is closed */
};

/* what plot_begin() draws */
struct plot_spec {
	const char *id; /* [A-Za-z0-9_-]; other bytes are replaced */
	const char *title; /* from anywhere: escaped */
	const char *x_title; /* "latency"; the unit is added in parentheses */
	const char *y_title;
	double width; /* px of the viewBox; 0 for 640 */
	double height; /* 0 for 360 */
	enum plot_scale_type x_type;
	enum plot_scale_type y_type;
	enum plot_quantity x_quantity;
	enum plot_quantity y_quantity;
	double x_min; /* data range, widened to nice bounds unless exact */
	double x_max;
	double y_min;
	double y_max;
	bool x_exact; /* keep the x range as given */
	bool y_exact;
	bool standalone; /* an SVG file of its own: XML declaration, namespace */
	bool legend_outside; /* many entries: a legend under the plot */
	unsigned int legend_rows; /* rows to reserve under the plot for it */
	double bottom_space; /* px to keep free at the bottom (notes under the plot) */
	const char *description; /* <desc>: what the plot shows, for screen readers */
	/* a categorical y axis instead: category i spans [i, i + 1], the first
	 * at the top; y_type, y_quantity and the y range are then ignored */
	const char *const *y_categories;
	unsigned int nr_y_categories;
};

/**
 * plot_begin - start a plot: the <svg> element, title, frame, grid, axes
 * with ticks and titles, and a clip path for the data area
 * @p: the plot to fill in
 * @out: where the SVG goes
 * @spec: what to draw
 *
 * Returns 0, or -EINVAL for a spec that cannot be drawn (a log axis with
 * no positive range). Data drawn afterwards is clipped to the data area.
 */
int plot_begin(struct plot *p, struct textbuf *out, const struct plot_spec *spec);

/* draw the legend and close the <svg> element */
void plot_end(struct plot *p);

/*
 * End the data area: what is drawn afterwards (notes under the axes, in
 * the space plot_spec.bottom_space keeps) is not clipped to it. Safe to
 * repeat; plot_end() calls it.
 */
void plot_unclip(struct plot *p);

/* add a legend entry (drawn by plot_end); @label is escaped */
void plot_legend(struct plot *p, const char *label, const struct plot_style *style, bool box);

/* a line through points, in data coordinates; NaN values break the line */
void plot_line(struct plot *p, const double *x, const double *y, size_t n,
	       const struct plot_style *style);

/**
 * plot_steps - a histogram outline, as gnuplot's "histeps"
 * @edges: n + 1 bucket edges in data coordinates, ascending
 * @heights: n heights; a height at or below the y minimum drops to the axis
 */
void plot_steps(struct plot *p, const double *edges, const double *heights, size_t n,
		const struct plot_style *style);

/* dots at points (a scatter), @radius px */
void plot_dots(struct plot *p, const double *x, const double *y, size_t n, double radius,
	       const struct plot_style *style);

/* a filled rectangle between two data corners, with an optional tooltip */
void plot_rect(struct plot *p, double x0, double y0, double x1, double y1, const char *colour,
	       const char *tooltip);

/* a vertical marker at data x with a label at its top (escaped) */
void plot_vmarker(struct plot *p, double x, const char *label, const struct plot_style *style);

/* a horizontal marker at data y with a label at its right end */
void plot_hmarker(struct plot *p, double y, const char *label, const struct plot_style *style);

/* a dot with a short label beside it (a percentile on a curve) */
void plot_point_label(struct plot *p, double x, double y, const char *label,
		      const struct plot_style *style);

/* text at pixel coordinates: anchor "start", "middle" or "end" (escaped) */
void plot_text(struct plot *p, double px, double py, const char *anchor, const char *text,
	       double size, const char *extra_attributes);

/*
 * Lossless reduction for drawing: of many points that fall on the same
 * cell of a pixel grid, only the one with the largest y is drawn. With one
 * row (cell_height 0) that is the maximum per pixel column: each column's
 * drawn maximum equals the data's, and every point kept is a point of the
 * data, at its exact value. With shorter cells, points of different sizes
 * in a column stay visible (periodic gaps show as stripes) at a bounded
 * number of points, whatever the length of the input.
 */
struct plot_point {
	double x;
	double y;
};

struct plot_reducer {
	const struct plot_scale *x;
	const struct plot_scale *y;
	unsigned int columns;
	unsigned int rows;
	double cell_width;
	double cell_height;
	struct plot_point *cells; /* columns x rows; y NaN when empty */
	size_t added;
};

/**
 * plot_reducer_init - a reducer over the pixel ranges of two scales
 * @cell_width: px per column (1 for one point per pixel column)
 * @cell_height: px per row; 0 for a single row (column maxima only)
 * Returns 0 or -ENOMEM.
 */
int plot_reducer_init(struct plot_reducer *r, const struct plot_scale *x,
		      const struct plot_scale *y, double cell_width, double cell_height);

/* take one point; points outside the x domain go to the edge columns */
void plot_reducer_add(struct plot_reducer *r, double x, double y);

/**
 * plot_reducer_points - the points kept, by column then row
 * @points: receives an array the caller frees with free()
 * Returns their number, or 0 (with *points NULL) when none or on ENOMEM.
 */
size_t plot_reducer_points(const struct plot_reducer *r, struct plot_point **points);

void plot_reducer_release(struct plot_reducer *r);

#endif
