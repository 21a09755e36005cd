/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQPLAN_H
#define LATSCOPE_IRQPLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/irq.h"
#include "latscope/topology.h"

/*
 * The IRQ placement planner: a pure function of the topology, the IRQ
 * table (affinities, devices), their rates, the policy and, for the
 * balance daemon, the history of earlier moves. Same input, same plan.
 *
 * Rules, in order:
 * 1. RT CPUs = isolated + nohz_full + the caller's list; allowed CPUs =
 *    online - RT. No allowed CPU is an error.
 * 2. A movable IRQ whose affinity reaches an RT CPU (or has no online CPU)
 *    moves ("safety"), always, whatever the budget. One whose affinity is
 *    right but whose effective CPU is still an RT CPU is a move the kernel
 *    makes at its next interrupt (x86 MSI without interrupt remapping):
 *    counted in rt_until_next_interrupt, not planned again.
 * 3. A movable IRQ of a device on a node with allowed CPUs whose affinity
 *    leaves that node moves there ("node"). A node without allowed CPUs
 *    means any allowed CPU, said in the reason.
 * 4. Targets are single CPUs: the least loaded physical core of the
 *    domain (SMT siblings count as one core), then its least loaded CPU,
 *    then the CPU with fewest IRQs (x86 has ~200 vectors per CPU), then
 *    the lowest number. Heavy IRQs are placed first.
 * 5. Balance, with hysteresis: a CPU whose load exceeds its node's mean by
 *    the dead band (and by min_excess) for overload_intervals intervals
 *    sheds IRQs, the best move first, until it is under half the dead
 *    band. With a history, how long the overload must last depends on
 *    what shedding can do: a pile-up (the CPU is still pile_up_excess
 *    above the mean without its hottest IRQ: two hot queues together)
 *    sheds at its first overloaded interval; a CPU held up by one IRQ (it
 *    alone is above half the dead band, the others are not) sheds only
 *    once that IRQ has held it up as long as the longest burst of the
 *    last hour (a time one IRQ held a CPU up and let go by itself,
 *    shorter than max_burst; counted from 19 such bursts on), or else
 *    max_burst (a burst passes by itself, and those moves could not end
 *    the overload), and then every other active IRQ leaves it, whatever
 *    its share, while the hot one stays (it would take the overload
 *    along); a target never ends above half the dead band, so that noise
 *    cannot push it over, unless the IRQ alone is hotter than that: then
 *    the target must end below the source's load by half the dead band
 *    (two hot queues on one CPU are split, and cannot come back). A move
 *    carries at least min_move_share of the node's mean CPU load: moving
 *    small IRQs is churn. IRQs alone on a CPU or idle are never moved for
 *    balance.
 * 6. With a history (balance): an IRQ moved less than min_dwell ago is
 *    not moved for rules 3 (unless new) and 5, and rules 3 (old IRQs) and 5
 *    stop when max_moves_per_hour moves happened in the last hour (the
 *    first interval, the initial placement, does not count); balance
 *    moves that are neither pile-ups nor off a CPU one IRQ holds up stop
 *    at half of it, the rest is kept for those two.
 * 7. default_smp_affinity becomes the allowed set.
 * An IRQ already well placed is not moved: a good placement plans nothing
 * and lists no IRQ as unreadable (an affinity file that does not parse is
 * not an IRQ that is gone).
 */

struct irqplan_policy {
	double dead_band; /* 0.25: overloaded above mean * 1.25 */
	double min_excess; /* and at least this much above the mean (per second) */
	double min_move_share; /* a balance move carries >= this share of the mean */
	unsigned int overload_intervals; /* consecutive intervals before balancing */
	/* a pile-up: this far above the mean without its hottest IRQ (1.0: twice the mean) */
	double pile_up_excess;
	uint64_t min_dwell_ns; /* an IRQ moved stays at least this long */
	/*
	 * one IRQ holding a CPU up longer than this is no burst: the others
	 * leave; sooner when the bursts of the last hour were all shorter
	 */
	uint64_t max_burst_ns;
	unsigned int max_moves_per_hour;
	unsigned int max_irqs_per_cpu; /* vector room: a fuller CPU is a last resort */
};

/**
 * irqplan_policy_default - the defaults of a one-shot plan
 * @policy: receives dead band 25%, min excess 100/s, move share 1/8, one
 *	    interval, a pile-up at twice the mean, dwell 5 min, a burst up
 *	    to 2 min, 96 moves per hour, 160 IRQs per CPU
 */
