// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"
#include "explain_report.h"
#include "latscope/explain_analysis.h"

#define WORST_SHOWN 5

/* The column where the periodic trains of a cause begin. */
#define PERIODS_COLUMN 83

/* A cause as a list names it: the unexplained time without its gloss. */
static char *short_label(const struct explain_cpu *engine, const struct explain_cause *cause,
			 char *buf, size_t size)
{
	if (cause->key.kind == CAUSE_UNEXPLAINED) {
		snprintf(buf, size, "unexplained");
		return buf;
	}
	return explain_cause_label(engine, cause, buf, size);
}

static bool is_local_timer(const struct explain_cause *cause)
{
	return cause->key.kind == CAUSE_VECTOR && cause->key.id == VECTOR_LOCAL_TIMER;
}

/*
 * What a train shares its gaps with: "with local_timer", "alone". For the
 * unexplained time the two common cases are named: beside local_timer (the
 * guest's tick, its hrtimers) it is the VM exit each timer interrupt costs,
 * alone it is the host (or firmware).
 */
static void format_company(const struct explain_cpu *engine, const struct explain_cause *causes,
			   const struct explain_cause *cause, const struct explain_train *train,
			   bool virtual_machine, char *buf, size_t size)
{
	bool unexplained = cause->key.kind == CAUSE_UNEXPLAINED;
	char label[128];
	size_t used = 0;
	unsigned int k;

	buf[0] = '\0';
	if (train->alone) {
		snprintf(buf, size, ", alone%s",
			 !unexplained	 ? "" :
			 virtual_machine ? ": the host" :
					   ": firmware (SMI) or the kernel's entry code");
		return;
	}
	for (k = 0; k < train->nr_with && used < size; k++) {
		const struct explain_cause *other = &causes[train->with[k]];

		used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : ", with ",
					 short_label(engine, other, label, sizeof(label)));
	}
	if (unexplained && train->nr_with && is_local_timer(&causes[train->with[0]]) && used < size)
		snprintf(buf + used, size - used, "%s",
			 virtual_machine ? ": the VM exit of the timer interrupt" :
					   ": the timer interrupt's entry and exit");
}

/* Keep in @common only the company @other has too. */
static void share_company(struct explain_train *common, const struct explain_train *other)
{
	unsigned int k, m, kept = 0;

	common->alone &= other->alone;
	for (k = 0; k < common->nr_with; k++)
		for (m = 0; m < other->nr_with; m++)
			if (other->with[m] == common->with[k]) {
				common->with[kept++] = common->with[k];
				break;
			}
	common->nr_with = kept;
}

/* Whether a train of the phase group @group is a source of the period list. */
static bool group_is_listed(const struct explain_train *trains, unsigned int nr, size_t group)
{
	unsigned int k;

	for (k = 0; k < nr; k++)
		if (trains[k].phase_group == group && trains[k].source != PERIOD_UNASSIGNED)
			return true;
	return false;
}

/*
 * One line for a period of a cause: a train, or the trains of one period at
 * distinct phases as one ("2 phases (124 + 119 of 167)").
 */
static void print_period(FILE *out, const struct explain_cpu *engine,
			 const struct explain_cause *causes, const struct explain_cause *cause,
			 const struct explain_train *trains, unsigned int nr, unsigned int t,
			 bool virtual_machine)
{
	char duration[32], period[32], faster[32], company[512], counts[128];
	const struct explain_train *train = &trains[t];
	uint64_t seen = 0, expected = 0;
	struct explain_train common = *train;
	unsigned int k, phases = 0;
	double weighted = 0;
	size_t used = 0;
	int nested_in;

	for (k = t; k < nr; k++) {
		if (trains[k].phase_group != t)
			continue;
		used += (size_t)snprintf(
			counts + used, used < sizeof(counts) ? sizeof(counts) - used : 0, "%s%llu",
			phases ? " + " : "", (unsigned long long)trains[k].period.seen);
		weighted += (double)trains[k].period.duration_ns * (double)trains[k].period.seen;
		seen += trains[k].period.seen;
		if (trains[k].period.expected > expected)
			expected = trains[k].period.expected;
		if (k != t)
			share_company(&common, &trains[k]);
		phases++;
	}
	format_company(engine, causes, cause, &common, virtual_machine, company, sizeof(company));
	nested_in = explain_train_nested_in(trains, nr, t);
	if (phases == 1 && nested_in >= 0)
		/* its gaps hold the faster train's occurrences: what it adds to them */
		fprintf(out, "%s more every %s (%s of %llu), in its %s train%s\n",
			format_duration(train->period.duration_ns, duration, sizeof(duration)),
			format_duration(train->period.period_ns, period, sizeof(period)), counts,
			(unsigned long long)expected,
			format_duration(trains[nested_in].period.period_ns, faster, sizeof(faster)),
			company);
	else if (phases == 1)
		fprintf(out, "%s every %s (%s of %llu)%s\n",
			format_duration(train->period.duration_ns, duration, sizeof(duration)),
			format_duration(train->period.period_ns, period, sizeof(period)), counts,
			(unsigned long long)expected, company);
	else
		fprintf(out, "~%s every %s, %u phases (%s of %llu)%s\n",
			format_duration(seen ? (uint64_t)(weighted / (double)seen) : 0, duration,
					sizeof(duration)),
			format_duration(train->period.period_ns, period, sizeof(period)), phases,
			counts, (unsigned long long)expected, company);
}

