/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_OPTION_TABLE_INTERNAL_H
#define LATSCOPE_CLI_OPTION_TABLE_INTERNAL_H

/* What the parser (option_table.c) and the help printer (option_help.c) share. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "option_table.h"

/* One option of a table with its includes resolved. */
struct option_flat_entry {
	const struct option_spec *spec;
	size_t base; /* offset of its table's struct in the command's */
};

struct option_flat {
	struct option_flat_entry *entries;
	unsigned int count, capacity;
};

/* Append @table's entries, fields at @base; an entry included twice is kept once. */
int option_flatten(struct option_flat *flat, const struct option_spec *table, size_t base);
void option_flat_release(struct option_flat *flat);
/* where @field of @entry is in @options; NULL for no field */
void *option_field_at(void *options, const struct option_flat_entry *entry,
		      struct option_field field);
/* -h means --help unless an option takes that letter (timer's -h) */
bool option_help_has_short(const struct option_flat *flat);
/* no_argument, required_argument or optional_argument */
int option_has_arg(const struct option_spec *spec);
/* "a, b@last_join c" */
void option_print_choices(FILE *out, const struct option_choice *choices, const char *last_join);
/* "plan" of "irq plan" */
const char *option_last_word(const char *name);

#endif
