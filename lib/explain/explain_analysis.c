// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/explain_analysis.h"

static const struct {
	const char *name, *words;
} parts[EXPLAIN_PARTS] = {
	[PART_IRQ_HANDLER_DELAY] = { "irq_handler_delay", "IRQ handler delay" },
	[PART_TIMER_IRQ] = { "timer_irq", "timer IRQ" },
	[PART_NMI] = { "nmi", "NMI" },
	[PART_IRQ] = { "irq", "IRQ" },
	[PART_SOFTIRQ] = { "softirq", "softirq" },
	[PART_THREAD] = { "thread", "thread" },
	[PART_SCHEDULING] = { "scheduling", "scheduling" },
	[PART_UNEXPLAINED] = { "unexplained", "unexplained" },
	[PART_LOST] = { "lost", "events lost" },
	[PART_THROTTLING] = { "throttling", "RT throttling" },
};

const enum explain_part explain_interferences[EXPLAIN_INTERFERENCES] = {
	PART_NMI,
	PART_IRQ,
	PART_SOFTIRQ,
	PART_THREAD,
};

const char *explain_part_name(enum explain_part part)
{
	return part < EXPLAIN_PARTS ? parts[part].name : "?";
}

const char *explain_part_words(enum explain_part part)
{
	return part < EXPLAIN_PARTS ? parts[part].words : "?";
}

enum explain_part explain_cause_part(enum cause_kind kind)
{
	switch (kind) {
	case CAUSE_IRQ:
	case CAUSE_VECTOR:
		return PART_IRQ;
	case CAUSE_SOFTIRQ:
		return PART_SOFTIRQ;
	case CAUSE_THREAD:
		return PART_THREAD;
	case CAUSE_NMI:
		return PART_NMI;
	case CAUSE_THROTTLING:
		return PART_THROTTLING;
	case CAUSE_TIMER_DELAY:
		return PART_IRQ_HANDLER_DELAY;
	case CAUSE_SCHEDULING:
		return PART_SCHEDULING;
	case CAUSE_LOST:
		return PART_LOST;
	default:
		return PART_UNEXPLAINED;
	}
}

static bool is_context(uint8_t kind)
{
	return kind == CAUSE_IRQ || kind == CAUSE_VECTOR || kind == CAUSE_SOFTIRQ ||
	       kind == CAUSE_NMI;
}

/*
 * The handler that issued the wake-up: the interrupt, vector or softirq
 * running at that moment, with its pieces on either side of an NMI that
 * came in it. Sets [*start, *end) and returns its cause, or UINT32_MAX
 * when no traced context ran then (the span is then the wake-up itself).
 */
static uint32_t find_handler(const struct explain_spike *s, const struct explain_cause *causes,
			     uint64_t *start, uint64_t *end)
{
	unsigned int at, first, last;
	uint32_t handler;

	*start = *end = s->woken_ns;
	for (at = 0; at < s->nr_segments; at++)
		if (s->timeline[at].start_ns <= s->woken_ns && s->woken_ns < s->timeline[at].end_ns)
			break;
	/* the wake-up at the window's very end: the segment before it ran it */
	if (at == s->nr_segments && at && s->timeline[at - 1].end_ns == s->woken_ns)
		at--;
	if (at == s->nr_segments)
		return UINT32_MAX;
	handler = s->timeline[at].cause;
	if (!is_context(causes[handler].key.kind))
		return UINT32_MAX;
	first = last = at;
	while (first >= 2 && causes[s->timeline[first - 1].cause].key.kind == CAUSE_NMI &&
	       s->timeline[first - 2].cause == handler &&
	       s->timeline[first - 2].end_ns == s->timeline[first - 1].start_ns)
		first -= 2;
	while (last + 2 < s->nr_segments &&
	       causes[s->timeline[last + 1].cause].key.kind == CAUSE_NMI &&
	       s->timeline[last + 2].cause == handler &&
	       s->timeline[last + 1].end_ns == s->timeline[last + 2].start_ns)
		last += 2;
	*start = s->timeline[first].start_ns;
	*end = s->timeline[last].end_ns;
	return handler;
}

