/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPLETION_H
#define LATSCOPE_CLI_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/*
 * What shell completion needs to know, listed from the command table and
 * the option tables by `latscope --completion-table`, so that the
 * completion script (contrib/bash-completion/latscope) can never offer an
 * option the binary does not take, nor miss one it does. One record per
 * line, fields separated by a tab, "-" for an empty field:
 *
 *	command     NAME   ALIAS       plain|group
 *	subcommand  GROUP  NAME
 *	option      KEY    --LONG      -S   ARG   KIND   WORDS
 *	positional  KEY    NAME        KIND MIN   MAX
 *
 * KEY is a command's name, or a group's and a subcommand's ("irq plan").
 * ARG is none, required, optional ("--explain[=HOW]") or next (optional,
 * and the next word is the value when it starts with a digit: "-t 4").
 * KIND is how a value is completed: flag (no value), cpus, file, dir,
 * choice (WORDS, separated by spaces, are the words offered) or value
 * (nothing to offer). MAX is a number or "many". An alias of an option
 * is a record of its own with no short letter. Hidden entries (another
 * tool's options, refused by name) are not listed. --help is not listed:
 * every command takes it.
 */

/**
 * completion_print_table - list what completion needs for @commands
 * @out: where to print the records
 * @commands: the command table (main.c's)
 * @count: how many commands
 *
 * Returns 0, or a negative errno code when out of memory.
 */
int completion_print_table(FILE *out, const struct command *commands, size_t count);

#endif
