// SPDX-License-Identifier: GPL-2.0-or-later
/* bench/irq-policies' simulated kernel: vector allocation, delivery, the trace. */
#include <errno.h>
#include <math.h>

#include "irq_sim.h"
#include "irq_trace.h"
#include "unit.h"

static struct cpuset cpus(const char *list)
{
	struct cpuset set;

	ck_assert_int_eq(cpuset_parse_list(list, &set), 0);
	return set;
}

/* 8 CPUs, two nodes (0-3, 4-7), 6-7 RT, @budget vectors each */
static void machine(struct irq_sim *sim, unsigned int nr_irqs, unsigned int budget)
{
	ck_assert_int_eq(irq_sim_init(sim, 8, nr_irqs, budget), 0);
	for (unsigned int cpu = 4; cpu < 8; cpu++)
		sim->cpu_node[cpu] = 1;
	sim->rt = cpus("6-7");
}

START_TEST(fewest_vectors_wins)
{
	struct cpuset all = cpus("0-5");
	struct irq_sim sim;

	machine(&sim, 7, 200);
	/* boot: each IRQ goes to the emptiest CPU, the lowest on ties */
	for (unsigned int i = 0; i < 7; i++)
		ck_assert_int_eq(irq_sim_add(&sim, i, 32 + i, 0, false, &all), 0);
	for (unsigned int i = 0; i < 6; i++)
		ck_assert_int_eq(sim.irqs[i].cpu, (int)i);
	ck_assert_int_eq(sim.irqs[6].cpu, 0);
	ck_assert_uint_eq(sim.vectors[0], 2);
	/* a mask of 0-1 with cpu 0 holding two vectors: cpu 1 */
	all = cpus("0-1");
	ck_assert_int_eq(irq_sim_best_cpu(&sim, &all), 1);
	irq_sim_release(&sim);
}
END_TEST

START_TEST(a_cpu_still_allowed_keeps_the_vector)
{
	struct cpuset mask = cpus("0-5");
	struct irq_sim sim;

	machine(&sim, 2, 200);
	ck_assert_int_eq(irq_sim_add(&sim, 0, 40, 0, false, &mask), 0);
	ck_assert_int_eq(irq_sim_add(&sim, 1, 41, 0, false, &mask), 0);
	ck_assert_int_eq(sim.irqs[1].cpu, 1);
	/* cpu 1 is in the new mask: no move, even though cpu 2 is emptier */
	mask = cpus("1-3");
	ck_assert_int_eq(irq_sim_set_affinity(&sim, 1, &mask), 0);
	ck_assert_int_eq(sim.irqs[1].cpu, 1);
	ck_assert(cpuset_equal(&sim.irqs[1].mask, &mask));
	/* not in it: the emptiest of the new mask; the old vector is freed */
	mask = cpus("3-4");
	ck_assert_int_eq(irq_sim_set_affinity(&sim, 1, &mask), 0);
	ck_assert_int_eq(sim.irqs[1].cpu, 3);
	ck_assert_uint_eq(sim.vectors[1], 0);
	ck_assert_uint_eq(sim.vectors[3], 1);
	irq_sim_release(&sim);
}
END_TEST

START_TEST(refusals_change_nothing)
{
	struct cpuset mask = cpus("0"), before;
	struct irq_sim sim;

	machine(&sim, 3, 1);
	ck_assert_int_eq(irq_sim_add(&sim, 0, 50, 0, false, &mask), 0);
	mask = cpus("1");
	ck_assert_int_eq(irq_sim_add(&sim, 1, 51, 0, false, &mask), 0);
	/* a full mask: ENOSPC, as irq_matrix_alloc() */
	ck_assert_int_eq(irq_sim_set_affinity(&sim, 1, &(struct cpuset[]){ cpus("0") }[0]),
			 -ENOSPC);
	ck_assert_int_eq(sim.irqs[1].cpu, 1);
	ck_assert_uint_eq(sim.vectors[0], 1);
	/* no online CPU: EINVAL */
	ck_assert_int_eq(irq_sim_set_affinity(&sim, 1, &(struct cpuset[]){ cpus("100") }[0]),
			 -EINVAL);
	/* managed: EIO, and its boot CPU avoids the RT CPUs of its mask */
	mask = cpus("5-7");
	ck_assert_int_eq(irq_sim_add(&sim, 2, 52, 1, true, &mask), 0);
	ck_assert_int_eq(sim.irqs[2].cpu, 5);
	before = sim.irqs[2].mask;
	ck_assert_int_eq(irq_sim_set_affinity(&sim, 2, &(struct cpuset[]){ cpus("4") }[0]), -EIO);
	ck_assert(cpuset_equal(&sim.irqs[2].mask, &before));
	ck_assert_int_eq(sim.irqs[2].cpu, 5);
	irq_sim_release(&sim);
}
END_TEST

