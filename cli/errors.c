// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "latscope/log.h"

static const char *command_name;
static int verbosity;

void cli_set_command_name(const char *name)
{
	command_name = name;
}

void cli_set_verbosity(int level)
{
	verbosity = level;
}

static void print_line(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "latscope%s%s: %s", command_name ? " " : "",
		command_name ? command_name : "", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int runtime_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line("", fmt, ap);
	va_end(ap);
	return EXIT_ERROR;
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
	print_line(kinds[level], fmt, ap);
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
