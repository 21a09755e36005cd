// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plots of a report as files: one SVG per plot, and the histograms as
 * gnuplot data and scripts in the layout of OSADL's mklatencyplot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/array.h"
#include "latscope/log.h"
#include "report_internal.h"

/* gnuplot rows at most: 1 us bins up to 20 ms, coarser beyond */
#define GNUPLOT_MAX_ROWS 20000

/*
 * Files written into a directory all at once or not at all: each is written
 * (atomically) into a private directory inside the target, and only when
 * every one is written are they renamed into place, so a full disk halfway
 * through leaves the target as it was.
 */
struct report_staged {
	char *dir; /* the target */
	char *staging; /* "<dir>/.latscope-report.XXXXXX" */
	bool made_dir; /* the target did not exist: made here, removed on abandon */
	char **names;
	unsigned int nr_names;
	unsigned int cap_names;
};

static char *path_in(const char *dir, const char *name)
{
	size_t size = strlen(dir) + strlen(name) + 2;
	char *path = malloc(size);

	if (path)
		snprintf(path, size, "%s/%s", dir, name);
	return path;
}

void report_staged_abandon(struct report_staged *s)
{
	unsigned int i;
	char *path;

	if (!s)
		return;
	for (i = 0; i < s->nr_names; i++) {
		if (s->staging) {
			path = path_in(s->staging, s->names[i]);
			if (path)
				unlink(path);
			free(path);
		}
		free(s->names[i]);
	}
	if (s->staging)
		rmdir(s->staging);
	if (s->made_dir)
		rmdir(s->dir);
	free(s->names);
	free(s->staging);
	free(s->dir);
	free(s);
}

/* the target made when missing (one level), and the private directory inside it */
static int stage_begin(const char *dir, struct report_staged **staged)
{
	struct report_staged *s = calloc(1, sizeof(*s));
	struct stat st;
	int ret = 0;

	*staged = NULL;
	if (!s)
		return -ENOMEM;
	s->dir = strdup(dir);
	s->staging = path_in(dir, ".latscope-report.XXXXXX");
	if (!s->dir || !s->staging) {
		report_staged_abandon(s);
		return -ENOMEM;
	}
	if (!stat(dir, &st)) {
		ret = S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	} else if (errno != ENOENT) {
		ret = -errno;
	} else if (mkdir(dir, 0777)) {
		ret = errno == EEXIST ? 0 : -errno;
	} else {
		s->made_dir = true;
	}
	if (!ret && !mkdtemp(s->staging)) {
		ret = -errno;
		free(s->staging);
		s->staging = NULL;
	}
	if (ret) {
		log_error("cannot write into %s: %s", dir, strerror(-ret));
		report_staged_abandon(s);
		return ret;
	}
	*staged = s;
	return 0;
}