/* Periods of a cause shown in the table; the JSON has them all. */
#define PERIODS_SHOWN 3

/*
 * Every period of a cause, one per line: first those the period list
 * shows (never left out: the two tell one story), then the others, most
 * occurrences first, up to PERIODS_SHOWN lines.
 */
static void print_trains(FILE *out, const struct explain_cpu *engine,
			 const struct explain_cause *causes, const struct explain_cause *cause,
			 const struct explain_train *trains, unsigned int nr, bool virtual_machine)
{
	unsigned int t, lines = 0, hidden = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (t = 0; t < nr; t++) {
			if (trains[t].phase_group != t ||
			    group_is_listed(trains, nr, t) != (pass == 0))
				continue;
			if (pass == 1 && lines >= PERIODS_SHOWN) {
				hidden++;
				continue;
			}
			if (lines++)
				fprintf(out, "%*s", PERIODS_COLUMN, "");
			print_period(out, engine, causes, cause, trains, nr, t, virtual_machine);
		}
	}
	if (hidden)
		fprintf(out, "%*s(%u more period%s in --json)\n", PERIODS_COLUMN, "", hidden,
			hidden > 1 ? "s" : "");
	if (!lines)
		fprintf(out, "-\n");
}

static void print_causes(FILE *out, const struct explain_cpu *engine,
			 const struct explain_join *join, bool virtual_machine,
			 const struct explain_totals *totals)
{
	const struct explain_cause *causes;
	const struct explain_train *trains;
	struct explain_train own[PERIOD_MAX_SOURCES];
	unsigned int n, i, nr;

	causes = explain_cpu_causes(engine, &n);
	fprintf(out, "  %-40s %7s %11s %6s %11s  %s\n", "cause", "spikes", "total", "share", "max",
		"periodic");
	for (i = 0; i < n; i++) {
		const struct explain_cause *c = &causes[i];
		char label[128], total[32], max[32];
		double share = totals->window_ns ?
				       100.0 * (double)c->total_ns / (double)totals->window_ns :
				       0;

		explain_cause_label(engine, c, label, sizeof(label));
		fprintf(out, "  %-40.40s %7llu %11s %5.1f%% %11s  ", label,
			(unsigned long long)c->spikes,
			format_duration(c->total_ns, total, sizeof(total)), share,
			format_duration(c->max_ns, max, sizeof(max)));
		/* no join (out of memory): the cause's own trains, bare */
		trains = own;
		if (join)
			trains = explain_join_trains(join, i, &nr);
		else
			nr = explain_own_trains(c, own);
		print_trains(out, engine, causes, c, trains, nr, virtual_machine);
	}
}

/*
 * A spike in rtla's words: "IRQ latency 12 us (IRQ handler delay 10 us),
 * timer IRQ 3 us, blocking thread lab-fifo:204 (rt 90) 1.98 ms, thread
 * latency 2.0 ms"; the interference by class after the handler.
 */
