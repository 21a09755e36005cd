// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope compare: did the change help, with confidence; how bad will it
 * get, and have we measured long enough. The inputs are read by import.h,
 * paired by compare_pairs.h and computed by compare_result.h; this file
 * holds the command line and the order of the work, compare_render.c the
 * text and compare_document.h the JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_options.h"
#include "compare_render.h"
#include "latscope/compare_document.h"
#include "latscope/import.h"
#include "latscope/numerics.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "option_table.h"
#include "output_path.h"

#define COMPARE(member) OPTION_FIELD(struct compare_command_options, member)

static const struct option_choice by_choices[] = {
	{ "cpu", COMPARE_BY_CPU },
	{ "thread", COMPARE_BY_THREAD },
	{ "all", COMPARE_BY_ALL },
	{ NULL, 0 },
};

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* "50,99,99.9": percentiles strictly between 0 and 100, stored ascending, once each */
static int parse_percentiles(const struct option_value *value)
{
	struct compare_command_options *o = value->options;
	struct compare_settings *s = &o->settings;
	const char *at = value->text;
	unsigned int n = 0, i, kept;
	double list[COMPARE_MAX_PERCENTILES];
	char item[64];
	int ret;

	for (;;) {
		size_t len = strcspn(at, ",");

		if (!len || len >= sizeof(item))
			return usage_error("invalid percentile list '%s' for %s (e.g. 50,99,99.9)",
					   value->text, value->spelled);
		if (n == COMPARE_MAX_PERCENTILES)
			return usage_error("%s '%s': at most %d percentiles", value->spelled,
					   value->text, COMPARE_MAX_PERCENTILES);
		memcpy(item, at, len);
		item[len] = '\0';
		ret = option_number(value->spelled, item, 0, 100, &list[n]);
		if (ret)
			return ret;
		if (!(list[n] > 0 && list[n] < 100))
			return usage_error("%s '%s': a percentile lies strictly between 0 and 100 "
					   "(the max is always compared)",
					   value->spelled, item);
		n++;
		if (!at[len])
			break;
		at += len + 1;
	}
	qsort(list, n, sizeof(list[0]), compare_doubles);
	for (i = 0, kept = 0; i < n; i++)
		if (!kept || list[i] != s->percentiles[kept - 1])
			s->percentiles[kept++] = list[i];
	s->nr_percentiles = kept;
	o->percentiles_text = value->text;
	return 0;
}

/* "5%,1us": a change must exceed both to count; the % is optional */
static int parse_practical(const struct option_value *value)
{
	struct compare_command_options *o = value->options;
	const char *comma = strchr(value->text, ',');
	char percent[32];
	size_t len;
	double fraction;
	uint64_t ns;
	int ret;

	len = comma ? (size_t)(comma - value->text) : 0;
	if (len && value->text[len - 1] == '%')
		len--;
	if (!comma || !len || len >= sizeof(percent) || !comma[1])
		return usage_error("invalid threshold '%s' for %s (PCT,DUR, e.g. 5%%,1us)",
				   value->text, value->spelled);
	memcpy(percent, value->text, len);
	percent[len] = '\0';
	ret = option_number(value->spelled, percent, 0, 1000, &fraction);
	if (!ret)
		ret = option_duration(value->spelled, comma + 1, NS_PER_US, 0, NS_PER_HOUR, &ns);
	if (ret)
		return ret;
	o->settings.stats.practical.fraction = fraction / 100;
	o->settings.stats.practical.ns = ns;
	o->practical_text = value->text;
	return 0;
}

