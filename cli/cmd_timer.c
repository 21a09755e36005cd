// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope timer (alias cyclic): cyclictest's options and output, with
 * checked values, percentiles, missed periods and the largest spikes.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_timer.h"
#include "timer_explain.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "latscope/result.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

void cmd_timer_usage(FILE *out)
{
	fprintf(out,
		"usage: latscope timer [OPTIONS]   (alias: latscope cyclic)\n\n"
		"Timer wake-up latency, as cyclictest measures it, with cyclictest's options\n"
		"and output; adds percentiles, missed periods and the largest spikes.\n\n"
		"  -t, --threads[=N]      N threads; without N one per allowed CPU (default 1)\n"
		"  -a, --affinity[=LIST]  pin threads round-robin to LIST; without LIST to the\n"
		"                         allowed CPUs; without -a threads are not pinned\n"
		"  -S, --smp              -a -t: one pinned thread per allowed CPU\n"
		"  -p, --priority=PRIO    SCHED_FIFO priority 1-99 of every thread\n"
		"      --policy=NAME      other, normal, batch, idle, fifo or rr\n"
		"      --priospread       thread N gets priority PRIO - N\n"
		"  -i, --interval=US      interval of thread 0 in us (default 1000)\n"
		"  -d, --distance=US      thread N wakes every i + N*d us (default 500; 0 with -h)\n"
		"  -D, --duration=TIME    stop after TIME: seconds, or with m, h, d (ns..s too)\n"
		"  -l, --loops=N          stop each thread after N wake-ups\n"
		"  -r, --relative         relative clock_nanosleep instead of absolute\n"
		"  -x, --posix_timers     a periodic POSIX timer instead of clock_nanosleep\n"
		"  -c, --clock=0          CLOCK_MONOTONIC (the only clock)\n"
		"  -m, --mlockall         lock all memory\n"
		"      --latency=US       PM QoS request on /dev/cpu_dma_latency (default 0)\n"
		"      --default-system   make no PM QoS request (also --no-dma-latency)\n"
		"      --mainaffinity=LIST  run the main thread on LIST\n"
		"  -b, --breaktrace=US    stop at the first latency above US (exit status 2)\n"
		"      --tracemark        with -b, mark the trace and stop tracing\n"
		"  -h, --histogram=US     print a histogram of 1 us buckets up to US\n"
		"  -H, --histofall=US     the same with a column summing all threads\n"
		"      --histfile=PATH    write the histogram to PATH\n"
		"  -N, --nsecs            print ns instead of us\n"
		"  -q, --quiet            print only the summary at the end\n"
		"  -M, --refresh_on_max   refresh the screen only on a new maximum\n"
		"  -u, --unbuffered       unbuffered output\n"
		"  -v, --verbose          print every sample as thread:cycle:latency\n"
		"      --json=FILE        write the latscope/1 result document to FILE\n"
		"      --explain[=HOW]    attribute each spike to its causes: trace (default;\n"
		"                         needs -a) or counters\n"
		"      --explain-above=DUR  spikes are latencies above DUR (bare: us); default:\n"
		"                         above the run's p99, followed as the run goes\n"
		"      --trace-dir=DIR    keep the raw events around the largest spikes\n"
		"      --fail-above=DUR   exit status 2 when a maximum exceeds DUR (bare: us)\n"
		"      --help             this text\n\n"
		"exit status: 0 ok, 1 error, 2 -b hit or --fail-above exceeded, 129 usage error\n"
		"see latscope-timer(1), DIFFERENCES FROM CYCLICTEST\n");
}

enum {
	OPT_DEFAULT_SYSTEM = 256,
	OPT_LATENCY,
	OPT_HISTFILE,
	OPT_JSON,
	OPT_MAINAFFINITY,
	OPT_PRIOSPREAD,
	OPT_POLICY,
	OPT_TRACEMARK,
	OPT_FAIL_ABOVE,
	OPT_HELP,
	OPT_EXPLAIN,
	OPT_EXPLAIN_ABOVE,
	OPT_TRACE_DIR,
	OPT_UNSUPPORTED,
};

/*
 * cyclictest's own options latscope does not have are known by name so that
 * the error names them; they take an optional value so that getopt never
 * reports them as missing one.
 */
static const char short_options[] = "a::b:c:d:D:h:H:i:l:mMNp:qrSt::uvx"
				    "A::F::o::Rs";
static const char unsupported_short[] = "AFoRs";

