// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common_options.h"
#include "latscope/clock.h"
#include "latscope/log.h"
#include "latscope/noise.h"
#include "latscope/noise_result.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "latscope/topology.h"
#include "machine.h"
#include "noise_explain.h"
#include "noise_report.h"
#include "option_table.h"
#include "output_path.h"

struct noise_options {
	struct noise_params params;
	bool cpus_given, priority_given, policy_given;
	struct json_output json;
	const char *histogram_path;
	const char *gaps_path;
	enum explain_choice explain;
	const char *trace_dir;
	bool quiet, force, no_dma_latency;
	uint64_t fail_above_ns; /* 0: none */
	int verbose;
};

#define NOISE(member) OPTION_FIELD(struct noise_options, member)

static const struct option_choice clocks[] = {
	{ "tsc", true },
	{ "monotonic", false },
	{ NULL, 0 },
};

static const struct option_spec noise_option_specs[] = {
	{ .long_name = "cpus",
	  .short_name = 'c',
	  .kind = OPTION_CPUS,
	  .where = NOISE(params.cpus),
	  .given = NOISE(cpus_given),
	  .help = "cpus to measure",
	  .default_text = "isolated cpus, else all online" },
	{ .long_name = "duration",
	  .short_name = 'd',
	  .kind = OPTION_DURATION,
	  .where = NOISE(params.duration_ns),
	  .duration = { NS_PER_SEC, 10 * NS_PER_MS, 30 * NS_PER_DAY },
	  .help = "how long" },
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
	{ .long_name = "fail-above",
	  .kind = OPTION_DURATION,
	  .where = NOISE(fail_above_ns),
	  .duration = { NS_PER_US, 1, 1000 * NS_PER_SEC },
	  .help = "exit 2 when a cpu's largest gap exceeds DUR" },
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
	{ .long_name = "verbose",
	  .short_name = 'v',
	  .kind = OPTION_COUNTER,
	  .where = NOISE(verbose),
	  .help = "say what is set up" },
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
	return json_output_finish(&o->json);
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
	.footer = "Durations take a unit: ns, us, ms, s, m, h. Exit status: 0 ok, 1 error,\n"
		  "2 --fail-above exceeded, 129 usage error. See latscope-noise(1).",
};

/* What only the machine can tell: online cpus, the default set, RT spinning. */
static int check_against_machine(struct noise_options *o, const struct topology *topo)
{
	struct cpuset offline;
	char list[256], online[256];

	if (!o->cpus_given)
		o->params.cpus = cpuset_empty(&topo->isolated) ? topo->online : topo->isolated;
	cpuset_andnot(&offline, &o->params.cpus, &topo->online);
	if (!cpuset_empty(&offline))
		return usage_error("cpu %s in --cpus is not online (online: %s)",
				   cpuset_format_list(&offline, list, sizeof(list)),
				   cpuset_format_list(&topo->online, online, sizeof(online)));
	if (rt_policy_is_realtime(o->params.policy) && !o->force &&
	    cpuset_subset(&topo->online, &o->params.cpus))
		return usage_error("refusing to spin at SCHED_%s on every online cpu (%s): the "
				   "kernel's own threads would starve; leave a housekeeping cpu "
				   "or pass --force",
				   o->params.policy == RT_POLICY_FIFO ? "FIFO" : "RR",
				   cpuset_format_list(&topo->online, online, sizeof(online)));
	return 0;
}

static void choose_clock(struct noise_options *o, struct sysroot *root)
{
	const char *why;

	if (o->params.use_tsc && !tsc_usable(root, &why)) {
		log_warning("%s: measuring with clock_gettime(CLOCK_MONOTONIC_RAW) instead, "
			    "which costs more per read",
			    why);
		o->params.use_tsc = false;
	}
}

/* Every ring is allocated and locked before the first read: refuse what cannot fit. */
static int check_size(const struct noise_options *o)
{
	unsigned int nr_cpus = cpuset_count(&o->params.cpus);
	uint64_t need = noise_memory_estimate(&o->params), limit;
	const char *source = rt_memory_limit(true, &limit);
	char a[32], b[32], c[32];

	if (need <= limit)
		return 0;
	return usage_error("%u cpu%s would lock %s of memory before the first read (%s a cpu), "
			   "more than the %s allowed (%s): measure fewer cpus",
			   nr_cpus, nr_cpus == 1 ? "" : "s", format_bytes(need, a, sizeof(a)),
			   format_bytes(need / nr_cpus, b, sizeof(b)),
			   format_bytes(limit, c, sizeof(c)), source);
}

/* Reject a threshold the loop cannot resolve: every read would be a gap. */
static int check_threshold(const struct noise_options *o)
{
	struct tsc_clock probe;
	uint64_t floor_ns;
	char a[32], b[32], c[32];

	tsc_calibrate_begin(&probe, o->params.use_tsc, 100000000ULL);
	floor_ns = tsc_read_cost_ns(&probe);
	/*
	 * The suggestion has a margin: the read cost is measured again on the
	 * next run, and a value just above this one's limit may fail there.
	 */
	if (o->params.threshold_ns <= 2 * floor_ns)
		return usage_error("--threshold %s is below what the loop resolves on this "
				   "machine (a read costs %s; use %s or more)",
				   format_duration(o->params.threshold_ns, a, sizeof(a)),
				   format_duration(floor_ns, b, sizeof(b)),
				   format_duration((3 * floor_ns + 4) / 5 * 5, c, sizeof(c)));
	return 0;
}

/* Sleep up to @most, less when the run ends sooner; a signal ends it early. */
static void wait_a_while(const struct noise_run *run, uint64_t most)
{
	uint64_t left = noise_remaining_ns(run);
	struct timespec pause = clock_timespec(left < most ? left : most);

	clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, NULL);
}

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