START_TEST(a_second_of_delivery)
{
	struct irq_sim_second s;
	struct irq_sim sim;
	struct cpuset mask;

	machine(&sim, 4, 200);
	/* cpus 0-5 may take interrupts: mean = (1000 + 1000 + 500 + 200) * 1000 ns / 6 */
	mask = cpus("0");
	irq_sim_add(&sim, 0, 60, 0, false, &mask);
	irq_sim_add(&sim, 1, 61, 1, false, &mask); /* node 1's device on node 0 */
	mask = cpus("4");
	irq_sim_add(&sim, 2, 62, 1, false, &mask);
	mask = cpus("7");
	irq_sim_add(&sim, 3, 63, 1, false, &mask); /* on an RT CPU */
	sim.irqs[0].rate = sim.irqs[1].rate = 1000;
	sim.irqs[2].rate = 500;
	sim.irqs[3].rate = 200;
	for (unsigned int i = 0; i < 4; i++)
		sim.irqs[i].cost_ns = 1000;
	irq_sim_second(&sim, &s);
	ck_assert_uint_eq(s.interrupts, 2700);
	ck_assert_uint_eq(s.node_local, 1700); /* 61 alone is remote */
	ck_assert_uint_eq(s.on_rt, 200);
	/* the mean is over the six non-RT CPUs; cpu 0 holds 2000 us */
	ck_assert_double_eq_tol(s.imbalance, 2000e3 / (2500e3 / 6), 1e-9);
	ck_assert_double_eq_tol(s.bound, 1000e3 / (2500e3 / 6), 1e-9);
	ck_assert(s.hot_pair); /* 60 and 61 each at least the mean, on one CPU */
	ck_assert_uint_eq(sim.counts[0 * 8 + 0], 1000);
	ck_assert_uint_eq(sim.counts[3 * 8 + 7], 200);
	ck_assert_double_eq_tol(sim.cpu_irq_ns[0], 2e6, 1e-6);
	/* fractions carry over: 0.5/s fires every other second */
	sim.irqs[2].rate = 0.5;
	irq_sim_second(&sim, &s);
	ck_assert_uint_eq(sim.counts[2 * 8 + 4], 500);
	irq_sim_second(&sim, &s);
	ck_assert_uint_eq(sim.counts[2 * 8 + 4], 501);
	irq_sim_release(&sim);
}
END_TEST

static int read_trace(const char *text, struct irq_trace *trace, char *error)
{
	struct cpuset mask = cpus("0-5");
	struct irq_sim sim;
	FILE *file = fmemopen((void *)text, strlen(text), "r");
	int ret;

	machine(&sim, 1, 200);
	irq_sim_add(&sim, 0, 32, 0, false, &mask);
	ret = irq_trace_read(file, "t.txt", &sim, trace, error, 256);
	fclose(file);
	irq_sim_release(&sim);
	return ret;
}

/* @seconds of one IRQ at @rate on cpu 0, Poisson counts from @seed: the counts of each second */
static void draw_seconds(unsigned long seed, double rate, unsigned int seconds, uint64_t *counts,
			 struct irq_sim_second *last)
{
	struct cpuset mask = cpus("0");
	struct irq_sim sim;
	uint64_t before = 0;

	machine(&sim, 1, 200);
	irq_sim_add(&sim, 0, 40, 0, false, &mask);
	sim.irqs[0].rate = rate;
	sim.irqs[0].cost_ns = 1000;
	ck_assert_int_eq(irq_sim_random_arrivals(&sim, seed), 0);
	for (unsigned int i = 0; i < seconds; i++) {
		irq_sim_second(&sim, last);
		counts[i] = sim.counts[0] - before;
		before = sim.counts[0];
	}
	irq_sim_release(&sim);
}