static const struct option long_options[] = {
	{ "affinity", optional_argument, NULL, 'a' },
	{ "breaktrace", required_argument, NULL, 'b' },
	{ "clock", required_argument, NULL, 'c' },
	{ "default-system", no_argument, NULL, OPT_DEFAULT_SYSTEM },
	{ "no-dma-latency", no_argument, NULL, OPT_DEFAULT_SYSTEM },
	{ "distance", required_argument, NULL, 'd' },
	{ "duration", required_argument, NULL, 'D' },
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "histogram", required_argument, NULL, 'h' },
	{ "histofall", required_argument, NULL, 'H' },
	{ "histfile", required_argument, NULL, OPT_HISTFILE },
	{ "interval", required_argument, NULL, 'i' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "loops", required_argument, NULL, 'l' },
	{ "mainaffinity", required_argument, NULL, OPT_MAINAFFINITY },
	{ "mlockall", no_argument, NULL, 'm' },
	{ "refresh_on_max", no_argument, NULL, 'M' },
	{ "nsecs", no_argument, NULL, 'N' },
	{ "priority", required_argument, NULL, 'p' },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "priospread", no_argument, NULL, OPT_PRIOSPREAD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "relative", no_argument, NULL, 'r' },
	{ "smp", no_argument, NULL, 'S' },
	{ "threads", optional_argument, NULL, 't' },
	{ "tracemark", no_argument, NULL, OPT_TRACEMARK },
	{ "unbuffered", no_argument, NULL, 'u' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "posix_timers", no_argument, NULL, 'x' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "explain", optional_argument, NULL, OPT_EXPLAIN },
	{ "explain-above", required_argument, NULL, OPT_EXPLAIN_ABOVE },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "aligned", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "secaligned", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "fifo", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "laptop", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "oscope", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "resolution", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "system", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "smi", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "spike", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "spike-nodes", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "deepest-idle-state", optional_argument, NULL, OPT_UNSUPPORTED },
	{ "dbg_cyclictest", optional_argument, NULL, OPT_UNSUPPORTED },
	{ NULL, 0, NULL, 0 },
};

/* What the words said, before the threads are laid out. */
struct given {
	bool threads;
	long long nr_threads; /* 0: bare -t */
	bool affinity;
	bool affinity_bare;
	struct cpuset affinity_set;
	bool smp;
	bool priority;
	bool policy;
	enum rt_policy policy_value;
	bool distance;
	bool tracemark;
	bool latency;
	unsigned int histogram_us;
	bool relative;
	bool posix_timers;
	uint64_t duration_ns;
	uint64_t loops;
};

/*
 * cyclictest takes "-t 4", "-a 3-5,0" and "--threads 4" as well as "-t4":
 * a following word that starts with a digit is the value.
 */
static const char *optional_value(int argc, char **argv)
{
	if (optarg)
		return optarg;
	if (optind < argc && isdigit((unsigned char)argv[optind][0]))
		return argv[optind++];
	return NULL;
}

static int check_cpus(const char *option, const char *arg, const struct cpuset *set,
		      const struct cpuset *online, const struct cpuset *allowed)
{
	struct cpuset outside;
	char list[256];

	cpuset_andnot(&outside, set, online);
	if (!cpuset_empty(&outside))
		return usage_error("cpu %d in %s '%s' is not online (online: %s)",
				   cpuset_next(&outside, -1), option, arg,
				   cpuset_format_list(online, list, sizeof(list)));
	cpuset_andnot(&outside, set, allowed);
	if (!cpuset_empty(&outside))
		return usage_error(
			"cpu %d in %s '%s' is not available to this process (allowed: %s)",
			cpuset_next(&outside, -1), option, arg,
			cpuset_format_list(allowed, list, sizeof(list)));
	return 0;
}

static int parse_cpus(const char *option, const char *arg, const struct cpuset *online,
		      const struct cpuset *allowed, struct cpuset *set)
{
	int ret;

	if (!strcmp(arg, "all")) {
		*set = *allowed;
		return 0;
	}
	ret = option_cpus(option, arg, set);
	return ret ? ret : check_cpus(option, arg, set, online, allowed);
}

/* cyclictest's -D takes 10, 10m, 2H, 1D; latscope's parser also 500ms */
static int parse_run_duration(const char *option, const char *arg, uint64_t *ns)
{
	char text[64];
	size_t len = strlen(arg);

	if (len && len < sizeof(text) && strchr("MHD", arg[len - 1]) && len > 1 &&
	    isdigit((unsigned char)arg[len - 2])) {
		memcpy(text, arg, len + 1);
		text[len - 1] = (char)tolower((unsigned char)text[len - 1]);
		arg = text;
	}
	return option_duration(option, arg, NS_PER_SEC, 0, 365 * NS_PER_DAY, ns);
}

/* the option as the user spelled it, for error messages */
static void spelled(int c, int long_index, char *buf, size_t size)
{
	if (long_index >= 0)
		snprintf(buf, size, "--%s", long_options[long_index].name);
	else
		snprintf(buf, size, "-%c", c);
}

static int parse_clock(const char *option, const char *arg)
{
	if (!strcmp(arg, "0") || !strcmp(arg, "monotonic"))
		return 0;
	if (!strcmp(arg, "1") || !strcmp(arg, "realtime"))
		return usage_error("%s '%s' (CLOCK_REALTIME) is not supported: latscope measures "
				   "on CLOCK_MONOTONIC",
				   option, arg);
	return usage_error("invalid clock '%s' for %s (only 0, monotonic)", arg, option);
}

