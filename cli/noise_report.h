/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_NOISE_REPORT_H
#define LATSCOPE_CLI_NOISE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "latscope/noise.h"
#include "latscope/rt.h"
#include "noise_explain.h"

/* One line saying what is measured and how. */
void noise_report_header(FILE *out, const struct noise_run *run);

/* The live view: a line per CPU, redrawn in place (terminal only). */
void noise_report_live(FILE *out, const struct noise_run *run, bool first);
void noise_report_live_clear(FILE *out, const struct noise_run *run);

/* The summary: the classic Min/Avg/Max/Count/Test time, percentiles, gaps,
 * lost time, steal, RT throttling and the periodic sources, per CPU, each
 * with its causes when @explain traced them. */
void noise_report_summary(FILE *out, const struct noise_run *run, const struct rt_throttling *limit,
			  const struct noise_explain *explain);

/*
 * The histograms as text columns (low ns, high ns, then a count per CPU),
 * ready for gnuplot; the caller opens @out and checks the writes.
 */
void noise_report_histogram(FILE *out, const struct noise_run *run);

/*
 * Every stored gap: cpu, start (ns since the cpu's first read), duration in
 * ns, and whether it was RT throttling; the caller opens @out and checks.
 */
void noise_report_gaps(FILE *out, const struct noise_run *run);

#endif
