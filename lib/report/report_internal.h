/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_REPORT_INTERNAL_H
#define LATSCOPE_REPORT_INTERNAL_H

#ifndef LATSCOPE_INSIDE_REPORT
#error "lib/report/report_internal.h is private to lib/report/: outside it, use the headers of include/latscope/"
#endif

/* Shared by the files of lib/report/; not a public interface. */

#include <stdbool.h>
#include <stdint.h>

#include "latscope/plot.h"
#include "latscope/report.h"

/* at most this many series share one plot; more get a plot each or a group */
#define REPORT_SERIES_PER_PLOT 8
/* series given a plot of their gaps over time, the largest first */
#define REPORT_EVENT_PLOTS 8
/* worst spikes drawn in an anatomy plot */
#define REPORT_ANATOMY_SPIKES 10
/* causes drawn in a share plot */
#define REPORT_SHARE_CAUSES 10
/* CPUs with a per-CPU overlay of several inputs */
#define REPORT_OVERLAY_CPUS 8

struct report_input {
	struct run *run;
	char label[96]; /* as shown */
	char slug[48]; /* for ids and file names: [a-z0-9-] */
	unsigned int colour; /* its colour where inputs are overlaid */
	bool named; /* the caller gave the label */
};

enum figure_kind {
	FIGURE_HISTOGRAM, /* linear x, log y: OSADL's plot */
	FIGURE_HISTOGRAM_LOG, /* log x, log y: when values span decades */
	FIGURE_EXCEEDANCE, /* P(X > x), log-log */
	FIGURE_EVENTS, /* gaps or spikes over the run, one series */
	FIGURE_WINDOWS, /* monitor: max per window over days */
	FIGURE_ANATOMY, /* the worst spikes as stacked bars of causes */
	FIGURE_SHARES, /* share of lost time per cause */
	FIGURE_IRQ, /* interrupt rate per CPU before and after the plan */
	FIGURE_OVERLAY_EXCEEDANCE, /* several inputs, one curve each */
	FIGURE_OVERLAY_HISTOGRAM,
	/* a compare result's pair (first: its index in "pairs") */
	FIGURE_COMPARE_EXCEEDANCE, /* A's and B's curves with their intervals */
	FIGURE_COMPARE_RETURN_LEVELS, /* GEV return levels against the return period */
};

struct figure {
	enum figure_kind kind;
	char id[96]; /* unique on the page; also the SVG file's name */
	char title[192];
	unsigned int input; /* the input it draws (overlays: unused) */
	unsigned int first; /* series [first, first + count) of the input */
	unsigned int count;
	int cpu; /* overlays: the CPU compared, -1 for all series merged */
	enum run_measure measure; /* overlays: which inputs take part */
	bool compact; /* one of several side by side: drawn smaller */
	char caption[320]; /* what to read in it, when it differs from its kind's */
};

struct report {
	struct report_input *inputs;
	unsigned int nr_inputs;
	struct report_options options;
	char title[256];
	struct figure *figures;
	unsigned int nr_figures;
	unsigned int cap_figures;
};

/* the colour of a kind of cause, the same on every plot */
const char *report_cause_colour(enum run_cause_kind kind);

/* report.c: one figure on the page, its plot (or "nothing to draw") and its @caption if any */
int report_emit_figure(const struct report *r, const struct figure *f, struct textbuf *out,
		       const char *caption);

/* the label (given, or from the file name) and a unique slug of input @i */
void report_name_input(struct report *r, unsigned int i, const char *label);

/* report_doctor.c: a doctor result's verdict and ranked fixes, first on the page */
void report_doctor_section(const struct report *r, unsigned int i, struct textbuf *out);

/* plan the figures of the page; 0 or -ENOMEM */
int report_plan_figures(struct report *r);

/* a series' histogram of a series merged over [first, first + count) */
int report_merge_histograms(const struct run_series *series, unsigned int count,
			    struct run_histogram *merged);

/* the largest value a series is known to reach (max, else its histogram) */
double report_series_max(const struct run_series *s);

/* number of samples: count, else the histogram's total; 0 when unknown */
uint64_t report_series_samples(const struct run_series *s);

/* report_figures.c: pieces of a plot_spec and a plot that several figures share */

/* a legend under the data area (@below) of @rows rows, the plot made taller to hold it */
void report_legend_below(struct plot_spec *spec, bool below, unsigned int rows);

/* log x of durations from @x_min to @x_max against log P(value > x) from @tail / 2 to 1 */
void report_exceedance_axes(struct plot_spec *spec, double x_min, double x_max, double tail);

/* a line across the plot at @budget_ns labelled "budget <duration>" */
void report_budget_marker(struct plot *p, double budget_ns, const struct plot_style *style,
			  bool vertical);

/* add a figure to the plan (report_plan.c); NULL when out of memory */
struct figure *report_add_figure(struct report *r, enum figure_kind kind, unsigned int input,
				 const char *id);

/* how a kind of figure is drawn: its SVG into @out (@standalone: as a file) */
typedef int (*report_draw_fn)(const struct report *r, const struct figure *f, struct textbuf *out,
			      bool standalone);

struct report_figure_kind {
	enum figure_kind kind;
	report_draw_fn draw;
};

/*
 * A part of the page: the kinds of figure it draws and, for a kind of input
 * with a section of its own, the figures it plans for an input and the
 * section's body. The parts are listed once (report_parts.c); the rest of
 * the report reaches them only through report_part_of() and
 * report_figure_svg().
 */
struct report_part {
	const struct report_figure_kind *figures;
	unsigned int nr_figures;
	int input; /* the enum run_kind it has a section for; -1: none */
	int (*plan)(struct report *r, unsigned int input);
	int (*body)(const struct report *r, unsigned int input, struct textbuf *out);
};

/* report_figures.c: the measurements', the IRQ plan's and the overlays' figures */
extern const struct report_part report_figures_part;
/* report_compare.c: a compare result's figures, plots and section body */
extern const struct report_part report_compare_part;

/* report_parts.c: the part with a section for inputs of @kind, or NULL */
const struct report_part *report_part_of(enum run_kind kind);

/* report_parts.c: one figure as an <svg> element (or a file of its own: @standalone) */
int report_figure_svg(const struct report *r, const struct figure *f, struct textbuf *out,
		      bool standalone);

#endif