static int parse_one(int c, const char *name, int argc, char **argv, const struct cpuset *online,
		     const struct cpuset *allowed, struct given *given, struct timer_options *opts)
{
	const char *value;
	long long number;
	int ret = 0;

	switch (c) {
	case 'a':
		given->affinity = true;
		value = optional_value(argc, argv);
		given->affinity_bare = !value;
		if (value)
			ret = parse_cpus(name, value, online, allowed, &given->affinity_set);
		break;
	case 'b':
		ret = option_integer(name, optarg, 1, 1000000000, &number);
		opts->break_us = (uint64_t)number;
		break;
	case 'c':
		ret = parse_clock(name, optarg);
		break;
	case 'd':
		ret = option_integer(name, optarg, 0, 3600000000LL, &number);
		opts->distance_us = (unsigned int)number;
		given->distance = true;
		break;
	case 'D':
		ret = parse_run_duration(name, optarg, &given->duration_ns);
		break;
	case 'H':
	case 'h':
		ret = option_integer(name, optarg, 1, TIMER_HISTOGRAM_MAX_US, &number);
		given->histogram_us = (unsigned int)number;
		opts->histofall = c == 'H';
		break;
	case 'i':
		ret = option_integer(name, optarg, 1, 3600000000LL, &number);
		opts->interval_us = (unsigned int)number;
		break;
	case 'l':
		ret = option_integer(name, optarg, 0, INT64_MAX, &number);
		given->loops = (uint64_t)number;
		break;
	case 'm':
		opts->mlockall = true;
		break;
	case 'M':
		opts->refresh_on_max = true;
		break;
	case 'N':
		opts->nsecs = true;
		break;
	case 'p':
		ret = option_integer(name, optarg, 1, 99, &number);
		opts->priority = (int)number;
		given->priority = true;
		break;
	case 'q':
		opts->quiet = true;
		break;
	case 'r':
		given->relative = true;
		break;
	case 'S':
		given->smp = true;
		break;
	case 't':
		given->threads = true;
		value = optional_value(argc, argv);
		given->nr_threads = 0;
		if (value)
			ret = option_integer(name, value, 1, CPUSET_MAX_CPUS, &given->nr_threads);
		break;
	case 'u':
		opts->unbuffered = true;
		break;
	case 'v':
		opts->verbose = true;
		break;
	case 'x':
		given->posix_timers = true;
		break;
	case OPT_DEFAULT_SYSTEM:
		opts->pm_qos = false;
		break;
	case OPT_LATENCY:
		ret = option_integer(name, optarg, 0, INT32_MAX, &number);
		opts->latency_us = (int)number;
		given->latency = true;
		break;
	case OPT_HISTFILE:
		opts->histfile = optarg;
		break;
	case OPT_JSON:
		opts->json_path = optarg;
		break;
	case OPT_MAINAFFINITY:
		ret = parse_cpus(name, optarg, online, allowed, &opts->main_affinity);
		opts->main_affinity_given = true;
		break;
	case OPT_PRIOSPREAD:
		opts->priospread = true;
		break;
	case OPT_POLICY:
		if (rt_policy_parse(optarg, &given->policy_value))
			return usage_error(
				"invalid policy '%s' for %s (other, normal, batch, idle, "
				"fifo or rr)",
				optarg, name);
		given->policy = true;
		break;
	case OPT_TRACEMARK:
		given->tracemark = true;
		break;
	case OPT_FAIL_ABOVE:
		ret = option_duration(name, optarg, NS_PER_US, 1, 1000 * NS_PER_SEC,
				      &opts->fail_above_ns);
		break;
	case OPT_HELP:
		opts->help = true;
		break;
	case OPT_EXPLAIN:
		ret = explain_choice_parse(name, optarg, &opts->explain);
		break;
	case OPT_EXPLAIN_ABOVE:
		ret = option_duration(name, optarg, NS_PER_US, 1, 1000 * NS_PER_SEC,
				      &opts->explain_above_ns);
		break;
	case OPT_TRACE_DIR:
		opts->trace_dir = optarg;
		break;
	default:
		return usage_error("cyclictest option '%s' is not supported by latscope timer "
				   "(see DIFFERENCES FROM CYCLICTEST in latscope-timer(1))",
				   name);
	}
	return ret;
}

/* Threads, their CPUs, priorities and intervals, by cyclictest's rules. */
static int lay_out_threads(const struct given *given, const struct cpuset *allowed,
			   struct timer_options *opts)
{
	const struct cpuset *pool = allowed;
	unsigned int nr = 1, i, pool_size;
	int cpu = -1;

	if (given->smp) {
		if (given->threads)
			log_warning("-t is ignored with -S: one thread per allowed cpu");
		if (given->affinity)
			log_warning("-a is ignored with -S: one thread per allowed cpu");
		opts->pinned = true;
		nr = cpuset_count(allowed);
	} else {
		if (given->affinity && !given->affinity_bare)
			pool = &given->affinity_set;
		opts->pinned = given->affinity;
		if (given->threads)
			nr = given->nr_threads ? (unsigned int)given->nr_threads :
						 cpuset_count(opts->pinned ? pool : allowed);
	}
	if (!nr)
		return usage_error("no cpu to run a thread on");
	pool_size = cpuset_count(pool);

