// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "completion.h"
#include "latscope-config.h"

static const struct command commands[] = {
	{ "noise", NULL, "OS noise: gaps a busy CPU loses, their sizes and periods", cmd_noise,
	  &noise_command, NULL },
	{ "check", NULL, "real-time readiness audit: findings, evidence and fixes", cmd_check,
	  &check_command, NULL },
	{ "timer", "cyclic", "timer wake-up latency, cyclictest-compatible, with percentiles",
	  cmd_timer, &timer_command, NULL },
	{ "attach", NULL, "a running program's own threads, unmodified: each activation's latency",
	  cmd_attach, &attach_command, NULL },
	{ "irq", NULL, "keep interrupts off RT CPUs: show, plan, apply, balance, restore", cmd_irq,
	  NULL, &irq_group },
	{ "monitor", NULL, "measure for weeks, explain every spike, export to Prometheus",
	  cmd_monitor, &monitor_command, NULL },
	{ "report", NULL, "one HTML page of plots from results, latscope's or cyclictest's",
	  cmd_report, &report_command, NULL },
	{ "compare", NULL, "before/after with confidence intervals, misses, GEV return levels",
	  cmd_compare, &compare_command, NULL },
	{ "doctor", NULL, "check, irq plan, timer and noise in one run: verdict and ranked fixes",
	  cmd_doctor, &doctor_command, NULL },
	{ "ab", NULL, "interleaved A/B: rounds of timer or noise, setups switched, paired verdicts",
	  cmd_ab, &ab_command, NULL },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name) ||
		    (commands[i].alias && !strcmp(commands[i].alias, name)))
			return &commands[i];
	return NULL;
}

static void main_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: latscope [--version] [--help] COMMAND [ARGS]\n\n"
		     "Measure Linux real-time latency and OS noise, explain every spike,\n"
		     "audit the system and keep interrupts off real-time CPUs.\n\n"
		     "commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n'latscope help COMMAND' or 'latscope COMMAND --help' shows a command's options;\n"
		"'man latscope-COMMAND' explains it.\n"
		"exit status: 0 ok, 1 error, 2 a budget was exceeded, 129 usage error\n");
}

/* `latscope help NAME` is `latscope NAME --help`: one help, from the table. */
static int help(int argc, char **argv)
{
	const struct command *command;
	char *words[] = { NULL, "--help", NULL };

	if (argc < 2) {
		main_usage(stdout);
		return EXIT_OK;
	}
	command = find_command(argv[1]);
	if (!command)
		return usage_error("no command '%s' (see 'latscope --help')", argv[1]);
	cli_set_command_name(command->name);
	words[0] = argv[1];
	return command->run(2, words);
}

/* A write error on stdout (a full disk, a closed pipe) must not exit 0. */
static int finish(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "latscope: cannot write the output: %s\n", strerror(errno));
		return status ? status : EXIT_ERROR;
	}
	return status;
}

int main(int argc, char **argv)
{
	const struct command *command;

	cli_install_log_hook();
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("latscope %s\n", LATSCOPE_VERSION);
		return finish(EXIT_OK);
	}
	/* for the completion script: every command's options, from their tables */
	if (!strcmp(argv[1], "--completion-table")) {
		int ret = completion_print_table(stdout, commands, NR_COMMANDS);

		return finish(ret ? EXIT_ERROR : EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return finish(help(argc - 1, argv + 1));
	command = find_command(argv[1]);
	if (!command) {
		if (argv[1][0] == '-')
			return usage_error("unknown option '%s' (see 'latscope --help')", argv[1]);
		return usage_error("no command '%s' (see 'latscope --help')", argv[1]);
	}
	cli_set_command_name(command->name);
	return finish(command->run(argc - 1, argv + 1));
}
