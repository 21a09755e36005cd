// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "latscope/explain_analysis.h"
#include "latscope/explain_result.h"

static const char *cause_name(const struct explain_cause *cause, const struct names *names)
{
	switch (cause->key.kind) {
	case CAUSE_VECTOR:
		return trace_vector_name((enum trace_vector)cause->key.id);
	case CAUSE_SOFTIRQ:
		return trace_softirq_name((uint32_t)cause->key.id);
	case CAUSE_IRQ:
	case CAUSE_THREAD:
		return names_get(names, cause->name);
	default:
		return explain_kind_name((enum cause_kind)cause->key.kind);
	}
}

/*
 * An IRQ thread's IRQ and the action the hardirq named ("irq/31-virtio2-
 * req.2" serves irq 31, virtio2-req.2); null for any other thread.
 */
static json_t *irq_thread_json(const struct explain_cpu *engine, const struct explain_cause *cause,
			       const struct names *names)
{
	const char *action = names_get(names, cause->irq_action);
	char full[64];
	bool known;

	if (cause->irq_thread_of < 0)
		return json_null();
	known = explain_irq_thread_name(engine, cause, full, sizeof(full));
	/* no wake-up seen: the full name, when it was made of the action, says it */
	if (!*action && known && strcmp(full, names_get(names, cause->name)) && strchr(full, '-'))
		action = strchr(full, '-') + 1;
	return json_pack("{s:i, s:o, s:s}", "irq", cause->irq_thread_of, "name",
			 *action ? json_string(action) : json_null(), "thread",
			 known ? full : names_get(names, cause->name));
}

/* The thread a softirq ran in; null when it ran on an interrupt's way out. */
static json_t *softirq_thread_json(const struct explain_cpu *engine,
				   const struct explain_cause *cause, const struct names *names)
{
	char full[64];

	if (!cause->key.thread)
		return json_null();
	if (!explain_irq_thread_name(engine, cause, full, sizeof(full)))
		snprintf(full, sizeof(full), "%s", names_get(names, cause->name));
	return json_pack("{s:i, s:s, s:s, s:o}", "pid", cause->key.thread, "comm",
			 names_get(names, cause->name), "name", full, "irq",
			 cause->irq_thread_of >= 0 ? json_integer(cause->irq_thread_of) :
						     json_null());
}

static json_t *train_json(const struct explain_cpu *engine, const struct explain_cause *causes,
			  const struct explain_train *trains, unsigned int nr, unsigned int t)
{
	const struct explain_train *train = &trains[t];
	int nested_in = explain_train_nested_in(trains, nr, t);
	json_t *with = json_array(), *entry;
	char label[128];
	unsigned int k;

	for (k = 0; k < train->nr_with; k++)
		json_array_append_new(
			with, json_string(explain_cause_label(engine, &causes[train->with[k]],
							      label, sizeof(label))));
	entry = json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:o, s:o, s:b, s:I}", "period_ns",
		(json_int_t)train->period.period_ns, "phase_ns", (json_int_t)train->period.phase_ns,
		"duration_ns", (json_int_t)train->period.duration_ns, "max_duration_ns",
		(json_int_t)train->period.max_duration_ns, "jitter_ns",
		(json_int_t)train->period.jitter_ns, "seen", (json_int_t)train->period.seen,
		"expected", (json_int_t)train->period.expected, "found_by",
		train->from_source ? "spike_list" : "cause", "spike_source",
		train->source == PERIOD_UNASSIGNED ? json_null() : json_integer(train->source),
		"with", with, "alone", train->alone, "phase_group", (json_int_t)train->phase_group);
	/* nested: its durations are what it adds to that period's */
	json_object_set_new(entry, "nested_in",
			    nested_in < 0 ? json_null() : json_integer(nested_in));
	return entry;
}

