// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope compare: did the change help, with confidence; how bad will it
 * get, and have we measured long enough. The inputs are read by import.h;
 * comparison.c pairs and computes them, gates the exit status and makes the
 * document (as for latscope ab); this file holds the command line and the
 * order of the work, compare_render.c the text.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "compare_junit.h"
#include "compare_options.h"
#include "compare_render.h"
#include "comparison.h"
#include "latscope/import.h"
#include "latscope/result.h"
#include "option_table.h"
#include "output_path.h"

#define COMPARE(member) OPTION_FIELD(struct compare_command_options, member)

static const struct option_spec compare_option_specs[] = {
	OPTION_INCLUDE_AT(compare_statistics_options, COMPARE(statistics)),
	{ .long_name = "vs",
	  .kind = OPTION_SEPARATOR,
	  .where = COMPARE(vs_at),
	  .given = COMPARE(vs_given),
	  .help = "the files before it are runs of A, those after it runs of B" },
	OPTION_INCLUDE_AT(json_output_options, COMPARE(json)),
	OPTION_INCLUDE_AT(junit_output_options, COMPARE(junit)),
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
	  .help = "more results, each compared with A; with --vs, more runs of A or B" },
	OPTION_POSITIONALS_END,
};

static void compare_defaults(void *options)
{
	struct compare_command_options *o = options;

	compare_statistics_defaults(&o->statistics);
}

static int compare_finish(void *options, void *context)
{
	struct compare_command_options *o = options;
	unsigned int i;

	(void)context;
	o->paths = calloc(o->more.count + 2, sizeof(*o->paths));
	o->group_of = calloc(o->more.count + 2, sizeof(*o->group_of));
	if (!o->paths || !o->group_of)
		return runtime_error("out of memory");
	o->paths[o->nr_paths++] = o->a_path;
	o->paths[o->nr_paths++] = o->b_path;
	for (i = 0; i < o->more.count; i++)
		o->paths[o->nr_paths++] = o->more.items[i];
	if (o->vs_given && !o->vs_at)
		return usage_error("--vs: no file of A before it");
	if (o->vs_given && o->vs_at >= o->nr_paths)
		return usage_error("--vs: no file of B after it");
	/* without --vs each file is a side of its own: A, then B, C... each against A */
	for (i = 0; i < o->nr_paths; i++)
		o->group_of[i] = o->vs_given ? i >= o->vs_at : i;
	for (i = 0; o->json.path && i < o->nr_paths; i++)
		if (path_same_file(o->json.path, o->paths[i]))
			return usage_error("--json '%s' is one of the inputs: it would be "
					   "overwritten",
					   o->json.path);
	return junit_output_finish(&o->junit, &o->json);
}

static void compare_release(void *options)
{
	struct compare_command_options *o = options;

	free(o->paths);
	free(o->group_of);
	o->paths = NULL;
	o->group_of = NULL;
	o->nr_paths = 0;
}

const struct option_command compare_command = {
	.name = "compare",
	.description =
		"Compare results before and after a change: percentiles of B against A with\n"
		"the difference's interval and a verdict: better or worse when the change is\n"
		"real and exceeds a practical threshold, same when the whole interval lies\n"
		"within it, inconclusive otherwise. The intervals resample the runs' time\n"
		"blocks, so drift during a run widens them; several runs a side\n"
		"(A1 A2 A3 --vs B1 B2 B3) bring the variation between runs in. One run a\n"
		"side cannot measure that variation: its verdicts are inconclusive (use\n"
		"replicates, or latscope ab). Also deadline misses with exact intervals, GEV\n"
		"return levels from the block maxima with the checks of their assumptions,\n"
		"and whether the runs were long enough. Inputs: latscope noise, timer and\n"
		"monitor JSON, cyclictest and oslat --json, cyclictest -h text. Without\n"
		"--vs, MORE inputs are each compared with A.",
	.options = compare_option_specs,
	.positionals = compare_positionals,
	.size = sizeof(struct compare_command_options),
	.init = compare_defaults,
	.finish = compare_finish,
	.release = compare_release,
	.footer = "--budget: each series' misses, and the chance of one within a day.\n"
		  "Durations take a unit (ns, us, ms, s); a bare number is in us. Exit status:\n"
		  "0 ok, 1 an input cannot be read or compared, nothing could be compared, or\n"
		  "the JSON cannot be written, 2 B is worse than A on a statistic\n"
		  "(--fail-worse), 129 usage error. See latscope-compare(1).",
};

