// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_junit.h"
#include "check_report.h"
#include "cli.h"
#include "latscope/audit.h"
#include "latscope/clock.h"
#include "latscope/result.h"
#include "common_options.h"
#include "junit_output.h"
#include "machine.h"
#include "option_table.h"
#include "output_path.h"

struct check_options {
	struct cpuset rt_cpus;
	bool rt_given;
	const char *rt_text;
	const char *root_dir;
	struct json_output json;
	struct junit_output junit;
	enum audit_severity fail_on; /* AUDIT_NR_SEVERITIES: never */
	struct check_print print;
};

#define CHECK(member) OPTION_FIELD(struct check_options, member)

/* the JSON keeps the list as the user wrote it */
static int parse_rt_cpus(const struct option_value *value)
{
	struct check_options *opts = value->options;
	int ret = option_cpus(value->spelled, value->text, &opts->rt_cpus);

	if (!ret)
		opts->rt_text = value->text;
	return ret;
}

static const struct option_choice fail_levels[] = {
	{ "fatal", AUDIT_FATAL }, { "high", AUDIT_HIGH },	    { "medium", AUDIT_MEDIUM },
	{ "low", AUDIT_LOW },	  { "never", AUDIT_NR_SEVERITIES }, { NULL, 0 },
};

static const struct option_spec check_option_specs[] = {
	{ .long_name = "rt-cpus",
	  .short_name = 'c',
	  .kind = OPTION_CUSTOM,
	  .where = CHECK(rt_text),
	  .given = CHECK(rt_given),
	  .parse = parse_rt_cpus,
	  .complete_as = OPTION_CPUS,
	  .value_name = "LIST",
	  .help = "CPUs for real-time work, in place of the isolated and nohz_full ones",
	  .default_text = "isolated and nohz_full" },
	{ .long_name = "root",
	  .short_name = 'r',
	  .kind = OPTION_INPUT_DIR,
	  .where = CHECK(root_dir),
	  .help = "read DIR as / (a fixture tree) instead of this machine" },
	OPTION_INCLUDE_AT(json_output_options, CHECK(json)),
	OPTION_INCLUDE_AT(junit_output_options, CHECK(junit)),
	{ .long_name = "fail-on",
	  .short_name = 'f',
	  .kind = OPTION_CHOICE,
	  .where = CHECK(fail_on),
	  .choices = fail_levels,
	  .noun = "level",
	  .value_name = "LEVEL",
	  .help = "exit 2 when a check fails at LEVEL or above" },
	{ .long_name = "all",
	  .short_name = 'a',
	  .kind = OPTION_FLAG,
	  .where = CHECK(print.all),
	  .help = "list the passed and skipped checks too" },
	OPTION_INCLUDE_AT(verbose_options, CHECK(print.verbose)),
	OPTION_TABLE_END,
};

static void check_defaults(void *options)
{
	struct check_options *opts = options;

	opts->fail_on = AUDIT_FATAL;
}

static int check_finish(void *options, void *context)
{
	struct check_options *opts = options;

	(void)context;
	return junit_output_finish(&opts->junit, &opts->json);
}

const struct option_command check_command = {
	.name = "check",
	.description = "Audit the kernel build and the running settings for real-time readiness:\n"
		       "every finding with its severity, the evidence read and the exact fix.",
	.options = check_option_specs,
	.size = sizeof(struct check_options),
	.init = check_defaults,
	.finish = check_finish,
	.footer = "exit status: 0 ok, 1 error, 2 a check failed at --fail-on or above,\n"
		  "129 usage error",
};

static json_t *params_json(const struct check_options *opts)
{
	return json_pack("{s:o, s:s, s:s}", "rt_cpus",
			 opts->rt_given ? result_cpuset(&opts->rt_cpus) : json_null(), "root",
			 opts->root_dir ? opts->root_dir : "/", "fail_on",
			 opts->fail_on < AUDIT_NR_SEVERITIES ? audit_severity_name(opts->fail_on) :
							       "never");
}

/* --json and --junit, from the one document */
static int write_results(const struct check_options *opts, struct sysroot *root,
			 const struct topology *topo, const struct audit_report *report, int argc,
			 char **argv)
{
	json_t *doc = check_document(root, topo, report, params_json(opts), argc, argv);
	struct junit_suite suite;
	int status = EXIT_OK;

	if (!doc)
		return runtime_error("out of memory");
	result_set_end_time(doc);
	if (opts->json.path)
		status = output_json_write(&opts->json, doc);
	if (!status && opts->junit.path) {
		junit_output_start(&suite, "check", doc, opts->json.path);
		check_junit_cases(&suite, report);
		status = output_junit_write(&opts->junit, &suite);
		junit_suite_release(&suite);
	}
	json_decref(doc);
	return status;
}

static int validate_rt_cpus(const struct check_options *opts, const struct topology *topo)
{
	struct cpuset offline;
	char list[256], online[256];

	if (!opts->rt_given || cpuset_subset(&opts->rt_cpus, &topo->online))
		return 0;
	cpuset_andnot(&offline, &opts->rt_cpus, &topo->online);
	return usage_error("cpu list '%s' for --rt-cpus names CPUs %s that are not online "
			   "(online: %s)",
			   opts->rt_text, cpuset_format_list(&offline, list, sizeof(list)),
			   cpuset_format_list(&topo->online, online, sizeof(online)));
}

int cmd_check(int argc, char **argv)
{
	struct audit_report report = { 0 };
	struct check_options opts;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	struct topology topo = { 0 };
	struct sysroot *root = NULL;
	int status;

	if (!option_parse(&check_command, argc, argv, &opts, NULL, &status))
		goto out;
	cli_set_verbosity(opts.print.verbose);
	opts.print.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	status = machine_open(opts.root_dir, &root, &topo);
	if (status)
		goto out;
	status = validate_rt_cpus(&opts, &topo);
	if (status)
		goto out;
	if (audit_run(root, &topo, opts.rt_given ? &opts.rt_cpus : NULL, &report)) {
		status = runtime_error("the audit could not run");
		goto out;
	}
	check_print_report(stdout, &opts.print, &report);
	fflush(stdout);
	if (opts.print.verbose)
		fprintf(stderr, "latscope check: %zu rules read %lu files in %.1f ms\n",
			report.nr_findings, sysroot_files_read(root),
			(double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	if (opts.json.path || opts.junit.path)
		status = write_results(&opts, root, &topo, &report, argc, argv);
	if (!status && audit_fails_at(&report, opts.fail_on))
		status = EXIT_BUDGET;
out:
	audit_report_release(&report);
	topology_release(&topo);
	sysroot_free(root);
	option_release(&check_command, &opts);
	return status;
}
