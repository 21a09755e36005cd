// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope timer's options: cyclictest's, spelled every way cyclictest
 * takes them (-t4, -t 4, -Sp90, -h400, --duration=5m, -D 2H), and
 * latscope's own; then cyclictest's rules turn them into threads.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common_options.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "machine.h"
#include "option_table.h"
#include "timer_options.h"

static int check_cpus(const char *option, const char *arg, const struct cpuset *set,
		      const struct cpuset *online, const struct cpuset *allowed)
{
	char spelled[512], why[1024];

	snprintf(spelled, sizeof(spelled), "%s '%s'", option, arg);
	if (machine_cpus_refused(spelled, set, online, allowed, why, sizeof(why)))
		return usage_error("%s", why);
	return 0;
}

/* -a LIST, --mainaffinity LIST: online CPUs this process may use; "all" */
static int parse_cpus(const struct option_value *v, struct cpuset *set)
{
	const struct timer_machine *machine = v->context;
	int ret;

	if (!strcmp(v->text, "all")) {
		*set = *machine->allowed;
		return 0;
	}
	ret = option_cpus(v->spelled, v->text, set);
	return ret ? ret : check_cpus(v->spelled, v->text, set, machine->online, machine->allowed);
}

static int parse_main_affinity(const struct option_value *v)
{
	return parse_cpus(v, v->field);
}

/* -a alone pins to the CPUs of the affinity: it is told apart from -a LIST */
static int parse_affinity(const struct option_value *v)
{
	struct timer_words *words = &((struct timer_options *)v->options)->words;

	words->affinity_bare = !v->text;
	return v->text ? parse_cpus(v, &words->affinity) : 0;
}

/*
 * cyclictest's -D takes 10, 10m, 2H, 1D; latscope's parser also 500ms. The
 * range is the entry's.
 */
static int parse_run_duration(const struct option_value *v)
{
	const struct option_spec *spec = v->spec;
	const char *arg = v->text;
	char text[64];
	size_t len = strlen(arg);

	if (len && len < sizeof(text) && strchr("MHD", arg[len - 1]) && len > 1 &&
	    isdigit((unsigned char)arg[len - 2])) {
		memcpy(text, arg, len + 1);
		text[len - 1] = (char)tolower((unsigned char)text[len - 1]);
		arg = text;
	}
	return option_duration(v->spelled, arg, spec->duration.bare_unit_ns, spec->duration.min_ns,
			       spec->duration.max_ns, v->field);
}

/* -h and -H: the same buckets, -H with a column summing the threads */
static int parse_histogram(const struct option_value *v)
{
	struct timer_options *opts = v->options;
	long long number;
	int ret = option_integer(v->spelled, v->text, 1, TIMER_HISTOGRAM_MAX_US, &number);

	if (ret)
		return ret;
	opts->words.histogram_us = (unsigned int)number;
	opts->histofall = v->spec->short_name == 'H';
	return 0;
}

static int parse_clock(const struct option_value *v)
{
	const char *arg = v->text;

	if (!strcmp(arg, "0") || !strcmp(arg, "monotonic"))
		return 0;
	if (!strcmp(arg, "1") || !strcmp(arg, "realtime"))
		return usage_error("%s '%s' (CLOCK_REALTIME) is not supported: latscope measures "
				   "on CLOCK_MONOTONIC",
				   v->spelled, arg);
	return usage_error("invalid clock '%s' for %s (only 0, monotonic)", arg, v->spelled);
}

/* cyclictest's own options latscope does not have are refused by name */
static int refuse_cyclictest_option(const struct option_value *v)
{
	return usage_error("cyclictest option '%s' is not supported by latscope timer "
			   "(see DIFFERENCES FROM CYCLICTEST in latscope-timer(1))",
			   v->spelled);
}

#define TIMER(member) OPTION_FIELD(struct timer_options, member)

