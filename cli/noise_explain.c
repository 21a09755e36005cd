// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_report.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "noise_explain.h"

#define WORST_KEPT 5

int noise_explain_begin(struct noise_explain *x, enum explain_choice choice, struct noise_run *run,
			struct sysroot *root, const struct rt_throttling *limit,
			bool keep_raw_events)
{
	struct explain_session_options options = { 0 };
	unsigned int *lane_cpu, i;

	memset(x, 0, sizeof(*x));
	x->choice = choice;
	x->limit = limit;
	if (choice == EXPLAIN_OFF)
		return 0;
	x->counters = counters_begin(root, &run->params.cpus);
	if (choice == EXPLAIN_WITH_COUNTERS)
		return 0;
	x->next_gap = calloc(run->nr_cpus, sizeof(*x->next_gap));
	x->horizon = calloc(run->nr_cpus, sizeof(*x->horizon));
	if (!x->next_gap || !x->horizon)
		return -ENOMEM;
	/* one lane per measured CPU, in the run's order */
	lane_cpu = calloc(run->nr_cpus, sizeof(*lane_cpu));
	if (!lane_cpu)
		return -ENOMEM;
	for (i = 0; i < run->nr_cpus; i++)
		lane_cpu[i] = run->cpus[i].cpu;
	options.nr_lanes = run->nr_cpus;
	options.lane_cpu = lane_cpu;
	options.mode = EXPLAIN_NOISE;
	/* the trace must tell time with the loop's own clock */
	options.clock = run->clock.use_tsc ? "x86-tsc" : "mono_raw";
	options.tsc = &run->clock;
	options.worst_kept = WORST_KEPT;
	options.capture_margin_ns = keep_raw_events ? NS_PER_MS : 0;
	x->session = explain_session_start(&options);
	free(lane_cpu);
	if (!x->session) {
		log_warning("cannot trace: explaining with interrupt and softirq counts only");
		x->choice = EXPLAIN_WITH_COUNTERS;
	}
	return 0;
}

/* Gaps published since the last call become windows; returns the horizon. */
static uint64_t add_windows(struct noise_explain *x, const struct noise_run *run, unsigned int i)
{
	const struct noise_cpu *c = &run->cpus[i];
	struct noise_live live;
	size_t n, g;

	/* the stamp first: every gap before it is published by then */
	noise_read_live(c, &live);
	n = noise_gaps_published(c);
	for (g = x->next_gap[i]; g < n; g++) {
		struct explain_window w = { 0 };

		w.start_ns = noise_stamp_ns(run, c->gaps[g].stamp);
		w.end_ns = w.start_ns + c->gaps[g].duration_ns;
		w.own_pid = run->workers[i].tid;
		w.throttled = noise_gap_is_throttling(run, x->limit, c->gaps[g].duration_ns);
		w.tag = g;
		explain_session_add_window(x->session, i, &w);
	}
	x->next_gap[i] = n;
	return noise_stamp_ns(run, live.stamp);
}

void noise_explain_pump(struct noise_explain *x, const struct noise_run *run)
{
	unsigned int i;

	if (!x->session)
		return;
	for (i = 0; i < run->nr_cpus; i++)
		x->horizon[i] = add_windows(x, run, i);
	if (explain_session_pump(x->session, x->horizon))
		log_warning("cannot read the trace");
}

int noise_explain_end(struct noise_explain *x, const struct noise_run *run)
{
	uint64_t end_ns = 0, run_ns = 0, stamp;
	unsigned int i;

	if (x->counters)
		counters_end(x->counters);
	if (!x->session)
		return 0;
	noise_explain_pump(x, run);
	explain_session_stop_tracing(x->session);
	for (i = 0; i < run->nr_cpus; i++) {
		stamp = noise_stamp_ns(run, run->cpus[i].last_stamp);
		if (stamp > end_ns)
			end_ns = stamp;
		if (noise_cpu_run_ns(run, &run->cpus[i]) > run_ns)
			run_ns = noise_cpu_run_ns(run, &run->cpus[i]);
	}
	return explain_session_finish(x->session, end_ns, run_ns);
}

void noise_explain_report(FILE *out, const struct noise_explain *x, const struct noise_run *run)
{
	unsigned int i;
	char heading[32];

	if (x->choice == EXPLAIN_OFF)
		return;
	for (i = 0; i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];

		snprintf(heading, sizeof(heading), "cpu %u", c->cpu);
		if (x->session)
			explain_report_cpu(out, heading, "gaps",
					   explain_session_lane(x->session, i), c->steal_ns,
					   noise_stamp_ns(run, c->first_stamp));
		else
			fputc('\n', out);
		if (x->counters)
			explain_report_counters(out, heading, x->counters, c->cpu);
	}
}

void noise_explain_json(const struct noise_explain *x, const struct noise_run *run, json_t *cpus)
{
	unsigned int i;

	if (x->choice == EXPLAIN_OFF)
		return;
	for (i = 0; i < run->nr_cpus; i++)
		explain_annotate_json(json_array_get(cpus, i), x->session, i, x->counters,
				      (int)run->cpus[i].cpu);
}

int noise_explain_write_captures(const struct noise_explain *x, const struct noise_run *run,
				 const char *dir)
{
	unsigned int *cpus, i;
	int ret;

	if (!x->session)
		return 0;
	cpus = calloc(run->nr_cpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (i = 0; i < run->nr_cpus; i++)
		cpus[i] = run->cpus[i].cpu;
	ret = explain_session_write_captures(x->session, dir, "cpu", cpus);
	free(cpus);
	return ret;
}

void noise_explain_release(struct noise_explain *x)
{
	explain_session_free(x->session);
	counters_free(x->counters);
	free(x->next_gap);
	free(x->horizon);
	memset(x, 0, sizeof(*x));
}