static int write_outputs(const struct noise_options *o, const struct noise_run *run,
			 const struct noise_explain *explain, const struct topology *topo,
			 struct sysroot *root, json_t *doc)
{
	json_t *cpus;
	int status;

	if (o->trace_dir) {
		status = output_dir_create("--trace-dir", o->trace_dir);
		if (status)
			return status;
		if (noise_explain_write_captures(explain, run, o->trace_dir) < 0)
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
	if (!o->json.path)
		return 0;
	result_set_end_time(doc);
	json_object_set_new(doc, "host", result_host_facts(root, topo));
	json_object_set_new(doc, "params", noise_result_params(run));
	json_object_set_new(doc, "elapsed_ns", json_integer((json_int_t)run->elapsed_ns));
	/* as timer says it: how the run ended, and the signal that ended it */
	json_object_set_new(doc, "end", json_string(stop_requested ? "stopped" : "complete"));
	json_object_set_new(doc, "signal",
			    stop_requested ? json_sprintf("SIG%s", sigabbrev_np(stop_requested)) :
					     json_null());
	cpus = noise_result_cpus(run);
	noise_explain_json(explain, run, cpus);
	json_object_set_new(doc, "cpus", cpus);
	return output_json_write(&o->json, doc);
}

static int exit_status(const struct noise_options *o, const struct noise_run *run)
{
	unsigned int i;

	if (!o->fail_above_ns)
		return EXIT_OK;
	for (i = 0; i < run->nr_cpus; i++)
		if (run->cpus[i].hist->max > o->fail_above_ns)
			return EXIT_BUDGET;
	return EXIT_OK;
}

/*
 * The gaps are drained at least 4 times a second (more often when they come
 * fast), the trace read after each drain, the live view redrawn once a second.
 */
static void follow_run(const struct noise_options *o, struct noise_run *run,
		       struct noise_explain *explain)
{
	bool live = !o->quiet && isatty(STDOUT_FILENO), first = true;
	uint64_t step = NOISE_DRAIN_EVERY_NS, last_view = clock_ns(CLOCK_MONOTONIC), now;

	while (!stop_requested && noise_running(run)) {
		wait_a_while(run, step);
		step = noise_drain(run);
		noise_explain_pump(explain, run);
		now = clock_ns(CLOCK_MONOTONIC);
		if (live && now - last_view >= NS_PER_SEC) {
			noise_report_live(stdout, run, first);
			first = false;
			last_view = now;
		}
	}
	if (live && !first)
		noise_report_live_clear(stdout, run);
}

static int measure(struct noise_options *o, struct sysroot *root, const struct topology *topo,
		   json_t *doc)
{
	struct rt_dma_latency dma = { .fd = -1 };
	struct rt_throttling limit = { .runtime_us = -1, .period_us = 1000000 };
	struct noise_explain explain = { 0 };
	struct noise_run run = { 0 };
	bool memory_held = true;
	int status = EXIT_ERROR;

	if (rt_policy_is_realtime(o->params.policy) && rt_read_throttling(root, &limit))
		log_warning(
			"cannot read sched_rt_runtime_us: RT throttling will not be recognised");
	if (rt_lock_memory())
		log_warning("measuring with unlocked memory: page faults may show as gaps");
	if (!o->no_dma_latency && rt_dma_latency_hold(root, 0, &dma))
		goto out;
	rt_place_main_thread(&topo->online, &o->params.cpus, NULL);
	if (noise_prepare(&run, root, &o->params) ||
	    noise_explain_begin(&explain, o->explain, &run, root, &limit, o->trace_dir != NULL) ||
	    noise_start(&run)) {
		if (rt_stop_requested())
			status = runtime_error("stopped before the measurement began");
		goto out;
	}
	noise_report_header(stdout, &run);
	follow_run(o, &run, &explain);
	noise_stop(&run);
	/* kernel state first: nothing of ours outlives the measurement */
	rt_dma_latency_release(&dma);
	rt_unlock_memory();
	memory_held = false;
	if (noise_explain_end(&explain, &run))
		log_warning("out of memory explaining the gaps");
	noise_classify_throttling(&run, &limit);
	if (noise_find_periods(&run))
		log_warning("out of memory looking for periodic gaps");
	else if (noise_explain_join(&explain, &run))
		log_warning("out of memory joining the periodic gaps to their causes");
	noise_report_summary(stdout, &run, &limit, &explain);
	noise_explain_report(stdout, &explain, &run);
	status = write_outputs(o, &run, &explain, topo, root, doc);
	if (!status)
		status = exit_status(o, &run);
out:
	rt_dma_latency_release(&dma);
	if (memory_held)
		rt_unlock_memory();
	noise_explain_release(&explain);
	noise_release(&run);
	return status;
}

int cmd_noise(int argc, char **argv)
{
	struct noise_options o;
	struct topology topo = { 0 };
	struct sysroot *root = NULL;
	json_t *doc = NULL;
	int status;

	if (!option_parse(&noise_command, argc, argv, &o, NULL, &status))
		goto out;
	cli_set_verbosity(o.verbose);
	status = machine_open(NULL, &root, &topo);
	if (status)
		goto out;
	status = check_against_machine(&o, &topo);
	if (!status)
		status = check_size(&o);
	if (status)
		goto out;
	choose_clock(&o, root);
	status = check_threshold(&o);
	if (status)
		goto out;
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	doc = result_new("noise", argc, argv);
	status = measure(&o, root, &topo, doc);
out:
	json_decref(doc);
	topology_release(&topo);
	sysroot_free(root);
	option_release(&noise_command, &o);
	return status;
}