	if (given->policy && !rt_policy_is_realtime(given->policy_value)) {
		if (given->priority)
			return usage_error("-p %d needs --policy fifo or rr, not --policy %s",
					   opts->priority, rt_policy_name(given->policy_value));
		if (opts->priospread)
			return usage_error(
				"--priospread needs --policy fifo or rr, not --policy %s",
				rt_policy_name(given->policy_value));
	}
	if (given->priority) {
		opts->params.policy = given->policy ? given->policy_value : RT_POLICY_FIFO;
	} else if (given->policy ? rt_policy_is_realtime(given->policy_value) : opts->priospread) {
		/* cyclictest's default: one above the number of threads */
		opts->params.policy = given->policy ? given->policy_value : RT_POLICY_FIFO;
		opts->priority = nr + 1 > 99 ? 99 : (int)nr + 1;
		log_warning("no -p: defaulting the real-time priority to %d", opts->priority);
	} else {
		opts->params.policy = given->policy ? given->policy_value : RT_POLICY_OTHER;
		opts->priority = 0;
	}
	if (opts->priospread && opts->priority - (int)(nr - 1) < 1)
		return usage_error("--priospread: %u threads from priority %d would go below 1", nr,
				   opts->priority);

	if (opts->params.histogram_buckets) {
		if (given->distance && opts->distance_us)
			log_warning("-d is ignored with -h/-H: every thread wakes every %u us",
				    opts->interval_us);
		opts->distance_us = 0;
	}

	opts->threads = calloc(nr, sizeof(*opts->threads));
	if (!opts->threads)
		return runtime_error("out of memory for %u threads", nr);
	cpuset_clear(&opts->measured);
	for (i = 0; i < nr; i++) {
		struct timer_thread_params *thread = &opts->threads[i];

		if (opts->pinned) {
			/* round robin over the pool, as cyclictest does */
			cpu = cpuset_next(pool, i % pool_size ? cpu : -1);
			thread->cpu = cpu;
			cpuset_add(&opts->measured, (unsigned int)cpu);
		} else {
			thread->cpu = -1;
		}
		thread->priority = opts->priority - (opts->priospread ? (int)i : 0);
		thread->interval_ns =
			((uint64_t)opts->interval_us + (uint64_t)i * opts->distance_us) * NS_PER_US;
	}
	opts->params.nr_threads = nr;
	opts->params.threads = opts->threads;
	return 0;
}

static int check_combinations(const struct given *given, struct timer_options *opts)
{
	if (given->tracemark && !opts->break_us)
		return usage_error("--tracemark needs -b/--breaktrace");
	if (opts->histfile && !given->histogram_us)
		return usage_error("--histfile needs -h or -H");
	if (given->latency && !opts->pm_qos)
		return usage_error("--latency and --default-system exclude each other");
	if (given->relative && given->posix_timers)
		return usage_error("-r and -x exclude each other");
	if (opts->histfile && !*opts->histfile)
		return usage_error("empty path for --histfile");
	if (opts->json_path && !*opts->json_path)
		return usage_error("empty path for --json");
	if ((opts->explain_above_ns || opts->trace_dir) && opts->explain != EXPLAIN_WITH_TRACE)
		return usage_error("%s needs --explain (with tracing)",
				   opts->trace_dir ? "--trace-dir" : "--explain-above");
	/* a spike is charged to what ran on its thread's CPU: it must have one */
	if (opts->explain == EXPLAIN_WITH_TRACE && !given->affinity && !given->smp)
		return usage_error("--explain needs pinned threads: add -a or -S");
	return 0;
}

static void fill_params(const struct given *given, struct timer_options *opts)
{
	struct timer_params *params = &opts->params;

	params->mode = given->relative	   ? TIMER_WAIT_RELATIVE :
		       given->posix_timers ? TIMER_WAIT_POSIX_TIMER :
					     TIMER_WAIT_ABSOLUTE;
	params->duration_ns = given->duration_ns;
	params->loops = given->loops;
	params->unit_ns = opts->nsecs ? 1 : NS_PER_US;
	/*
	 * cyclictest compares its truncated value with -b: in us, a 41.9 us
	 * wake-up does not break -b 41; in ns (-N) every ns above counts.
	 */
	if (opts->break_us)
		params->break_above_ns =
			opts->break_us * NS_PER_US + (opts->nsecs ? 0 : NS_PER_US - 1);
	params->tracemark = given->tracemark;
	params->spike_threshold_ns = TIMER_SPIKE_THRESHOLD_NS;
	params->spike_capacity = TIMER_SPIKE_CAPACITY;
	params->sample_ring = opts->verbose ? TIMER_SAMPLE_RING : 0;
	if (opts->explain == EXPLAIN_WITH_TRACE) {
		/* the explanation follows the spikes: keep many, from the start
		 * when a threshold is given, else once the p99 is known */
		params->spike_capacity = TIMER_EXPLAIN_SPIKE_CAPACITY;
		params->spike_threshold_ns =
			opts->explain_above_ns ? opts->explain_above_ns : UINT64_MAX;
		params->sample_ring = TIMER_SAMPLE_RING;
	}
}

