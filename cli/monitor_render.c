// SPDX-License-Identifier: GPL-2.0-or-later
/* What latscope monitor prints: its header, the live lines, the summary. */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latscope/exporter_http.h"
#include "latscope/hist.h"
#include "latscope/metrics.h"
#include "latscope/monitor_cpu.h"
#include "monitor_render.h"

/* causes named per CPU in the summary; the rest are in the metrics */
#define SUMMARY_CAUSES 5

static const char *policy_name(enum rt_policy policy)
{
	return policy == RT_POLICY_RR ? "rr" : "fifo";
}

static const char *outcome_text(enum state_outcome outcome)
{
	switch (outcome) {
	case STATE_CONTINUED:
		return "continued";
	case STATE_MISMATCH:
		return "new; another run's state kept as .old";
	case STATE_CORRUPT:
		return "new; the corrupt one kept as .corrupt";
	default:
		return "new";
	}
}

void monitor_render_header(FILE *out, const struct monitor_options *o, const struct monitor *m,
			   const struct monitor_setup *setup)
{
	const struct monitor_params *p = &o->params;
	char cpus[256], interval[32], window[32], every[32], host[160];
	const char *colon;

	fprintf(out, "latscope monitor: cpus %s%s every %s at %s %d, windows of %s\n",
		cpuset_format_list(monitor_cpus(m), cpus, sizeof(cpus)),
		o->cpus_given ? "" : " (the default)",
		format_duration(p->interval_ns, interval, sizeof(interval)), policy_name(p->policy),
		p->priority, format_duration(p->window_ns, window, sizeof(window)));
	/* the address as given, the port as bound */
	colon = strrchr(setup->listen, ':');
	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - setup->listen) : 0,
		 setup->listen);
	fprintf(out, "latscope monitor: serving %s://%s:%u/metrics%s%s\n",
		setup->tls ? "https" : "http", host[0] ? host : "0.0.0.0", setup->port,
		setup->tls ? " (TLS)" : "", setup->basic_auth ? " with basic auth" : "");
	fprintf(out, "latscope monitor: state %s (%s), checkpoint every %s\n", p->state_path,
		outcome_text(setup->outcome),
		format_duration(p->checkpoint_ns, every, sizeof(every)));
	if (p->textfile_dir)
		fprintf(out, "latscope monitor: textfile %s/latscope.prom every %s\n",
			p->textfile_dir,
			format_duration(p->textfile_every_ns, every, sizeof(every)));
	fprintf(out, "latscope monitor: explain %s; audit %s%s; %s; memory %s\n",
		p->explain ? "from tracepoints" : "off", p->audit_every_ns ? "every " : "off",
		p->audit_every_ns ? format_duration(p->audit_every_ns, every, sizeof(every)) : "",
		setup->dma_latency_held ? "/dev/cpu_dma_latency held at 0 us" :
					  "/dev/cpu_dma_latency left as it is",
		setup->memory_locked ? "locked" : "not locked");
	fflush(out);
}

/* A percentile of a snapshot's counts, as the monitor computes it for the state. */
static uint64_t percentile(const struct metrics_cpu *c, double percent)
{
	const struct monitor_cpu_reading r = {
		.count = c->count,
		.max_ns = c->max_ns,
		.zero_count = c->native.zero_count,
		.first = c->native.first,
		.nr = c->native.nr,
		.counts = c->native.counts,
	};

	return monitor_cpu_reading_percentile(&r, percent);
}

static uint64_t spikes_of(const struct metrics_cpu *c)
{
	uint64_t spikes = 0;
	unsigned int i;

	for (i = 0; i < c->nr_causes; i++)
		spikes += c->causes[i].spikes;
	return spikes;
}

void monitor_render_live(FILE *out, struct monitor *m, bool first)
{
	struct metrics *metrics = monitor_collect(m);
	unsigned int lane, nr = monitor_nr_cpus(m), cpu;
	char act[32], avg[32], max[32], p99[32], state_max[32], window[32];
	struct timer_live live;

	if (!first)
		fprintf(out, "\033[%uA", nr);
	for (lane = 0; lane < nr; lane++) {
		const struct metrics_cpu *c =
			metrics && lane < metrics->nr_cpus ? &metrics->cpus[lane] : NULL;

		fprintf(out, "\033[2K");
		if (!monitor_read_run(m, lane, &cpu, &live) || !c) {
			fprintf(out, "\n");
			continue;
		}
		fprintf(out,
			"cpu %3u: %10" PRIu64 " wake-ups  act %9s avg %9s max %10s us | state p99 "
			"%9s max %10s us, window max %s",
			cpu, live.cycles, format_us(live.act_ns, act, sizeof(act)),
			format_us(live.cycles ? live.sum_ns / live.cycles : 0, avg, sizeof(avg)),
			format_us(live.max_ns, max, sizeof(max)),
			format_us(percentile(c, 99), p99, sizeof(p99)),
			format_us(c->max_ns, state_max, sizeof(state_max)),
			c->has_window ? format_us(c->window_max_ns, window, sizeof(window)) : "-");
		if (c->missed)
			fprintf(out, ", missed %" PRIu64, c->missed);
		if (c->explained)
			fprintf(out, ", %" PRIu64 " spikes explained", spikes_of(c));
		fprintf(out, "\n");
	}
	fflush(out);
	metrics_free(metrics);
}