/* known so that the error names them; an optional value so that getopt never asks for one */
#define CYCLICTEST_ONLY(letter, name)                                                        \
	{                                                                                    \
		.long_name = name, .short_name = letter, .kind = OPTION_CUSTOM,              \
		.flags = OPTION_OPTIONAL | OPTION_HIDDEN, .parse = refuse_cyclictest_option, \
		.help = "cyclictest's; refused by name"                                      \
	}

static const struct option_spec timer_option_specs[] = {
	{ .long_name = "threads",
	  .short_name = 't',
	  .kind = OPTION_INTEGER,
	  .flags = OPTION_OPTIONAL | OPTION_NEXT_NUMBER,
	  .where = TIMER(words.nr_threads),
	  .given = TIMER(words.threads_given),
	  .integer = { 1, CPUSET_MAX_CPUS },
	  .help = "N threads; without N one per CPU of this process's affinity",
	  .default_text = "1" },
	{ .long_name = "affinity",
	  .short_name = 'a',
	  .kind = OPTION_CUSTOM,
	  .flags = OPTION_OPTIONAL | OPTION_NEXT_NUMBER,
	  .given = TIMER(words.affinity_given),
	  .parse = parse_affinity,
	  .complete_as = OPTION_CPUS,
	  .value_name = "LIST",
	  .help = "pin threads round-robin to LIST; without LIST to the CPUs of this "
		  "process's affinity; "
		  "without -a threads are not pinned" },
	{ .long_name = "smp",
	  .short_name = 'S',
	  .kind = OPTION_FLAG,
	  .where = TIMER(words.smp),
	  .help = "-a -t: one pinned thread per CPU of this process's affinity" },
	{ .long_name = "priority",
	  .short_name = 'p',
	  .kind = OPTION_INTEGER,
	  .where = TIMER(priority),
	  .given = TIMER(words.priority_given),
	  .integer = { 1, 99 },
	  .value_name = "PRIO",
	  .help = "SCHED_FIFO priority of every thread" },
	{ .long_name = "policy",
	  .kind = OPTION_CUSTOM,
	  .where = TIMER(words.policy),
	  .given = TIMER(words.policy_given),
	  .parse = option_parse_rt_policy,
	  .complete_as = OPTION_CHOICE,
	  .choices = rt_policy_words,
	  .value_name = "NAME",
	  .help = "other, normal, batch, idle, fifo or rr" },
	{ .long_name = "priospread",
	  .kind = OPTION_FLAG,
	  .where = TIMER(priospread),
	  .help = "thread N gets priority PRIO - N" },
	{ .long_name = "interval",
	  .short_name = 'i',
	  .kind = OPTION_INTEGER,
	  .where = TIMER(interval_us),
	  .integer = { 1, 3600000000LL },
	  .value_name = "US",
	  .help = "interval of thread 0 in us" },
	{ .long_name = "distance",
	  .short_name = 'd',
	  .kind = OPTION_INTEGER,
	  .where = TIMER(distance_us),
	  .given = TIMER(words.distance_given),
	  .integer = { 0, 3600000000LL },
	  .value_name = "US",
	  .help = "thread N wakes every i + N*d us; 0 with -h" },
	OPTION_DURATION_ENTRY('D', 0, OPTION_RUN_DURATION_MAX_NS,
			      "stop after TIME, cyclictest's 10M, 2H, 1D too; 0: until stopped",
			      .where = TIMER(words.duration_ns), .parse = parse_run_duration,
			      .value_name = "TIME"),
	{ .long_name = "loops",
	  .short_name = 'l',
	  .kind = OPTION_INTEGER,
	  .where = TIMER(words.loops),
	  .integer = { 0, INT64_MAX },
	  .help = "stop each thread after N wake-ups" },
	{ .long_name = "relative",
	  .short_name = 'r',
	  .kind = OPTION_FLAG,
	  .where = TIMER(words.relative),
	  .help = "relative clock_nanosleep instead of absolute" },
	{ .long_name = "posix_timers",
	  .short_name = 'x',
	  .kind = OPTION_FLAG,
	  .where = TIMER(words.posix_timers),
	  .help = "a periodic POSIX timer instead of clock_nanosleep" },
	{ .long_name = "clock",
	  .short_name = 'c',
	  .kind = OPTION_CUSTOM,
	  .parse = parse_clock,
	  .value_name = "0",
	  .help = "CLOCK_MONOTONIC (the only clock)" },
	{ .long_name = "mlockall",
	  .short_name = 'm',
	  .kind = OPTION_FLAG,
	  .where = TIMER(mlockall),
	  .help = "lock all memory" },
	{ .long_name = "latency",
	  .kind = OPTION_INTEGER,
	  .where = TIMER(latency_us),
	  .given = TIMER(words.latency_given),
	  .integer = { 0, INT32_MAX },
	  .value_name = "US",
	  .help = "PM QoS request on /dev/cpu_dma_latency",
	  .default_text = "0" },
	{ .long_name = "default-system",
	  .kind = OPTION_FLAG,
	  .where = TIMER(words.default_system),
	  .alias = "no-dma-latency",
	  .help = "make no PM QoS request" },
	{ .long_name = "mainaffinity",
	  .kind = OPTION_CUSTOM,
	  .where = TIMER(main_affinity),
	  .given = TIMER(main_affinity_given),
	  .parse = parse_main_affinity,
	  .complete_as = OPTION_CPUS,
	  .value_name = "LIST",
	  .help = "run the main thread on LIST" },
	{ .long_name = "breaktrace",
	  .short_name = 'b',
	  .kind = OPTION_INTEGER,
	  .where = TIMER(break_us),
	  .integer = { 1, 1000000000 },
	  .value_name = "US",
	  .help = "stop at the first latency above US (exit status 2)" },
	{ .long_name = "tracemark",
	  .kind = OPTION_FLAG,
	  .where = TIMER(words.tracemark),
	  .help = "with -b, mark the trace and stop tracing" },
	{ .long_name = "histogram",
	  .short_name = 'h',
	  .kind = OPTION_CUSTOM,
	  .parse = parse_histogram,
	  .value_name = "US",
	  .help = "print a histogram of 1 us buckets up to US" },
	{ .long_name = "histofall",
	  .short_name = 'H',
	  .kind = OPTION_CUSTOM,
	  .parse = parse_histogram,
	  .value_name = "US",
	  .help = "the same with a column summing all threads" },
	{ .long_name = "histfile",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = TIMER(histfile),
	  .value_name = "PATH",
	  .help = "write the histogram to PATH" },
	{ .long_name = "nsecs",
	  .short_name = 'N',
	  .kind = OPTION_FLAG,
	  .where = TIMER(nsecs),
	  .help = "print ns instead of us" },
	{ .long_name = "quiet",
	  .short_name = 'q',
	  .kind = OPTION_FLAG,
	  .where = TIMER(quiet),
	  .help = "print only the summary at the end" },
	{ .long_name = "refresh_on_max",
	  .short_name = 'M',
	  .kind = OPTION_FLAG,
	  .where = TIMER(refresh_on_max),
	  .help = "refresh the screen only on a new maximum" },
	{ .long_name = "unbuffered",
	  .short_name = 'u',
	  .kind = OPTION_FLAG,
	  .where = TIMER(unbuffered),
	  .help = "unbuffered output" },
	OPTION_INCLUDE_AT(verbose_options, TIMER(verbose)),
	OPTION_INCLUDE_AT(json_output_options, TIMER(json)),
	OPTION_INCLUDE_AT(junit_output_options, TIMER(junit)),
	{ .long_name = "explain",
	  .kind = OPTION_CHOICE,
	  .flags = OPTION_OPTIONAL,
	  .where = TIMER(explain),
	  .choices = explain_choices,
	  .bare = "trace",
	  .value_name = "HOW",
	  .help = "attribute each spike to its causes, from tracepoints (needs -a) or from "
		  "the interrupt counters" },
	{ .long_name = "explain-above",
	  .kind = OPTION_DURATION,
	  .where = TIMER(explain_above_ns),
	  .duration = { NS_PER_US, 1, TIMER_EXPLAIN_ABOVE_MAX_NS },
	  .help = "spikes are latencies above DUR",
	  .default_text = "above the run's p99, followed as the run goes" },
	{ .long_name = "trace-dir",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = TIMER(trace_dir),
	  .help = "keep the raw events around the largest spikes" },
	OPTION_BUDGET(TIMER(fail_above_ns), 0, .alias = "fail-above"),
	OPTION_STRICT(TIMER(strict)),
	{ .long_name = "force",
	  .kind = OPTION_FLAG,
	  .where = TIMER(force),
	  .help = "more than 4 threads per online cpu" },
	CYCLICTEST_ONLY('A', "aligned"),
	CYCLICTEST_ONLY(0, "secaligned"),
	CYCLICTEST_ONLY('F', "fifo"),
	CYCLICTEST_ONLY(0, "laptop"),
	CYCLICTEST_ONLY('o', "oscope"),
	CYCLICTEST_ONLY('R', "resolution"),
	CYCLICTEST_ONLY('s', "system"),
	CYCLICTEST_ONLY(0, "smi"),
	CYCLICTEST_ONLY(0, "spike"),
	CYCLICTEST_ONLY(0, "spike-nodes"),
	CYCLICTEST_ONLY(0, "deepest-idle-state"),
	CYCLICTEST_ONLY(0, "dbg_cyclictest"),
	OPTION_TABLE_END,
};