int timer_options_parse(int argc, char **argv, const struct cpuset *online,
			const struct cpuset *allowed, struct timer_options *opts)
{
	struct given given;
	char name[64];
	int c, long_index, ret;

	memset(opts, 0, sizeof(*opts));
	memset(&given, 0, sizeof(given));
	opts->interval_us = TIMER_DEFAULT_INTERVAL_US;
	opts->distance_us = TIMER_DEFAULT_DISTANCE_US;
	opts->pm_qos = true;
	optind = 0; /* glibc: start over, the tests parse many times */
	opterr = 0;
	for (;;) {
		long_index = -1;
		c = getopt_long(argc, argv, short_options, long_options, &long_index);
		if (c == -1)
			break;
		if (c == '?')
			return option_rejected(argc, argv, short_options, long_options);
		spelled(c, long_index, name, sizeof(name));
		if (long_index < 0 && strchr(unsupported_short, c))
			c = OPT_UNSUPPORTED;
		ret = parse_one(c, name, argc, argv, online, allowed, &given, opts);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (opts->help)
		return 0;
	opts->params.histogram_buckets = given.histogram_us;
	ret = check_combinations(&given, opts);
	if (!ret)
		ret = lay_out_threads(&given, allowed, opts);
	if (ret) {
		timer_options_release(opts);
		return ret;
	}
	fill_params(&given, opts);
	return 0;
}

void timer_options_release(struct timer_options *opts)
{
	free(opts->threads);
	opts->threads = NULL;
	opts->params.threads = NULL;
}

/* ---- the run ---- */

struct timer_session {
	struct timer_options opts;
	struct sysroot *root;
	struct topology topo;
	bool topo_loaded;
	struct cpuset allowed;
	struct timer_run *run;
	struct rt_dma_latency pm_qos;
	bool memory_locked;
	json_t *doc;
	/* the live screen */
	bool live;
	bool drawn;
	uint64_t *shown_max;
	/* -v */
	uint64_t *next_sample;
	FILE *out;
	struct timer_explain explain;
};

static int allowed_cpus(const struct cpuset *online, struct cpuset *allowed)
{
	cpu_set_t mask;
	int cpu;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return -errno;
	cpuset_clear(allowed);
	cpuset_for_each(cpu, online)
		if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask))
			cpuset_add(allowed, (unsigned int)cpu);
	return 0;
}

static void print_lines(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	unsigned int i, nr = opts->params.nr_threads;

	for (i = 0; i < nr; i++) {
		struct timer_live live;
		struct timer_line line;
		pid_t tid;

		timer_read_live(s->run, i, &live, &tid);
		timer_line_from_live(&line, i, &live, tid, &opts->threads[i], opts->params.unit_ns);
		timer_render_line(s->out, &line, opts->nsecs);
	}
}

/* -M: redraw only when some maximum moved since the last drawing */
static bool new_maximum(struct timer_session *s)
{
	unsigned int i;
	bool moved = false;

	for (i = 0; i < s->opts.params.nr_threads; i++) {
		struct timer_live live;

		timer_read_live(s->run, i, &live, NULL);
		if (live.max_ns != s->shown_max[i]) {
			s->shown_max[i] = live.max_ns;
			moved = true;
		}
	}
	return moved;
}

/* The terminal screen: cyclictest's header and lines, redrawn in place. */
static void draw(struct timer_session *s, bool final)
{
	char loadavg[128];

	if (s->opts.refresh_on_max && !new_maximum(s) && s->drawn && !final)
		return;
	if (s->drawn)
		fprintf(s->out, "\033[%uA", s->opts.params.nr_threads + 2);
	if (sysroot_read(s->root, loadavg, sizeof(loadavg), "/proc/loadavg") < 0)
		snprintf(loadavg, sizeof(loadavg), "?");
	fprintf(s->out, "policy: %s: loadavg: %s          \n\n",
		rt_policy_name(s->opts.params.policy), loadavg);
	print_lines(s);
	fflush(s->out);
	s->drawn = true;
}

static void print_sample(void *context, unsigned int thread, uint64_t cycle, uint64_t latency_ns)
{
	struct timer_session *s = context;

	fprintf(s->out, "%8u:%8" PRIu64 ":%8" PRIu64 "\n", thread, cycle,
		latency_ns / s->opts.params.unit_ns);
}

