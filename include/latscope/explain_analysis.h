/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_ANALYSIS_H
#define LATSCOPE_EXPLAIN_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/explain.h"

/*
 * One spike in the words of rtla's timerlat auto-analysis (upstream
 * tools/tracing/rtla/src/timerlat_aa.c, from 6.3), for every spike rather
 * than the one that stopped a trace. A timer spike runs from the timer's
 * expiry to the measuring thread's return to user space ("thread
 * latency"); the handler that issued the wake-up splits it:
 *
 *   expiry -- IRQ handler delay, previous IRQs --> handler entry ("IRQ
 *   latency") -- the handler ("timer IRQ") --> blocking thread,
 *   interference by NMI, IRQ, softirq and thread, scheduling --> user space
 *
 * Every nanosecond of the spike is in exactly one part (enum explain_part):
 * the parts add up to the spike's length. A noise gap has no handler: all
 * of it is parts after the start.
 */
/* rtla's classes of interference: NMI, IRQ, softirq, thread */
#define EXPLAIN_INTERFERENCES 4
extern const enum explain_part explain_interferences[EXPLAIN_INTERFERENCES];

/* Of the causes after the handler, the largest kept by name. */
#define ANALYSIS_SOURCES 8

struct explain_analysis_source {
	uint32_t cause; /* index into the engine's causes */
	uint64_t ns;
};

struct explain_analysis {
	uint64_t thread_latency_ns; /* the spike's length */
	/*
	 * timer spikes whose wake-up was seen: from the expiry to the entry
	 * of the handler that issued it; the parts before it are the IRQ
	 * handler delay and the previous IRQs (and softirqs, NMIs)
	 */
	bool has_irq_latency;
	uint64_t irq_latency_ns;
	uint64_t previous_irq_ns;
	uint32_t handler; /* its cause; UINT32_MAX when no traced context issued it */
	/* the thread on the CPU when the handler returned; UINT32_MAX: none */
	uint32_t blocking_thread;
	uint64_t blocking_ns;
	uint64_t part_ns[EXPLAIN_PARTS];
	/*
	 * of the NMI, IRQ, softirq and thread parts: what ran after the
	 * handler's entry, the blocking thread not counted (noise: all)
	 */
	uint64_t interference_ns[EXPLAIN_PARTS];
	enum explain_part main; /* the largest part */
	/* after the handler (noise: all of the gap), largest first */
	struct explain_analysis_source sources[ANALYSIS_SOURCES];
	unsigned int nr_sources;
};

/**
 * explain_analyse - a spike's anatomy in rtla's parts
 * @engine: the engine whose causes the spike's timeline names
 * @spike: a spike it kept, or one its window hook is given
 * @out: receives the analysis
 */
void explain_analyse(const struct explain_cpu *engine, const struct explain_spike *spike,
		     struct explain_analysis *out);

/* The part a kind of cause is, outside the handler. */
enum explain_part explain_cause_part(enum cause_kind kind);

/* "irq_handler_delay", "timer_irq", "nmi", ... as the JSON names a part */
const char *explain_part_name(enum explain_part part);

/* "IRQ handler delay", "timer IRQ", "NMI", ... as text says it */
const char *explain_part_words(enum explain_part part);

#endif
