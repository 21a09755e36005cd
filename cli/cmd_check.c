// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/audit.h"
#include "latscope/clock.h"
#include "latscope/result.h"
#include "common_options.h"
#include "machine.h"
#include "option_table.h"
#include "output_path.h"

struct check_options {
	struct cpuset rt_cpus;
	bool rt_given;
	const char *rt_text;
	const char *root_dir;
	struct json_output json;
	enum audit_severity fail_on; /* AUDIT_NR_SEVERITIES: never */
	bool all;
	int verbose;
	bool color;
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
	  .help = "CPUs for real-time work",
	  .default_text = "isolated and nohz_full" },
	{ .long_name = "root",
	  .short_name = 'r',
	  .kind = OPTION_INPUT_DIR,
	  .where = CHECK(root_dir),
	  .help = "read DIR as / (a fixture tree) instead of this machine" },
	OPTION_INCLUDE_AT(json_output_options, CHECK(json)),
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
	  .where = CHECK(all),
	  .help = "list the passed and skipped checks too" },
	{ .long_name = "verbose",
	  .short_name = 'v',
	  .kind = OPTION_COUNTER,
	  .where = CHECK(verbose),
	  .help = "show the evidence, the files read and the time taken" },
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
	return json_output_finish(&opts->json);
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

static const char *paint(const struct check_options *opts, enum audit_status status)
{
	static const char *const colors[AUDIT_NR_STATUSES] = {
		[AUDIT_FAIL] = "\033[1;31m",
		[AUDIT_WARN] = "\033[33m",
		[AUDIT_PASS] = "\033[32m",
		[AUDIT_SKIP] = "\033[2m",
	};

	return opts->color ? colors[status] : "";
}

static const char *unpaint(const struct check_options *opts)
{
	return opts->color ? "\033[0m" : "";
}

static void print_finding(const struct check_options *opts, const struct audit_finding *f)
{
	size_t i;

	printf("  %s%-4s%s %s  %s: %s\n", paint(opts, f->status), audit_status_name(f->status),
	       unpaint(opts), f->id, f->title, f->detail ? f->detail : "");
	if (f->fix && (f->status == AUDIT_FAIL || f->status == AUDIT_WARN))
		printf("       fix: %s\n", f->fix);
	if (opts->verbose)
		for (i = 0; i < f->nr_evidence; i++)
			printf("       seen: %s = %s\n", f->evidence[i].path, f->evidence[i].value);
}

static void print_group(const struct check_options *opts, const struct audit_report *report,
			enum audit_status status, const char *heading)
{
	bool printed = false;
	size_t i;

	for (i = 0; i < report->nr_findings; i++) {
		if (report->findings[i].status != status)
			continue;
		if (!printed)
			printf("\n%s\n", heading);
		printed = true;
		print_finding(opts, &report->findings[i]);
	}
}

static void print_report(const struct check_options *opts, const struct audit_report *report)
{
	struct audit_summary s;
	char rt[256], hk[256];
	unsigned int sev;
	size_t i;

	cpuset_format_list(&report->rt_cpus, rt, sizeof(rt));
	cpuset_format_list(&report->housekeeping, hk, sizeof(hk));
	if (cpuset_empty(&report->rt_cpus))
		printf("RT CPUs: none (none isolated or nohz_full; use --rt-cpus); "
		       "housekeeping CPUs: %s\n",
		       hk);
	else
		printf("RT CPUs: %s (%s); housekeeping CPUs: %s\n", rt,
		       report->rt_cpus_given ? "--rt-cpus" : "isolated and nohz_full",
		       hk[0] ? hk : "none");
	/* failures and warnings first, most severe first, one heading per severity */
	for (sev = 0; sev < AUDIT_NR_SEVERITIES; sev++) {
		bool printed = false;

		for (i = 0; i < report->nr_findings; i++) {
			const struct audit_finding *f = &report->findings[i];

			if (f->severity != sev ||
			    (f->status != AUDIT_FAIL && f->status != AUDIT_WARN))
				continue;
			if (!printed) {
				const char *name = audit_severity_name(f->severity);

				printf("\n%c%s\n", name[0] - 'a' + 'A', name + 1);
				printed = true;
			}
			print_finding(opts, f);
		}
	}
	audit_summarize(report, &s);
	if (opts->all) {
		print_group(opts, report, AUDIT_PASS, "Passed");
		print_group(opts, report, AUDIT_SKIP, "Skipped");
	} else if (s.passed || s.skipped) {
		printf("\n%u passed, %u skipped (--all lists them)\n", s.passed, s.skipped);
	}
	printf("\n%u fatal, %u high, %u medium, %u low; %u passed, %u skipped\n",
	       s.failed[AUDIT_FATAL] + s.warned[AUDIT_FATAL],
	       s.failed[AUDIT_HIGH] + s.warned[AUDIT_HIGH],
	       s.failed[AUDIT_MEDIUM] + s.warned[AUDIT_MEDIUM],
	       s.failed[AUDIT_LOW] + s.warned[AUDIT_LOW], s.passed, s.skipped);
}

static json_t *params_json(const struct check_options *opts)
{
	return json_pack("{s:o, s:s, s:s}", "rt_cpus",
			 opts->rt_given ? result_cpuset(&opts->rt_cpus) : json_null(), "root",
			 opts->root_dir ? opts->root_dir : "/", "fail_on",
			 opts->fail_on < AUDIT_NR_SEVERITIES ? audit_severity_name(opts->fail_on) :
							       "never");
}

static int write_json(const struct check_options *opts, struct sysroot *root,
		      const struct topology *topo, const struct audit_report *report, int argc,
		      char **argv)
{
	json_t *doc = result_new("check", argc, argv), *audit;
	int status;

	if (!doc)
		return runtime_error("out of memory");
	json_object_set_new(doc, "host", result_host_facts(root, topo));
	json_object_set_new(doc, "params", params_json(opts));
	audit = audit_report_json(report);
	json_object_update(doc, audit);
	json_decref(audit);
	result_set_end_time(doc);
	status = output_json_write(&opts->json, doc);
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
	cli_set_verbosity(opts.verbose);
	opts.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
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
	print_report(&opts, &report);
	fflush(stdout);
	if (opts.verbose)
		fprintf(stderr, "latscope check: %zu rules read %lu files in %.1f ms\n",
			report.nr_findings, sysroot_files_read(root),
			(double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	if (opts.json.path)
		status = write_json(&opts, root, &topo, &report, argc, argv);
	if (!status && audit_fails_at(&report, opts.fail_on))
		status = EXIT_BUDGET;
out:
	audit_report_release(&report);
	topology_release(&topo);
	sysroot_free(root);
	option_release(&check_command, &opts);
	return status;
}
