/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_TIMER_OPTIONS_H
#define LATSCOPE_CLI_TIMER_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "common_options.h"
#include "explain_run.h"
#include "junit_output.h"
#include "latscope/cpuset.h"
#include "latscope/parse.h"
#include "latscope/rt.h"
#include "latscope/timer.h"

/* cyclictest's defaults and limits */
#define TIMER_DEFAULT_INTERVAL_US 1000
#define TIMER_DEFAULT_DISTANCE_US 500
#define TIMER_HISTOGRAM_MAX_US 1000000
/* threads per online CPU beyond which -t needs --force */
#define TIMER_THREADS_PER_CPU 4
/* samples kept for --explain and the JSON spike records */
#define TIMER_SPIKE_THRESHOLD_NS (100 * 1000ULL)
#define TIMER_SPIKE_CAPACITY 4096
/* -v: 65536 samples a thread, 65 s at 1 ms between two drains */
#define TIMER_SAMPLE_RING 65536
/* --explain: spike records a thread keeps (1% of 6.5 M wake-ups) */
#define TIMER_EXPLAIN_SPIKE_CAPACITY 65536

/* The machine timer_command's options are checked against (the parser's context). */
struct timer_machine {
	const struct cpuset *online; /* -a, --mainaffinity must name online CPUs */
	const struct cpuset *allowed; /* its cpuset's: what -a LIST and "all" may name */
	/*
	 * where it runs now (machine_affinity_cpus()): what bare -a, -t and -S
	 * take, as cyclictest does; under isolcpus= the housekeeping CPUs
	 */
	const struct cpuset *affinity;
};

/* What the words said, before cyclictest's rules lay the threads out. */
struct timer_words {
	bool threads_given;
	unsigned int nr_threads; /* 0: bare -t, one per CPU */
	bool affinity_given;
	bool affinity_bare;
	struct cpuset affinity;
	bool smp;
	bool priority_given;
	bool policy_given;
	enum rt_policy policy;
	bool distance_given;
	bool tracemark;
	bool latency_given;
	bool default_system;
	unsigned int histogram_us;
	bool relative;
	bool posix_timers;
	uint64_t duration_ns;
	uint64_t loops;
};

/* Everything `latscope timer` was asked to do, checked. */
/* --explain-above at most: a spike threshold past it would explain nothing */
#define TIMER_EXPLAIN_ABOVE_MAX_NS (1000 * NS_PER_SEC)

struct timer_options {
	struct timer_params params; /* params.threads points at threads */
	struct timer_thread_params *threads; /* owned */
	/* how it was asked for, for the JSON and the output */
	unsigned int interval_us;
	unsigned int distance_us;
	int priority; /* of thread 0 */
	bool priospread;
	bool pinned; /* -a or -S: every thread on one CPU */
	struct cpuset measured; /* the CPUs of pinned threads */
	bool main_affinity_given;
	struct cpuset main_affinity;
	bool mlockall;
	bool pm_qos; /* hold /dev/cpu_dma_latency (not with --default-system) */
	int latency_us;
	uint64_t break_us; /* -b; 0 when not given */
	uint64_t fail_above_ns;
	bool quiet;
	bool strict; /* a validity shortfall is exit 1 */
	int verbose; /* -v: every sample printed, and the informational messages */
	bool nsecs;
	bool unbuffered;
	bool refresh_on_max;
	bool histofall;
	const char *histfile;
	struct json_output json;
	struct junit_output junit;
	enum explain_choice explain;
	uint64_t explain_above_ns; /* 0: above the run's p99, adaptively */
	const char *trace_dir;
	bool force; /* more threads than TIMER_THREADS_PER_CPU per online CPU */
	struct timer_words words;
};

/**
 * timer_options_parse - parse cyclictest-style options
 * @argc: number of words, the command's name first
 * @argv: the words
 * @machine: the CPUs the options are checked against and laid out on
 * @opts: receives the options; release with timer_options_release()
 * @status: receives the exit status when false is returned
 *
 * As option_parse(): true to run; false after --help (status 0) or a
 * usage error naming the bad option and value (129).
 */
bool timer_options_parse(int argc, char **argv, const struct timer_machine *machine,
			 struct timer_options *opts, int *status);
/*
 * For a caller that fills the options itself (doctor): the defaults the
 * parser starts from, then, once the caller has set the fields its words
 * would have set (opts->words and the rest), cyclictest's rules as the
 * parser applies them after the last word. timer_options_finish() returns
 * 0, or the exit status after one line saying why; release as after a parse.
 */
void timer_options_default(struct timer_options *opts);
int timer_options_finish(struct timer_options *opts, const struct timer_machine *machine);
/* Free what timer_options_parse() allocated (the threads); safe to repeat. */
void timer_options_release(struct timer_options *opts);

#endif
