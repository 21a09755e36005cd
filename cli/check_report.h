/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_CHECK_REPORT_H
#define LATSCOPE_CLI_CHECK_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "latscope/audit.h"

/* What `latscope check` prints and writes, for check and doctor. */

/* How the findings are printed. */
struct check_print {
	bool all; /* the passed and skipped checks too */
	int verbose; /* the evidence under each finding */
	bool color; /* ANSI colours (a terminal) */
};

/* The RT CPUs, the failures and warnings by severity, the counts. */
void check_print_report(FILE *out, const struct check_print *how,
			const struct audit_report *report);

/**
 * check_document - the result document of an audit
 * @root: what was read
 * @topo: its topology
 * @report: the findings
 * @params: the command's parameters (a new reference the document takes)
 * @argc: the command's words, its name first
 * @argv: the words
 *
 * Returns a new reference without end_time, or NULL.
 */
json_t *check_document(struct sysroot *root, const struct topology *topo,
		       const struct audit_report *report, json_t *params, int argc, char **argv);

#endif
