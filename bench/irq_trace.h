/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef BENCH_IRQ_TRACE_H
#define BENCH_IRQ_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "irq_sim.h"

/*
 * A load trace of bench/irq-policies, text, one change a line:
 *
 *   # comment
 *   seed 7                 the generator's seed (optional)
 *   seconds 86400          the trace's length (before the first change)
 *   SECOND IRQ RATE COST   from SECOND on, IRQ fires RATE times a second,
 *                          each interrupt costing COST ns of handler time
 *
 * Changes are in time order; an IRQ not named yet is idle.
 */
struct irq_trace_event {
	unsigned int second;
	unsigned int row; /* the IRQ's row in the simulation */
	double rate, cost_ns;
};

struct irq_trace {
	unsigned long long seed;
	unsigned int seconds;
	unsigned int nr_events;
	struct irq_trace_event *events;
};

/**
 * irq_trace_read - read and check a whole trace against the IRQs of @sim
 * @file: the trace; @name names it in errors
 * @trace: receives it; release with irq_trace_release()
 * @error: receives, on failure, "NAME:LINE: what is wrong"
 *
 * Returns 0, -EINVAL (the line is in @error), -ENOMEM.
 */
int irq_trace_read(FILE *file, const char *name, const struct irq_sim *sim, struct irq_trace *trace,
		   char *error, size_t error_size);
void irq_trace_release(struct irq_trace *trace);

#endif
