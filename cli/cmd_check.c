// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/audit.h"
#include "latscope/clock.h"
#include "latscope/result.h"

struct check_options {
	struct cpuset rt_cpus;
	bool rt_given;
	const char *rt_text;
	const char *root_dir;
	const char *json_path;
	enum audit_severity fail_on; /* AUDIT_NR_SEVERITIES: never */
	bool all;
	int verbose;
	bool color;
};

void cmd_check_usage(FILE *out)
{
	fprintf(out,
		"usage: latscope check [--rt-cpus LIST] [--root DIR] [--json FILE]\n"
		"                      [--fail-on fatal|high|medium|low|never] [--all] [--verbose]\n\n"
		"Audit the kernel build and the running settings for real-time readiness:\n"
		"every finding with its severity, the evidence read and the exact fix.\n\n"
		"  -c, --rt-cpus LIST   CPUs for real-time work (default: isolated and nohz_full)\n"
		"  -r, --root DIR       read DIR as / (a fixture tree) instead of this machine\n"
		"  -j, --json FILE      also write the findings as a latscope/1 document\n"
		"  -f, --fail-on LEVEL  exit 2 when a check fails at LEVEL or above "
		"(default: fatal)\n"
		"  -a, --all            list the passed and skipped checks too\n"
		"  -v, --verbose        show the evidence, the files read and the time taken\n"
		"  -h, --help           show this help\n\n"
		"exit status: 0 ok, 1 error, 2 a check failed at --fail-on or above, 129 usage "
		"error\n");
}

static int parse_fail_on(const char *arg, enum audit_severity *level)
{
	if (!strcmp(arg, "never")) {
		*level = AUDIT_NR_SEVERITIES;
		return 0;
	}
	if (audit_severity_parse(arg, level) || *level == AUDIT_INFO)
		return usage_error("invalid level '%s' for --fail-on (use fatal, high, medium, "
				   "low or never)",
				   arg);
	return 0;
}

static int parse_options(int argc, char **argv, struct check_options *opts)
{
	static const char shortopts[] = "c:r:j:f:avh";
	static const struct option longopts[] = {
		{ "rt-cpus", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "fail-on", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(opts, 0, sizeof(*opts));
	opts->fail_on = AUDIT_FATAL;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			ret = option_cpus("--rt-cpus", optarg, &opts->rt_cpus);
			if (ret)
				return ret;
			opts->rt_given = true;
			opts->rt_text = optarg;
			break;
		case 'r':
			opts->root_dir = optarg;
			break;
		case 'j':
			opts->json_path = optarg;
			break;
		case 'f':
			ret = parse_fail_on(optarg, &opts->fail_on);
			if (ret)
				return ret;
			break;
		case 'a':
			opts->all = true;
			break;
		case 'v':
			opts->verbose++;
			break;
		case 'h':
			cmd_check_usage(stdout);
			return -1;
		default:
			return option_rejected(argc, argv, shortopts, longopts);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	opts->color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	return 0;
}

static int check_root(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return usage_error("cannot use '%s' for --root: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return usage_error("cannot use '%s' for --root: not a directory", dir);
	return 0;
}

/* A path that cannot be written is the user's to fix; a full disk is not. */
static int check_json_path(const char *path)
{
	int ret = result_check_writable(path);

	if (!ret)
		return 0;
	if (ret == -ENOSPC || ret == -EDQUOT || ret == -EIO)
		return runtime_error("cannot write '%s' for --json: %s", path, strerror(-ret));
	return usage_error("cannot write '%s' for --json: %s", path, strerror(-ret));
}

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
	int ret;

	if (!doc)
		return runtime_error("out of memory");
	json_object_set_new(doc, "host", result_host_facts(root, topo));
	json_object_set_new(doc, "params", params_json(opts));
	audit = audit_report_json(report);
	json_object_update(doc, audit);
	json_decref(audit);
	result_set_end_time(doc);
	ret = result_write(doc, opts->json_path);
	json_decref(doc);
	if (ret)
		return runtime_error("cannot write '%s': %s", opts->json_path, strerror(-ret));
	return 0;
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
	struct audit_report report;
	struct check_options opts;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	struct topology topo;
	struct sysroot *root;
	int ret;

	ret = parse_options(argc, argv, &opts);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	cli_set_verbosity(opts.verbose);
	if (opts.root_dir && (ret = check_root(opts.root_dir)))
		return ret;
	if (opts.json_path && (ret = check_json_path(opts.json_path)))
		return ret;
	root = sysroot_new(opts.root_dir);
	if (!root)
		return runtime_error("out of memory");
	if (topology_load(root, &topo)) {
		sysroot_free(root);
		return EXIT_ERROR;
	}
	ret = validate_rt_cpus(&opts, &topo);
	if (!ret && audit_run(root, &topo, opts.rt_given ? &opts.rt_cpus : NULL, &report))
		ret = runtime_error("the audit could not run");
	if (ret) {
		topology_release(&topo);
		sysroot_free(root);
		return ret;
	}
	print_report(&opts, &report);
	fflush(stdout);
	if (opts.verbose)
		fprintf(stderr, "latscope check: %zu rules read %lu files in %.1f ms\n",
			report.nr_findings, sysroot_files_read(root),
			(double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e6);
	if (opts.json_path)
		ret = write_json(&opts, root, &topo, &report, argc, argv);
	if (!ret && audit_fails_at(&report, opts.fail_on))
		ret = EXIT_BUDGET;
	audit_report_release(&report);
	topology_release(&topo);
	sysroot_free(root);
	return ret;
}