/* Every train of a cause: from the join, or its own when there is none. */
static json_t *periods_json(const struct explain_cpu *engine, const struct explain_cause *causes,
			    unsigned int index, const struct explain_join *join)
{
	struct explain_train own[PERIOD_MAX_SOURCES];
	const struct explain_train *trains = own;
	json_t *list = json_array();
	unsigned int nr, t;

	if (join)
		trains = explain_join_trains(join, index, &nr);
	else
		nr = explain_own_trains(&causes[index], own);
	for (t = 0; t < nr; t++)
		json_array_append_new(list, train_json(engine, causes, trains, nr, t));
	return list;
}

static json_t *cause_json(const struct explain_cpu *engine, const struct explain_cause *causes,
			  unsigned int index, const struct names *names, uint64_t all_ns,
			  const struct explain_join *join)
{
	const struct explain_cause *cause = &causes[index];
	json_t *c = json_object();
	char label[128];

	json_object_set_new(c, "kind", json_string(explain_kind_name(cause->key.kind)));
	json_object_set_new(c, "name", json_string(cause_name(cause, names)));
	json_object_set_new(c, "label",
			    json_string(explain_cause_label(engine, cause, label, sizeof(label))));
	if (cause->key.kind == CAUSE_IRQ)
		json_object_set_new(c, "irq", json_integer(cause->key.id));
	if (cause->key.kind == CAUSE_THREAD) {
		json_object_set_new(c, "pid", json_integer(cause->key.id));
		json_object_set_new(c, "comm", json_string(names_get(names, cause->name)));
		json_object_set_new(c, "kernel_priority",
				    cause->prio >= 0 ? json_integer(cause->prio) : json_null());
		/* priority inheritance: the highest it was boosted to, while holding a lock */
		json_object_set_new(c, "boosted_priority",
				    cause->boosted_prio >= 0 ? json_integer(cause->boosted_prio) :
							       json_null());
		json_object_set_new(c, "irq_thread", irq_thread_json(engine, cause, names));
	}
	if (cause->key.kind == CAUSE_SOFTIRQ)
		json_object_set_new(c, "thread", softirq_thread_json(engine, cause, names));
	json_object_set_new(c, "spikes", json_integer((json_int_t)cause->spikes));
	json_object_set_new(c, "total_ns", json_integer((json_int_t)cause->total_ns));
	json_object_set_new(c, "max_ns", json_integer((json_int_t)cause->max_ns));
	json_object_set_new(c, "share",
			    json_real(all_ns ? (double)cause->total_ns / (double)all_ns : 0.0));
	if (cause->periodic)
		json_object_set_new(c, "periodic",
				    json_pack("{s:I, s:I, s:I, s:I, s:I}", "period_ns",
					      (json_int_t)cause->period.period_ns, "duration_ns",
					      (json_int_t)cause->period.duration_ns, "jitter_ns",
					      (json_int_t)cause->period.jitter_ns, "seen",
					      (json_int_t)cause->period.seen, "expected",
					      (json_int_t)cause->period.expected));
	else
		json_object_set_new(c, "periodic", json_null());
	json_object_set_new(c, "periods", periods_json(engine, causes, index, join));
	return c;
}

static json_t *duration_or_null(bool known, uint64_t ns)
{
	return known ? json_integer((json_int_t)ns) : json_null();
}

/* A cause of the analysis by its label, and more for a thread. */
static json_t *analysis_cause_json(const struct explain_cpu *engine,
				   const struct explain_cause *cause, uint64_t ns)
{
	char label[128];
	json_t *entry = json_pack("{s:s, s:s, s:I}", "kind", explain_kind_name(cause->key.kind),
				  "label", explain_cause_label(engine, cause, label, sizeof(label)),
				  "ns", (json_int_t)ns);

	if (cause->key.kind == CAUSE_THREAD)
		json_object_set_new(entry, "pid", json_integer(cause->key.id));
	return entry;
}

/*
 * The spike in rtla's auto-analysis words: the latencies when the wake-up
 * was seen, each part's time and the causes after the handler by class.
 */
