/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_VALIDITY_REPORT_H
#define LATSCOPE_CLI_VALIDITY_REPORT_H

#include <jansson.h>
#include <stdbool.h>

#include "latscope/validity.h"

/*
 * What every measuring command does with its validity record: --strict
 * refused early where root is missing, each shortfall said on stderr
 * ("latscope timer: validity: ..."), and --strict's exit status after the
 * run, decided before the result is written so that it lands in it.
 */

/**
 * validity_strict_check_root - --strict without root: say which conditions
 * need root, before any work
 * Returns EXIT_OK, or EXIT_ERROR after the line.
 */
int validity_strict_check_root(bool strict);

/**
 * validity_say_explain - before the run: --explain asked for tracing and
 * the session could not start; under --strict this ends the run
 * @v: the record, explain_wanted and explain_traced set
 * @strict: --strict
 * Returns EXIT_OK, or EXIT_ERROR when the run must not start.
 */
int validity_say_explain(const struct validity *v, bool strict);

/**
 * validity_say - after the run: each shortfall on stderr, and --strict's verdict
 * @v: the record
 * @strict: --strict
 * @status: the exit status so far
 * Returns @status, or EXIT_ERROR when @strict and a condition fell short.
 */
int validity_say(const struct validity *v, bool strict, int status);

/**
 * validity_say_lines - validity_say() for lines already made (a command that
 * gathers its parts' shortfalls: doctor, ab)
 * @lines: a JSON array of strings
 * @strict: --strict
 * @status: the exit status so far
 */
int validity_say_lines(const json_t *lines, bool strict, int status);

#endif