void irqplan_policy_default(struct irqplan_policy *policy);

/**
 * irqplan_policy_for_balance - a policy as the balance daemon applies it
 * @policy: a policy whose dead band, dwell and budget are kept; an
 *	    overload must now last 3 intervals before the daemon balances,
 *	    so that one busy interval moves nothing
 */
void irqplan_policy_for_balance(struct irqplan_policy *policy);

/* What the balance daemon remembers between intervals (irq_history.h). */
struct irq_history;

struct irqplan_input {
	const struct topology *topo;
	/* IRQs with their affinities and devices; counts are not used */
	const struct irq_table *table;
	/* per IRQ row: interrupts per second, or counts since boot as weights */
	const double *rates;
	bool rates_are_counts; /* only changes the wording of reasons */
	/* RT CPUs on top of isolated and nohz_full (--rt-cpus); may be empty */
	struct cpuset rt_cpus;
	/* /proc/irq/default_smp_affinity now */
	struct cpuset default_affinity;
	/* NULL for a one-shot plan: no dwell, no budget, no streaks */
	const struct irq_history *history;
	uint64_t now_ns; /* the history's clock */
};

enum irqplan_move_kind {
	IRQPLAN_SAFETY, /* off RT CPUs */
	IRQPLAN_NODE, /* to the device's node */
	IRQPLAN_BALANCE, /* off an overloaded CPU */
};

#define IRQPLAN_REASON_SIZE 320
#define IRQPLAN_NO_IRQ UINT_MAX

struct irqplan_move {
	unsigned int row; /* the IRQ's row in the table; from = its affinity */
	unsigned int irq; /* its number */
	enum irqplan_move_kind kind;
	int from_cpu; /* where it is delivered now (the first CPU), -1 if nowhere */
	unsigned int to; /* the CPU it goes to */
	bool remote; /* its node has no allowed CPU: placed on another node */
	char reason[IRQPLAN_REASON_SIZE];
};

struct irqplan_unmovable {
	unsigned int row;
	unsigned int irq;
	bool reaches_rt; /* its effective affinity reaches an RT CPU */
	char reason[IRQPLAN_REASON_SIZE];
};

struct irqplan {
	struct cpuset rt;
	struct cpuset allowed;
	unsigned int nr_moves;
	struct irqplan_move *moves; /* in the order they should be written */
	unsigned int nr_unmovable;
	struct irqplan_unmovable *unmovable;
	/*
	 * IRQs whose affinity files are there but cannot be read or parsed
	 * (irq_affinity_unreadable()), each with the file and the reason:
	 * where they fire is unknown, so they are not placed, and a plan with
	 * one is never a good placement.
	 */
	unsigned int nr_unreadable;
	struct irqplan_unmovable *unreadable;
	bool default_change;
	struct cpuset default_from, default_to;
	unsigned int nr_cpus; /* entries of the per-CPU arrays */
	double *load_before; /* per CPU: rates of the IRQs delivered there */
	double *load_after; /* the same once the plan is applied */
	struct cpuset overloaded; /* above the dead band before balance moves */
	/*
	 * per CPU: the IRQ that alone holds it up before balance moves (it is
	 * above half the dead band, the others together are not: rule 5), or
	 * IRQPLAN_NO_IRQ
	 */
	unsigned int *held_up_by;
	struct cpuset balance_eligible; /* ... and for overload_intervals */
	/* movable IRQs placed right, still delivered to an RT CPU (rule 2) */
	unsigned int rt_until_next_interrupt;
	unsigned int held_by_dwell; /* moves wanted but held back */
	unsigned int held_by_budget;
};

/**
 * irqplan_make - plan the placement of every IRQ
 * @input: what the machine looks like
 * @policy: the rules' parameters
 * @plan: receives the plan; release it with irqplan_release()
 *
 * Pure: reads only its arguments. Returns 0; -EINVAL when no CPU is left
 * for interrupts (logged, with the sets that caused it); -ENOMEM.
 */
int irqplan_make(const struct irqplan_input *input, const struct irqplan_policy *policy,
		 struct irqplan *plan);
void irqplan_release(struct irqplan *plan);

/* "safety", "node", "balance" */
const char *irqplan_kind_name(enum irqplan_move_kind kind);

/**
 * irqplan_format_rate - a rate for people: "850", "3.1k", "2.4M"
 * Returns @buf.
 */
char *irqplan_format_rate(double rate, char *buf, size_t size);

#endif
