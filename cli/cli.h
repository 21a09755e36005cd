/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_H
#define LATSCOPE_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/cpuset.h"

/* Exit codes, as documented in every man page. */
enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_BUDGET = 2, /* --fail-above, --fail-on, -b */
	EXIT_USAGE = 129,
};

struct option_command;
struct option_group;

/*
 * A command: main() runs it with its own words (argv[0] is its name) and
 * returns what it returns. `latscope help NAME` runs it with "--help", so
 * the help is the one its option table prints.
 */
struct command {
	const char *name;
	const char *alias;
	const char *summary;
	int (*run)(int argc, char **argv);
	/*
	 * Its option table, or the group of its subcommands (one of the
	 * two): shell completion lists them (completion.h), so a command
	 * added here is completed with all its options.
	 */
	const struct option_command *options;
	const struct option_group *group;
};

/* The commands, one cmd_<name>.c each, and their option tables (timer's is in timer_options.c). */
struct option_command;
struct option_group;
int cmd_noise(int argc, char **argv);
extern const struct option_command noise_command;
int cmd_check(int argc, char **argv);
extern const struct option_command check_command;
int cmd_timer(int argc, char **argv);
extern const struct option_command timer_command;
int cmd_attach(int argc, char **argv);
extern const struct option_command attach_command;
int cmd_irq(int argc, char **argv);
extern const struct option_group irq_group;
int cmd_monitor(int argc, char **argv);
extern const struct option_command monitor_command;
int cmd_report(int argc, char **argv);
extern const struct option_command report_command;
int cmd_compare(int argc, char **argv);
extern const struct option_command compare_command;
int cmd_doctor(int argc, char **argv);
extern const struct option_command doctor_command;
int cmd_ab(int argc, char **argv);
extern const struct option_command ab_command;

/*
 * Errors for the user: one line on stderr, "latscope <command>: <what>".
 * usage_error() returns EXIT_USAGE, runtime_error() EXIT_ERROR, so a command
 * can write "return usage_error(...)".
 */
void cli_set_command_name(const char *name);
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int runtime_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a line that is neither an error nor a warning, "latscope <command>: <what>" */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The last error line said (without the prefix), "" when none: for a
 * caller of a library function that says why only through the log
 * (compare's --junit, when import_file() refused a file). What runs as a
 * part keeps its own reason instead (part_result.h).
 */
const char *cli_last_error(void);
/* The verbosity chosen with -v/--verbose: 0 quiet, 1 info, 2 debug. */
void cli_set_verbosity(int level);
/*
 * Route the library's messages to stderr. A library function that fails
 * logs what and why itself, so the command only picks the exit code.
 */
void cli_install_log_hook(void);

/*
 * SIGINT, SIGTERM and SIGHUP set the stop flag (the signal's number); the
 * measurement stops, restores what it changed and reports what it measured.
 */
extern volatile sig_atomic_t stop_requested;
int signals_catch(void);
/*
 * For daemons that re-read their settings on SIGHUP (irq balance): after
 * signals_catch(), SIGHUP sets reload_requested instead of stopping.
 */
extern volatile sig_atomic_t reload_requested;
int signals_catch_reload(void);

/* "12.345" us with 3 decimals from ns */
const char *format_us(uint64_t ns, char *buf, size_t size);
/* a duration in its natural unit: "850 ns", "21.7 us", "4.000 ms", "1.50 s" */
const char *format_duration(uint64_t ns, char *buf, size_t size);
/* a size in its natural binary unit: "512 bytes", "3.5 MiB", "16.0 GiB" */
const char *format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
