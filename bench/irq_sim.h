/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef BENCH_IRQ_SIM_H
#define BENCH_IRQ_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "latscope/cpuset.h"

/*
 * The kernel's side of a simulated machine for bench/irq-policies: where
 * an IRQ's interrupts land given its affinity, what that costs each CPU,
 * and the figures one simulated second adds. Pure: no files, no clock.
 *
 * Delivery follows x86's vector matrix allocator: an IRQ whose effective
 * CPU is still in its new mask stays there; otherwise it gets a vector on
 * the online CPU of the mask with the fewest vectors allocated (the lowest
 * number on ties). A CPU holds at most vector_budget device vectors: when
 * every CPU of a mask is full the write fails with ENOSPC, as
 * irq_matrix_alloc() does. Managed IRQs refuse any write with EIO.
 *
 * An IRQ's interrupts in a second are its rate, fractions carried to the
 * next second; or, after irq_sim_random_arrivals(), a Poisson draw of
 * mean its rate, as independent arrivals make them: then the counts a
 * balancer reads vary from second to second and from run to run (by the
 * seed), as a real machine's do, while the figures judge the placement
 * against the rates themselves.
 */

struct irq_sim_irq {
	unsigned int number;
	int node; /* the device's node, -1 unknown */
	bool managed; /* the kernel owns its affinity: writes fail with EIO */
	struct cpuset mask; /* smp_affinity */
	int cpu; /* the effective CPU, -1 none */
	double rate; /* interrupts per second, now */
	double cost_ns; /* handler time of one interrupt */
	double carry; /* the fraction of an interrupt not yet counted */
};

/* What one simulated second looked like. */
struct irq_sim_second {
	double imbalance; /* the busiest allowed CPU's interrupt time over the mean */
	double bound; /* the best possible: the hottest IRQ over the mean, at least 1 */
	bool hot_pair; /* two hot IRQs (each at least the mean) on one CPU */
	unsigned int hot_pair_cpu; /* the first CPU with such a pair */
	uint64_t interrupts; /* handled in this second */
	uint64_t node_local; /* ... on a CPU of the device's node */
	uint64_t on_rt; /* ... on an RT CPU */
};

struct irq_sim {
	unsigned int nr_cpus, nr_irqs;
	struct cpuset online, rt;
	int *cpu_node; /* per CPU */
	unsigned int vector_budget; /* device vectors per CPU */
	unsigned int *vectors; /* per CPU: allocated */
	struct irq_sim_irq *irqs;
	uint64_t *counts; /* nr_irqs x nr_cpus: /proc/interrupts */
	double *cpu_irq_ns; /* per CPU: hardirq + softirq time, /proc/stat */
	double *load; /* per CPU, scratch for the second */
	unsigned int *hot; /* per CPU, scratch: hot IRQs */
	gsl_rng *arrivals; /* NULL: counts are the rates */
};

/**
 * irq_sim_init - an empty machine
 * @sim: receives it; release with irq_sim_release()
 * @nr_cpus: online CPUs 0..nr_cpus-1
 * @nr_irqs: IRQs to be described with irq_sim_add()
 * @vector_budget: device vectors each CPU can hold
 *
 * Returns 0 or -ENOMEM, -EINVAL (no CPU).
 */
int irq_sim_init(struct irq_sim *sim, unsigned int nr_cpus, unsigned int nr_irqs,
		 unsigned int vector_budget);
void irq_sim_release(struct irq_sim *sim);

/**
 * irq_sim_add - describe IRQ @index and give it its boot placement
 * @mask: its affinity at boot; its effective CPU is allocated from it,
 *	  preferring CPUs outside sim->rt for managed IRQs (isolcpus=managed_irq)
 *
 * Returns 0, or -ENOSPC when no CPU of @mask has a vector left.
 */
int irq_sim_add(struct irq_sim *sim, unsigned int index, unsigned int number, int node,
		bool managed, const struct cpuset *mask);

/**
 * irq_sim_best_cpu - the CPU the allocator picks in @mask
 * Returns it, or -1 when no online CPU of @mask has a vector left.
 */
int irq_sim_best_cpu(const struct irq_sim *sim, const struct cpuset *mask);

/**
 * irq_sim_set_affinity - a write of /proc/irq/N/smp_affinity
 * Returns 0 (mask and effective CPU updated), -EIO (managed), -EINVAL
 * (no online CPU in @mask) or -ENOSPC (no vector left in @mask); on an
 * error nothing changes.
 */
int irq_sim_set_affinity(struct irq_sim *sim, unsigned int index, const struct cpuset *mask);

/**
 * irq_sim_random_arrivals - Poisson counts from now on, drawn from @seed
 * Returns 0 or -ENOMEM.
 */
int irq_sim_random_arrivals(struct irq_sim *sim, unsigned long seed);

/* The row of IRQ @number, or -1. */
int irq_sim_find(const struct irq_sim *sim, unsigned int number);

/**
 * irq_sim_second - deliver one second of interrupts at the current rates
 * @out: receives that second's figures
 *
 * Adds to sim->counts and sim->cpu_irq_ns. The mean load is over the
 * online CPUs that are not RT CPUs.
 */
void irq_sim_second(struct irq_sim *sim, struct irq_sim_second *out);

#endif
