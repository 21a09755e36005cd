// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "budget.h"
#include "cli.h"
#include "common_options.h"
#include "latscope/parse.h"
#include "measure_junit.h"
#include "noise_report.h"
#include "noise_session.h"
#include "option_table.h"
#include "output_path.h"
#include "validity_report.h"

#define NOISE(member) OPTION_FIELD(struct noise_options, member)

static const struct option_choice clocks[] = {
	{ "tsc", true },
	{ "monotonic", false },
	{ NULL, 0 },
};

static const struct option_spec noise_option_specs[] = {
	OPTION_MEASURED_CPUS(NOISE(params.cpus), NOISE(cpus_given),
			     "isolated cpus, else all online"),
	OPTION_RUN_DURATION(NOISE(params.duration_ns)),
	{ .long_name = "threshold",
	  .short_name = 't',
	  .kind = OPTION_DURATION,
	  .where = NOISE(params.threshold_ns),
	  .duration = { NS_PER_US, 1, 10 * NS_PER_SEC },
	  .help = "smallest gap recorded" },
	{ .long_name = "policy",
	  .kind = OPTION_CUSTOM,
	  .where = NOISE(params.policy),
	  .given = NOISE(policy_given),
	  .parse = option_parse_rt_policy,
	  .complete_as = OPTION_CHOICE,
	  .choices = rt_policy_words,
	  .value_name = "POLICY",
	  .help = "other, fifo, rr, batch or idle",
	  .default_text = "other" },
	{ .long_name = "priority",
	  .short_name = 'p',
	  .kind = OPTION_INTEGER,
	  .where = NOISE(params.priority),
	  .given = NOISE(priority_given),
	  .integer = { 1, 99 },
	  .help = "1-99 for fifo/rr (implies fifo)" },
	OPTION_INCLUDE_AT(json_output_options, NOISE(json)),
	OPTION_INCLUDE_AT(junit_output_options, NOISE(junit)),
	{ .long_name = "histogram",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = NOISE(histogram_path),
	  .help = "write the histograms as text columns (gnuplot-ready)" },
	{ .long_name = "gaps",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = NOISE(gaps_path),
	  .help = "write every stored gap: cpu, start, duration" },
	{ .long_name = "explain",
	  .short_name = 'e',
	  .kind = OPTION_CHOICE,
	  .flags = OPTION_OPTIONAL,
	  .where = NOISE(explain),
	  .choices = explain_choices,
	  .bare = "trace",
	  .value_name = "HOW",
	  .help = "attribute every gap to its cause, from tracepoints in a private tracefs "
		  "instance or from the interrupt counters" },
	{ .long_name = "trace-dir",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = NOISE(trace_dir),
	  .help = "keep the raw events around the largest gaps, a file each" },
	{ .long_name = "quiet",
	  .short_name = 'q',
	  .kind = OPTION_FLAG,
	  .where = NOISE(quiet),
	  .help = "no live view" },
	OPTION_BUDGET(NOISE(fail_above_ns), 'b', .alias = "fail-above"),
	OPTION_STRICT(NOISE(strict)),
	{ .long_name = "force",
	  .kind = OPTION_FLAG,
	  .where = NOISE(force),
	  .help = "allow fifo/rr spinning on every online cpu" },
	{ .long_name = "no-dma-latency",
	  .kind = OPTION_FLAG,
	  .where = NOISE(no_dma_latency),
	  .help = "do not hold /dev/cpu_dma_latency at 0 while measuring" },
	{ .long_name = "max-gaps",
	  .kind = OPTION_INTEGER,
	  .where = NOISE(params.max_gaps),
	  .integer = { 0, 1LL << 28 },
	  .help = "most gaps stored per cpu, 16 bytes each as they come; later ones are counted" },
	{ .long_name = "clock",
	  .kind = OPTION_CHOICE,
	  .where = NOISE(params.use_tsc),
	  .choices = clocks,
	  .noun = "clock",
	  .value_name = "CLOCK",
	  .help = "the clock read back to back; tsc needs a constant, nonstop TSC" },
	OPTION_INCLUDE_AT(verbose_options, NOISE(verbose)),
	OPTION_TABLE_END,
};

