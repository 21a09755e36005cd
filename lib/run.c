// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/run.h"

static void free_parts(struct run_part *parts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(parts[i].label);
	free(parts);
}

static void free_counters(struct run_counter *counters, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(counters[i].name);
	free(counters);
}

static void free_series(struct run_series *s)
{
	unsigned int i;

	free(s->label);
	free(s->percentiles);
	free(s->histogram.buckets);
	free(s->events);
	for (i = 0; i < s->nr_periodic; i++)
		free(s->periodic[i].cause);
	free(s->periodic);
	for (i = 0; i < s->nr_causes; i++) {
		free(s->causes[i].kind_name);
		free(s->causes[i].label);
	}
	free(s->causes);
	for (i = 0; i < s->nr_worst; i++) {
		free_parts(s->worst[i].split, s->worst[i].nr_split);
		free_parts(s->worst[i].timeline, s->worst[i].nr_timeline);
	}
	free(s->worst);
	free_counters(s->interrupts, s->nr_interrupts);
	free_counters(s->softirqs, s->nr_softirqs);
	free(s->block_max_ns);
	if (s->time_blocks)
		time_blocks_release(s->time_blocks);
	free(s->time_blocks);
	free(s->windows);
}

static void free_host(struct run_host *h)
{
	free(h->nodename);
	free(h->kernel);
	free(h->kernel_version);
	free(h->machine);
	free(h->cpu_model);
	free(h->cmdline);
	free(h->virtualization);
	free(h->clocksource);
}

void run_free(struct run *run)
{
	unsigned int i;

	if (!run)
		return;
	free(run->path);
	free(run->command);
	free(run->subcommand);
	free(run->tool_version);
	free(run->command_line);
	free_host(&run->host);
	for (i = 0; i < run->nr_series; i++)
		free_series(&run->series[i]);
	free(run->series);
	jsondoc_free(run->doc);
	for (i = 0; i < run->nr_parts; i++)
		run_free(run->parts[i]);
	free(run->parts);
	for (i = 0; i < run->nr_notes; i++)
		free(run->notes[i]);
	free(run->notes);
	free(run);
}

const char *run_kind_name(enum run_kind kind)
{
	static const char *const names[] = {
		[RUN_NOISE] = "noise",	 [RUN_TIMER] = "timer",		  [RUN_CHECK] = "check",
		[RUN_IRQ] = "irq",	 [RUN_MONITOR] = "monitor",	  [RUN_COMPARE] = "compare",
		[RUN_DOCTOR] = "doctor", [RUN_CYCLICTEST] = "cyclictest", [RUN_OSLAT] = "oslat",
	};

	return (unsigned int)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *run_format_name(enum run_format format)
{
	switch (format) {
	case RUN_FORMAT_LATSCOPE:
		return "latscope JSON";
	case RUN_FORMAT_CYCLICTEST_JSON:
		return "cyclictest JSON";
	case RUN_FORMAT_OSLAT_JSON:
		return "oslat JSON";
	case RUN_FORMAT_CYCLICTEST_TEXT:
		return "cyclictest -h text";
	}
	return "?";
}

static const struct {
	const char *name; /* as latscope writes it */
	const char *title; /* as a page shows it */
} cause_kinds[RUN_CAUSE_KINDS] = {
	[RUN_CAUSE_TIMER_DELAY] = { "timer_delay", "timer irq delay" },
	[RUN_CAUSE_IRQ] = { "irq", "IRQ" },
	[RUN_CAUSE_VECTOR] = { "vector", "system vector" },
	[RUN_CAUSE_SOFTIRQ] = { "softirq", "softirq" },
	[RUN_CAUSE_NMI] = { "nmi", "NMI" },
	[RUN_CAUSE_THREAD] = { "thread", "thread" },
	[RUN_CAUSE_SCHEDULING] = { "scheduling", "scheduling" },
	[RUN_CAUSE_THROTTLING] = { "throttling", "RT throttling" },
	[RUN_CAUSE_UNEXPLAINED] = { "unexplained", "unexplained" },
	[RUN_CAUSE_OTHER] = { "other", "other" },
};

const char *run_cause_kind_name(enum run_cause_kind kind)
{
	return (unsigned int)kind < RUN_CAUSE_KINDS ? cause_kinds[kind].title : "other";
}

enum run_cause_kind run_cause_kind_of(const char *name)
{
	unsigned int i;

	if (!name)
		return RUN_CAUSE_OTHER;
	for (i = 0; i < RUN_CAUSE_KINDS; i++)
		if (!strcmp(name, cause_kinds[i].name))
			return (enum run_cause_kind)i;
	/* names of the explain engine that read differently */
	if (!strcmp(name, "switch") || !strcmp(name, "sched") || !strcmp(name, "schedule"))
		return RUN_CAUSE_SCHEDULING;
	if (!strcmp(name, "throttled"))
		return RUN_CAUSE_THROTTLING;
	return RUN_CAUSE_OTHER;
}

bool run_kind_measures(enum run_kind kind)
{
	switch (kind) {
	case RUN_NOISE:
	case RUN_TIMER:
	case RUN_MONITOR:
	case RUN_CYCLICTEST:
	case RUN_OSLAT:
		return true;
	default:
		return false;
	}
}

bool run_is_measurement(const struct run *run)
{
	return run_kind_measures(run->kind) && run->nr_series > 0;
}

int run_histogram_quantile(const struct run_histogram *h, double fraction, uint64_t *ns)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->present || !h->total)
		return -ENODATA;
	if (fraction <= 0)
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	rank = (uint64_t)ceil(fraction * (double)h->total);
	if (!rank)
		rank = 1;
	for (i = 0; i < h->nr_buckets; i++) {
		seen += h->buckets[i].count;
		if (seen >= rank) {
			*ns = h->buckets[i].high_ns;
			return 0;
		}
	}
	*ns = h->overflow_from_ns;
	return -ERANGE;
}

uint64_t run_histogram_above(const struct run_histogram *h, uint64_t ns, bool *exact)
{
	uint64_t above = 0;
	unsigned int i;

	*exact = true;
	if (!h->present)
		return 0;
	for (i = h->nr_buckets; i-- > 0;) {
		const struct run_bucket *b = &h->buckets[i];

		if (b->high_ns <= ns)
			break;
		above += b->count;
		if (b->low_ns <= ns)
			*exact = false;
	}
	if (h->overflow) {
		above += h->overflow;
		if (!run_has(h->overflow_from_ns) || h->overflow_from_ns <= ns)
			*exact = false;
	}
	return above;
}
