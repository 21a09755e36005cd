// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/log.h"
#include "latscope/parse.h"
#include "explain_report.h"
#include "latscope/explain_result.h"
#include "timer_explain.h"

#define WORST_KEPT 5
/* the p99 of fewer samples says little: no spike before this many */
#define MIN_SAMPLES_FOR_P99 200

int timer_explain_begin(struct timer_explain *x, const struct timer_options *opts,
			struct sysroot *root)
{
	struct explain_session_options options = { 0 };
	unsigned int i, *lane_cpu;
	int ret;

	memset(x, 0, sizeof(*x));
	if (opts->explain == EXPLAIN_OFF)
		return 0;
	x->explain_above_ns = opts->explain_above_ns;
	x->nr_threads = opts->params.nr_threads;
	x->next_spike = calloc(x->nr_threads, sizeof(*x->next_spike));
	x->next_cycle = calloc(x->nr_threads, sizeof(*x->next_cycle));
	x->seen = calloc(x->nr_threads, sizeof(*x->seen));
	lane_cpu = calloc(x->nr_threads, sizeof(*lane_cpu));
	if (!x->next_spike || !x->next_cycle || !x->seen || !lane_cpu) {
		free(lane_cpu);
		return -ENOMEM;
	}
	/* one lane per thread: threads may share a CPU, their spikes overlap */
	for (i = 0; i < x->nr_threads; i++) {
		lane_cpu[i] = (unsigned int)opts->threads[i].cpu;
		hist_init(&x->seen[i]);
	}
	options.nr_lanes = x->nr_threads;
	options.lane_cpu = lane_cpu;
	options.mode = EXPLAIN_TIMER;
	options.clock = "mono"; /* the timer's own clock, CLOCK_MONOTONIC */
	options.worst_kept = WORST_KEPT;
	options.capture_margin_ns = opts->trace_dir ? NS_PER_MS : 0;
	ret = explain_run_begin(&x->run, opts->explain, root, &opts->measured, &options);
	free(lane_cpu);
	return ret;
}

static void count_sample(void *context, unsigned int thread, uint64_t cycle, uint64_t latency_ns)
{
	struct timer_explain *x = context;

	(void)cycle;
	hist_add(&x->seen[thread], latency_ns);
}

/* Spikes are the latencies above the p99 of what the thread saw so far. */
static void follow_p99(struct timer_explain *x, struct timer_run *run, unsigned int thread)
{
	uint64_t lost = timer_drain_samples(run, thread, &x->next_cycle[thread], count_sample, x);

	if (lost)
		log_debug("the p99 of thread %u misses %llu samples", thread,
			  (unsigned long long)lost);
	if (x->seen[thread].count >= MIN_SAMPLES_FOR_P99)
		timer_set_spike_threshold(run, thread, hist_percentile(&x->seen[thread], 99));
}

static void add_windows(struct timer_explain *x, struct timer_run *run, unsigned int thread)
{
	const struct timer_spike *spikes;
	struct timer_live live;
	size_t n, i;
	pid_t tid;

	/* the horizon first: every spike before it is published by then */
	timer_read_live(run, thread, &live, &tid);
	n = timer_spikes_published(run, thread, &spikes);
	for (i = x->next_spike[thread]; i < n; i++) {
		struct explain_window w = { 0 };

		w.start_ns = spikes[i].expiry_ns;
		w.end_ns = spikes[i].wakeup_ns;
		w.own_pid = tid;
		w.tag = spikes[i].cycle;
		explain_session_add_window(x->run.session, thread, &w);
	}
	x->next_spike[thread] = n;
	x->run.horizon[thread] = live.horizon_ns;
}

void timer_explain_pump(struct timer_explain *x, struct timer_run *run)
{
	unsigned int i;

	if (!x->run.session)
		return;
	for (i = 0; i < x->nr_threads; i++) {
		if (!x->explain_above_ns)
			follow_p99(x, run, i);
		add_windows(x, run, i);
	}
	explain_run_pump(&x->run);
}

