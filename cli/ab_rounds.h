/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_AB_ROUNDS_H
#define LATSCOPE_CLI_AB_ROUNDS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "part_result.h"

/*
 * latscope ab's rounds: N pairs, each an A round and a B round in an order
 * drawn per pair (AB or BA), each round the setup command of its side
 * (sh -c) and then the measurement (latscope timer or noise, run as a
 * child of this process with the user's options, the round's duration and
 * a result file in a directory of its own). The machine's drift then falls
 * on both sides alike.
 *
 * A setup command that fails ends the rounds: its round is not measured.
 * A stop signal (SIGINT, SIGTERM, SIGHUP) is passed to the measurement,
 * which ends its round early and writes what it measured; no round starts
 * after it. Only pairs whose two rounds ran to their end are compared.
 */
enum ab_side { AB_A, AB_B };

struct ab_round {
	unsigned int pair; /* from 0 */
	enum ab_side side;
	char path[PATH_MAX]; /* its result */
	bool measured; /* ran to its end and wrote its result */
};

struct ab_rounds {
	/* what to run */
	unsigned int pairs;
	uint64_t round_ns;
	uint64_t seed;
	const char *setup[2]; /* A's and B's */
	const char *measurement; /* "timer" or "noise" */
	char **words; /* its options */
	unsigned int nr_words;
	/* what ran */
	char dir[PATH_MAX / 2]; /* the results, removed by ab_rounds_release() */
	char self[PATH_MAX]; /* this program */
	struct ab_round *rounds; /* 2 * pairs, in the order they ran */
	unsigned int nr_rounds; /* started */
	unsigned int pairs_measured; /* the first pairs whose two rounds were measured */
	struct part_result result; /* what ended the rounds early; text "" when nothing did */
};

/**
 * ab_rounds_run - run every round, or until one fails or a stop is asked
 * @r: what to run (pairs, round_ns, seed, setup, measurement, words)
 *
 * Returns EXIT_OK when every pair was measured; EXIT_ERROR after one line
 * saying what failed (a setup command with its status, a measurement, the
 * work directory) or that a signal stopped the rounds, the line and its
 * reason kept in @r->result. What was measured stays: pairs_measured
 * pairs, their results in rounds[].
 */
int ab_rounds_run(struct ab_rounds *r);

/* the result file of pair @pair's round of @side (both measured) */
const char *ab_rounds_path(const struct ab_rounds *r, unsigned int pair, enum ab_side side);

/* "AB" or "BA": the order pair @pair ran in */
const char *ab_rounds_order(const struct ab_rounds *r, unsigned int pair);

/**
 * ab_run_command - a shell command, waited for (a stop signal waits too)
 * @what: what the command is, for the message ("--cleanup")
 * @command: the command, run by /bin/sh -c
 *
 * Returns EXIT_OK, or EXIT_ERROR after one line naming @what, the command
 * and its exit status or signal.
 */
int ab_run_command(const char *what, const char *command);

/* Remove the results and their directory; safe to repeat. */
void ab_rounds_release(struct ab_rounds *r);

#endif
