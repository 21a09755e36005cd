// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"
#include "explain_report.h"

#define WORST_SHOWN 5

static void print_causes(FILE *out, const struct explain_cpu *engine,
			 const struct explain_totals *totals)
{
	const struct explain_cause *causes;
	unsigned int n, i;

	causes = explain_cpu_causes(engine, &n);
	fprintf(out, "  %-40s %7s %11s %6s %11s  %s\n", "cause", "spikes", "total", "share", "max",
		"periodic");
	for (i = 0; i < n; i++) {
		const struct explain_cause *c = &causes[i];
		char label[128], total[32], max[32], period[32], duration[32];
		double share = totals->window_ns ?
				       100.0 * (double)c->total_ns / (double)totals->window_ns :
				       0;

		explain_cause_label(engine, c, label, sizeof(label));
		fprintf(out, "  %-40.40s %7llu %11s %5.1f%% %11s  ", label,
			(unsigned long long)c->spikes,
			format_duration(c->total_ns, total, sizeof(total)), share,
			format_duration(c->max_ns, max, sizeof(max)));
		if (c->periodic)
			fprintf(out, "%s every %s (%llu of %llu)\n",
				format_duration(c->period.duration_ns, duration, sizeof(duration)),
				format_duration(c->period.period_ns, period, sizeof(period)),
				(unsigned long long)c->period.seen,
				(unsigned long long)c->period.expected);
		else
			fprintf(out, "-\n");
	}
}

void explain_report_spike(FILE *out, const char *prefix, const struct explain_cpu *engine,
			  const struct explain_spike *s, uint64_t origin_ns)
{
	const struct explain_cause *causes;
	unsigned int nr_causes, k;
	char length[32];

	causes = explain_cpu_causes(engine, &nr_causes);
	fprintf(out, "%s%s at %.6f s%s\n", prefix,
		format_duration(s->window.end_ns - s->window.start_ns, length, sizeof(length)),
		(double)(s->window.start_ns - origin_ns) / 1e9,
		s->incomplete ? " (trace events were lost during it)" : "");
	for (k = 0; k < s->nr_segments; k++) {
		const struct explain_segment *g = &s->timeline[k];
		char offset[32], duration[32], label[128];

		fprintf(out, "       +%-12s %11s  %s\n",
			format_duration(g->start_ns - s->window.start_ns, offset, sizeof(offset)),
			format_duration(g->end_ns - g->start_ns, duration, sizeof(duration)),
			explain_cause_label(engine, &causes[g->cause], label, sizeof(label)));
	}
}

static void print_worst(FILE *out, const struct explain_cpu *engine, uint64_t origin_ns)
{
	const struct explain_spike *worst;
	unsigned int nr_worst, i;
	char prefix[16];

	worst = explain_cpu_worst(engine, &nr_worst);
	if (!nr_worst)
		return;
	fprintf(out, "  worst spikes:\n");
	for (i = 0; i < nr_worst && i < WORST_SHOWN; i++) {
		snprintf(prefix, sizeof(prefix), "  %u. ", i + 1);
		explain_report_spike(out, prefix, engine, &worst[i], origin_ns);
	}
}

void explain_report_cpu(FILE *out, const char *heading, const char *spike_word,
			const struct explain_cpu *engine, uint64_t steal_ns, uint64_t origin_ns)
{
	struct explain_totals totals;
	char total[32], steal[32];

	explain_cpu_totals(engine, &totals);
	fprintf(out, "\n%s: what the %llu %s (%s in all) were\n", heading,
		(unsigned long long)totals.windows, spike_word,
		format_duration(totals.window_ns, total, sizeof(total)));
	if (!totals.windows)
		return;
	print_causes(out, engine, &totals);
	fprintf(out, "  steal time meanwhile: %s%s\n",
		format_duration(steal_ns, steal, sizeof(steal)),
		steal_ns ? " (the hypervisor ran something else on this vCPU)" : "");
	if (totals.lost_events)
		fprintf(out, "  the trace lost %llu events; %llu %s overlap a loss\n",
			(unsigned long long)totals.lost_events,
			(unsigned long long)totals.incomplete, spike_word);
	print_worst(out, engine, origin_ns);
}

#define COUNTERS_SHOWN 12

void explain_report_counters(FILE *out, const char *heading, const struct counters_run *counters,
			     unsigned int cpu)
{
	struct counter_delta deltas[COUNTERS_SHOWN];
	unsigned int n, i;
	const char *why;
	uint64_t smi;

	n = counters_deltas(counters, cpu, deltas, COUNTERS_SHOWN);
	fprintf(out, "%s: interrupts and softirqs during the run:", heading);
	for (i = 0; i < n; i++)
		fprintf(out, "%s %s %llu", i ? "," : "", deltas[i].name,
			(unsigned long long)deltas[i].count);
	fprintf(out, "%s\n", n ? "" : " none");
	if (counters_smi(counters, cpu, &smi, &why))
		fprintf(out, "%s: SMIs: %llu%s\n", heading, (unsigned long long)smi,
			counters_smi_in_guest(counters) ? " (as seen by this guest)" : "");
	else
		fprintf(out, "%s: SMIs: not counted (%s)\n", heading, why);
}