int timer_explain_end(struct timer_explain *x, struct timer_run *run)
{
	uint64_t end_ns = 0, run_ns, origin = timer_origin_ns(run);
	unsigned int i;

	explain_run_stop_counters(&x->run);
	if (!x->run.session)
		return 0;
	timer_explain_pump(x, run);
	for (i = 0; i < x->nr_threads; i++) {
		const struct timer_stats *stats = timer_result(run, i);
		struct timer_live live;

		timer_read_live(run, i, &live, NULL);
		if (live.horizon_ns > end_ns)
			end_ns = live.horizon_ns;
		if (stats->spikes_dropped)
			log_warning("thread %u: %llu spikes beyond the %zu kept were not explained",
				    i, (unsigned long long)stats->spikes_dropped,
				    stats->spike_capacity);
	}
	run_ns = end_ns > origin ? end_ns - origin : 0;
	return explain_run_finish(&x->run, end_ns, run_ns);
}

/* The spike that broke a -b run, among the largest its thread's engine kept. */
static const struct explain_spike *break_spike(const struct timer_explain *x,
					       const struct timer_run *run, unsigned int *thread,
					       struct timer_spike *spike)
{
	const struct explain_spike *worst;
	unsigned int nr, i;

	if (!x->run.session || !timer_break(run, thread, spike))
		return NULL;
	worst = explain_cpu_worst(explain_session_lane(x->run.session, *thread), &nr);
	for (i = 0; i < nr; i++)
		if (worst[i].window.tag == spike->cycle)
			return &worst[i];
	return NULL;
}

/* First of all: what broke the run, the one spike a -b user asked about. */
static void report_break(FILE *out, const struct timer_explain *x, const struct timer_run *run,
			 const struct timer_options *opts)
{
	const struct explain_spike *explained;
	struct timer_spike spike;
	unsigned int thread;
	char prefix[96];

	explained = break_spike(x, run, &thread, &spike);
	if (!explained)
		return;
	snprintf(prefix, sizeof(prefix),
		 "\nthe spike that broke the run: thread %u (cpu %d), cycle %llu, ", thread,
		 opts->threads[thread].cpu, (unsigned long long)spike.cycle);
	explain_report_spike(out, prefix, explain_session_lane(x->run.session, thread), explained,
			     timer_origin_ns(run));
	if (opts->trace_dir)
		fprintf(out, "  its trace: %s/thread%u-spike1.txt\n", opts->trace_dir, thread);
}

void timer_explain_report(FILE *out, const struct timer_explain *x, const struct timer_run *run,
			  const struct timer_options *opts)
{
	unsigned int i;
	char heading[48];

	report_break(out, x, run, opts);
	for (i = 0; i < x->nr_threads; i++) {
		snprintf(heading, sizeof(heading), "thread %u (cpu %d)", i, opts->threads[i].cpu);
		explain_run_report(out, &x->run, i, opts->threads[i].cpu, heading, "spikes", 0,
				   timer_origin_ns(run));
	}
	explain_run_report_reader(out, &x->run);
}

json_t *timer_explain_break_json(const struct timer_explain *x, const struct timer_run *run)
{
	const struct explain_spike *explained;
	struct timer_spike spike;
	unsigned int thread;

	explained = break_spike(x, run, &thread, &spike);
	if (!explained)
		return NULL;
	return explain_result_spike(explain_session_lane(x->run.session, thread), explained);
}

void timer_explain_json(const struct timer_explain *x, const struct timer_options *opts,
			json_t *threads)
{
	unsigned int i;

	for (i = 0; i < x->nr_threads; i++)
		explain_run_json(&x->run, i, opts->threads[i].cpu, json_array_get(threads, i));
}

int timer_explain_write_captures(const struct timer_explain *x, const char *dir)
{
	return explain_run_write_captures(&x->run, dir, "thread", NULL);
}

void timer_explain_release(struct timer_explain *x)
{
	explain_run_release(&x->run);
	free(x->next_spike);
	free(x->next_cycle);
	free(x->seen);
	memset(x, 0, sizeof(*x));
}