static void noise_defaults(void *options)
{
	struct noise_options *o = options;

	noise_params_default(&o->params);
}

/* Rules between options, once every word is read. */
static int noise_finish(void *options, void *context)
{
	struct noise_options *o = options;

	(void)context;
	if (o->priority_given && !o->policy_given)
		o->params.policy = RT_POLICY_FIFO;
	if (o->priority_given && !rt_policy_is_realtime(o->params.policy))
		return usage_error("--priority %d needs --policy fifo or rr", o->params.priority);
	if (rt_policy_is_realtime(o->params.policy) && !o->priority_given)
		o->params.priority = 1;
	if (o->trace_dir && o->explain != EXPLAIN_WITH_TRACE)
		return usage_error("--trace-dir needs --explain (with tracing)");
	return junit_output_finish(&o->junit, &o->json);
}

const struct option_command noise_command = {
	.name = "noise",
	.description = "Spin on each CPU reading the TSC back to back; every gap the CPU loses to\n"
		       "an interrupt, a thread, firmware or the hypervisor is measured, and\n"
		       "recurring gaps are reported with their period.",
	.options = noise_option_specs,
	.size = sizeof(struct noise_options),
	.init = noise_defaults,
	.finish = noise_finish,
	.footer = "Durations take a unit: ns, us, ms, s, m, h. Exit status: 0 ok, 1 error or\n"
		  "a shortfall under --strict, 2 a gap above --budget, 129 usage error. See\n"
		  "latscope-noise(1).",
};

/* A text output through the one rule: whole or not at all. */
static int write_text(const char *option, const char *path, const struct noise_run *run,
		      void (*write)(FILE *out, const struct noise_run *run))
{
	struct atomic_file file;
	int status;

	status = output_text_open(&file, option, path);
	if (status)
		return status;
	write(file.stream, run);
	return output_text_commit(&file, option, path);
}

static int write_outputs(struct noise_session *s)
{
	const struct noise_options *o = &s->opts;
	const struct noise_run *run = &s->run;
	struct junit_suite suite;
	json_t *doc;
	int status;

	if (o->trace_dir) {
		status = output_dir_create("--trace-dir", o->trace_dir);
		if (status)
			return status;
		if (noise_explain_write_captures(&s->explain, run, o->trace_dir) < 0)
			return EXIT_ERROR;
	}
	if (o->histogram_path) {
		status = write_text("--histogram", o->histogram_path, run, noise_report_histogram);
		if (status)
			return status;
	}
	if (o->gaps_path) {
		status = write_text("--gaps", o->gaps_path, run, noise_report_gaps);
		if (status)
			return status;
	}
	if (!o->json.path && !o->junit.path)
		return 0;
	doc = noise_session_document(s);
	if (o->json.path && output_json_write(&o->json, doc))
		return EXIT_ERROR;
	if (!o->junit.path)
		return 0;
	junit_output_start(&suite, "noise", doc, o->json.path);
	measure_junit_cases(&suite, doc, o->fail_above_ns);
	measure_junit_validity(&suite, doc, o->strict);
	status = output_junit_write(&o->junit, &suite);
	junit_suite_release(&suite);
	return status;
}

/* --budget: name every cpu over it */
static int check_budget(const struct noise_options *o, const struct noise_run *run)
{
	struct budget_check check = { o->fail_above_ns, "cpu", EXIT_OK };
	unsigned int i;

	for (i = 0; check.budget_ns && i < run->nr_cpus; i++)
		budget_check_lane(&check, run->cpus[i].cpu, run->cpus[i].hist->max);
	return check.status;
}

int cmd_noise(int argc, char **argv)
{
	struct noise_session s = { 0 };
	int status;

	if (!noise_session_prepare(&s, argc, argv, &status))
		goto out;
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	status = noise_session_run(&s, stdout);
	if (status)
		goto out;
	noise_session_report(&s, stdout);
	status = write_outputs(&s);
	if (!status)
		status = check_budget(&s.opts, &s.run);
	status = validity_say(&s.validity, s.opts.strict, status);
out:
	noise_session_free(&s);
	return status;
}
