/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_JUNIT_OUTPUT_H
#define LATSCOPE_CLI_JUNIT_OUTPUT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/junit.h"
#include "latscope/run.h"
#include "common_options.h"
#include "option_table.h"

/*
 * --junit FILE, the same on every command with a verdict: include
 * junit_output_options at the command's field,
 *	OPTION_INCLUDE_AT(junit_output_options, TIMER(junit)),
 * build the suite with the command's builder (check_junit.c,
 * doctor_junit.c, compare_junit.c, measure_junit.c, irq_junit.c) and write
 * it with output_junit_write(). The path follows the rule of --json
 * (output_path.h): checked before the run (129), written atomically (1 on
 * an I/O failure, no partial file).
 */
struct junit_output {
	const char *path; /* NULL: no JUnit */
};

extern const struct option_spec junit_output_options[];

/*
 * The rules of --junit beside --json, for the command's finish(): those of
 * --json (json_output_finish()), and not the same file as it. 0, or
 * EXIT_USAGE after one line.
 */
int junit_output_finish(const struct junit_output *junit, const struct json_output *json);

/**
 * junit_output_start - a suite with the properties every command gives
 * @suite: receives it; junit_suite_release() it
 * @command: "check", "timer", ...: the suite is named "latscope COMMAND"
 * @doc: the command's result document: its "host" gives the machine
 *	 (kernel, cmdline, cpu_model), its start and end times the
 *	 timestamp and time; NULL when it has none
 * @result_path: the result file (--json) or NULL
 */
void junit_output_start(struct junit_suite *suite, const char *command, const json_t *doc,
			const char *result_path);

/* The machine's properties from an imported result's host (compare, ab). */
void junit_output_host(struct junit_suite *suite, const struct run_host *host);

/* Write the suite to --junit; EXIT_OK, or EXIT_ERROR after one line. */
int output_junit_write(const struct junit_output *junit, const struct junit_suite *suite);

#endif