/* one file into the private directory; errors name the file as it will be */
static int stage_file(struct report_staged *s, const char *name, const char *suffix,
		      const struct textbuf *text)
{
	char file[256], *path;
	char **names;
	int ret;

	if (snprintf(file, sizeof(file), "%s%s", name, suffix) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	names = array_grow(s->names, &s->cap_names, s->nr_names + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->names = names;
	path = path_in(s->staging, file);
	s->names[s->nr_names] = strdup(file);
	if (!path || !s->names[s->nr_names]) {
		free(path);
		free(s->names[s->nr_names]);
		return -ENOMEM;
	}
	s->nr_names++;
	ret = textbuf_write_file(text, path);
	free(path);
	if (ret)
		log_error("cannot write %s/%s: %s", s->dir, file, strerror(-ret));
	return ret;
}

int report_staged_commit(struct report_staged *s)
{
	unsigned int i;
	char *from, *to;
	int ret = 0;

	if (!s)
		return 0;
	for (i = 0; i < s->nr_names && !ret; i++) {
		from = path_in(s->staging, s->names[i]);
		to = path_in(s->dir, s->names[i]);
		if (!from || !to)
			ret = -ENOMEM;
		else if (rename(from, to))
			ret = -errno;
		if (ret)
			log_error("cannot write %s: %s", to ? to : s->dir, strerror(-ret));
		free(from);
		free(to);
	}
	/* what was moved stays; the rest goes with the private directory */
	s->made_dir = false;
	report_staged_abandon(s);
	return ret;
}

int report_stage_svg(struct report *r, const char *dir, struct report_staged **staged)
{
	struct textbuf svg;
	unsigned int i;
	int ret;

	ret = stage_begin(dir, staged);
	if (ret)
		return ret;
	textbuf_init(&svg);
	for (i = 0; i < r->nr_figures && !ret; i++) {
		textbuf_reset(&svg);
		ret = report_figure_svg(r, &r->figures[i], &svg, true);
		if (!ret)
			ret = textbuf_error(&svg);
		/* a plot with nothing to draw gets no file */
		if (!ret && svg.len)
			ret = stage_file(*staged, r->figures[i].id, ".svg", &svg);
	}
	textbuf_release(&svg);
	if (ret) {
		report_staged_abandon(*staged);
		*staged = NULL;
	}
	return ret;
}

int report_write_svg(struct report *r, const char *dir)
{
	struct report_staged *staged;
	int ret = report_stage_svg(r, dir, &staged);

	return ret ? ret : report_staged_commit(staged);
}

/* a string for a gnuplot script: single-quoted, no line breaks (which end commands) */
static void gnuplot_string(struct textbuf *out, const char *text)
{
	textbuf_puts(out, "'");
	for (; text && *text; text++) {
		if (*text == '\'')
			textbuf_puts(out, "''");
		else if ((unsigned char)*text < 0x20 || *text == 0x7f)
			textbuf_puts(out, " ");
		else
			textbuf_append(out, text, 1);
	}
	textbuf_puts(out, "'");
}

static int gnuplot_input(const struct report *r, unsigned int i, struct report_staged *staged)
{
	const struct report_input *in = &r->inputs[i];
	const struct run *run = in->run;
	struct textbuf dat, gp;
	double high = 0, bin_us = 1;
	size_t rows, row, b;
	unsigned int k, columns = 0, width;
	double *counts;
	char name[64];
	int ret;

	for (k = 0; k < run->nr_series; k++)
		if (run->series[k].histogram.present) {
			double max = report_series_max(&run->series[k]);

			columns++;
			if (isfinite(max))
				high = fmax(high, max);
			if (run->series[k].histogram.nr_buckets)
				high = fmax(
					high,
					(double)run->series[k]
						.histogram
						.buckets[run->series[k].histogram.nr_buckets - 1]
						.high_ns);
		}
	if (!columns || !(high > 0))
		return 0;
	/* OSADL's 1 us bins; coarser ones for ranges beyond what a plot shows */
	rows = (size_t)ceil(high / 1000) + 1;
	if (rows > GNUPLOT_MAX_ROWS) {
		bin_us = plot_nice_step(high / 1000 / GNUPLOT_MAX_ROWS);
		rows = (size_t)ceil(high / 1000 / bin_us) + 1;
	}
	width = columns;
	counts = calloc(rows * width, sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	for (k = 0, columns = 0; k < run->nr_series; k++) {
		const struct run_histogram *h = &run->series[k].histogram;

		if (!h->present)
			continue;
		for (b = 0; b < h->nr_buckets; b++) {
			double mid =
				((double)h->buckets[b].low_ns + (double)h->buckets[b].high_ns) / 2;

			row = (size_t)floor(mid / 1000 / bin_us);
			if (row >= rows)
				row = rows - 1;
			counts[row * width + columns] += (double)h->buckets[b].count;
		}
		columns++;
	}
	textbuf_init(&dat);
	textbuf_init(&gp);
	textbuf_puts(&dat, "# latscope report: histogram of ");
	gnuplot_string(&dat, in->label);
	textbuf_printf(&dat, "\n# bins of %g us; columns: us", bin_us);
	for (k = 0; k < run->nr_series; k++)
		if (run->series[k].histogram.present) {
			textbuf_puts(&dat, ", ");
			gnuplot_string(&dat, run->series[k].label);
		}
	textbuf_puts(&dat, "\n");
	for (row = 0; row < rows; row++) {
		textbuf_number(&dat, (double)row * bin_us, 3);
		for (k = 0; k < columns; k++)
			textbuf_printf(&dat, "\t%.0f", counts[row * width + k]);
		textbuf_puts(&dat, "\n");
	}
	free(counts);

	snprintf(name, sizeof(name), "%s", in->slug);
	textbuf_puts(&gp, "# gnuplot script written by latscope report, in the layout of OSADL's\n"
			  "# latency plots; run \"gnuplot ");
	textbuf_printf(&gp, "%s.gp\" in this directory to draw %s-gnuplot.svg\n", name, name);
	textbuf_printf(&gp,
		       "set terminal svg size 900,500 dynamic noenhanced\n"
		       "set output '%s-gnuplot.svg'\nset title ",
		       name);
	gnuplot_string(&gp, in->label);
	textbuf_printf(&gp,
		       "\nset xlabel '%s (us)'\nset ylabel 'Number of samples'\n"
		       "set logscale y\nset xrange [0:",
		       run->series[0].measure == RUN_MEASURE_NOISE ? "Gap" : "Latency");
	textbuf_number(&gp, ceil(high / 1000 * 1.02), 0);
	textbuf_puts(&gp, "]\nset yrange [0.8:*]\nset grid\nplot ");
	for (k = 0, columns = 0; k < run->nr_series; k++) {
		if (!run->series[k].histogram.present)
			continue;
		textbuf_printf(&gp, "%s'%s.dat' using 1:%u title ", columns ? ", \\\n     " : "",
			       name, columns + 2);
		gnuplot_string(&gp, run->series[k].label);
		textbuf_puts(&gp, " with histeps");
		columns++;
	}
	textbuf_puts(&gp, "\n");
	ret = stage_file(staged, name, ".dat", &dat);
	if (!ret)
		ret = stage_file(staged, name, ".gp", &gp);
	textbuf_release(&dat);
	textbuf_release(&gp);
	return ret;
}

int report_stage_gnuplot(struct report *r, const char *dir, struct report_staged **staged)
{
	unsigned int i;
	int ret;

	ret = stage_begin(dir, staged);
	if (ret)
		return ret;
	for (i = 0; i < r->nr_inputs && !ret; i++)
		if (run_is_measurement(r->inputs[i].run))
			ret = gnuplot_input(r, i, *staged);
	if (ret) {
		report_staged_abandon(*staged);
		*staged = NULL;
	}
	return ret;
}

int report_write_gnuplot(struct report *r, const char *dir)
{
	struct report_staged *staged;
	int ret = report_stage_gnuplot(r, dir, &staged);

	return ret ? ret : report_staged_commit(staged);
}
