// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "latscope/log.h"
#include "latscope/noise.h"
#include "latscope/noise_result.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "latscope/topology.h"
#include "noise_explain.h"
#include "noise_report.h"

#define DEFAULT_MAX_GAPS (1U << 17)

struct noise_options {
	struct noise_params params;
	bool cpus_given, priority_given, policy_given;
	const char *json_path;
	const char *histogram_path;
	const char *gaps_path;
	enum explain_choice explain;
	const char *trace_dir;
	bool quiet, force, no_dma_latency;
	uint64_t fail_above_ns; /* 0: none */
	int verbose;
};

void cmd_noise_usage(FILE *out)
{
	fprintf(out,
		"usage: latscope noise [OPTIONS]\n"
		"\n"
		"Spin on each CPU reading the TSC back to back; every gap the CPU loses to\n"
		"an interrupt, a thread, firmware or the hypervisor is measured, and\n"
		"recurring gaps are reported with their period.\n"
		"\n"
		"  -c, --cpus LIST         cpus to measure (default: isolated cpus, else all online)\n"
		"  -d, --duration DUR      how long (default 10s; a bare number is seconds)\n"
		"  -t, --threshold DUR     smallest gap recorded (default 1us; bare number: us)\n"
		"      --policy POLICY     other (default), fifo, rr, batch or idle\n"
		"  -p, --priority N        1-99 for fifo/rr (implies fifo)\n"
		"  -j, --json FILE         write the result document (latscope/1 JSON)\n"
		"      --histogram FILE    write the histograms as text columns (gnuplot-ready)\n"
		"      --gaps FILE         write every stored gap: cpu, start, duration\n"
		"  -e, --explain[=HOW]     attribute every gap to its cause: trace (default:\n"
		"                          tracepoints, in a private tracefs instance) or counters\n"
		"      --trace-dir DIR     keep the raw events around the largest gaps, a file each\n"
		"  -q, --quiet             no live view\n"
		"      --fail-above DUR    exit 2 when a cpu's largest gap exceeds DUR (bare: us)\n"
		"      --force             allow fifo/rr spinning on every online cpu\n"
		"      --no-dma-latency    do not hold /dev/cpu_dma_latency at 0 while measuring\n"
		"      --max-gaps N        gaps stored per cpu (default %u; more are counted)\n"
		"      --clock CLOCK       tsc (default when constant and nonstop) or monotonic\n"
		"  -v, --verbose           say what is set up\n"
		"  -h, --help              this text\n"
		"\n"
		"Durations take a unit: ns, us, ms, s, m, h. Exit status: 0 ok, 1 error,\n"
		"2 --fail-above exceeded, 129 usage error. See latscope-noise(1).\n",
		DEFAULT_MAX_GAPS);
}

enum long_only {
	OPT_POLICY = 256,
	OPT_HISTOGRAM,
	OPT_GAPS,
	OPT_TRACE_DIR,
	OPT_FAIL_ABOVE,
	OPT_FORCE,
	OPT_NO_DMA_LATENCY,
	OPT_MAX_GAPS,
	OPT_CLOCK,
};

static const char short_options[] = "c:d:t:p:j:e::qvh";
static const struct option long_options[] = {
	{ "cpus", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'd' },
	{ "threshold", required_argument, NULL, 't' },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "priority", required_argument, NULL, 'p' },
	{ "json", required_argument, NULL, 'j' },
	{ "histogram", required_argument, NULL, OPT_HISTOGRAM },
	{ "gaps", required_argument, NULL, OPT_GAPS },
	{ "explain", optional_argument, NULL, 'e' },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-dma-latency", no_argument, NULL, OPT_NO_DMA_LATENCY },
	{ "max-gaps", required_argument, NULL, OPT_MAX_GAPS },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, EXIT_USAGE after printing the error, or -1 for --help. */