static void add_source(struct explain_analysis_source *list, unsigned int *nr,
		       unsigned int capacity, uint32_t cause, uint64_t ns)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (list[i].cause == cause) {
			list[i].ns += ns;
			return;
		}
	if (*nr < capacity)
		list[(*nr)++] = (struct explain_analysis_source){ cause, ns };
}

static int larger_first(const void *x, const void *y)
{
	const struct explain_analysis_source *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : 0;
}

/* One piece of a segment, [from, to), before, in or after the handler. */
static void add_piece(struct explain_analysis *out, const struct explain_cause *causes,
		      uint32_t cause, uint64_t from, uint64_t to, uint64_t handler_start,
		      uint64_t handler_end, struct explain_analysis_source *sources,
		      unsigned int *nr_sources, unsigned int capacity)
{
	uint8_t kind = causes[cause].key.kind;
	enum explain_part part = explain_cause_part((enum cause_kind)kind);
	uint64_t ns = to - from;

	if (cause == out->handler && from >= handler_start && to <= handler_end)
		part = PART_TIMER_IRQ;
	out->part_ns[part] += ns;
	if (part == PART_TIMER_IRQ)
		return;
	if (to <= handler_start) {
		if (is_context(kind))
			out->previous_irq_ns += ns;
		return;
	}
	if (!is_context(kind) && kind != CAUSE_THREAD)
		return;
	if (kind == CAUSE_THREAD && out->has_irq_latency &&
	    (out->blocking_thread == UINT32_MAX || out->blocking_thread == cause)) {
		out->blocking_thread = cause;
		out->blocking_ns += ns;
	} else {
		out->interference_ns[part] += ns;
	}
	add_source(sources, nr_sources, capacity, cause, ns);
}

void explain_analyse(const struct explain_cpu *engine, const struct explain_spike *s,
		     struct explain_analysis *out)
{
	struct explain_analysis_source sources[64];
	uint64_t handler_start, handler_end, cut;
	const struct explain_cause *causes;
	unsigned int nr_causes, nr_sources = 0, i;

	causes = explain_cpu_causes(engine, &nr_causes);
	memset(out, 0, sizeof(*out));
	out->thread_latency_ns = s->window.end_ns - s->window.start_ns;
	out->handler = out->blocking_thread = UINT32_MAX;
	handler_start = handler_end = s->window.start_ns;
	if (s->woken_ns) {
		out->has_irq_latency = true;
		out->handler = find_handler(s, causes, &handler_start, &handler_end);
		out->irq_latency_ns = handler_start - s->window.start_ns;
	}
	for (i = 0; i < s->nr_segments; i++) {
		const struct explain_segment *g = &s->timeline[i];

		/* a segment across the handler's entry: the part before is before it */
		cut = g->start_ns < handler_start && handler_start < g->end_ns ? handler_start :
										 g->start_ns;
		if (cut > g->start_ns)
			add_piece(out, causes, g->cause, g->start_ns, cut, handler_start,
				  handler_end, sources, &nr_sources, 64);
		add_piece(out, causes, g->cause, cut, g->end_ns, handler_start, handler_end,
			  sources, &nr_sources, 64);
	}
	qsort(sources, nr_sources, sizeof(*sources), larger_first);
	out->nr_sources = nr_sources < ANALYSIS_SOURCES ? nr_sources : ANALYSIS_SOURCES;
	memcpy(out->sources, sources, out->nr_sources * sizeof(*sources));
	out->main = PART_IRQ_HANDLER_DELAY;
	for (i = 0; i < EXPLAIN_PARTS; i++)
		if (out->part_ns[i] > out->part_ns[out->main])
			out->main = (enum explain_part)i;
}