/* the verdict per pair and statistic, with every input named */
static int write_junit(const struct compare_command_options *o, const struct comparison *c)
{
	struct junit_suite suite;
	unsigned int i;
	int status;

	comparison_junit(&suite, c, "compare", &o->statistics, o->json.path);
	for (i = 0; i < c->nr_runs; i++)
		junit_suite_property(&suite, "input_file", c->names[i]);
	status = output_junit_write(&o->junit, &suite);
	junit_suite_release(&suite);
	return status;
}

/*
 * A comparison that could not be made is an <error> case, so that a
 * pipeline reading the JUnit sees why and does not take a missing report
 * for a pass; it says what the error line said: the comparison's own
 * reason, or for a file that could not be read, the line import_file()
 * said through the log (the one use of cli_last_error()).
 */
static void write_junit_error(const struct compare_command_options *o, const struct comparison *c)
{
	const char *why = c->why.text[0] ? c->why.text : cli_last_error();

	struct junit_suite suite;
	struct junit_case *tc;
	unsigned int i;

	junit_output_start(&suite, "compare", NULL, NULL); /* no result was written */
	for (i = 0; i < o->nr_paths; i++)
		junit_suite_property(&suite, "input_file", o->paths[i]);
	tc = junit_suite_case(&suite, "latscope.compare", "comparison");
	junit_case_set(&suite, tc, JUNIT_ERROR, "error", "%s",
		       *why ? why : "the comparison could not be made");
	output_junit_write(&o->junit, &suite);
	junit_suite_release(&suite);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_command_options o;
	struct comparison c = { 0 };
	json_t *doc;
	int status;

	if (!option_parse(&compare_command, argc, argv, &o, NULL, &status))
		goto out;
	c.names = o.paths;
	c.runs = calloc(o.nr_paths, sizeof(*c.runs));
	if (!c.runs) {
		status = runtime_error("out of memory");
		goto out;
	}
	/* import_file() names the file and says what is wrong with it */
	for (c.nr_runs = 0; c.nr_runs < o.nr_paths; c.nr_runs++)
		if (import_file(o.paths[c.nr_runs], &c.runs[c.nr_runs])) {
			status = EXIT_ERROR;
			goto failed;
		}
	status = comparison_compute(&c, o.group_of, false, &o.statistics);
	/* a comparison that cannot judge is an error before anything is written */
	if (!status)
		status = comparison_gate(&c, o.statistics.fail_worse);
	if (status == EXIT_ERROR)
		goto failed;
	compare_render(stdout, (const struct run *const *)c.runs, c.names, c.nr_runs, &c.plan,
		       &c.result, &o.statistics.settings);
	if (o.junit.path && write_junit(&o, &c))
		status = EXIT_ERROR;
	if (!o.json.path)
		goto out;
	doc = comparison_document(&c, "compare", argc, argv, &o.statistics, status);
	if (!doc) {
		status = runtime_error("out of memory");
		goto out;
	}
	result_set_end_time(doc);
	if (output_json_write(&o.json, doc))
		status = EXIT_ERROR;
	json_decref(doc);
	goto out;
failed:
	if (o.junit.path)
		write_junit_error(&o, &c);
out:
	comparison_release(&c);
	option_release(&compare_command, &o);
	return status;
}
