// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latscope/log.h"

static const char *command_name;
static int verbosity;
/* the last error said, for what says why only through the log (compare's import of a file) */
static char last_error[512];

void cli_set_command_name(const char *name)
{
	command_name = name;
}

void cli_set_verbosity(int level)
{
	verbosity = level;
}

/*
 * One line on stderr, however long (a path of thousands of characters keeps
 * its reason at the end); @keep (last_error or NULL) remembers
 * its first 511 bytes.
 */
static void print_line(const char *kind, char *keep, const char *fmt, va_list ap)
{
	char fallback[512], *line;

	if (vasprintf(&line, fmt, ap) < 0) {
		line = NULL;
		snprintf(fallback, sizeof(fallback), "%s", fmt);
	}
	fflush(stdout);
	fprintf(stderr, "latscope%s%s: %s%s\n", command_name ? " " : "",
		command_name ? command_name : "", kind, line ? line : fallback);
	if (keep)
		snprintf(keep, sizeof(last_error), "%s", line ? line : fallback);
	free(line);
}

const char *cli_last_error(void)
{
	return last_error;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", last_error, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int runtime_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", last_error, fmt, ap);
	va_end(ap);
	return EXIT_ERROR;
}

void cli_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", NULL, fmt, ap);
	va_end(ap);
}

static void print_log(enum log_level level, const char *fmt, ...)
{
	static const char *const kinds[] = {
		[LATSCOPE_LOG_ERROR] = "",
		[LATSCOPE_LOG_WARNING] = "warning: ",
		[LATSCOPE_LOG_INFO] = "",
		[LATSCOPE_LOG_DEBUG] = "debug: ",
	};
	va_list ap;

	va_start(ap, fmt);
	print_line(kinds[level], level == LATSCOPE_LOG_ERROR ? last_error : NULL, fmt, ap);
	va_end(ap);
}

/* The library's log hook: errors and warnings always, the rest on request. */
static void cli_log(enum log_level level, const char *message)
{
	if (level == LATSCOPE_LOG_INFO && verbosity < 1)
		return;
	if (level == LATSCOPE_LOG_DEBUG && verbosity < 2)
		return;
	print_log(level, "%s", message);
}

void cli_install_log_hook(void)
{
	log_set_hook(cli_log);
}