static int parse_options(int argc, char **argv, struct noise_options *o)
{
	long long number;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->params.duration_ns = 10 * NS_PER_SEC;
	o->params.threshold_ns = NS_PER_US;
	o->params.max_gaps = DEFAULT_MAX_GAPS;
	o->params.use_tsc = true;
	o->params.policy = RT_POLICY_OTHER;
	opterr = 0;
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case 'c':
			ret = option_cpus("--cpus", optarg, &o->params.cpus);
			o->cpus_given = true;
			break;
		case 'd':
			ret = option_duration("--duration", optarg, NS_PER_SEC, 10 * NS_PER_MS,
					      30 * NS_PER_DAY, &o->params.duration_ns);
			break;
		case 't':
			ret = option_duration("--threshold", optarg, NS_PER_US, 1, 10 * NS_PER_SEC,
					      &o->params.threshold_ns);
			break;
		case OPT_POLICY:
			if (rt_policy_parse(optarg, &o->params.policy))
				ret = usage_error(
					"invalid policy '%s' for --policy (other, fifo or rr)",
					optarg);
			o->policy_given = true;
			break;
		case 'p':
			ret = option_integer("--priority", optarg, 1, 99, &number);
			o->params.priority = (int)number;
			o->priority_given = true;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case OPT_HISTOGRAM:
			o->histogram_path = optarg;
			break;
		case OPT_GAPS:
			o->gaps_path = optarg;
			break;
		case 'e':
			ret = explain_choice_parse("--explain", optarg, &o->explain);
			break;
		case OPT_TRACE_DIR:
			o->trace_dir = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_FAIL_ABOVE:
			ret = option_duration("--fail-above", optarg, NS_PER_US, 1,
					      1000 * NS_PER_SEC, &o->fail_above_ns);
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_NO_DMA_LATENCY:
			o->no_dma_latency = true;
			break;
		case OPT_MAX_GAPS:
			ret = option_integer("--max-gaps", optarg, 0, 1LL << 28, &number);
			o->params.max_gaps = (size_t)number;
			break;
		case OPT_CLOCK:
			if (!strcmp(optarg, "tsc"))
				o->params.use_tsc = true;
			else if (!strcmp(optarg, "monotonic"))
				o->params.use_tsc = false;
			else
				ret = usage_error(
					"invalid clock '%s' for --clock (tsc or monotonic)",
					optarg);
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			return -1;
		default:
			return option_rejected(argc, argv, short_options, long_options);
		}
	}
	if (ret)
		return ret;
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->priority_given && !o->policy_given)
		o->params.policy = RT_POLICY_FIFO;
	if (o->priority_given && !rt_policy_is_realtime(o->params.policy))
		return usage_error("--priority %d needs --policy fifo or rr", o->params.priority);
	if (rt_policy_is_realtime(o->params.policy) && !o->priority_given)
		o->params.priority = 1;
	if (o->trace_dir && o->explain != EXPLAIN_WITH_TRACE)
		return usage_error("--trace-dir needs --explain (with tracing)");
	return 0;
}

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