void monitor_render_live_clear(FILE *out, const struct monitor *m)
{
	unsigned int i, nr = monitor_nr_cpus(m);

	fprintf(out, "\033[%uA", nr);
	for (i = 0; i < nr; i++)
		fprintf(out, "\033[2K\n");
	fprintf(out, "\033[%uA", nr);
}

const char *monitor_end_name(enum monitor_end end)
{
	switch (end) {
	case MONITOR_END_COMPLETE:
		return "complete";
	case MONITOR_END_FAILED:
		return "failed";
	default:
		return "stopped";
	}
}

static int by_spikes(const void *a, const void *b)
{
	const struct metrics_cause *x = a, *y = b;

	if (x->spikes != y->spikes)
		return x->spikes < y->spikes ? 1 : -1;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static void print_causes(FILE *out, struct metrics_cpu *c)
{
	char ns[32];
	unsigned int i;

	fprintf(out, "# cpu %3u explained:", c->cpu);
	qsort(c->causes, c->nr_causes, sizeof(*c->causes), by_spikes);
	for (i = 0; i < c->nr_causes && i < SUMMARY_CAUSES; i++)
		fprintf(out, "%s %s (%s) %" PRIu64 " spikes %s", i ? "," : "", c->causes[i].name,
			c->causes[i].kind, c->causes[i].spikes,
			format_duration(c->causes[i].ns, ns, sizeof(ns)));
	if (!c->nr_causes)
		fprintf(out, " no spike yet");
	else if (c->nr_causes > SUMMARY_CAUSES)
		fprintf(out, " and %u more causes", c->nr_causes - SUMMARY_CAUSES);
	fprintf(out, "; trace events lost: %" PRIu64 "\n", c->lost_events);
}

void monitor_render_summary(FILE *out, struct monitor *m, enum monitor_end end, int signo,
			    uint64_t elapsed_ns)
{
	struct metrics *metrics = monitor_collect(m);
	unsigned int lane, cpu, i, j;
	char elapsed[32], a[32], b[32], c_[32];
	struct timer_live live;

	fprintf(out, "# latscope monitor: %s after %s", monitor_end_name(end),
		format_duration(elapsed_ns, elapsed, sizeof(elapsed)));
	if (end == MONITOR_END_STOPPED && signo)
		fprintf(out, " (SIG%s)", sigabbrev_np(signo));
	fprintf(out, "; latencies in us; 'state' counts since the state began\n");
	for (lane = 0; lane < monitor_nr_cpus(m); lane++) {
		struct metrics_cpu *c =
			metrics && lane < metrics->nr_cpus ? &metrics->cpus[lane] : NULL;

		if (!monitor_read_run(m, lane, &cpu, &live))
			continue;
		fprintf(out, "# cpu %3u this run: %" PRIu64 " wake-ups, min %s avg %s max %s\n",
			cpu, live.cycles, format_us(live.min_ns, a, sizeof(a)),
			format_us(live.cycles ? live.sum_ns / live.cycles : 0, b, sizeof(b)),
			format_us(live.max_ns, c_, sizeof(c_)));
		if (!c)
			continue;
		fprintf(out, "# cpu %3u state: %" PRIu64 " wake-ups,", cpu, c->count);
		for (j = 0; j < HIST_NR_REPORTED; j++)
			fprintf(out, " p%g %s", hist_reported_percentiles[j],
				format_us(percentile(c, hist_reported_percentiles[j]), a,
					  sizeof(a)));
		fprintf(out, " max %s, missed %" PRIu64 " period%s",
			format_us(c->max_ns, a, sizeof(a)), c->missed, c->missed == 1 ? "" : "s");
		if (c->has_window)
			fprintf(out, ", last window max %s",
				format_us(c->window_max_ns, a, sizeof(a)));
		fprintf(out, "\n");
		if (c->explained)
			print_causes(out, c);
	}
	if (metrics && metrics->nr_failed) {
		fprintf(out, "# audit: %u rule%s fail:", metrics->nr_failed,
			metrics->nr_failed == 1 ? "" : "s");
		for (i = 0; i < metrics->nr_failed; i++)
			fprintf(out, "%s %s (%s)", i ? "," : "", metrics->failed[i].id,
				metrics->failed[i].severity);
		fprintf(out, " (latscope check says why)\n");
	}
	fflush(out);
	metrics_free(metrics);
}
