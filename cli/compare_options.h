/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPARE_OPTIONS_H
#define LATSCOPE_CLI_COMPARE_OPTIONS_H

#include <stdbool.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "common_options.h"
#include "option_table.h"

/* What latscope compare was asked (its table is compare_command, in cmd_compare.c). */
struct compare_command_options {
	const char *a_path, *b_path;
	struct option_list more; /* MORE... */
	enum compare_by by;
	struct compare_settings settings;
	const char *percentiles_text;
	const char *practical_text;
	bool fail_worse;
	struct json_output json;
	/* finish(): every input, A first (points into argv) */
	const char **paths;
	unsigned int nr_paths;
};

#endif