static void print_analysis(FILE *out, const struct explain_cpu *engine,
			   const struct explain_spike *s)
{
	const struct explain_cause *causes;
	struct explain_analysis a;
	char a1[32], a2[32], a3[32], label[128];
	unsigned int nr, k;
	const char *sep = " ";

	causes = explain_cpu_causes(engine, &nr);
	explain_analyse(engine, s, &a);
	if (a.has_irq_latency) {
		fprintf(out, "       IRQ latency %s (IRQ handler delay %s, previous IRQs %s)",
			format_duration(a.irq_latency_ns, a1, sizeof(a1)),
			format_duration(a.part_ns[PART_IRQ_HANDLER_DELAY], a2, sizeof(a2)),
			format_duration(a.previous_irq_ns, a3, sizeof(a3)));
		if (a.handler != UINT32_MAX)
			fprintf(out, ", timer IRQ %s",
				format_duration(a.part_ns[PART_TIMER_IRQ], a1, sizeof(a1)));
		if (a.blocking_thread != UINT32_MAX)
			fprintf(out, ", blocking thread %s %s",
				explain_cause_label(engine, &causes[a.blocking_thread], label,
						    sizeof(label)),
				format_duration(a.blocking_ns, a1, sizeof(a1)));
		fprintf(out, "\n");
	}
	fprintf(out, "       interference:");
	for (k = 0; k < EXPLAIN_INTERFERENCES; k++) {
		fprintf(out, "%s%s %s", sep, explain_part_words(explain_interferences[k]),
			format_duration(a.interference_ns[explain_interferences[k]], a1,
					sizeof(a1)));
		sep = ", ";
	}
	fprintf(out, "; largest part: %s\n", explain_part_words(a.main));
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
	print_analysis(out, engine, s);
	for (k = 0; k < s->nr_segments; k++) {
		const struct explain_segment *g = &s->timeline[k];
		char offset[32], duration[32], label[128];

		fprintf(out, "       +%-12s %11s  %s\n",
			format_duration(g->start_ns - s->window.start_ns, offset, sizeof(offset)),
			format_duration(g->end_ns - g->start_ns, duration, sizeof(duration)),
			explain_cause_label(engine, &causes[g->cause], label, sizeof(label)));
	}
}

/* Every spike by its largest part: "thread 141, IRQ handler delay 30". */
static void print_main_parts(FILE *out, const struct explain_totals *totals, const char *spike_word)
{
	const char *sep = " ";
	unsigned int i;

	fprintf(out, "  %s by their largest part:", spike_word);
	for (i = 0; i < EXPLAIN_PARTS; i++) {
		if (!totals->by_main_part[i])
			continue;
		fprintf(out, "%s%s %llu", sep, explain_part_words((enum explain_part)i),
			(unsigned long long)totals->by_main_part[i]);
		sep = ", ";
	}
	fprintf(out, "\n");
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
			const struct explain_cpu *engine, const struct explain_join *join,
			bool virtual_machine, uint64_t steal_ns, uint64_t origin_ns)
{
	struct explain_totals totals;
	char total[32], steal[32];

	explain_cpu_totals(engine, &totals);
	fprintf(out, "\n%s: what the %llu %s (%s in all) were\n", heading,
		(unsigned long long)totals.windows, spike_word,
		format_duration(totals.window_ns, total, sizeof(total)));
	if (!totals.windows)
		return;
	print_causes(out, engine, join, virtual_machine, &totals);
	print_main_parts(out, &totals, spike_word);
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

char *explain_report_source_causes(const struct explain_cpu *engine,
				   const struct explain_join *join, unsigned int source, char *buf,
				   size_t size)
{
	const struct explain_source *src = join ? explain_join_source(join, source) : NULL;
	const struct explain_cause *causes;
	char label[128];
	unsigned int n, k;
	size_t used = 0;

	buf[0] = '\0';
	if (!src || !src->nr_causes)
		return buf;
	causes = explain_cpu_causes(engine, &n);
	for (k = 0; k < src->nr_causes && used < size; k++) {
		const struct explain_source_cause *sc = &src->causes[k];
		double share = src->occurrences ?
				       100.0 * (double)sc->occurrences / (double)src->occurrences :
				       0;

		short_label(engine, &causes[sc->cause], label, sizeof(label));
		/* the main causes plainly (with their share below 90%), then the others */
		if (k < src->nr_main)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? " + " : "",
						 label);
		else
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 k == src->nr_main ? "; also " : ", ", label);
		if ((k >= src->nr_main || share < 90) && used < size)
			used += (size_t)snprintf(buf + used, size - used, " (%.0f%%)", share);
	}
	return buf;
}
