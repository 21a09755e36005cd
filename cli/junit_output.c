// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "junit_output.h"
#include "output_path.h"
#include "latscope-config.h"

#define JUNIT_OUTPUT(member) OPTION_FIELD(struct junit_output, member)

const struct option_spec junit_output_options[] = {
	{ .long_name = "junit",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = JUNIT_OUTPUT(path),
	  .help = "write the verdict as JUnit XML to FILE, one test case per thing judged" },
	OPTION_TABLE_END,
};

int junit_output_finish(const struct junit_output *junit, const struct json_output *json)
{
	if (junit->path && json->path && path_same_file(junit->path, json->path))
		return usage_error("--junit and --json name the same file '%s'", junit->path);
	return json_output_finish(json);
}

/* "uname -r" and "uname -v" as one property: the build says as much as the release */
static void kernel_property(struct junit_suite *suite, const char *release, const char *version)
{
	char *kernel = NULL;

	if (!release)
		return;
	if (!version || asprintf(&kernel, "%s %s", release, version) < 0) {
		junit_suite_property(suite, "kernel", release);
		return;
	}
	junit_suite_property(suite, "kernel", kernel);
	free(kernel);
}

static const char *text_at(const json_t *object, const char *key)
{
	return json_string_value(json_object_get(object, key));
}

/* "2026-12-02T02:11:51.315Z": seconds since the epoch, or -1 */
static double iso_seconds(const char *text)
{
	struct tm tm = { 0 };
	const char *rest;
	double fraction = 0;

	if (!text)
		return -1;
	rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return -1;
	if (*rest == '.')
		fraction = strtod(rest, NULL);
	return (double)timegm(&tm) + fraction;
}

/* The run's own start (the format's timestamp: to the second, no zone) and length. */
static void run_times(struct junit_suite *suite, const json_t *doc)
{
	const char *start = text_at(doc, "start_time");
	double from = iso_seconds(start), to = iso_seconds(text_at(doc, "end_time"));
	char stamp[20];

	if (from < 0)
		return;
	snprintf(stamp, sizeof(stamp), "%.19s", start);
	free(suite->timestamp);
	suite->timestamp = strdup(stamp);
	if (to >= from)
		suite->seconds = to - from;
}

void junit_output_start(struct junit_suite *suite, const char *command, const json_t *doc,
			const char *result_path)
{
	const json_t *host = json_object_get(doc, "host");
	const json_t *uname = json_object_get(host, "uname");
	char name[64];

	snprintf(name, sizeof(name), "latscope %s", command);
	junit_suite_init(suite, name);
	junit_suite_hostname(suite, text_at(uname, "nodename"));
	run_times(suite, doc);
	kernel_property(suite, text_at(uname, "release"), text_at(uname, "version"));
	junit_suite_property(suite, "cmdline", text_at(host, "kernel_cmdline"));
	junit_suite_property(suite, "cpu_model", text_at(host, "cpu_model"));
	junit_suite_property(suite, "latscope_version", LATSCOPE_VERSION);
	junit_suite_property(suite, "result_file", result_path);
}

void junit_output_host(struct junit_suite *suite, const struct run_host *host)
{
	junit_suite_hostname(suite, host->nodename);
	kernel_property(suite, host->kernel, host->kernel_version);
	junit_suite_property(suite, "cmdline", host->cmdline);
	junit_suite_property(suite, "cpu_model", host->cpu_model);
}

int output_junit_write(const struct junit_output *junit, const struct junit_suite *suite)
{
	int ret = junit_write_file(suite, junit->path);

	if (ret)
		return runtime_error("cannot write --junit '%s': %s", junit->path, strerror(-ret));
	return EXIT_OK;
}
