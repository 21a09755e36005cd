// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_report.h"
#include "latscope/explain_result.h"
#include "latscope/parse.h"
#include "noise_explain.h"

#define WORST_KEPT 5

/* The measured CPUs in the run's order: lane i is run->cpus[i]. */
static unsigned int *lane_cpus(const struct noise_run *run)
{
	unsigned int *cpus = calloc(run->nr_cpus, sizeof(*cpus)), i;

	for (i = 0; cpus && i < run->nr_cpus; i++)
		cpus[i] = run->cpus[i].cpu;
	return cpus;
}

int noise_explain_begin(struct noise_explain *x, enum explain_choice choice, struct noise_run *run,
			struct sysroot *root, const struct rt_throttling *limit,
			bool keep_raw_events)
{
	struct explain_session_options options = { 0 };
	unsigned int *lane_cpu;
	int ret;

	memset(x, 0, sizeof(*x));
	if (choice == EXPLAIN_OFF)
		return 0;
	x->limit = limit;
	lane_cpu = lane_cpus(run);
	x->next_gap = calloc(run->nr_cpus, sizeof(*x->next_gap));
	if (!lane_cpu || !x->next_gap) {
		free(lane_cpu);
		return -ENOMEM;
	}
	options.nr_lanes = run->nr_cpus;
	options.lane_cpu = lane_cpu;
	options.mode = EXPLAIN_NOISE;
	/* the trace must tell time with the loop's own clock */
	options.clock = run->clock.use_tsc ? "x86-tsc" : "mono_raw";
	options.tsc = &run->clock;
	options.worst_kept = WORST_KEPT;
	options.capture_margin_ns = keep_raw_events ? NS_PER_MS : 0;
	ret = explain_run_begin(&x->run, choice, root, &run->params.cpus, &options);
	free(lane_cpu);
	return ret;
}

/* Gaps drained since the last call become windows; returns the horizon. */
static uint64_t add_windows(struct noise_explain *x, const struct noise_run *run, unsigned int i)
{
	const struct noise_cpu *c = &run->cpus[i];
	size_t n = c->nr_gaps, g;

	for (g = x->next_gap[i]; g < n; g++) {
		struct explain_window w = { 0 };

		w.start_ns = noise_stamp_ns(run, c->gaps[g].stamp);
		w.end_ns = w.start_ns + c->gaps[g].duration_ns;
		w.own_pid = run->workers[i].tid;
		w.throttled = noise_gap_is_throttling(run, x->limit, c->gaps[g].duration_ns);
		w.tag = g;
		explain_session_add_window(x->run.session, i, &w);
	}
	x->next_gap[i] = n;
	return noise_stamp_ns(run, c->drained_stamp);
}

void noise_explain_pump(struct noise_explain *x, const struct noise_run *run)
{
	unsigned int i;

	if (!x->run.session)
		return;
	for (i = 0; i < run->nr_cpus; i++)
		x->run.horizon[i] = add_windows(x, run, i);
	explain_run_pump(&x->run);
}

int noise_explain_end(struct noise_explain *x, const struct noise_run *run)
{
	uint64_t end_ns = 0, run_ns = 0, stamp;
	unsigned int i;

	explain_run_stop_counters(&x->run);
	if (!x->run.session)
		return 0;
	noise_explain_pump(x, run);
	for (i = 0; i < run->nr_cpus; i++) {
		stamp = noise_stamp_ns(run, run->cpus[i].last_stamp);
		if (stamp > end_ns)
			end_ns = stamp;
		if (noise_cpu_run_ns(run, &run->cpus[i]) > run_ns)
			run_ns = noise_cpu_run_ns(run, &run->cpus[i]);
	}
	return explain_run_finish(&x->run, end_ns, run_ns);
}