static void timer_defaults(void *options)
{
	struct timer_options *opts = options;

	opts->interval_us = TIMER_DEFAULT_INTERVAL_US;
	opts->distance_us = TIMER_DEFAULT_DISTANCE_US;
}

/*
 * Threads, their CPUs, priorities and intervals, by cyclictest's rules; what
 * names no CPU takes @affinity's, where this process runs.
 */
static int lay_out_threads(const struct timer_words *given, const struct cpuset *affinity,
			   struct timer_options *opts)
{
	const struct cpuset *pool = affinity;
	unsigned int nr = 1, i, pool_size;
	int cpu = -1;

	if (given->smp) {
		if (given->threads_given)
			log_warning("-t is ignored with -S: one thread per cpu of the affinity");
		if (given->affinity_given)
			log_warning("-a is ignored with -S: one thread per cpu of the affinity");
		opts->pinned = true;
		nr = cpuset_count(affinity);
	} else {
		if (given->affinity_given && !given->affinity_bare)
			pool = &given->affinity;
		opts->pinned = given->affinity_given;
		if (given->threads_given)
			nr = given->nr_threads ? given->nr_threads :
						 cpuset_count(opts->pinned ? pool : affinity);
	}
	if (!nr)
		return usage_error("no cpu to run a thread on");
	pool_size = cpuset_count(pool);

