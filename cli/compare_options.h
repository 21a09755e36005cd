/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPARE_OPTIONS_H
#define LATSCOPE_CLI_COMPARE_OPTIONS_H

#include <stdbool.h>

#include "latscope/compare_pairs.h"
#include "latscope/compare_result.h"
#include "common_options.h"
#include "junit_output.h"
#include "option_table.h"

/*
 * The statistics compare computes, and its gate: the options latscope
 * compare and latscope ab share (compare_statistics_options[], included at
 * the field of this struct in each command's options).
 */
struct compare_statistics_options {
	enum compare_by by;
	struct compare_settings settings;
	bool fail_worse;
};

extern const struct option_spec compare_statistics_options[];

/* the defaults, from the library's: compare_settings_default(), by cpu */
void compare_statistics_defaults(struct compare_statistics_options *o);

/* What latscope compare was asked (its table is compare_command, in cmd_compare.c). */
struct compare_command_options {
	const char *a_path, *b_path;
	struct option_list more; /* MORE... */
	unsigned int vs_at; /* --vs: the files before it are A's runs */
	bool vs_given;
	struct compare_statistics_options statistics;
	struct json_output json;
	struct junit_output junit;
	/* finish(): every input, A first (points into argv), and its group */
	const char **paths;
	unsigned int *group_of;
	unsigned int nr_paths;
};

#endif