static void drain_samples(struct timer_session *s)
{
	unsigned int i;
	uint64_t lost;

	for (i = 0; i < s->opts.params.nr_threads; i++) {
		lost = timer_drain_samples(s->run, i, &s->next_sample[i], print_sample, s);
		if (lost)
			log_warning("-v fell behind: %" PRIu64 " samples of thread %u not printed",
				    lost, i);
	}
	fflush(s->out);
}

/*
 * Measure until the threads end, a signal comes, or a thread breaks. The
 * screen is redrawn once a second; with --explain the trace is read four
 * times a second.
 */
static void wait_for_end(struct timer_session *s, const sigset_t *wait_mask)
{
	bool refresh = s->live || s->opts.verbose, explain = s->explain.run.session != NULL;
	int step = explain ? 250 : 1000, since_draw = 0;

	while (!stop_requested) {
		/* nothing to refresh or read: sleep until the end or a signal */
		if (timer_wait(s->run, refresh || explain ? step : -1, wait_mask))
			break;
		if (stop_requested)
			break;
		timer_explain_pump(&s->explain, s->run);
		since_draw += step;
		if (since_draw < 1000)
			continue;
		since_draw = 0;
		if (s->opts.verbose)
			drain_samples(s);
		else if (s->live)
			draw(s, false);
	}
}

static const struct timer_stats **results(struct timer_session *s)
{
	unsigned int i, nr = s->opts.params.nr_threads;
	const struct timer_stats **stats = calloc(nr, sizeof(*stats));

	if (stats)
		for (i = 0; i < nr; i++)
			stats[i] = timer_result(s->run, i);
	return stats;
}

struct histogram_output {
	const struct timer_session *s;
	const struct timer_stats **stats;
};

static int print_histogram(FILE *out, void *data)
{
	const struct histogram_output *h = data;

	timer_render_histogram(out, h->stats, h->s->opts.params.nr_threads, h->s->opts.histofall);
	return 0;
}

static int write_histogram(struct timer_session *s, const struct timer_stats **stats)
{
	struct histogram_output h = { s, stats };
	int ret;

	if (!s->opts.histfile)
		return print_histogram(s->out, &h);
	/* as the JSON: a temporary file renamed, nothing partial on a full disk */
	ret = result_write_text(s->opts.histfile, print_histogram, &h);
	if (ret)
		return runtime_error("cannot write the histogram to '%s': %s", s->opts.histfile,
				     strerror(-ret));
	return 0;
}

static void print_break(struct timer_session *s)
{
	struct timer_spike spike;
	unsigned int i, thread;

	fprintf(s->out, "# Thread Ids:");
	for (i = 0; i < s->opts.params.nr_threads; i++)
		fprintf(s->out, " %05d", timer_result(s->run, i)->tid);
	fprintf(s->out, "\n");
	if (!timer_break(s->run, &thread, &spike))
		return;
	fprintf(s->out, "# Break thread: %d\n", timer_result(s->run, thread)->tid);
	fprintf(s->out, "# Break value: %" PRIu64 "\n", spike.latency_ns / s->opts.params.unit_ns);
}

/* Everything printed after the run, cyclictest's parts first. */
static int print_results(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	const struct timer_stats **stats = results(s);
	int ret = 0;

	if (!stats)
		return runtime_error("out of memory");
	if (opts->verbose) {
		drain_samples(s);
		if (opts->quiet)
			print_lines(s);
	} else if (s->live) {
		draw(s, true);
	} else if (!(opts->quiet && opts->params.histogram_buckets)) {
		/* cyclictest -q -h prints the histogram alone */
		print_lines(s);
	}
	if (opts->params.histogram_buckets)
		ret = write_histogram(s, stats);
	if (opts->break_us)
		print_break(s);
	timer_render_summary(s->out, stats, opts->params.nr_threads, timer_origin_ns(s->run));
	timer_explain_report(s->out, &s->explain, s->run, opts);
	fflush(s->out);
	free(stats);
	if (!ret && opts->trace_dir &&
	    timer_explain_write_captures(&s->explain, opts->trace_dir) < 0)
		ret = EXIT_ERROR;
	return ret;
}

