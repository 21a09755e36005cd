/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPARE_RENDER_H
#define LATSCOPE_CLI_COMPARE_RENDER_H

#include <stdio.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "latscope/run.h"

/*
 * latscope compare's text: the inputs, a table per pair (the statistics
 * with their intervals and verdicts, the misses of the budget, the tail
 * estimates of both sides side by side with their checks and "long
 * enough?"), the CPUs or threads left unpaired, and the summary line.
 */
void compare_render(FILE *out, const struct run *const *runs, const char *const *names,
		    unsigned int nr_runs, const struct compare_plan *plan,
		    const struct compare_result *r, const struct compare_settings *s);

/* The verdict line: "worse: after.json is worse than before.json on cpu 1 p99.9 ..." */
void compare_render_summary(FILE *out, const struct compare_result *r,
			    const struct compare_plan *plan, const char *const *names);

#endif
