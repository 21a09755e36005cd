// SPDX-License-Identifier: GPL-2.0-or-later
/* The simulated kernel of bench/irq-policies: vector allocation and delivery. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "irq_sim.h"

int irq_sim_init(struct irq_sim *sim, unsigned int nr_cpus, unsigned int nr_irqs,
		 unsigned int vector_budget)
{
	unsigned int cpu;

	memset(sim, 0, sizeof(*sim));
	if (!nr_cpus || nr_cpus > CPUSET_MAX_CPUS)
		return -EINVAL;
	sim->nr_cpus = nr_cpus;
	sim->nr_irqs = nr_irqs;
	sim->vector_budget = vector_budget;
	cpuset_clear(&sim->online);
	cpuset_clear(&sim->rt);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		cpuset_add(&sim->online, cpu);
	sim->cpu_node = calloc(nr_cpus, sizeof(*sim->cpu_node));
	sim->vectors = calloc(nr_cpus, sizeof(*sim->vectors));
	sim->irqs = calloc(nr_irqs + 1, sizeof(*sim->irqs));
	sim->counts = calloc((size_t)nr_irqs * nr_cpus + 1, sizeof(*sim->counts));
	sim->cpu_irq_ns = calloc(nr_cpus, sizeof(*sim->cpu_irq_ns));
	sim->load = calloc(nr_cpus, sizeof(*sim->load));
	sim->hot = calloc(nr_cpus, sizeof(*sim->hot));
	if (!sim->cpu_node || !sim->vectors || !sim->irqs || !sim->counts || !sim->cpu_irq_ns ||
	    !sim->load || !sim->hot) {
		irq_sim_release(sim);
		return -ENOMEM;
	}
	return 0;
}

void irq_sim_release(struct irq_sim *sim)
{
	free(sim->cpu_node);
	free(sim->vectors);
	free(sim->irqs);
	free(sim->counts);
	free(sim->cpu_irq_ns);
	free(sim->load);
	free(sim->hot);
	if (sim->arrivals)
		gsl_rng_free(sim->arrivals);
	memset(sim, 0, sizeof(*sim));
}

int irq_sim_random_arrivals(struct irq_sim *sim, unsigned long seed)
{
	if (!sim->arrivals)
		sim->arrivals = gsl_rng_alloc(gsl_rng_mt19937);
	if (!sim->arrivals)
		return -ENOMEM;
	gsl_rng_set(sim->arrivals, seed);
	return 0;
}

/* This second's interrupts of @irq: its rate, or a Poisson draw around it */
static uint64_t arrivals(struct irq_sim *sim, struct irq_sim_irq *irq)
{
	double due = irq->rate + irq->carry;
	uint64_t n;

	if (sim->arrivals)
		return irq->rate > 0 ? gsl_ran_poisson(sim->arrivals, irq->rate) : 0;
	n = (uint64_t)floor(due);
	irq->carry = due - (double)n;
	return n;
}

int irq_sim_best_cpu(const struct irq_sim *sim, const struct cpuset *mask)
{
	int cpu, best = -1;

	for (cpu = cpuset_next(mask, -1); cpu >= 0 && (unsigned int)cpu < sim->nr_cpus;
	     cpu = cpuset_next(mask, cpu)) {
		if (!cpuset_has(&sim->online, (unsigned int)cpu) ||
		    sim->vectors[cpu] >= sim->vector_budget)
			continue;
		/* the most vectors free: the first such CPU wins a tie */
		if (best < 0 || sim->vectors[cpu] < sim->vectors[best])
			best = cpu;
	}
	return best;
}