static const struct option_spec compare_option_specs[] = {
	{ .long_name = "by",
	  .kind = OPTION_CHOICE,
	  .where = COMPARE(by),
	  .choices = by_choices,
	  .noun = "pairing",
	  .value_name = "HOW",
	  .help = "pair per cpu, per thread, or all series of an input merged",
	  .default_text = "cpu" },
	{ .long_name = "budget",
	  .short_name = 'b',
	  .kind = OPTION_DURATION,
	  .where = COMPARE(settings.budget_ns),
	  .given = COMPARE(settings.has_budget),
	  .duration = { NS_PER_US, 1, NS_PER_HOUR },
	  .help = "latency budget: misses above it, and the chance of one within a day" },
	{ .long_name = "percentiles",
	  .short_name = 'P',
	  .kind = OPTION_CUSTOM,
	  .where = COMPARE(percentiles_text),
	  .parse = parse_percentiles,
	  .value_name = "LIST",
	  .help = "percentiles to compare, besides the max",
	  .default_text = "50,90,99,99.9,99.99" },
	{ .long_name = "practical",
	  .kind = OPTION_CUSTOM,
	  .where = COMPARE(practical_text),
	  .parse = parse_practical,
	  .value_name = "PCT,DUR",
	  .help = "a change counts when it exceeds both PCT of A and DUR",
	  .default_text = "5%,1us" },
	{ .long_name = "confidence",
	  .kind = OPTION_NUMBER,
	  .where = COMPARE(settings.stats.confidence),
	  .number = { .min = 0.5, .max = 0.999 },
	  .value_name = "LEVEL",
	  .help = "level of every interval" },
	{ .long_name = "fail-worse",
	  .kind = OPTION_FLAG,
	  .where = COMPARE(fail_worse),
	  .help = "exit 2 when B is worse than A on any statistic compared" },
	OPTION_INCLUDE_AT(json_output_options, COMPARE(json)),
	OPTION_TABLE_END,
};

static const struct option_positional compare_positionals[] = {
	{ .name = "A",
	  .kind = OPTION_INPUT_FILE,
	  .min = 1,
	  .max = 1,
	  .where = COMPARE(a_path),
	  .help = "the baseline: a result of noise, timer, monitor, cyclictest or oslat" },
	{ .name = "B",
	  .kind = OPTION_INPUT_FILE,
	  .min = 1,
	  .max = 1,
	  .where = COMPARE(b_path),
	  .help = "the result compared with A" },
	{ .name = "MORE",
	  .kind = OPTION_INPUT_FILE,
	  .min = 0,
	  .max = OPTION_MANY,
	  .where = COMPARE(more),
	  .help = "more results, each compared with A" },
	OPTION_POSITIONALS_END,
};

static void compare_defaults(void *options)
{
	struct compare_command_options *o = options;

	compare_settings_default(&o->settings);
	o->by = COMPARE_BY_CPU;
}

static int compare_finish(void *options, void *context)
{
	struct compare_command_options *o = options;
	unsigned int i;

	(void)context;
	o->paths = calloc(o->more.count + 2, sizeof(*o->paths));
	if (!o->paths)
		return runtime_error("out of memory");
	o->paths[o->nr_paths++] = o->a_path;
	o->paths[o->nr_paths++] = o->b_path;
	for (i = 0; i < o->more.count; i++)
		o->paths[o->nr_paths++] = o->more.items[i];
	for (i = 0; o->json.path && i < o->nr_paths; i++)
		if (path_same_file(o->json.path, o->paths[i]))
			return usage_error("--json '%s' is one of the inputs: it would be "
					   "overwritten",
					   o->json.path);
	return json_output_finish(&o->json);
}

static void compare_release(void *options)
{
	struct compare_command_options *o = options;

	free(o->paths);
	o->paths = NULL;
	o->nr_paths = 0;
}

const struct option_command compare_command = {
	.name = "compare",
	.description =
		"Compare results before and after a change: percentiles of B against A with\n"
		"the difference's bootstrap interval and a verdict (better, worse, same) that\n"
		"calls a change only when it is real and exceeds a practical threshold;\n"
		"deadline misses with exact intervals; GEV return levels from the block\n"
		"maxima, with the checks of their assumptions, and whether the runs were\n"
		"long enough. Inputs: latscope noise, timer and monitor JSON, cyclictest and\n"
		"oslat --json, cyclictest -h text. MORE inputs are each compared with A.",
	.options = compare_option_specs,
	.positionals = compare_positionals,
	.size = sizeof(struct compare_command_options),
	.init = compare_defaults,
	.finish = compare_finish,
	.release = compare_release,
	.footer = "Durations take a unit (ns, us, ms, s); a bare number is in us. Exit status:\n"
		  "0 ok, 1 an input cannot be read or compared or the JSON cannot be written,\n"
		  "2 B is worse than A on a statistic (--fail-worse), 129 usage error.\n"
		  "See latscope-compare(1).",
};