/*
 * Random arrivals: a second's count is a Poisson draw around the rate
 * (mean and variance the rate), the same draws from one seed, others from
 * another; the figures still judge the rate itself.
 */
START_TEST(random_arrivals_vary_around_the_rate)
{
	enum { SECONDS = 4000 };
	static uint64_t a[SECONDS], b[SECONDS], c[SECONDS];
	struct irq_sim_second s;
	double mean = 0, variance = 0;
	unsigned int i, same = 0;

	draw_seconds(1, 300, SECONDS, a, &s);
	draw_seconds(1, 300, SECONDS, b, &s);
	draw_seconds(2, 300, SECONDS, c, &s);
	for (i = 0; i < SECONDS; i++) {
		ck_assert_uint_eq(a[i], b[i]);
		same += a[i] == c[i];
		mean += (double)a[i] / SECONDS;
	}
	for (i = 0; i < SECONDS; i++)
		variance += ((double)a[i] - mean) * ((double)a[i] - mean) / (SECONDS - 1);
	/* the mean within 4 standard errors, the variance within 15% */
	ck_assert_double_eq_tol(mean, 300, 4 * sqrt(300.0 / SECONDS));
	ck_assert_double_eq_tol(variance, 300, 45);
	/* one seed's draws are not another's: equal in about 2% of seconds */
	ck_assert_uint_lt(same, SECONDS / 10);
	/* one IRQ alone on the six non-RT CPUs: six times the mean, from the rate */
	ck_assert_double_eq_tol(s.imbalance, 6, 1e-9);
	ck_assert_double_eq_tol(s.bound, 6, 1e-9);
}
END_TEST

START_TEST(traces_and_their_errors)
{
	struct irq_trace trace;
	char error[256];

	ck_assert_int_eq(
		read_trace("# x\nseed 7\nseconds 60\n0 32 100 2000\n30 32 0 2000\n", &trace, error),
		0);
	ck_assert_uint_eq(trace.seed, 7);
	ck_assert_uint_eq(trace.seconds, 60);
	ck_assert_uint_eq(trace.nr_events, 2);
	ck_assert_uint_eq(trace.events[1].second, 30);
	irq_trace_release(&trace);
	ck_assert_int_eq(read_trace("seconds 60\n0 32 100\n", &trace, error), -EINVAL);
	ck_assert_str_eq(error,
			 "t.txt:2: malformed line '0 32 100' (want SECOND IRQ RATE COST_NS)");
	irq_trace_release(&trace);
	ck_assert_int_eq(read_trace("seconds 60\n0 32 100 9\n1 99 100 9\n", &trace, error),
			 -EINVAL);
	ck_assert_str_eq(error, "t.txt:3: unknown irq 99: the machine has no such irq");
	irq_trace_release(&trace);
	ck_assert_int_eq(read_trace("seconds 60\n\n0 32 -5 9\n", &trace, error), -EINVAL);
	ck_assert_str_eq(error, "t.txt:3: negative rate -5 for irq 32");
	irq_trace_release(&trace);
	ck_assert_int_eq(read_trace("seconds 60\n9 32 5 9\n3 32 5 9\n", &trace, error), -EINVAL);
	ck_assert_str_eq(error,
			 "t.txt:3: second 3 comes after second 9: changes must be in time order");
	irq_trace_release(&trace);
	ck_assert_int_eq(read_trace("0 32 5 9\n", &trace, error), -EINVAL);
	ck_assert_str_eq(error, "t.txt:1: a change before the 'seconds N' line");
	irq_trace_release(&trace);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irq_sim");
	TCase *tc = tcase_create("irq_sim");

	tcase_add_test(tc, fewest_vectors_wins);
	tcase_add_test(tc, a_cpu_still_allowed_keeps_the_vector);
	tcase_add_test(tc, refusals_change_nothing);
	tcase_add_test(tc, a_second_of_delivery);
	tcase_add_test(tc, random_arrivals_vary_around_the_rate);
	tcase_add_test(tc, traces_and_their_errors);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
