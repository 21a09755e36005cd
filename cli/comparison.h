/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPARISON_H
#define LATSCOPE_CLI_COMPARISON_H

#include <jansson.h>
#include <stdbool.h>

#include "compare_options.h"
#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "latscope/run.h"
#include "part_result.h"

/*
 * A comparison of imported runs, as latscope compare and latscope ab both
 * make it: the runs paired in their groups and computed, the gate that
 * turns the result into an exit status, and the result document.
 */
struct comparison {
	struct run **runs; /* owned: freed by comparison_release() */
	const char *const *names; /* the runs' names in messages; the caller's */
	unsigned int nr_runs;
	struct compare_plan plan;
	struct compare_result result;
	struct part_result why; /* why it could not be made or judged, as said */
};

/**
 * comparison_compute - pair the runs and compute every pair
 * @c: runs, names and nr_runs set; plan and result zeroed
 * @group_of: each run's group (0 is A)
 * @paired: the two groups' runs pair by their order (ab's rounds)
 * @o: the statistics asked for
 *
 * Returns EXIT_OK, or EXIT_ERROR after one line saying why (inputs that
 * cannot be compared, out of memory), kept in @c->why.
 */
int comparison_compute(struct comparison *c, const unsigned int *group_of, bool paired,
		       const struct compare_statistics_options *o);

/**
 * comparison_gate - the exit status of a computed comparison
 * @c: the comparison
 * @fail_worse: --fail-worse
 *
 * Nothing compared is an error (EXIT_ERROR, said in one line and kept in
 * @c->why), never a pass; under --fail-worse so is a statistic no pair
 * could compare (the max, which has no interval by design, aside); then
 * EXIT_BUDGET when B is worse, else EXIT_OK.
 */
int comparison_gate(struct comparison *c, bool fail_worse);

/**
 * comparison_document - the result document of a comparison
 * @c: the comparison
 * @command: "compare" or "ab"
 * @argc: the command's words, for the command line
 * @argv: the words
 * @o: the statistics asked for
 * @status: the exit status it ends with
 *
 * Returns a new reference, or NULL (out of memory).
 */
json_t *comparison_document(const struct comparison *c, const char *command, int argc, char **argv,
			    const struct compare_statistics_options *o, int status);

/* Free what the comparison holds, its runs included; safe on a zeroed one. */
void comparison_release(struct comparison *c);

#endif