static void free_runs(struct run **runs, unsigned int n)
{
	unsigned int i;

	if (!runs)
		return;
	for (i = 0; i < n; i++)
		run_free(runs[i]);
	free(runs);
}

/* the summary line as the text ends with it */
static json_t *summary_json(const struct compare_result *result, const char *const *names)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	json_t *line;

	if (!f)
		return NULL;
	compare_render_summary(f, result, names);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	if (size && text[size - 1] == '\n')
		text[size - 1] = '\0';
	line = json_string(text);
	free(text);
	return line;
}

static int write_json(const struct compare_command_options *o, int argc, char **argv,
		      const struct run *const *runs, const struct compare_plan *plan,
		      const struct compare_result *result, int status)
{
	json_t *doc = result_new("compare", argc, argv);
	json_t *params = compare_document_params(&o->settings, o->by);
	json_t *inputs = compare_document_inputs(runs, o->paths, o->nr_paths);
	json_t *pairs = compare_document_pairs(runs, o->paths, result);
	json_t *unpaired = compare_document_unpaired(plan, o->paths);

	if (!doc || !params || !inputs || !pairs || !unpaired) {
		json_decref(doc);
		json_decref(params);
		json_decref(inputs);
		json_decref(pairs);
		json_decref(unpaired);
		return runtime_error("out of memory");
	}
	json_object_set_new(params, "fail_worse", json_boolean(o->fail_worse));
	json_object_set_new(doc, "params", params);
	json_object_set_new(doc, "inputs", inputs);
	json_object_set_new(doc, "pairs", pairs);
	json_object_set_new(doc, "unpaired", unpaired);
	json_object_set_new(doc, "verdict", json_string(compare_result_verdict(result)));
	json_object_set_new(doc, "summary", summary_json(result, o->paths));
	json_object_set_new(doc, "exit_status", json_integer(status));
	result_set_end_time(doc);
	status = output_json_write(&o->json, doc);
	json_decref(doc);
	return status;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_command_options o;
	struct compare_plan plan = { 0 };
	struct compare_result result = { 0 };
	struct run **runs = NULL;
	unsigned int i;
	int status, ret;

	if (!option_parse(&compare_command, argc, argv, &o, NULL, &status))
		goto out;
	numerics_init();
	runs = calloc(o.nr_paths, sizeof(*runs));
	if (!runs) {
		status = runtime_error("out of memory");
		goto out;
	}
	/* import_file() names the file and says what is wrong with it */
	for (i = 0; i < o.nr_paths; i++)
		if (import_file(o.paths[i], &runs[i])) {
			status = EXIT_ERROR;
			goto out;
		}
	ret = compare_plan_make((const struct run *const *)runs, o.paths, o.nr_paths, o.by, &plan);
	if (ret) {
		status = ret == -EINVAL ? runtime_error("%s", plan.error) :
					  runtime_error("out of memory");
		goto out;
	}
	ret = compare_result_compute((const struct run *const *)runs, &plan, &o.settings, &result);
	if (ret) {
		status = runtime_error("cannot compute the comparison: %s", strerror(-ret));
		goto out;
	}
	compare_render(stdout, (const struct run *const *)runs, o.paths, o.nr_paths, &plan, &result,
		       &o.settings);
	status = o.fail_worse && compare_result_worse(&result) ? EXIT_BUDGET : EXIT_OK;
	if (o.json.path &&
	    write_json(&o, argc, argv, (const struct run *const *)runs, &plan, &result, status))
		status = EXIT_ERROR;
out:
	compare_result_release(&result);
	compare_plan_release(&plan);
	free_runs(runs, o.nr_paths);
	option_release(&compare_command, &o);
	return status;
}
