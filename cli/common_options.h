/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMMON_OPTIONS_H
#define LATSCOPE_CLI_COMMON_OPTIONS_H

#include <stdbool.h>

#include "latscope/parse.h"
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

/*
 * The entries several commands share are each written here once. One
 * whose value sits in one field is a table, included at the field:
 *	OPTION_INCLUDE_AT(verbose_options, NOISE(verbose)),
 * One whose short letter or companion fields differ between commands is a
 * macro taking them, as OPTION_STRICT is; its range and help are one.
 */

/* -v, --verbose: an int counter; the command calls cli_set_verbosity() with it */
extern const struct option_spec verbose_options[];

/* The longest measurement a command runs: a monitor runs for months, a CI job minutes. */
#define OPTION_RUN_DURATION_MAX_NS (365 * NS_PER_DAY)

/*
 * -d, --duration DUR: how long a measurement runs, 10 ms to a year, a bare
 * number in s, into a uint64_t @field. timer's -D is cyclictest's spelling
 * (0: until a signal, M/H/D for units) with the same maximum. After
 * @field, what else the command's entry says (.default_text).
 */
#define OPTION_RUN_DURATION(field, ...)                                                 \
	{                                                                               \
		.long_name = "duration", .short_name = 'd', .kind = OPTION_DURATION,    \
		.where = field,                                                         \
		.duration = { NS_PER_SEC, 10 * NS_PER_MS, OPTION_RUN_DURATION_MAX_NS }, \
		.help = "stop after DUR", __VA_ARGS__                                   \
	}

/* The largest budget a command takes: a latency above an hour is no longer one. */
#define OPTION_BUDGET_MAX_NS NS_PER_HOUR

/*
 * --budget DUR: the latency budget (budget.h), 1 ns to an hour, a bare
 * number in us, into a uint64_t @field (0: none). @letter is 'b', or 0 in
 * timer, whose -b is cyclictest's --breaktrace. After @letter, what else
 * the command's entry says (.given, .alias).
 */
#define OPTION_BUDGET(field, letter, ...)                                               \
	{                                                                               \
		.long_name = "budget", .short_name = letter, .kind = OPTION_DURATION,   \
		.where = field, .duration = { NS_PER_US, 1, OPTION_BUDGET_MAX_NS },     \
		.help = "the latency budget: a latency above it misses it", __VA_ARGS__ \
	}

/*
 * -c, --cpus LIST: the cpus a measurement runs on, a thread each, into a
 * struct cpuset @field, @given set when the user chose them; @default_text
 * says which cpus the command takes without it.
 */
#define OPTION_MEASURED_CPUS(field, given_field, default_cpus)                               \
	{                                                                                    \
		.long_name = "cpus", .short_name = 'c', .kind = OPTION_CPUS, .where = field, \
		.given = given_field, .help = "cpus to measure, a thread each",              \
		.default_text = default_cpus                                                 \
	}

#endif