static json_t *params_json(const struct timer_options *opts)
{
	static const char *const modes[] = {
		[TIMER_WAIT_ABSOLUTE] = "absolute",
		[TIMER_WAIT_RELATIVE] = "relative",
		[TIMER_WAIT_POSIX_TIMER] = "posix_timer",
	};
	const struct timer_params *params = &opts->params;
	json_t *p = json_object();

	json_object_set_new(p, "threads", json_integer(params->nr_threads));
	json_object_set_new(p, "policy", json_string(rt_policy_name(params->policy)));
	json_object_set_new(p, "priority", json_integer(opts->priority));
	json_object_set_new(p, "priospread", json_boolean(opts->priospread));
	json_object_set_new(p, "interval_ns", json_integer((json_int_t)opts->interval_us * 1000));
	json_object_set_new(p, "distance_ns", json_integer((json_int_t)opts->distance_us * 1000));
	json_object_set_new(p, "mode", json_string(modes[params->mode]));
	json_object_set_new(p, "clock", json_string("monotonic"));
	json_object_set_new(p, "duration_ns", json_integer((json_int_t)params->duration_ns));
	json_object_set_new(p, "loops", json_integer((json_int_t)params->loops));
	json_object_set_new(p, "affinity",
			    opts->pinned ? result_cpuset(&opts->measured) : json_null());
	json_object_set_new(p, "main_affinity",
			    opts->main_affinity_given ? result_cpuset(&opts->main_affinity) :
							json_null());
	json_object_set_new(p, "mlockall", json_boolean(opts->mlockall));
	json_object_set_new(p, "pm_qos_us",
			    opts->pm_qos ? json_integer(opts->latency_us) : json_null());
	json_object_set_new(p, "break_us",
			    opts->break_us ? json_integer((json_int_t)opts->break_us) :
					     json_null());
	json_object_set_new(p, "tracemark", json_boolean(params->tracemark));
	json_object_set_new(p, "histogram_us", json_integer(params->histogram_buckets));
	json_object_set_new(p, "histofall", json_boolean(opts->histofall));
	json_object_set_new(p, "nsecs", json_boolean(opts->nsecs));
	json_object_set_new(p, "spike_threshold_ns",
			    json_integer((json_int_t)params->spike_threshold_ns));
	json_object_set_new(p, "spike_capacity", json_integer((json_int_t)params->spike_capacity));
	json_object_set_new(p, "fail_above_ns",
			    opts->fail_above_ns ? json_integer((json_int_t)opts->fail_above_ns) :
						  json_null());
	return p;
}

static json_t *break_json(struct timer_session *s)
{
	struct timer_spike spike;
	unsigned int thread;

	if (!timer_break(s->run, &thread, &spike))
		return json_null();
	return json_pack("{sIsIsIsIsIsI}", "thread", (json_int_t)thread, "tid",
			 (json_int_t)timer_result(s->run, thread)->tid, "latency_ns",
			 (json_int_t)spike.latency_ns, "above_ns",
			 (json_int_t)s->opts.params.break_above_ns, "expiry_ns",
			 (json_int_t)spike.expiry_ns, "cycle", (json_int_t)spike.cycle);
}

static int write_json(struct timer_session *s, int status)
{
	json_t *doc = s->doc, *threads;
	uint64_t missed = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < s->opts.params.nr_threads; i++)
		missed += timer_result(s->run, i)->missed;
	json_object_set_new(doc, "host", result_host_facts(s->root, &s->topo));
	json_object_set_new(doc, "params", params_json(&s->opts));
	json_object_set_new(doc, "clock", json_string("monotonic"));
	json_object_set_new(doc, "origin_ns", json_integer((json_int_t)timer_origin_ns(s->run)));
	json_object_set_new(doc, "end", json_string(timer_end_name(timer_end_reason(s->run))));
	json_object_set_new(doc, "signal",
			    stop_requested ? json_sprintf("SIG%s", sigabbrev_np(stop_requested)) :
					     json_null());
	json_object_set_new(doc, "break", break_json(s));
	json_object_set_new(doc, "tracing_stopped", json_boolean(timer_tracing_stopped(s->run)));
	json_object_set_new(doc, "missed", json_integer((json_int_t)missed));
	threads = timer_result_threads(s->run);
	timer_explain_json(&s->explain, &s->opts, threads);
	json_object_set_new(doc, "threads", threads);
	json_object_set_new(doc, "exit_status", json_integer(status));
	result_set_end_time(doc);
	ret = result_write(doc, s->opts.json_path);
	if (ret)
		return runtime_error("cannot write '%s': %s", s->opts.json_path, strerror(-ret));
	return 0;
}

/* --fail-above: name every thread over the budget */
static int check_budget(struct timer_session *s)
{
	char max[32], limit[32];
	unsigned int i;
	int status = EXIT_OK;

	for (i = 0; s->opts.fail_above_ns && i < s->opts.params.nr_threads; i++) {
		const struct timer_stats *stats = timer_result(s->run, i);

		if (stats->hist.count && stats->hist.max > s->opts.fail_above_ns) {
			fprintf(stderr,
				"latscope timer: thread %u: max %s us is above --fail-above %s\n",
				i, format_us(stats->hist.max, max, sizeof(max)),
				format_duration(s->opts.fail_above_ns, limit, sizeof(limit)));
			status = EXIT_BUDGET;
		}
	}
	return status;
}

/* Everything the machine had before we came: PM QoS, locked memory. */
static void restore(struct timer_session *s)
{
	if (s->pm_qos.fd >= 0)
		rt_dma_latency_release(&s->pm_qos);
	if (s->memory_locked)
		rt_unlock_memory();
	s->memory_locked = false;
}

static void session_free(struct timer_session *s)
{
	restore(s);
	timer_explain_release(&s->explain);
	timer_free(s->run);
	json_decref(s->doc);
	free(s->shown_max);
	free(s->next_sample);
	timer_options_release(&s->opts);
	if (s->topo_loaded)
		topology_release(&s->topo);
	sysroot_free(s->root);
}