static json_t *analysis_json(const struct explain_cpu *engine, const struct explain_spike *spike,
			     const struct explain_cause *causes)
{
	struct explain_analysis a;
	json_t *out, *parts = json_object(), *interference = json_object();
	unsigned int i, k;

	explain_analyse(engine, spike, &a);
	for (i = 0; i < EXPLAIN_PARTS; i++)
		json_object_set_new(parts, explain_part_name((enum explain_part)i),
				    json_integer((json_int_t)a.part_ns[i]));
	for (k = 0; k < EXPLAIN_INTERFERENCES; k++) {
		json_t *sources = json_array();

		for (i = 0; i < a.nr_sources; i++) {
			const struct explain_cause *c = &causes[a.sources[i].cause];

			if (a.sources[i].cause != a.blocking_thread &&
			    explain_cause_part((enum cause_kind)c->key.kind) ==
				    explain_interferences[k])
				json_array_append_new(
					sources, analysis_cause_json(engine, c, a.sources[i].ns));
		}
		json_object_set_new(
			interference, explain_part_name(explain_interferences[k]),
			json_pack("{s:I, s:o}", "ns",
				  (json_int_t)a.interference_ns[explain_interferences[k]],
				  "sources", sources));
	}
	out = json_pack("{s:o, s:o, s:o, s:o, s:s}", "thread_latency_ns",
			duration_or_null(a.has_irq_latency, a.thread_latency_ns), "irq_latency_ns",
			duration_or_null(a.has_irq_latency, a.irq_latency_ns),
			"irq_handler_delay_ns",
			duration_or_null(a.has_irq_latency, a.part_ns[PART_IRQ_HANDLER_DELAY]),
			"previous_irq_interference_ns",
			duration_or_null(a.has_irq_latency, a.previous_irq_ns), "main",
			explain_part_name(a.main));
	json_object_set_new(
		out, "timer_irq",
		a.handler == UINT32_MAX ?
			json_null() :
			analysis_cause_json(engine, &causes[a.handler], a.part_ns[PART_TIMER_IRQ]));
	json_object_set_new(
		out, "blocking_thread",
		a.blocking_thread == UINT32_MAX ?
			json_null() :
			analysis_cause_json(engine, &causes[a.blocking_thread], a.blocking_ns));
	json_object_set_new(out, "interference", interference);
	json_object_set_new(out, "parts_ns", parts);
	return out;
}

static json_t *spike_json(const struct explain_cpu *engine, const struct explain_spike *spike,
			  const struct explain_cause *causes)
{
	json_t *s = json_object(), *contributions = json_array(), *timeline = json_array();
	char label[128];
	unsigned int i;

	for (i = 0; i < spike->nr_contributions; i++) {
		const struct explain_contribution *c = &spike->contributions[i];

		json_array_append_new(contributions,
				      json_pack("{s:s, s:s, s:I}", "kind",
						explain_kind_name(causes[c->cause].key.kind),
						"label",
						explain_cause_label(engine, &causes[c->cause],
								    label, sizeof(label)),
						"ns", (json_int_t)c->ns));
	}
	for (i = 0; i < spike->nr_segments; i++) {
		const struct explain_segment *g = &spike->timeline[i];

		json_array_append_new(timeline,
				      json_pack("{s:I, s:I, s:s}", "offset_ns",
						(json_int_t)(g->start_ns - spike->window.start_ns),
						"duration_ns",
						(json_int_t)(g->end_ns - g->start_ns), "label",
						explain_cause_label(engine, &causes[g->cause],
								    label, sizeof(label))));
	}
	json_object_set_new(s, "start_ns", json_integer((json_int_t)spike->window.start_ns));
	json_object_set_new(
		s, "duration_ns",
		json_integer((json_int_t)(spike->window.end_ns - spike->window.start_ns)));
	json_object_set_new(s, "incomplete", json_boolean(spike->incomplete));
	json_object_set_new(s, "contributions", contributions);
	json_object_set_new(s, "timeline", timeline);
	json_object_set_new(s, "analysis", analysis_json(engine, spike, causes));
	return s;
}

