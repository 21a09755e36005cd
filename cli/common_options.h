/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMMON_OPTIONS_H
#define LATSCOPE_CLI_COMMON_OPTIONS_H

#include <stdbool.h>

#include "option_table.h"

/*
 * Values several commands take the same way, for their option tables.
 */

/* --policy NAME: other (normal), fifo, rr, batch or idle into an enum rt_policy */
int option_parse_rt_policy(const struct option_value *value);
/* the names --policy takes, for completion (.complete_as = OPTION_CHOICE) */
extern const struct option_choice rt_policy_words[];

/* --explain[=HOW]: trace or counters into an enum explain_choice; bare is "trace" */
extern const struct option_choice explain_choices[];

/*
 * --json FILE and --json-compact, the same on every command that writes a
 * result document: include json_output_options at the struct's field,
 *	OPTION_INCLUDE_AT(json_output_options, NOISE(json)),
 * call json_output_finish() from the command's finish() and write with
 * output_json_write().
 */
struct json_output {
	const char *path; /* NULL: no document */
	bool compact; /* one line even on a terminal */
};

extern const struct option_spec json_output_options[];

/* --json-compact without --json: a usage error (129) after one line; else 0 */
int json_output_finish(const struct json_output *json);

/* --strict on every measuring command: a validity shortfall is exit 1 (validity_report.h) */
#define OPTION_STRICT(field)                                                                    \
	{                                                                                       \
		.long_name = "strict", .kind = OPTION_FLAG, .where = field,                     \
		.help = "exit 1 when a condition of the measurement falls short (its validity)" \
	}

#endif