int irq_sim_add(struct irq_sim *sim, unsigned int index, unsigned int number, int node,
		bool managed, const struct cpuset *mask)
{
	struct irq_sim_irq *irq = &sim->irqs[index];
	struct cpuset housekeeping;
	int cpu = -1;

	memset(irq, 0, sizeof(*irq));
	irq->number = number;
	irq->node = node;
	irq->managed = managed;
	irq->mask = *mask;
	if (managed) {
		/* isolcpus=managed_irq: an isolated CPU only when the mask has no other */
		cpuset_andnot(&housekeeping, mask, &sim->rt);
		cpu = irq_sim_best_cpu(sim, &housekeeping);
	}
	if (cpu < 0)
		cpu = irq_sim_best_cpu(sim, mask);
	irq->cpu = cpu;
	if (cpu < 0)
		return -ENOSPC;
	sim->vectors[cpu]++;
	return 0;
}

int irq_sim_find(const struct irq_sim *sim, unsigned int number)
{
	unsigned int i;

	for (i = 0; i < sim->nr_irqs; i++)
		if (sim->irqs[i].number == number)
			return (int)i;
	return -1;
}

int irq_sim_set_affinity(struct irq_sim *sim, unsigned int index, const struct cpuset *mask)
{
	struct irq_sim_irq *irq = &sim->irqs[index];
	int cpu;

	if (irq->managed)
		return -EIO;
	if (!cpuset_intersects(mask, &sim->online))
		return -EINVAL;
	/* the vector stays where it is when that CPU is still allowed */
	if (irq->cpu >= 0 && cpuset_has(mask, (unsigned int)irq->cpu)) {
		irq->mask = *mask;
		return 0;
	}
	cpu = irq_sim_best_cpu(sim, mask);
	if (cpu < 0)
		return -ENOSPC;
	if (irq->cpu >= 0)
		sim->vectors[irq->cpu]--;
	sim->vectors[cpu]++;
	irq->cpu = cpu;
	irq->mask = *mask;
	return 0;
}

void irq_sim_second(struct irq_sim *sim, struct irq_sim_second *out)
{
	double total = 0, hottest = 0, busiest = 0, mean;
	unsigned int i, cpu, allowed = 0;

	memset(out, 0, sizeof(*out));
	memset(sim->load, 0, sim->nr_cpus * sizeof(*sim->load));
	memset(sim->hot, 0, sim->nr_cpus * sizeof(*sim->hot));
	for (i = 0; i < sim->nr_irqs; i++) {
		struct irq_sim_irq *irq = &sim->irqs[i];
		uint64_t n = arrivals(sim, irq);

		if (irq->cpu < 0)
			continue;
		cpu = (unsigned int)irq->cpu;
		sim->counts[(size_t)i * sim->nr_cpus + cpu] += n;
		sim->load[cpu] += irq->rate * irq->cost_ns;
		sim->cpu_irq_ns[cpu] += (double)n * irq->cost_ns;
		out->interrupts += n;
		if (irq->node >= 0 && sim->cpu_node[cpu] == irq->node)
			out->node_local += n;
		if (cpuset_has(&sim->rt, cpu))
			out->on_rt += n;
		if (irq->rate * irq->cost_ns > hottest)
			hottest = irq->rate * irq->cost_ns;
	}
	for (cpu = 0; cpu < sim->nr_cpus; cpu++) {
		if (!cpuset_has(&sim->online, cpu) || cpuset_has(&sim->rt, cpu))
			continue;
		allowed++;
		total += sim->load[cpu];
		if (sim->load[cpu] > busiest)
			busiest = sim->load[cpu];
	}
	mean = allowed ? total / allowed : 0;
	if (mean <= 0) {
		out->imbalance = out->bound = 1;
		return;
	}
	out->imbalance = busiest / mean;
	out->bound = hottest / mean > 1 ? hottest / mean : 1;
	for (i = 0; i < sim->nr_irqs; i++) {
		const struct irq_sim_irq *irq = &sim->irqs[i];

		if (irq->cpu >= 0 && irq->rate * irq->cost_ns >= mean &&
		    ++sim->hot[irq->cpu] == 2 && !out->hot_pair) {
			out->hot_pair = true;
			out->hot_pair_cpu = (unsigned int)irq->cpu;
		}
	}
}