/* Every gap buffer is allocated and locked before the first read: refuse what cannot fit. */
static int check_size(const struct noise_options *o)
{
	unsigned int nr_cpus = cpuset_count(&o->params.cpus);
	uint64_t need = noise_memory_estimate(&o->params), limit;
	const char *source = rt_memory_limit(true, &limit);
	char a[32], b[32], c[32];

	if (need <= limit)
		return 0;
	return usage_error("--max-gaps %zu on %u cpu%s would take %s of memory (%s a cpu), more "
			   "than the %s allowed (%s): lower --max-gaps or measure fewer cpus",
			   o->params.max_gaps, nr_cpus, nr_cpus == 1 ? "" : "s",
			   format_bytes(need, a, sizeof(a)),
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

static int write_outputs(const struct noise_options *o, const struct noise_run *run,
			 const struct noise_explain *explain, const struct topology *topo,
			 struct sysroot *root, json_t *doc)
{
	json_t *cpus;
	int ret;

	if (o->trace_dir && noise_explain_write_captures(explain, run, o->trace_dir) < 0)
		return EXIT_ERROR;
	if (o->histogram_path) {
		ret = noise_report_histogram_file(o->histogram_path, run);
		if (ret)
			return runtime_error("cannot write --histogram '%s': %s", o->histogram_path,
					     strerror(-ret));
	}
	if (o->gaps_path) {
		ret = noise_report_gaps_file(o->gaps_path, run);
		if (ret)
			return runtime_error("cannot write --gaps '%s': %s", o->gaps_path,
					     strerror(-ret));
	}
	if (!o->json_path)
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
	ret = result_write(doc, o->json_path);
	if (ret)
		return runtime_error("cannot write --json '%s': %s", o->json_path, strerror(-ret));
	return 0;
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

/* The live view once a second; with --explain the trace is read 4 times a second. */
static void follow_run(const struct noise_options *o, struct noise_run *run,
		       struct noise_explain *explain)
{
	bool live = !o->quiet && isatty(STDOUT_FILENO), first = true;
	uint64_t step = explain->run.session ? NS_PER_SEC / 4 : NS_PER_SEC, since_view = 0;

	while (!stop_requested && noise_running(run)) {
		wait_a_while(run, step);
		noise_explain_pump(explain, run);
		since_view += step;
		if (live && since_view >= NS_PER_SEC) {
			noise_report_live(stdout, run, first);
			first = false;
			since_view = 0;
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
	struct noise_run run;
	int ret, status;

	if (rt_policy_is_realtime(o->params.policy) && rt_read_throttling(root, &limit))
		log_warning(
			"cannot read sched_rt_runtime_us: RT throttling will not be recognised");
	if (rt_lock_memory())
		log_warning("measuring with unlocked memory: page faults may show as gaps");
	if (!o->no_dma_latency && rt_dma_latency_hold(root, 0, &dma)) {
		rt_unlock_memory();
		return EXIT_ERROR;
	}
	rt_place_main_thread(&topo->online, &o->params.cpus, NULL);
	ret = noise_prepare(&run, root, &o->params);
	if (!ret)
		ret = noise_explain_begin(&explain, o->explain, &run, root, &limit,
					  o->trace_dir != NULL);
	if (!ret)
		ret = noise_start(&run);
	if (ret) {
		noise_explain_release(&explain);
		noise_release(&run);
		rt_dma_latency_release(&dma);
		rt_unlock_memory();
		if (rt_stop_requested())
			return runtime_error("stopped before the measurement began");
		return EXIT_ERROR;
	}
	noise_report_header(stdout, &run);
	follow_run(o, &run, &explain);
	noise_stop(&run);
	/* kernel state first: nothing of ours outlives the measurement */
	rt_dma_latency_release(&dma);
	rt_unlock_memory();
	if (noise_explain_end(&explain, &run))
		log_warning("out of memory explaining the gaps");
	noise_classify_throttling(&run, &limit);
	if (noise_find_periods(&run))
		log_warning("out of memory looking for periodic gaps");
	noise_report_summary(stdout, &run, &limit);
	noise_explain_report(stdout, &explain, &run);
	status = write_outputs(o, &run, &explain, topo, root, doc);
	if (!status)
		status = exit_status(o, &run);
	noise_explain_release(&explain);
	noise_release(&run);
	return status;
}

int cmd_noise(int argc, char **argv)
{
	struct noise_options o;
	struct topology topo;
	struct sysroot *root;
	json_t *doc = NULL;
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret < 0) {
		cmd_noise_usage(stdout);
		return EXIT_OK;
	}
	if (ret)
		return ret;
	cli_set_verbosity(o.verbose);
	root = sysroot_new(NULL);
	if (!root)
		return runtime_error("out of memory");
	if (topology_load(root, &topo)) {
		sysroot_free(root);
		return EXIT_ERROR;
	}
	ret = check_against_machine(&o, &topo);
	if (!ret)
		ret = check_size(&o);
	if (!ret)
		ret = option_output_path("--json", o.json_path);
	if (!ret)
		ret = option_output_path("--histogram", o.histogram_path);
	if (!ret)
		ret = option_output_path("--gaps", o.gaps_path);
	if (!ret && o.trace_dir)
		ret = explain_check_trace_dir(o.trace_dir);
	if (!ret) {
		choose_clock(&o, root);
		ret = check_threshold(&o);
	}
	if (!ret && signals_catch())
		ret = runtime_error("cannot catch signals: %s", strerror(errno));
	if (!ret) {
		doc = result_new("noise", argc, argv);
		ret = measure(&o, root, &topo, doc);
	}
	json_decref(doc);
	topology_release(&topo);
	sysroot_free(root);
	return ret;
}