/* Where the trace has holes: a spike is incomplete when its window overlaps one. */
static json_t *lost_spans_json(const struct explain_cpu *engine)
{
	const struct explain_lost_span *spans;
	json_t *list = json_array();
	unsigned int nr, i;
	uint64_t not_kept;

	spans = explain_cpu_lost_spans(engine, &nr, &not_kept);
	for (i = 0; i < nr; i++)
		json_array_append_new(list,
				      json_pack("{s:I, s:I, s:I}", "start_ns",
						(json_int_t)spans[i].start_ns, "duration_ns",
						(json_int_t)(spans[i].end_ns - spans[i].start_ns),
						"events", (json_int_t)spans[i].events));
	return json_pack("{s:o, s:I}", "kept", list, "not_kept", (json_int_t)not_kept);
}

json_t *explain_result_spike(const struct explain_cpu *engine, const struct explain_spike *spike)
{
	unsigned int nr_causes;

	return spike_json(engine, spike, explain_cpu_causes(engine, &nr_causes));
}

json_t *explain_result_cpu(const struct explain_cpu *engine, const struct names *names,
			   const struct explain_join *join)
{
	const struct explain_cause *causes;
	const struct explain_spike *worst;
	struct explain_totals totals;
	unsigned int nr_causes, nr_worst, i;
	json_t *out = json_object(), *list = json_array(), *spikes = json_array();
	json_t *by_part = json_object();

	causes = explain_cpu_causes(engine, &nr_causes);
	worst = explain_cpu_worst(engine, &nr_worst);
	explain_cpu_totals(engine, &totals);
	for (i = 0; i < nr_causes; i++)
		json_array_append_new(list,
				      cause_json(engine, causes, i, names, totals.window_ns, join));
	for (i = 0; i < nr_worst; i++)
		json_array_append_new(spikes, spike_json(engine, &worst[i], causes));
	json_object_set_new(out, "causes", list);
	json_object_set_new(out, "worst_spikes", spikes);
	for (i = 0; i < EXPLAIN_PARTS; i++)
		json_object_set_new(by_part, explain_part_name((enum explain_part)i),
				    json_integer((json_int_t)totals.by_main_part[i]));
	json_object_set_new(out, "explained_spikes",
			    json_pack("{s:I, s:I, s:I, s:I, s:o}", "count",
				      (json_int_t)totals.windows, "total_ns",
				      (json_int_t)totals.window_ns, "incomplete",
				      (json_int_t)totals.incomplete, "events",
				      (json_int_t)totals.events, "by_main_part", by_part));
	json_object_set_new(out, "lost_events", json_integer((json_int_t)totals.lost_events));
	json_object_set_new(out, "lost_spans", lost_spans_json(engine));
	return out;
}

void explain_result_sources(const struct explain_cpu *engine, const struct names *names,
			    const struct explain_join *join, json_t *sources)
{
	const struct explain_cause *causes;
	unsigned int nr_causes, s, k;
	char label[128];

	causes = explain_cpu_causes(engine, &nr_causes);
	for (s = 0; s < json_array_size(sources); s++) {
		const struct explain_source *src = join ? explain_join_source(join, s) : NULL;
		json_t *list = json_array();

		if (!src)
			continue;
		for (k = 0; k < src->nr_causes; k++) {
			const struct explain_source_cause *sc = &src->causes[k];
			const struct explain_cause *cause = &causes[sc->cause];

			json_array_append_new(
				list,
				json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:I, s:b}", "kind",
					  explain_kind_name(cause->key.kind), "name",
					  cause_name(cause, names), "label",
					  explain_cause_label(engine, cause, label, sizeof(label)),
					  "cause", (json_int_t)sc->cause, "occurrences",
					  (json_int_t)sc->occurrences, "share",
					  src->occurrences ? (double)sc->occurrences /
								     (double)src->occurrences :
							     0.0,
					  "duration_ns", (json_int_t)sc->duration_ns, "main",
					  k < src->nr_main));
		}
		json_object_set_new(json_array_get(sources, s), "occurrences",
				    json_integer((json_int_t)src->occurrences));
		json_object_set_new(json_array_get(sources, s), "causes", list);
	}
}