static int prepare(struct timer_session *s, int argc, char **argv)
{
	int ret;

	s->pm_qos.fd = -1;
	s->out = stdout;
	s->root = sysroot_new(NULL);
	if (!s->root)
		return runtime_error("cannot open the system root: %s", strerror(errno));
	ret = topology_load(s->root, &s->topo);
	if (ret)
		return runtime_error("cannot read the cpu topology: %s", strerror(-ret));
	s->topo_loaded = true;
	ret = allowed_cpus(&s->topo.online, &s->allowed);
	if (ret)
		return runtime_error("cannot read this process's cpu affinity: %s", strerror(-ret));
	ret = timer_options_parse(argc, argv, &s->topo.online, &s->allowed, &s->opts);
	if (ret || s->opts.help)
		return ret;
	s->opts.params.root = s->root;
	ret = option_output_path("--json", s->opts.json_path);
	if (!ret)
		ret = option_output_path("--histfile", s->opts.histfile);
	if (ret)
		return ret;
	if (s->opts.trace_dir && (ret = explain_check_trace_dir(s->opts.trace_dir)))
		return ret;
	s->shown_max = calloc(s->opts.params.nr_threads, sizeof(*s->shown_max));
	s->next_sample = calloc(s->opts.params.nr_threads, sizeof(*s->next_sample));
	s->doc = result_new("timer", argc, argv);
	if (!s->shown_max || !s->next_sample || !s->doc)
		return runtime_error("out of memory");
	if (s->opts.verbose)
		cli_set_verbosity(1);
	if (s->opts.unbuffered)
		setvbuf(stdout, NULL, _IONBF, 0);
	s->live = isatty(STDOUT_FILENO) && !s->opts.quiet && !s->opts.verbose;
	return 0;
}

/* Lock memory, hold PM QoS, start the threads and move the main thread. */
static int start(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	int ret;

	if (opts->params.policy == RT_POLICY_OTHER)
		log_warning("threads run SCHED_OTHER (no -p): use -p PRIO to measure as a "
			    "SCHED_FIFO task");
	if (opts->mlockall) {
		if (rt_lock_memory())
			return EXIT_ERROR;
		s->memory_locked = true;
	}
	if (opts->pm_qos) {
		if (rt_dma_latency_hold(s->root, opts->latency_us, &s->pm_qos))
			return EXIT_ERROR;
		fprintf(s->out, "# /dev/cpu_dma_latency set to %dus\n", opts->latency_us);
		fflush(s->out);
	}
	/* tracing must run before the first wake-up it may have to explain */
	if (timer_explain_begin(&s->explain, opts, s->root))
		return runtime_error("out of memory");
	ret = timer_start(&s->run, &opts->params);
	if (ret)
		return EXIT_ERROR;
	/*
	 * After the threads exist: unpinned ones inherit the main thread's
	 * cpus. Pinned ones leave their cpus to themselves when a
	 * housekeeping cpu exists; a failure here costs accuracy, not the run.
	 */
	rt_place_main_thread(&s->allowed, opts->pinned ? &opts->measured : &s->allowed,
			     opts->main_affinity_given ? &opts->main_affinity : NULL);
	return 0;
}

int cmd_timer(int argc, char **argv)
{
	struct timer_session s;
	sigset_t stop_signals, wait_mask;
	int ret, status;

	memset(&s, 0, sizeof(s));
	ret = prepare(&s, argc, argv);
	if (ret || s.opts.help) {
		if (!ret)
			cmd_timer_usage(stdout);
		session_free(&s);
		return ret;
	}
	/*
	 * Stop signals are blocked except inside the wait, so that one that
	 * comes between a check of the flag and the wait is not missed.
	 */
	if (signals_catch()) {
		session_free(&s);
		return runtime_error("cannot catch signals: %s", strerror(errno));
	}
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &wait_mask);

	ret = start(&s);
	if (ret) {
		session_free(&s);
		return ret;
	}
	wait_for_end(&s, &wait_mask);
	ret = timer_stop(s.run);
	restore(&s);
	if (timer_explain_end(&s.explain, s.run))
		log_warning("out of memory explaining the spikes");
	pthread_sigmask(SIG_SETMASK, &wait_mask, NULL);

	status = ret ? EXIT_ERROR : EXIT_OK;
	if (print_results(&s))
		status = EXIT_ERROR;
	if (timer_tracing_stopped(s.run))
		fprintf(stderr, "latscope timer: tracing stopped at the break (tracing_on is 0: "
				"write 1 to it to trace again)\n");
	if (status == EXIT_OK && timer_end_reason(s.run) == TIMER_END_BREAK)
		status = EXIT_BUDGET;
	if (status == EXIT_OK)
		status = check_budget(&s);
	if (s.opts.json_path && write_json(&s, status))
		status = EXIT_ERROR;
	session_free(&s);
	return status;
}
