/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_HISTORY_H
#define LATSCOPE_IRQ_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "latscope/irq.h"
#include "latscope/irqplan.h"

/*
 * The balance daemon's memory: when each IRQ last moved, the moves of the
 * last hour (the budget; the first interval's, the initial placement, do
 * not count), for how many intervals and since when each CPU has been
 * overloaded, and which IRQs existed at the last interval (new ones are
 * placed at once); which IRQ alone holds each CPU up and since when, and
 * when and how long the last IRQ_HISTORY_BURSTS such holds lasted that
 * ended by themselves: the CPU's overload passed and the IRQ had not
 * moved (the bursts of this machine's load).
 */

#define IRQ_HISTORY_BURSTS 1024

/**
 * irq_history_new - an empty history
 * Returns a history to free with irq_history_free(), or NULL.
 */
struct irq_history *irq_history_new(void);
void irq_history_free(struct irq_history *history);

/* when @irq last moved, 0 when never */
uint64_t irq_history_last_move(const struct irq_history *history, unsigned int irq);
/* moves recorded after @since_ns */
unsigned int irq_history_moves_since(const struct irq_history *history, uint64_t since_ns);
/* consecutive earlier intervals @cpu was overloaded */
unsigned int irq_history_overload_streak(const struct irq_history *history, unsigned int cpu);
/* when @cpu's streak began (the time of its first overloaded interval), 0 without one */
uint64_t irq_history_overloaded_since(const struct irq_history *history, unsigned int cpu);
/*
 * since when @irq alone has held @cpu up (irqplan.held_up_by of each
 * interval from then to the last), 0 when it did not at the last interval
 */
uint64_t irq_history_held_since(const struct irq_history *history, unsigned int cpu,
				unsigned int irq);
/*
 * the longest burst that ended after @since_ns and is shorter than
 * @below_ns, 0 without one; *@count receives how many such bursts there were
 */
uint64_t irq_history_longest_burst(const struct irq_history *history, uint64_t since_ns,
				   uint64_t below_ns, unsigned int *count);
/* whether @irq existed at the end of the last interval (false before the first) */
bool irq_history_known(const struct irq_history *history, unsigned int irq);
/* whether an interval has been committed yet */
bool irq_history_started(const struct irq_history *history);

/**
 * irq_history_commit - remember one interval
 * @history: the history
 * @plan: the plan of the interval
 * @table: the IRQs that exist now (vanished ones are forgotten)
 * @done: per move of @plan, whether it was written; NULL = all
 * @now_ns: the interval's time, on the clock of irqplan_input.now_ns
 *
 * Returns 0 or -ENOMEM.
 */
int irq_history_commit(struct irq_history *history, const struct irqplan *plan,
		       const struct irq_table *table, const bool *done, uint64_t now_ns);

/**
 * irq_history_forget_streaks - start counting overloads afresh
 * For SIGHUP or a CPU hotplug: the loads seen so far no longer compare.
 */
void irq_history_forget_streaks(struct irq_history *history);

#endif