int noise_explain_gap_causes(const struct noise_explain *x, struct noise_run *run)
{
	unsigned int i;

	for (i = 0; x->run.session && i < run->nr_cpus; i++) {
		struct noise_cpu *c = &run->cpus[i];

		free(c->gap_causes);
		c->gap_causes = malloc((c->nr_gaps ? c->nr_gaps : 1) * sizeof(*c->gap_causes));
		if (!c->gap_causes)
			return -ENOMEM;
		/* a window's tag is its gap's index */
		explain_cpu_window_causes(explain_run_engine(&x->run, i), c->gap_causes,
					  c->nr_gaps);
	}
	return 0;
}

int noise_explain_join(struct noise_explain *x, const struct noise_run *run)
{
	unsigned int i;
	size_t g;
	int ret = 0;

	for (i = 0; x->run.session && !ret && i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];
		struct window_source *windows;

		if (!c->gap_source || !c->nr_periodic)
			continue;
		/* a window's tag is its gap's index */
		windows = malloc((c->nr_gaps ? c->nr_gaps : 1) * sizeof(*windows));
		if (!windows)
			return -ENOMEM;
		for (g = 0; g < c->nr_gaps; g++) {
			windows[g].source = c->gap_source[g];
			windows[g].slot =
				c->gap_source[g] == PERIOD_UNASSIGNED ?
					0 :
					period_slot(&c->periodic[c->gap_source[g]],
						    noise_gap_start_ns(run, c, &c->gaps[g]));
		}
		ret = explain_run_join_sources(&x->run, i, c->periodic,
					       (unsigned int)c->nr_periodic, windows, c->nr_gaps);
		free(windows);
	}
	return ret;
}

const char *noise_explain_source_causes(const struct noise_explain *x, unsigned int lane,
					unsigned int source, char *buf, size_t size)
{
	const struct explain_cpu *engine = explain_run_engine(&x->run, lane);

	buf[0] = '\0';
	if (!engine)
		return buf;
	return explain_report_source_causes(engine, explain_run_join(&x->run, lane), source, buf,
					    size);
}

bool noise_explain_same_causes(const struct noise_explain *x, unsigned int lane, unsigned int a,
			       unsigned int b)
{
	const struct explain_join *join = explain_run_join(&x->run, lane);
	const struct explain_source *sa, *sb;
	unsigned int k;

	if (!join)
		return true;
	sa = explain_join_source(join, a);
	sb = explain_join_source(join, b);
	if (!sa || !sb)
		return !sa && !sb;
	if (sa->nr_main != sb->nr_main)
		return false;
	for (k = 0; k < sa->nr_main; k++)
		if (sa->causes[k].cause != sb->causes[k].cause)
			return false;
	return true;
}

void noise_explain_report(FILE *out, const struct noise_explain *x, const struct noise_run *run)
{
	unsigned int i;
	char heading[32];

	for (i = 0; i < run->nr_cpus; i++) {
		const struct noise_cpu *c = &run->cpus[i];

		snprintf(heading, sizeof(heading), "cpu %u", c->cpu);
		explain_run_report(out, &x->run, i, (int)c->cpu, heading, "gaps", c->steal_ns,
				   noise_stamp_ns(run, c->first_stamp));
	}
	explain_run_report_reader(out, &x->run);
}

void noise_explain_json(const struct noise_explain *x, const struct noise_run *run, json_t *cpus)
{
	unsigned int i;

	for (i = 0; i < run->nr_cpus; i++) {
		const struct explain_cpu *engine = explain_run_engine(&x->run, i);
		json_t *entry = json_array_get(cpus, i);

		explain_run_json(&x->run, i, (int)run->cpus[i].cpu, entry);
		if (engine)
			explain_result_sources(engine, explain_session_names(x->run.session),
					       explain_run_join(&x->run, i),
					       json_object_get(entry, "periodic"));
	}
}

int noise_explain_write_captures(const struct noise_explain *x, const struct noise_run *run,
				 const char *dir)
{
	unsigned int *cpus = lane_cpus(run);
	int ret = cpus ? explain_run_write_captures(&x->run, dir, "cpu", cpus) : -ENOMEM;

	free(cpus);
	return ret;
}

void noise_explain_release(struct noise_explain *x)
{
	explain_run_release(&x->run);
	free(x->next_gap);
	memset(x, 0, sizeof(*x));
}
