/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_REPORT_H
#define LATSCOPE_REPORT_H

#include <stdint.h>

#include "latscope/run.h"
#include "latscope/textbuf.h"

/*
 * The page builder of `latscope report`: one self-contained HTML page
 * (inline SVG and CSS, no script, no reference to anything outside the
 * file) from any number of results read by import.h, readable on a laptop
 * and a phone and printable; and the same plots as SVG files, and the
 * histograms as gnuplot data and scripts in OSADL's layout.
 *
 * The page: a header with what was read (file, kind, command line, times,
 * host facts) and a summary in words; per input its statistics, the
 * histograms (linear x and log y as OSADL draws them, and a log-x variant
 * when the values span decades), the exceedance curves P(X > x), the gaps
 * or spikes over the run (or a monitor's window maxima over days), the
 * anatomy of the worst spikes and the share of lost time per cause; the
 * audit findings by severity; the IRQ plan's interrupt rates per CPU; and,
 * with several inputs, the same curves overlaid with one entry per input.
 */

struct report;

struct report_options {
	const char *title; /* NULL: "latscope report" */
	uint64_t budget_ns; /* marked on the plots and counted; 0 for none */
};

/**
 * report_new - check the inputs and plan the page
 * @runs: the inputs, borrowed: they must outlive the report
 * @labels: a name per input for legends and headings (the --label of the
 *	    command), or NULL entries (or @labels NULL) for a name made from
 *	    the file name
 * @nr_runs: how many, at least 1
 * @options: title and budget; NULL for none
 *
 * An input that cannot make a page is refused with one line through the
 * log hook naming the file and the problem: a measuring result without a
 * CPU or thread, an empty histogram, a result of one sample. Returns the
 * report, freed with report_free(), or NULL (nothing was written anywhere).
 */
struct report *report_new(struct run *const *runs, const char *const *labels, unsigned int nr_runs,
			  const struct report_options *options);

void report_free(struct report *report);

/**
 * report_html - the page, appended to @out
 * Returns 0 or -ENOMEM.
 */
int report_html(struct report *report, struct textbuf *out);

/**
 * report_write_html - the page into a file, atomically (temp + rename)
 * Returns 0 or a negative errno code; on failure nothing is left behind.
 */
int report_write_html(struct report *report, const char *path);

/**
 * report_write_svg - each plot of the page as its own SVG file in @dir
 * @dir: created (one level) when it does not exist
 *
 * Files are named after the plots ("noise-histogram-cpu1.svg"). All or
 * nothing: report_stage_svg() then report_staged_commit(). Returns 0 or a
 * negative errno code; details through the log hook.
 */
int report_write_svg(struct report *report, const char *dir);

/**
 * report_write_gnuplot - the histograms as gnuplot data and scripts in @dir
 * @dir: created (one level) when it does not exist
 *
 * Per measuring input NAME.dat in OSADL's layout ("<us>\t<count of series
 * 1>\t<count of series 2>...", one line per bin, 1 us bins unless the range
 * needs coarser ones) and NAME.gp that plots it as OSADL does (log y,
 * histeps) into NAME-gnuplot.svg when run with `gnuplot NAME.gp` in @dir.
 * All or nothing, as report_write_svg(). Returns 0 or a negative errno code.
 */
int report_write_gnuplot(struct report *report, const char *dir);

/*
 * Files staged for a directory: written whole into a private directory
 * inside it (".latscope-report.XXXXXX"), not yet in place. A command that
 * writes several outputs stages them all, writes its last one, and only
 * then commits, so that a failure anywhere leaves every target as it was.
 */
struct report_staged;

/**
 * report_stage_svg - write the SVG files of report_write_svg() into @dir's
 * private directory
 * @report: the report
 * @dir: the target, made (one level) when it does not exist
 * @staged: receives what was staged, owned by the caller until
 *	    report_staged_commit() or report_staged_abandon()
 *
 * Returns 0 or a negative errno code after one line through the log hook
 * naming the file; on failure nothing is left (a @dir made here is removed)
 * and *@staged is NULL.
 */
int report_stage_svg(struct report *report, const char *dir, struct report_staged **staged);

/* the same for the files of report_write_gnuplot() */
int report_stage_gnuplot(struct report *report, const char *dir, struct report_staged **staged);

/**
 * report_staged_commit - move staged files into place and free @staged
 * @staged: from a report_stage_*() call, or NULL (nothing to do)
 *
 * Returns 0 or a negative errno code of a rename, logged; files not moved
 * are removed with the private directory.
 */
int report_staged_commit(struct report_staged *staged);

/* remove staged files, the private directory and a target made for them; frees @staged */
void report_staged_abandon(struct report_staged *staged);

/* how many plots the page holds (each an <svg> element and an SVG file) */
unsigned int report_nr_plots(const struct report *report);

#endif
