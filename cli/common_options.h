/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMMON_OPTIONS_H
#define LATSCOPE_CLI_COMMON_OPTIONS_H

#include "option_table.h"

/*
 * Values several commands take the same way, for their option tables.
 */

/* --policy NAME: other (normal), fifo, rr, batch or idle into an enum rt_policy */
int option_parse_rt_policy(const struct option_value *value);

/* --explain[=HOW]: trace or counters into an enum explain_choice; bare is "trace" */
extern const struct option_choice explain_choices[];

#endif
