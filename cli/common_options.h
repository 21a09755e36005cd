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
 * macro taking them, as OPTION_STRICT is; its range and help are one. Where
 * a command needs another range (doctor's duration, split between two
 * parts), the entry is a macro taking the range and the help that says it
 * (OPTION_DURATION_ENTRY, OPTION_BUDGET_ENTRY), never a second entry.
 */

/* -v, --verbose: an int counter; the command calls cli_set_verbosity() with it */
extern const struct option_spec verbose_options[];

/*
 * The time a command measures: a monitor runs for months, a CI job minutes;
 * below 10 ms a run has too few samples to say anything.
 */
#define OPTION_RUN_DURATION_MIN_NS (10 * NS_PER_MS)
#define OPTION_RUN_DURATION_MAX_NS (365 * NS_PER_DAY)

/*
 * --duration DUR: the entry, written once; a bare number is in s, the value
 * goes into the uint64_t its .where names. What the commands' durations
 * differ in are the arguments, each said in @help_text: @letter (timer's
 * -d is cyclictest's --distance, its -D cyclictest's duration) and the
 * range, [@min_ns, @max_ns] (doctor splits its duration between two parts,
 * a second each at least, and is a checkup of a week at most; timer takes
 * cyclictest's 0, until stopped). After @help_text, .where and what else
 * the entry says (.default_text; .parse and .value_name for another tool's
 * spelling). A measuring command uses OPTION_RUN_DURATION.
 */
#define OPTION_DURATION_ENTRY(letter, min_ns, max_ns, help_text, ...)                      \
	{                                                                                  \
		.long_name = "duration", .short_name = letter, .kind = OPTION_DURATION,    \
		.duration = { NS_PER_SEC, min_ns, max_ns }, .help = help_text, __VA_ARGS__ \
	}

/* -d, --duration DUR: how long a measurement runs, 10 ms to a year, into @field */
#define OPTION_RUN_DURATION(field, ...)                                                    \
	OPTION_DURATION_ENTRY('d', OPTION_RUN_DURATION_MIN_NS, OPTION_RUN_DURATION_MAX_NS, \
			      "stop after DUR", .where = field, __VA_ARGS__)

/* A latency above an hour is no longer one; below a nanosecond none is measured. */
#define OPTION_BUDGET_MIN_NS 1
#define OPTION_BUDGET_MAX_NS NS_PER_HOUR

/*
 * --budget DUR: the latency budget (budget.h), the entry written once; a
 * bare number is in us, the value goes into the uint64_t its .where names
 * (0: none), an hour at most. @letter is 'b', or 0 in timer, whose -b is
 * cyclictest's --breaktrace; @min_ns is the smallest budget the command
 * can judge, said in @help_text (doctor's verdict is for timer wake-ups,
 * which no machine makes in less than a microsecond). After @help_text,
 * .where and what else the entry says (.given, .alias). A measuring
 * command uses OPTION_BUDGET.
 */
#define OPTION_BUDGET_ENTRY(letter, min_ns, help_text, ...)                                 \
	{                                                                                   \
		.long_name = "budget", .short_name = letter, .kind = OPTION_DURATION,       \
		.duration = { NS_PER_US, min_ns, OPTION_BUDGET_MAX_NS }, .help = help_text, \
		__VA_ARGS__                                                                 \
	}

/* --budget DUR: 1 ns to an hour, into @field */
#define OPTION_BUDGET(field, letter, ...)                                                       \
	OPTION_BUDGET_ENTRY(letter, OPTION_BUDGET_MIN_NS,                                       \
			    "the latency budget: a latency above it misses it", .where = field, \
			    __VA_ARGS__)

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

/*
 * --rt-cpus LIST: the CPUs for real-time work besides the isolated and
 * nohz_full ones (added to them, never replacing them), into a struct
 * cpuset @field. @letter is 'c', or 0 in irq, which never had it. After
 * @letter, what else the command's entry says (.given, .default_text).
 * check's --rt-cpus is another option: the list replaces the kernel's.
 */
#define OPTION_RT_CPUS(field, letter, ...)                                                         \
	{                                                                                          \
		.long_name = "rt-cpus", .short_name = letter, .kind = OPTION_CPUS, .where = field, \
		.value_name = "LIST",                                                              \
		.help = "CPUs for real-time work, besides the isolated and nohz_full ones",        \
		__VA_ARGS__                                                                        \
	}

#endif