	if (given->policy_given && !rt_policy_is_realtime(given->policy)) {
		if (given->priority_given)
			return usage_error("-p %d needs --policy fifo or rr, not --policy %s",
					   opts->priority, rt_policy_name(given->policy));
		if (opts->priospread)
			return usage_error(
				"--priospread needs --policy fifo or rr, not --policy %s",
				rt_policy_name(given->policy));
	}
	if (given->priority_given) {
		opts->params.policy = given->policy_given ? given->policy : RT_POLICY_FIFO;
	} else if (given->policy_given ? rt_policy_is_realtime(given->policy) : opts->priospread) {
		/* cyclictest's default: one above the number of threads */
		opts->params.policy = given->policy_given ? given->policy : RT_POLICY_FIFO;
		opts->priority = nr + 1 > 99 ? 99 : (int)nr + 1;
		log_warning("no -p: defaulting the real-time priority to %d", opts->priority);
	} else {
		opts->params.policy = given->policy_given ? given->policy : RT_POLICY_OTHER;
		opts->priority = 0;
	}
	if (opts->priospread && opts->priority - (int)(nr - 1) < 1)
		return usage_error("--priospread: %u threads from priority %d would go below 1", nr,
				   opts->priority);

	if (opts->params.histogram_buckets) {
		if (given->distance_given && opts->distance_us)
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

static int check_combinations(const struct timer_words *given, struct timer_options *opts)
{
	if (given->tracemark && !opts->break_us)
		return usage_error("--tracemark needs -b/--breaktrace");
	if (opts->histfile && !given->histogram_us)
		return usage_error("--histfile needs -h or -H");
	if (given->latency_given && !opts->pm_qos)
		return usage_error("--latency and --default-system exclude each other");
	if (given->relative && given->posix_timers)
		return usage_error("-r and -x exclude each other");
	if ((opts->explain_above_ns || opts->trace_dir) && opts->explain != EXPLAIN_WITH_TRACE)
		return usage_error("%s needs --explain (with tracing)",
				   opts->trace_dir ? "--trace-dir" : "--explain-above");
	/* a spike is charged to what ran on its thread's CPU: it must have one */
	if (opts->explain == EXPLAIN_WITH_TRACE && !given->affinity_given && !given->smp)
		return usage_error("--explain needs pinned threads: add -a or -S");
	return 0;
}

static void fill_params(const struct timer_words *given, struct timer_options *opts)
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
	/* compare's extreme-value fit reads them from the JSON */
	params->block_maxima = true;
	params->time_blocks = true;
	if (opts->explain == EXPLAIN_WITH_TRACE) {
		/* the explanation follows the spikes: keep many, from the start
		 * when a threshold is given, else once the p99 is known */
		params->spike_capacity = TIMER_EXPLAIN_SPIKE_CAPACITY;
		params->spike_threshold_ns =
			opts->explain_above_ns ? opts->explain_above_ns : UINT64_MAX;
		params->sample_ring = TIMER_SAMPLE_RING;
	}
}

/* cyclictest's rules, once every word is read */
static int timer_finish(void *options, void *context)
{
	const struct timer_machine *machine = context;
	struct timer_options *opts = options;
	int ret;

	opts->params.histogram_buckets = opts->words.histogram_us;
	opts->pm_qos = !opts->words.default_system;
	ret = check_combinations(&opts->words, opts);
	if (!ret)
		ret = lay_out_threads(&opts->words, machine->affinity, opts);
	if (!ret)
		fill_params(&opts->words, opts);
	if (!ret)
		ret = junit_output_finish(&opts->junit, &opts->json);
	return ret;
}

/* the threads finish() laid out */
static void timer_release(void *options)
{
	struct timer_options *opts = options;

	free(opts->threads);
	opts->threads = NULL;
	opts->params.threads = NULL;
}

const struct option_command timer_command = {
	.name = "timer",
	.description =
		"Timer wake-up latency, as cyclictest measures it, with cyclictest's options\n"
		"and output; adds percentiles, missed periods and the largest spikes.\n"
		"-v also prints every sample as thread:cycle:latency, as cyclictest does.\n"
		"'latscope cyclic' is the same command.",
	.options = timer_option_specs,
	.size = sizeof(struct timer_options),
	.init = timer_defaults,
	.finish = timer_finish,
	.release = timer_release,
	.footer = "exit status: 0 ok, 1 error or a shortfall under --strict, 2 -b hit or\n"
		  "a latency above --budget, 129 usage error\n"
		  "see latscope-timer(1), DIFFERENCES FROM CYCLICTEST",
};

bool timer_options_parse(int argc, char **argv, const struct timer_machine *machine,
			 struct timer_options *opts, int *status)
{
	/* the parser's context is not const: its callbacks only read it */
	if (option_parse(&timer_command, argc, argv, opts, (void *)machine, status))
		return true;
	timer_options_release(opts);
	return false;
}

void timer_options_release(struct timer_options *opts)
{
	option_release(&timer_command, opts);
}

void timer_options_default(struct timer_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	timer_defaults(opts);
}

int timer_options_finish(struct timer_options *opts, const struct timer_machine *machine)
{
	return timer_finish(opts, (void *)machine);
}
