/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_DOCTOR_BASELINE_H
#define LATSCOPE_CLI_DOCTOR_BASELINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare_options.h"
#include "comparison.h"
#include "latscope/run.h"

/*
 * doctor --baseline FILE: the timer of an earlier doctor (or a timer
 * result) against this run's, compared as `latscope compare BASELINE NOW`
 * compares them, with its four verdicts (worse, better, same,
 * inconclusive). It informs; the exit status stays the budget's.
 */
struct doctor_baseline {
	const char *path; /* the caller's */
	struct run *timer; /* owned: the baseline's timer run, until it is compared */
	struct compare_statistics_options statistics;
	const char *names[2]; /* the baseline's path, then this run's */
	struct comparison comparison; /* owned: the baseline's run and this one's */
	bool compared; /* the comparison was made: its cases go in --junit */
};

/**
 * doctor_baseline_load - read the baseline before anything is measured
 * @b: the baseline, zeroed but for @b->path
 *
 * Returns EXIT_OK, or EXIT_ERROR after one line naming the file and why
 * (unreadable, not a result, a doctor result without a timer part, a
 * result that is not a timer's).
 */
int doctor_baseline_load(struct doctor_baseline *b);

/**
 * doctor_baseline_compare - this run's timer against the baseline
 * @b: a loaded baseline
 * @timer: this run's timer document (doctor's part), or NULL when the
 *	timer did not run
 * @out: where the comparison is printed, as compare prints it
 * @doc: doctor's document: "baseline" is set to the compare document, or
 *	to {"error": why} when nothing could be compared
 * @argc: doctor's words, for the compare document's command line
 * @argv: the words
 *
 * Returns EXIT_OK, or EXIT_ERROR when out of memory.
 */
int doctor_baseline_compare(struct doctor_baseline *b, const json_t *timer, FILE *out, json_t *doc,
			    int argc, char **argv);

/* Free what the baseline holds; safe on a zeroed one and to repeat. */
void doctor_baseline_release(struct doctor_baseline *b);

#endif
