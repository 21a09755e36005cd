// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/irq_history.h"
#include "latscope/irqplan.h"
#include "unit.h"

#define MAX_IRQS 256
#define SECOND_NS 1000000000ULL

/* A machine made up for a test: topology, IRQs, their rates. */
struct machine {
	struct topology topo;
	struct irq_table table;
	double rates[MAX_IRQS];
	struct irqplan_input input;
	struct irqplan_policy policy;
};

static void set_list(struct cpuset *set, const char *text)
{
	ck_assert_int_eq(cpuset_parse_list(text, set), 0);
}

/* an IRQ's set, kept by the table */
static const struct cpuset *kept_list(struct irq_table *table, const char *text)
{
	struct cpuset set;
	const struct cpuset *kept;

	set_list(&set, text);
	kept = irq_table_keep_cpus(table, &set);
	ck_assert_ptr_nonnull(kept);
	return kept;
}

static const char *list(const struct cpuset *set)
{
	static char buf[8][128];
	static int next;

	next = (next + 1) % 8;
	return cpuset_format_list(set, buf[next], sizeof(buf[next]));
}

/* @nr_cpus CPUs in @nr_nodes equal nodes, @smt threads per core. */
static void machine_init(struct machine *m, unsigned int nr_cpus, unsigned int nr_nodes,
			 unsigned int smt, const char *isolated, const char *nohz_full)
{
	struct topology *topo = &m->topo;
	unsigned int cpu, per_node = nr_cpus / nr_nodes;
	struct cpuset rt;

	memset(m, 0, sizeof(*m));
	for (cpu = 0; cpu < nr_cpus; cpu++)
		cpuset_add(&topo->online, cpu);
	topo->possible = topo->online;
	set_list(&topo->isolated, isolated);
	set_list(&topo->nohz_full, nohz_full);
	cpuset_or(&rt, &topo->isolated, &topo->nohz_full);
	cpuset_andnot(&topo->housekeeping, &topo->online, &rt);
	topo->nr_cpus = nr_cpus;
	topo->nr_nodes = nr_nodes;
	topo->node_cpus = calloc(nr_nodes, sizeof(*topo->node_cpus));
	topo->cpus = calloc(nr_cpus, sizeof(*topo->cpus));
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		topo->cpus[cpu].node = (int)(cpu / per_node);
		topo->cpus[cpu].first_sibling = (int)(cpu - cpu % smt);
		cpuset_add(&topo->node_cpus[cpu / per_node], cpu);
	}
	m->table.irqs = calloc(MAX_IRQS, sizeof(struct irq_info));
	m->table.nr_columns = nr_cpus;
	irqplan_policy_default(&m->policy);
	m->input.topo = &m->topo;
	m->input.table = &m->table;
	m->input.rates = m->rates;
	m->input.default_affinity = topo->online;
}

static struct irq_info *add_irq(struct machine *m, unsigned int number, const char *name, int node,
				bool movable, const char *affinity, const char *effective,
				double rate)
{
	struct irq_info *irq = &m->table.irqs[m->table.nr_irqs];

	ck_assert_uint_lt(m->table.nr_irqs, MAX_IRQS);
	irq->number = number;
	irq->name = irq_table_keep_text(&m->table, name);
	irq->chip = irq_table_keep_text(&m->table, "PCI-MSIX");
	irq->node = node;
	irq->movable = movable;
	irq->has_affinity = true;
	irq->has_effective = true;
	irq->affinity = kept_list(&m->table, affinity);
	irq->effective = kept_list(&m->table, effective);
	if (node >= 0)
		snprintf(irq->device, sizeof(irq->device), "0000:%02x:00.0", 0x10 * (node + 1));
	m->rates[m->table.nr_irqs++] = rate;
	return irq;
}

static void machine_release(struct machine *m)
{
	irq_table_release(&m->table);
	topology_release(&m->topo);
}

static void plan(struct machine *m, struct irqplan *p)
{
	ck_assert_int_eq(irqplan_make(&m->input, &m->policy, p), 0);
}

/* What the kernel would do with the writes: the IRQ goes where it was sent. */
static void apply(struct machine *m, const struct irqplan *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_moves; i++) {
		struct irq_info *irq = &m->table.irqs[p->moves[i].row];
		struct cpuset to;

		cpuset_clear(&to);
		cpuset_add(&to, p->moves[i].to);
		irq->affinity = irq->effective = irq_table_keep_cpus(&m->table, &to);
	}
	if (p->default_change)
		m->input.default_affinity = p->default_to;
}

static const struct irqplan_move *move_of(const struct irqplan *p, unsigned int irq)
{
	unsigned int i;

	for (i = 0; i < p->nr_moves; i++)
		if (p->moves[i].irq == irq)
			return &p->moves[i];
	return NULL;
}

static const struct irqplan_unmovable *unmovable_of(const struct irqplan *p, unsigned int irq)
{
	unsigned int i;

	for (i = 0; i < p->nr_unmovable; i++)
		if (p->unmovable[i].irq == irq)
			return &p->unmovable[i];
	return NULL;
}

/*
 * Two sockets of 4 cores x 2 threads, a node each; isolated CPUs on both
 * nodes: 4-7 and 12-15 (nohz_full 6-7, 14-15). NICs on each node, managed
 * NVMe queues, a device without node.
 */
static void two_sockets(struct machine *m)
{
	unsigned int q;

	machine_init(m, 16, 2, 2, "4-7,12-15", "6-7,14-15");
	for (q = 0; q < 8; q++) {
		char name[32], eff[8];

		snprintf(name, sizeof(name), "eth0-TxRx-%u", q);
		snprintf(eff, sizeof(eff), "%u", (q * 5) % 16);
		add_irq(m, 40 + q, name, 0, true, "0-15", eff, 20000.0 + 1000 * q);
		snprintf(name, sizeof(name), "eth1-TxRx-%u", q);
		snprintf(eff, sizeof(eff), "%u", (q * 3 + 1) % 16);
		add_irq(m, 50 + q, name, 1, true, "0-15", eff, 3000.0 + 100 * q);
	}
	add_irq(m, 61, "nvme0q1", 1, false, "0-3", "0", 5000);
	add_irq(m, 62, "nvme0q2", 1, false, "4-7", "5", 5000);
	add_irq(m, 70, "virtio0-input.0", -1, true, "0-15", "13", 800);
	add_irq(m, 71, "i8042", -1, true, "0-3", "2", 1);
}

START_TEST(two_sockets_smt_isolated_on_both_nodes)
{
	const struct irqplan_unmovable *u;
	const struct irqplan_move *mv;
	struct machine m;
	struct irqplan p, again;
	struct cpuset node0, node1, cores;
	unsigned int i;

	two_sockets(&m);
	plan(&m, &p);
	ck_assert_str_eq(list(&p.rt), "4-7,12-15");
	ck_assert_str_eq(list(&p.allowed), "0-3,8-11");
	set_list(&node0, "0-3");
	set_list(&node1, "8-11");

	/* every NIC queue had RT CPUs in its affinity: all move, to their node */
	for (i = 0; i < 8; i++) {
		mv = move_of(&p, 40 + i);
		ck_assert_ptr_nonnull(mv);
		ck_assert_int_eq(mv->kind, IRQPLAN_SAFETY);
		ck_assert(cpuset_has(&node0, mv->to));
		ck_assert(!mv->remote);
		mv = move_of(&p, 50 + i);
		ck_assert_ptr_nonnull(mv);
		ck_assert(cpuset_has(&node1, mv->to));
	}
	/* the heaviest two of node 0 land on the two different cores */
	cpuset_clear(&cores);
	cpuset_add(&cores, move_of(&p, 47)->to / 2);
	cpuset_add(&cores, move_of(&p, 46)->to / 2);
	ck_assert_uint_eq(cpuset_count(&cores), 2);
	/* no CPU of node 0 takes more than its share of the eight queues */
	for (i = 0; i < 4; i++) {
		unsigned int n = 0, j;

		for (j = 0; j < 8; j++)
			n += move_of(&p, 40 + j)->to == i;
		ck_assert_uint_eq(n, 2);
	}
	/* unknown node: any allowed CPU */
	mv = move_of(&p, 70);
	ck_assert_ptr_nonnull(mv);
	ck_assert(cpuset_has(&p.allowed, mv->to));
	ck_assert_ptr_nonnull(strstr(mv->reason, "includes RT cpu 4-7,12-15"));
	/* a good placement stays */
	ck_assert_ptr_null(move_of(&p, 71));

	mv = move_of(&p, 42);
	ck_assert_ptr_nonnull(strstr(mv->reason, "its affinity 0-15 includes RT cpu 4-7,12-15"));
	ck_assert_ptr_nonnull(strstr(mv->reason, "node 0: cpu "));
	ck_assert_ptr_nonnull(strstr(mv->reason, "the least loaded core of node 0"));

	u = unmovable_of(&p, 62);
	ck_assert_ptr_nonnull(u);
	ck_assert(u->reaches_rt);
	ck_assert_ptr_nonnull(strstr(u->reason, "isolcpus=managed_irq,domain,4-7,12-15"));
	u = unmovable_of(&p, 61);
	ck_assert(!u->reaches_rt);
	ck_assert_uint_eq(p.nr_unmovable, 2);

	ck_assert(p.default_change);
	ck_assert_str_eq(list(&p.default_from), "0-15");
	ck_assert_str_eq(list(&p.default_to), "0-3,8-11");

	/* deterministic */
	plan(&m, &again);
	ck_assert_uint_eq(again.nr_moves, p.nr_moves);
	for (i = 0; i < p.nr_moves; i++) {
		ck_assert_uint_eq(again.moves[i].irq, p.moves[i].irq);
		ck_assert_uint_eq(again.moves[i].to, p.moves[i].to);
		ck_assert_int_eq(again.moves[i].kind, p.moves[i].kind);
		ck_assert_str_eq(again.moves[i].reason, p.moves[i].reason);
	}
	irqplan_release(&again);

	/* plan after apply: nothing to do */
	apply(&m, &p);
	plan(&m, &again);
	ck_assert_uint_eq(again.nr_moves, 0);
	ck_assert(!again.default_change);
	irqplan_release(&again);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(single_node_balances_a_piled_up_cpu)
{
	struct machine m;
	struct irqplan p, again;
	unsigned int i, on_cpu0 = 0;

	/* 4 CPUs, no isolation: every IRQ piled on CPU 0 by someone */
	machine_init(&m, 4, 1, 1, "", "");
	for (i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "q%u", i);
		add_irq(&m, 30 + i, name, 0, true, "0-3", "0", 1000);
	}
	plan(&m, &p);
	ck_assert(cpuset_has(&p.overloaded, 0));
	for (i = 0; i < p.nr_moves; i++) {
		ck_assert_int_eq(p.moves[i].kind, IRQPLAN_BALANCE);
		ck_assert_uint_ne(p.moves[i].to, 0);
	}
	ck_assert_ptr_nonnull(
		strstr(p.moves[0].reason,
		       "cpu 0 load 8.0k/s is 300% above the node 0 mean 2.0k/s (dead band 25%)"));
	apply(&m, &p);
	for (i = 0; i < 8; i++)
		on_cpu0 += cpuset_has(m.table.irqs[i].effective, 0);
	ck_assert_uint_eq(on_cpu0, 2);
	ck_assert(!p.default_change);
	plan(&m, &again);
	ck_assert_uint_eq(again.nr_moves, 0);
	irqplan_release(&again);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

/*
 * A placement with nothing to move: no pending array is ever allocated.
 * Under -fsanitize=undefined this failed with "null pointer passed as
 * argument 1" (qsort_r of NULL, 0 elements).
 */
START_TEST(nothing_pending)
{
	struct machine m;
	struct irqplan p;

	machine_init(&m, 4, 1, 1, "2-3", "");
	add_irq(&m, 30, "q0", 0, true, "0", "0", 100);
	add_irq(&m, 31, "q1", 0, true, "1", "1", 100);
	set_list(&m.input.default_affinity, "0-1");
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_moves, 0);
	ck_assert(!p.default_change);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(everything_isolated_but_cpu0)
{
	struct machine m;
	struct irqplan p, again;
	unsigned int i;

	machine_init(&m, 4, 1, 1, "1-3", "");
	for (i = 0; i < 6; i++) {
		char name[16], eff[4];

		snprintf(name, sizeof(name), "q%u", i);
		snprintf(eff, sizeof(eff), "%u", i % 4);
		add_irq(&m, 30 + i, name, 0, true, "0-3", eff, 100.0 * (i + 1));
	}
	plan(&m, &p);
	ck_assert_str_eq(list(&p.allowed), "0");
	ck_assert_uint_eq(p.nr_moves, 6);
	for (i = 0; i < p.nr_moves; i++)
		ck_assert_uint_eq(p.moves[i].to, 0);
	/* one allowed CPU: nothing to balance, however loaded */
	ck_assert(cpuset_empty(&p.overloaded));
	apply(&m, &p);
	plan(&m, &again);
	ck_assert_uint_eq(again.nr_moves, 0);
	irqplan_release(&again);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(device_on_a_node_without_allowed_cpu)
{
	const struct irqplan_move *mv;
	struct machine m;
	struct irqplan p;

	/* node 1 (CPUs 4-7) is all isolated */
	machine_init(&m, 8, 2, 1, "4-7", "");
	add_irq(&m, 50, "eth1-rx-0", 1, true, "4-7", "5", 9000);
	add_irq(&m, 51, "eth1-rx-1", 1, true, "0-3", "1", 9000);
	plan(&m, &p);
	mv = move_of(&p, 50);
	ck_assert_ptr_nonnull(mv);
	ck_assert(mv->remote);
	ck_assert_uint_lt(mv->to, 4);
	ck_assert_ptr_nonnull(strstr(mv->reason, "node 1 of 0000:20:00.0 has no allowed cpu"));
	/* already on the allowed node: fine, nothing better exists */
	ck_assert_ptr_null(move_of(&p, 51));
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(effective_cpu_lagging_behind_a_write)
{
	struct machine m;
	struct irqplan p;

	/* written to CPU 0; the kernel moves it at its next interrupt */
	machine_init(&m, 2, 1, 1, "", "");
	set_list(&m.input.rt_cpus, "1");
	add_irq(&m, 38, "virtio2-input.0", -1, true, "0", "1", 0);
	set_list(&m.input.default_affinity, "0");
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_moves, 0);
	ck_assert_uint_eq(p.rt_until_next_interrupt, 1);
	ck_assert(!p.default_change);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(rt_list_covering_every_cpu)
{
	struct machine m;
	struct irqplan p;

	machine_init(&m, 4, 1, 1, "2-3", "");
	add_irq(&m, 30, "q", 0, true, "0-3", "0", 1);
	set_list(&m.input.rt_cpus, "0-1");
	ck_assert_int_eq(irqplan_make(&m.input, &m.policy, &p), -EINVAL);
	machine_release(&m);
}
END_TEST

/* An affinity file that does not read: not gone, not placed, and no plan is good with it. */
START_TEST(unreadable_affinities_are_not_judged)
{
	const struct irqplan_unmovable *u;
	struct machine m;
	struct irqplan p;
	struct irq_info *irq;
	unsigned int i;

	machine_init(&m, 8, 2, 1, "2-3", "");
	/* placed right otherwise: without the two below, a good placement */
	add_irq(&m, 20, "fine", 0, true, "0-1", "0", 1);
	irq = add_irq(&m, 30, "bad-list", 0, true, "", "", 100);
	irq->has_affinity = irq->movable = false;
	irq->affinity_error = -EINVAL;
	irq = add_irq(&m, 31, "bad-effective", 0, true, "0-7", "", 100);
	irq->has_effective = false;
	irq->effective_error = -EIO;
	irq = add_irq(&m, 32, "gone", 0, true, "", "", 1);
	irq->has_affinity = irq->movable = false;
	irq->affinity_error = -ENOENT;
	m.input.default_affinity = m.topo.housekeeping;
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_unreadable, 2);
	ck_assert_uint_eq(p.unreadable[0].irq, 30);
	ck_assert_ptr_nonnull(
		strstr(p.unreadable[0].reason, "/proc/irq/30/smp_affinity_list: not a cpu list"));
	ck_assert_uint_eq(p.unreadable[1].irq, 31);
	ck_assert_ptr_nonnull(strstr(p.unreadable[1].reason,
				     "/proc/irq/31/effective_affinity_list: Input/output error"));
	/* 31 is allowed on RT cpus, yet not moved: what a move reads back does not read */
	ck_assert_uint_eq(p.nr_moves, 0);
	for (i = 0; i < p.nr_unmovable; i++)
		ck_assert_uint_ne(p.unmovable[i].irq, 30);
	u = unmovable_of(&p, 32);
	ck_assert_ptr_nonnull(strstr(u->reason, "the IRQ is gone"));
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

/*
 * A managed IRQ whose file is writable (Debian's 6.1): the kernel's refusal
 * of a test write told it, and the plan says so instead of the mode.
 */
START_TEST(unmovable_by_probe_says_so)
{
	const struct irqplan_unmovable *u;
	struct machine m;
	struct irqplan p;
	struct irq_info *irq;

	machine_init(&m, 4, 1, 1, "2-3", "2-3");
	add_irq(&m, 29, "virtio2-req.0", 0, false, "0", "0", 1);
	add_irq(&m, 30, "virtio2-req.1", 0, false, "1,3", "3", 1);
	irq = add_irq(&m, 31, "virtio2-req.2", 0, false, "2", "2", 1);
	irq->movable_by = IRQ_MOVABLE_BY_PROBE;
	irq->probed = true;
	irq->probe_error = EIO;
	irq = add_irq(&m, 34, "virtio3-input.0", 0, true, "0-3", "0", 1);
	irq->movable_by = IRQ_MOVABLE_BY_PROBE;
	irq->probed = true;
	irq->probe_error = EINVAL;
	m.input.default_affinity = m.topo.housekeeping;
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_moves, 1);
	ck_assert_uint_eq(p.moves[0].irq, 34);
	u = unmovable_of(&p, 31);
	ck_assert_ptr_nonnull(u);
	ck_assert(u->reaches_rt);
	ck_assert_ptr_nonnull(strstr(u->reason, "(the kernel refused a test write with EIO); "
						"effective cpu 2 reaches RT cpu 2"));
	/* its queue has cpu 2 alone: managed_irq has nowhere else to put it */
	ck_assert_ptr_nonnull(
		strstr(u->reason, "even isolcpus=managed_irq,domain,2-3 leaves it there"));
	/* a queue with a housekeeping cpu: the boot line moves it */
	u = unmovable_of(&p, 30);
	ck_assert_ptr_nonnull(strstr(u->reason, "reaches RT cpu 3: boot with "
						"isolcpus=managed_irq,domain,2-3"));
	u = unmovable_of(&p, 29);
	ck_assert(!u->reaches_rt);
	ck_assert_ptr_nonnull(strstr(u->reason, "(affinity file mode 0444)"));
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

START_TEST(gone_offline_and_remote_affinities)
{
	const struct irqplan_unmovable *u;
	const struct irqplan_move *mv;
	struct machine m;
	struct irqplan p;
	struct irq_info *irq;

	machine_init(&m, 8, 2, 1, "", "");
	irq = add_irq(&m, 30, "gone", 0, true, "0-3", "0", 1);
	irq->has_affinity = false;
	irq->movable = false;
	/* only offline CPUs in its affinity */
	cpuset_remove(&m.topo.online, 7);
	add_irq(&m, 31, "offline", 0, true, "7", "7", 1);
	/* on the wrong node */
	add_irq(&m, 32, "remote", 1, true, "0-1", "1", 1);
	plan(&m, &p);
	u = unmovable_of(&p, 30);
	ck_assert_ptr_nonnull(strstr(u->reason, "the IRQ is gone"));
	mv = move_of(&p, 31);
	ck_assert_ptr_nonnull(strstr(mv->reason, "no online cpu in its affinity 7"));
	mv = move_of(&p, 32);
	ck_assert_int_eq(mv->kind, IRQPLAN_NODE);
	ck_assert_uint_ge(mv->to, 4);
	ck_assert_ptr_nonnull(strstr(
		mv->reason, "its device 0000:20:00.0 is on node 1, its affinity 0-1 is not"));
	/* default_smp_affinity with an offline CPU is still right */
	ck_assert(!p.default_change);
	irqplan_release(&p);
	machine_release(&m);
}
END_TEST

/* A deterministic generator: tests must not depend on the C library's rand. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* +-@share uniform noise */
static double noisy(uint64_t *state, double value, double share)
{
	double u = (double)(next_random(state) % 2001) / 1000.0 - 1.0;

	return value * (1 + share * u);
}

/* 2 sockets x 8 cores x 2 threads, 4 isolated cores a node, 48 IRQs */
static void busy_server(struct machine *m)
{
	uint64_t seed = 42;
	unsigned int i;

	machine_init(m, 32, 2, 2, "8-15,24-31", "");
	for (i = 0; i < 48; i++) {
		char name[32];

		snprintf(name, sizeof(name), "eth%u-q%u", i % 2, i / 2);
		add_irq(m, 100 + i, name, (int)(i % 2), true, "0-31", "8", 0);
		m->rates[i] = 2000.0 + (double)(next_random(&seed) % 8000);
	}
}

START_TEST(stable_after_apply_and_under_noise)
{
	struct machine m;
	struct irqplan p, again;
	double base[MAX_IRQS];
	unsigned int round, i;
	uint64_t seed = 7;

	busy_server(&m);
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_moves, 48);
	apply(&m, &p);
	irqplan_release(&p);
	plan(&m, &p);
	ck_assert_uint_eq(p.nr_moves, 0);
	irqplan_release(&p);

	/* +-10% noise on every rate: still nothing to do */
	memcpy(base, m.rates, sizeof(base));
	for (round = 0; round < 50; round++) {
		for (i = 0; i < m.table.nr_irqs; i++)
			m.rates[i] = noisy(&seed, base[i], 0.10);
		plan(&m, &again);
		ck_assert_msg(again.nr_moves == 0, "round %u: %u moves: %s", round, again.nr_moves,
			      again.nr_moves ? again.moves[0].reason : "");
		irqplan_release(&again);
	}
	/* one IRQ ten times busier: at most two moves, whichever it is */
	for (round = 0; round < m.table.nr_irqs; round++) {
		memcpy(m.rates, base, sizeof(base));
		m.rates[round] *= 10;
		plan(&m, &again);
		ck_assert_msg(again.nr_moves <= 2, "irq %u x10: %u moves", round, again.nr_moves);
		irqplan_release(&again);
	}
	machine_release(&m);
}
END_TEST

struct day {
	unsigned int balance_moves;
	unsigned int held_by_dwell;
	unsigned int held_by_budget;
};

/*
 * A simulated day at 10 s intervals with the balance daemon's policy:
 * noise all the time and, every 40 minutes, one IRQ 10x busier for 20
 * minutes. Every move must respect the dwell time and the hourly budget.
 */
static void simulate_day(unsigned int max_moves_per_hour, struct day *day)
{
	const uint64_t interval = 10 * SECOND_NS, length = 86400 * SECOND_NS;
	uint64_t seed = 99, now, last_move[MAX_IRQS] = { 0 };
	uint64_t *budgeted = calloc(100000, sizeof(uint64_t));
	struct irq_history *history = irq_history_new();
	unsigned int nr_budgeted = 0, i, j, hot;
	double base[MAX_IRQS];
	struct machine m;
	struct irqplan p;

	memset(day, 0, sizeof(*day));
	busy_server(&m);
	m.policy.overload_intervals = 3;
	m.policy.max_moves_per_hour = max_moves_per_hour;
	memcpy(base, m.rates, sizeof(base));
	for (now = interval; now <= length; now += interval) {
		unsigned int minute = (unsigned int)(now / (60 * SECOND_NS));

		for (i = 0; i < m.table.nr_irqs; i++)
			m.rates[i] = noisy(&seed, base[i], 0.10);
		if (minute % 40 < 20) {
			hot = (minute / 40) % m.table.nr_irqs;
			m.rates[hot] *= 10;
		}
		m.input.history = history;
		m.input.now_ns = now;
		plan(&m, &p);
		day->held_by_dwell += p.held_by_dwell;
		day->held_by_budget += p.held_by_budget;
		for (i = 0; i < p.nr_moves; i++) {
			const struct irqplan_move *mv = &p.moves[i];

			if (mv->kind == IRQPLAN_SAFETY)
				continue;
			/* no IRQ moves again within its dwell time */
			ck_assert_msg(!last_move[mv->row] ||
					      now - last_move[mv->row] >= m.policy.min_dwell_ns,
				      "irq %u moved twice within %llu s", mv->irq,
				      (unsigned long long)((now - last_move[mv->row]) / SECOND_NS));
			/*
			 * a balance move follows 3 intervals of overload, or
			 * leaves a CPU one IRQ has held up past the bursts
			 */
			if (mv->kind == IRQPLAN_BALANCE && !strstr(mv->reason, "holds it up"))
				ck_assert_uint_ge(irq_history_overload_streak(
							  history, (unsigned int)mv->from_cpu),
						  2);
			last_move[mv->row] = now;
			budgeted[nr_budgeted++] = now;
			day->balance_moves += mv->kind == IRQPLAN_BALANCE;
		}
		ck_assert_int_eq(irq_history_commit(history, &p, &m.table, NULL, now), 0);
		apply(&m, &p);
		irqplan_release(&p);
	}
	/* the budget holds in every hour-long window */
	for (i = 0; i < nr_budgeted; i++) {
		unsigned int in_window = 0;

		for (j = i; j < nr_budgeted && budgeted[j] < budgeted[i] + 3600 * SECOND_NS; j++)
			in_window++;
		ck_assert_uint_le(in_window, max_moves_per_hour);
	}
	free(budgeted);
	irq_history_free(history);
	machine_release(&m);
}

START_TEST(cooldown_and_budget_over_a_day)
{
	struct day day;

	simulate_day(12, &day);
	/* the hot IRQs did cause moves */
	ck_assert_uint_gt(day.balance_moves, 24);
	/* a tight budget holds moves back, and still lets some through */
	simulate_day(3, &day);
	ck_assert_uint_gt(day.held_by_budget, 0);
	ck_assert_uint_gt(day.balance_moves, 0);
	ck_assert_uint_le(day.balance_moves, 3 * 24);
}
END_TEST

/* One IRQ on each CPU from @first on: numbers @number + cpu, rate @rate. */
static void one_per_cpu(struct machine *m, unsigned int first, unsigned int nr_cpus,
			unsigned int number, const char *name, double rate)
{
	unsigned int cpu;

	for (cpu = first; cpu < nr_cpus; cpu++) {
		char text[12];

		snprintf(text, sizeof(text), "%u", cpu);
		add_irq(m, number + cpu, name, 0, true, text, text, rate);
	}
}

/* Run the daemon's plan-apply-commit for one interval. */
static void interval(struct machine *m, struct irq_history *history, uint64_t now,
		     struct irqplan *p)
{
	m->input.history = history;
	m->input.now_ns = now;
	plan(m, p);
	ck_assert_int_eq(irq_history_commit(history, p, &m->table, NULL, now), 0);
	apply(m, p);
}

/* @n intervals of overload on CPU 0 that move nothing; *now moves on. */
static void quiet_intervals(struct machine *m, struct irq_history *history, uint64_t *now,
			    unsigned int n)
{
	struct irqplan p;

	for (; n; n--, *now += 10 * SECOND_NS) {
		interval(m, history, *now, &p);
		ck_assert(cpuset_has(&p.overloaded, 0));
		ck_assert_msg(p.nr_moves == 0, "%s", p.nr_moves ? p.moves[0].reason : "");
		irqplan_release(&p);
	}
}

START_TEST(an_irq_moved_dwells)
{
	struct irq_history *history = irq_history_new();
	const struct irqplan_move *mv;
	uint64_t now = 10 * SECOND_NS, moved_at;
	unsigned int i, held = 0;
	struct machine m;
	struct irqplan p;

	/*
	 * 4 CPUs; CPU 0 carries 4 IRQs of 1.4k/s, the others one of 1k/s
	 * that cannot move: an overload spread over several IRQs, neither a
	 * pile-up nor one IRQ's
	 */
	machine_init(&m, 4, 1, 1, "", "");
	for (i = 0; i < 4; i++)
		add_irq(&m, 30 + i, "hot", 0, true, "0", "0", 1400);
	for (i = 1; i < 4; i++) {
		char cpu[4];

		snprintf(cpu, sizeof(cpu), "%u", i);
		add_irq(&m, 40 + i, "cold", 0, false, cpu, cpu, 1000);
	}
	m.policy.overload_intervals = 3;
	/* two intervals of overload: not yet */
	for (i = 0; i < 2; i++, now += 10 * SECOND_NS) {
		interval(&m, history, now, &p);
		ck_assert_uint_eq(p.nr_moves, 0);
		ck_assert(cpuset_has(&p.overloaded, 0));
		irqplan_release(&p);
	}
	/* the third: CPU 0 sheds load */
	interval(&m, history, now, &p);
	ck_assert_uint_ge(p.nr_moves, 1);
	mv = &p.moves[0];
	ck_assert_int_eq(mv->kind, IRQPLAN_BALANCE);
	ck_assert_uint_eq(mv->irq, 30);
	ck_assert_ptr_nonnull(strstr(mv->reason, "for 3 intervals"));

	moved_at = now;
	ck_assert_uint_eq(mv->to, 1);
	irqplan_release(&p);

	/*
	 * Its neighbour on CPU 1 gets busier (3.9k/s against a mean of
	 * 2.5k/s): moving IRQ 30 on would be the only move, but it waits for
	 * its 5 minutes.
	 */
	m.rates[4] = 2500;
	while (now < moved_at + m.policy.min_dwell_ns - 10 * SECOND_NS) {
		now += 10 * SECOND_NS;
		interval(&m, history, now, &p);
		ck_assert_ptr_null(move_of(&p, 30));
		held += p.held_by_dwell;
		irqplan_release(&p);
	}
	ck_assert_uint_gt(held, 0);
	now += 10 * SECOND_NS;
	interval(&m, history, now, &p);
	ck_assert_ptr_nonnull(move_of(&p, 30));
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * The complement of "no ping-pong": two hot queues on one CPU, each hotter
 * than a mean CPU, so that whichever moves leaves its target above the
 * dead band. Such a pile-up must still be split, at its first overloaded
 * interval (a burst lasts seconds, not three intervals), and then stay
 * split.
 */
START_TEST(a_sustained_hot_pair_is_split)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	const struct irqplan_move *mv;
	unsigned int i, moves = 0;
	struct machine m;
	struct irqplan p;
	int hot_cpu = -1;

	/* 8 CPUs: 20k/s + 20k/s on CPU 0, 2k/s on each of the others; mean 6.75k/s */
	machine_init(&m, 8, 1, 1, "", "");
	add_irq(&m, 50, "hot", 0, true, "0", "0", 20000);
	add_irq(&m, 51, "hot", 0, true, "0", "0", 20000);
	one_per_cpu(&m, 1, 8, 60, "cold", 2000);
	irqplan_policy_for_balance(&m.policy);
	/* the first interval the pair is seen: one of it leaves */
	interval(&m, history, now, &p);
	ck_assert_uint_eq(p.nr_moves, 1);
	mv = &p.moves[0];
	ck_assert_int_eq(mv->kind, IRQPLAN_BALANCE);
	ck_assert(mv->irq == 50 || mv->irq == 51);
	ck_assert_uint_ne(mv->to, 0);
	ck_assert_ptr_nonnull(strstr(mv->reason, "for 1 interval;"));
	hot_cpu = (int)mv->to;
	irqplan_release(&p);
	/*
	 * Ten minutes on: split it stays, neither hot IRQ moves again; only
	 * the cold IRQ that shared the target may leave it.
	 */
	for (i = 0; i < 60; i++) {
		now += 10 * SECOND_NS;
		interval(&m, history, now, &p);
		ck_assert_ptr_null(move_of(&p, 50));
		ck_assert_ptr_null(move_of(&p, 51));
		moves += p.nr_moves;
		irqplan_release(&p);
	}
	ck_assert_uint_le(moves, 1);
	ck_assert_int_ne(hot_cpu, 0);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * 8 CPUs: 20k/s, two of 2k/s on CPU 0, one of 50/s on @small_cpu, 2k/s on
 * each of the others. Returns the small one's row.
 */
static unsigned int flow_machine(struct machine *m, const char *small_cpu)
{
	unsigned int small;

	machine_init(m, 8, 1, 1, "", "");
	add_irq(m, 50, "hot", 0, true, "0", "0", 20000);
	add_irq(m, 51, "cold", 0, true, "0", "0", 2000);
	add_irq(m, 52, "cold", 0, true, "0", "0", 2000);
	small = m->table.nr_irqs;
	add_irq(m, 53, "small", 0, true, small_cpu, small_cpu, 50);
	one_per_cpu(m, 1, 8, 60, "cold", 2000);
	irqplan_policy_for_balance(&m->policy);
	return small;
}

/*
 * A burst, then a flow: one queue hotter than a mean CPU, on a CPU with
 * two cold ones and a small one. Shedding them cannot bring that CPU
 * under the dead band; they are not moved while it lasts a burst's time
 * (a minute), and once it has lasted longer, every one of them leaves it,
 * the small one too, in that interval; the hot one stays, and nothing
 * comes back.
 */
START_TEST(one_hot_irq_keeps_its_cpu_to_itself_after_a_burst)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	const struct irqplan_move *mv;
	char intervals[32], why[96];
	unsigned int i, burst;
	struct machine m;
	struct irqplan p;

	flow_machine(&m, "0");
	ck_assert_uint_lt(m.policy.max_burst_ns, m.policy.min_dwell_ns);
	burst = (unsigned int)(m.policy.max_burst_ns / SECOND_NS);
	snprintf(intervals, sizeof(intervals), "for %u intervals", burst / 10 + 1);
	snprintf(why, sizeof(why), "irq 50 alone (20.0k/s) holds it up, for %u s", burst);
	/* overloaded all along, and nothing moves while it could be a burst */
	quiet_intervals(&m, history, &now, burst / 10);
	/* then the others leave it, the hot one stays */
	interval(&m, history, now, &p);
	ck_assert_uint_eq(p.nr_moves, 3);
	ck_assert_ptr_null(move_of(&p, 50));
	for (i = 51; i <= 53; i++) {
		mv = move_of(&p, i);
		ck_assert_ptr_nonnull(mv);
		ck_assert_int_eq(mv->kind, IRQPLAN_BALANCE);
		ck_assert_uint_ne(mv->to, 0);
		ck_assert_ptr_nonnull(strstr(mv->reason, intervals));
		ck_assert_msg(strstr(mv->reason, why), "%s", mv->reason);
	}
	irqplan_release(&p);
	/* ten minutes on: the hot one has its CPU to itself, nothing moves */
	for (i = 0; i < 60; i++) {
		now += 10 * SECOND_NS;
		interval(&m, history, now, &p);
		ck_assert_msg(p.nr_moves == 0, "%s", p.nr_moves ? p.moves[0].reason : "");
		irqplan_release(&p);
	}
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * The same flow, with the small IRQ moved onto its CPU just before (by
 * hand, as a balance move would): a flow's CPU is cleared of IRQs inside
 * their dwell too, since they cannot lower its load and it keeps them
 * company for the flow's whole stay. An IRQ that comes does not make the
 * flow's hold start again: the CPU is cleared a burst's time after the
 * flow began to hold it up.
 */
START_TEST(a_flow_clears_its_cpu_of_irqs_inside_their_dwell)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS, moved_at;
	struct irqplan_move by_hand = {
		.irq = 53, .kind = IRQPLAN_BALANCE, .from_cpu = 1, .to = 0
	};
	struct irqplan hand = { .nr_moves = 1, .moves = &by_hand };
	const struct irqplan_move *mv;
	unsigned int burst;
	struct machine m;
	struct irqplan p;

	by_hand.row = flow_machine(&m, "1");
	burst = (unsigned int)(m.policy.max_burst_ns / SECOND_NS);
	quiet_intervals(&m, history, &now, 1);
	ck_assert_int_eq(irq_history_commit(history, &hand, &m.table, NULL, now), 0);
	apply(&m, &hand);
	moved_at = now;
	now += 10 * SECOND_NS;
	quiet_intervals(&m, history, &now, burst / 10 - 2);
	interval(&m, history, now, &p);
	ck_assert_uint_eq(now - irq_history_held_since(history, 0, 50), burst * SECOND_NS);
	ck_assert_uint_lt(now - moved_at, m.policy.min_dwell_ns);
	mv = move_of(&p, 53);
	ck_assert_ptr_nonnull(mv);
	ck_assert_int_eq(mv->kind, IRQPLAN_BALANCE);
	ck_assert_uint_ne(mv->to, 0);
	ck_assert_ptr_null(move_of(&p, 50));
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * 8 CPUs: CPU 0 holds irq 50 (500/s, bursting to @hot) and irq 51
 * (1.5k/s), each other CPU one IRQ of 2k/s: balanced until 50 bursts,
 * and then held up by it alone.
 */
static void bursting_machine(struct machine *m)
{
	machine_init(m, 8, 1, 1, "", "");
	add_irq(m, 50, "hot", 0, true, "0", "0", 500);
	add_irq(m, 51, "cold", 0, true, "0", "0", 1500);
	one_per_cpu(m, 1, 8, 60, "cold", 2000);
	irqplan_policy_for_balance(&m->policy);
}

/*
 * @n bursts of irq 50 on CPU 0 (bursting_machine()), 30 s each, a minute
 * apart: each calms down by itself; *now moves on.
 */
static void bursts_of_30s(struct machine *m, struct irq_history *history, uint64_t *now,
			  unsigned int n)
{
	struct irqplan p;

	for (; n; n--, *now += 30 * SECOND_NS) {
		m->rates[0] = 20000;
		quiet_intervals(m, history, now, 3);
		m->rates[0] = 500;
		interval(m, history, *now, &p);
		ck_assert(!cpuset_has(&p.overloaded, 0));
		irqplan_release(&p);
	}
}

/*
 * The bursts seen are how long one waits. After 18 bursts of 30 s the
 * wait is still --max-burst: a 19th of 40 s moves nothing. Once those 19
 * have calmed down by themselves in the hour, a burst that stays has its
 * CPU cleared after 40 s, the longest, not 2 min, and the reason says
 * which wait it outlasted.
 */
START_TEST(bursts_seen_shorten_the_wait_for_a_flow)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	const struct irqplan_move *mv;
	unsigned int count;
	struct machine m;
	struct irqplan p;

	bursting_machine(&m);
	bursts_of_30s(&m, history, &now, 18);
	ck_assert_uint_eq(irq_history_longest_burst(history, 0, m.policy.max_burst_ns, &count),
			  30 * SECOND_NS);
	ck_assert_uint_eq(count, 18);
	m.rates[0] = 20000;
	quiet_intervals(&m, history, &now, 4);
	m.rates[0] = 500;
	interval(&m, history, now, &p);
	irqplan_release(&p);
	now += 30 * SECOND_NS;
	/* the flow: held up at once, nothing moves for the 40 s the longest burst lasted */
	m.rates[0] = 20000;
	quiet_intervals(&m, history, &now, 4);
	interval(&m, history, now, &p);
	ck_assert_uint_eq(p.nr_moves, 1);
	mv = move_of(&p, 51);
	ck_assert_ptr_nonnull(mv);
	ck_assert_msg(
		strstr(mv->reason, "for 40 s, longer than the bursts of the last hour (40 s)"),
		"%s", mv->reason);
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * One interval as the history sees it: @holder alone holds cpu 0 up
 * (IRQPLAN_NO_IRQ: none), cpu 0 @overloaded or not, and with @moved irq 50
 * leaves it.
 */
static void hold_interval(struct irq_history *history, const struct irq_table *table,
			  unsigned int holder, bool overloaded, bool moved, uint64_t now)
{
	unsigned int held_up_by[2] = { holder, IRQPLAN_NO_IRQ };
	struct irqplan_move move = { .irq = 50, .kind = IRQPLAN_BALANCE, .from_cpu = 0, .to = 1 };
	struct irqplan plan = {
		.nr_cpus = 2, .held_up_by = held_up_by, .nr_moves = moved, .moves = &move
	};

	if (overloaded)
		cpuset_add(&plan.overloaded, 0);
	ck_assert_int_eq(irq_history_commit(history, &plan, table, NULL, now), 0);
}

/*
 * A burst is a hold that ends by itself: the CPU's overload passes and its
 * IRQ did not move. One past --max-burst is remembered but is never the
 * wait; one whose IRQ moved (a pile-up split), or whose CPU stays
 * overloaded (a second hot IRQ came), tells nothing of bursts.
 */
START_TEST(only_holds_that_end_by_themselves_are_bursts)
{
	struct irq_history *history = irq_history_new();
	const uint64_t s = SECOND_NS, max_burst = 120 * SECOND_NS;
	struct machine m;
	unsigned int n;
	uint64_t t;

	bursting_machine(&m);
	/* 40 s, then the overload passes: a burst */
	for (t = 10; t < 50; t += 10)
		hold_interval(history, &m.table, 50, true, false, t * s);
	ck_assert_uint_eq(irq_history_held_since(history, 0, 50), 10 * s);
	ck_assert_uint_eq(irq_history_held_since(history, 0, 51), 0);
	hold_interval(history, &m.table, IRQPLAN_NO_IRQ, false, false, 50 * s);
	ck_assert_uint_eq(irq_history_longest_burst(history, 0, max_burst, &n), 40 * s);
	ck_assert_uint_eq(n, 1);
	/* 190 s: longer than --max-burst */
	for (t = 60; t < 250; t += 10)
		hold_interval(history, &m.table, 50, true, false, t * s);
	hold_interval(history, &m.table, IRQPLAN_NO_IRQ, false, false, 250 * s);
	ck_assert_uint_eq(irq_history_longest_burst(history, 0, max_burst, &n), 40 * s);
	ck_assert_uint_eq(irq_history_longest_burst(history, 0, UINT64_MAX, &n), 190 * s);
	ck_assert_uint_eq(n, 2);
	/* moved at its second interval: no burst of 20 s */
	hold_interval(history, &m.table, 50, true, false, 300 * s);
	hold_interval(history, &m.table, 50, true, true, 310 * s);
	hold_interval(history, &m.table, IRQPLAN_NO_IRQ, false, false, 320 * s);
	/* the CPU still overloaded when it let go, or another IRQ holding it */
	hold_interval(history, &m.table, 50, true, false, 400 * s);
	hold_interval(history, &m.table, IRQPLAN_NO_IRQ, true, false, 410 * s);
	hold_interval(history, &m.table, 50, true, false, 500 * s);
	hold_interval(history, &m.table, 51, true, false, 510 * s);
	ck_assert_uint_eq(irq_history_longest_burst(history, 0, 40 * s, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(irq_history_held_since(history, 0, 51), 510 * s);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * Two IRQs a little hotter than a mean CPU on one CPU: neither a pile-up
 * nor one IRQ's overload (without either, the CPU would still be above
 * half the dead band). Split after overload_intervals, not the dwell time.
 */
START_TEST(a_mild_hot_pair_is_split_after_the_overload_intervals)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	struct machine m;
	struct irqplan p;

	/* 8 CPUs: 7k/s + 7k/s on CPU 0, 5k/s on each of the others; mean 6.1k/s */
	machine_init(&m, 8, 1, 1, "", "");
	add_irq(&m, 60, "warm", 0, true, "0", "0", 7000);
	add_irq(&m, 61, "warm", 0, true, "0", "0", 7000);
	one_per_cpu(&m, 1, 8, 70, "cold", 5000);
	irqplan_policy_for_balance(&m.policy);
	quiet_intervals(&m, history, &now, m.policy.overload_intervals - 1);
	interval(&m, history, now, &p);
	ck_assert_uint_eq(p.nr_moves, 1);
	ck_assert(p.moves[0].irq == 60 || p.moves[0].irq == 61);
	ck_assert_ptr_nonnull(strstr(p.moves[0].reason, "for 3 intervals"));
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * 8 CPUs for the budget's halves: four IRQs of @warm on each of CPUs 0
 * and 1 (a milder overload), one of 1k/s on each of CPUs 2 to @cold_end - 1.
 */
static void two_warm_cpus(struct machine *m, double warm, unsigned int cold_end)
{
	unsigned int i;

	machine_init(m, 8, 1, 1, "", "");
	for (i = 0; i < 8; i++)
		add_irq(m, 30 + i, "warm", 0, true, i < 4 ? "0" : "1", i < 4 ? "0" : "1", warm);
	one_per_cpu(m, 2, cold_end, 40, "cold", 1000);
}

/*
 * Milder overloads spend at most half the hour's budget: two CPUs with
 * four IRQs each want six moves of a budget of four; two are made, and a
 * pile-up that comes next is still split.
 */
START_TEST(half_the_budget_is_kept_for_pile_ups)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	struct machine m;
	struct irqplan p;

	/* four 1.4k/s IRQs on each of CPUs 0 and 1, 1k/s on the others */
	two_warm_cpus(&m, 1400, 8);
	/* and two idle ones on CPU 7, the pile-up to come */
	add_irq(&m, 50, "hot", 0, true, "7", "7", 0);
	add_irq(&m, 51, "hot", 0, true, "7", "7", 0);
	irqplan_policy_for_balance(&m.policy);
	m.policy.max_moves_per_hour = 4;
	quiet_intervals(&m, history, &now, m.policy.overload_intervals - 1);
	interval(&m, history, now, &p);
	ck_assert_uint_eq(p.nr_moves, 2);
	ck_assert_uint_gt(p.held_by_budget, 0);
	irqplan_release(&p);
	/* the pile-up: split at once, from the half kept */
	now += 10 * SECOND_NS;
	m.rates[m.table.nr_irqs - 2] = m.rates[m.table.nr_irqs - 1] = 20000;
	interval(&m, history, now, &p);
	ck_assert_msg(move_of(&p, 50) || move_of(&p, 51), "%u moves, %u held by budget", p.nr_moves,
		      p.held_by_budget);
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

/*
 * The half kept is also for a CPU one flow holds up: milder overloads
 * spend their half, and once the flow has outlasted a burst its CPU's
 * other IRQs still leave it.
 */
START_TEST(half_the_budget_is_kept_for_a_cpu_one_flow_holds_up)
{
	struct irq_history *history = irq_history_new();
	uint64_t now = 10 * SECOND_NS;
	unsigned int i, moves = 0, burst;
	struct machine m;
	struct irqplan p;

	/*
	 * four 2k/s IRQs on each of CPUs 0 and 1, 1k/s on CPUs 2-6, a 20k/s
	 * flow and two of 500/s on CPU 7; mean 5.25k/s
	 */
	two_warm_cpus(&m, 2000, 7);
	add_irq(&m, 50, "flow", 0, true, "7", "7", 20000);
	add_irq(&m, 51, "cold", 0, true, "7", "7", 500);
	add_irq(&m, 52, "cold", 0, true, "7", "7", 500);
	irqplan_policy_for_balance(&m.policy);
	m.policy.max_moves_per_hour = 4;
	burst = (unsigned int)(m.policy.max_burst_ns / (10 * SECOND_NS));
	/* the milder overloads spend their half, then are held */
	for (i = 0; i < burst; i++, now += 10 * SECOND_NS) {
		interval(&m, history, now, &p);
		ck_assert_ptr_null(move_of(&p, 50));
		ck_assert_ptr_null(move_of(&p, 51));
		ck_assert_ptr_null(move_of(&p, 52));
		moves += p.nr_moves;
		irqplan_release(&p);
	}
	ck_assert_uint_eq(moves, 2);
	/* the flow has outlasted a burst: its CPU's others leave, from the half kept */
	interval(&m, history, now, &p);
	ck_assert_msg(move_of(&p, 51) && move_of(&p, 52), "%u moves, %u held by budget", p.nr_moves,
		      p.held_by_budget);
	ck_assert_ptr_null(move_of(&p, 50));
	irqplan_release(&p);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

START_TEST(budget_does_not_hold_back_safety_or_new_irqs)
{
	struct irq_history *history = irq_history_new();
	const struct irqplan_move *mv;
	struct irqplan p, first;
	struct machine m;
	uint64_t now = 100 * SECOND_NS;
	unsigned int i;

	machine_init(&m, 8, 2, 1, "3,7", "");
	for (i = 0; i < 20; i++) {
		char name[16];

		snprintf(name, sizeof(name), "q%u", i);
		add_irq(&m, 30 + i, name, (int)(i % 2), true, "0-7", "3", 10);
	}
	m.input.history = history;
	m.input.now_ns = now;
	m.policy.max_moves_per_hour = 1;
	/* the first interval places the 20 misplaced IRQs at once */
	plan(&m, &first);
	ck_assert_uint_eq(first.nr_moves, 20);
	ck_assert_int_eq(irq_history_commit(history, &first, &m.table, NULL, now), 0);
	apply(&m, &first);
	/* the initial placement: not in the budget, or it would stop balancing for an hour */
	ck_assert_uint_eq(irq_history_moves_since(history, 0), 0);
	ck_assert_uint_eq(irq_history_last_move(history, 31), now);
	ck_assert(irq_history_known(history, 49));

	/* someone puts one on an RT CPU; a new IRQ sits on the wrong node */
	m.table.irqs[4].affinity = kept_list(&m.table, "7");
	m.table.irqs[4].effective = kept_list(&m.table, "7");
	add_irq(&m, 90, "new", 1, true, "0-2", "1", 10);
	/* an old IRQ on the wrong node waits for the budget */
	m.table.irqs[5].affinity = kept_list(&m.table, "0");
	m.table.irqs[5].effective = kept_list(&m.table, "0");
	now += 20 * 60 * SECOND_NS;
	m.input.now_ns = now;
	plan(&m, &p);
	mv = move_of(&p, 34);
	ck_assert_ptr_nonnull(mv);
	ck_assert_int_eq(mv->kind, IRQPLAN_SAFETY);
	mv = move_of(&p, 90);
	ck_assert_ptr_nonnull(mv);
	ck_assert_int_eq(mv->kind, IRQPLAN_NODE);
	ck_assert_ptr_null(move_of(&p, 35));
	ck_assert_uint_eq(p.held_by_budget, 1);
	ck_assert_int_eq(irq_history_commit(history, &p, &m.table, NULL, now), 0);
	apply(&m, &p);
	irqplan_release(&p);

	/* an hour later the budget is back */
	m.input.now_ns = now + 3600 * SECOND_NS;
	plan(&m, &p);
	ck_assert_ptr_nonnull(move_of(&p, 35));
	irqplan_release(&p);
	irqplan_release(&first);
	irq_history_free(history);
	machine_release(&m);
}
END_TEST

START_TEST(rate_formatting)
{
	char buf[16];

	ck_assert_str_eq(irqplan_format_rate(0, buf, sizeof(buf)), "0");
	ck_assert_str_eq(irqplan_format_rate(999, buf, sizeof(buf)), "999");
	ck_assert_str_eq(irqplan_format_rate(3100, buf, sizeof(buf)), "3.1k");
	ck_assert_str_eq(irqplan_format_rate(2400000, buf, sizeof(buf)), "2.4M");
	ck_assert_str_eq(irqplan_format_rate(999.4, buf, sizeof(buf)), "999");
	ck_assert_str_eq(irqplan_format_rate(999.5, buf, sizeof(buf)), "1.0k");
	ck_assert_str_eq(irqplan_format_rate(999499, buf, sizeof(buf)), "999.5k");
	ck_assert_str_eq(irqplan_format_rate(999500, buf, sizeof(buf)), "1.0M");
	ck_assert_str_eq(irqplan_format_rate(3e12, buf, sizeof(buf)), "3000.0G");
	ck_assert_str_eq(irqplan_format_rate(-5, buf, sizeof(buf)), "0");
	ck_assert_str_eq(irqplan_format_rate(123456, buf, 4), "123");
	ck_assert_str_eq(irqplan_kind_name(IRQPLAN_NODE), "node");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irqplan");
	TCase *tc = tcase_create("irqplan");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, two_sockets_smt_isolated_on_both_nodes);
	tcase_add_test(tc, single_node_balances_a_piled_up_cpu);
	tcase_add_test(tc, everything_isolated_but_cpu0);
	tcase_add_test(tc, nothing_pending);
	tcase_add_test(tc, device_on_a_node_without_allowed_cpu);
	tcase_add_test(tc, effective_cpu_lagging_behind_a_write);
	tcase_add_test(tc, rt_list_covering_every_cpu);
	tcase_add_test(tc, gone_offline_and_remote_affinities);
	tcase_add_test(tc, unreadable_affinities_are_not_judged);
	tcase_add_test(tc, stable_after_apply_and_under_noise);
	tcase_add_test(tc, cooldown_and_budget_over_a_day);
	tcase_add_test(tc, an_irq_moved_dwells);
	tcase_add_test(tc, a_sustained_hot_pair_is_split);
	tcase_add_test(tc, one_hot_irq_keeps_its_cpu_to_itself_after_a_burst);
	tcase_add_test(tc, a_flow_clears_its_cpu_of_irqs_inside_their_dwell);
	tcase_add_test(tc, bursts_seen_shorten_the_wait_for_a_flow);
	tcase_add_test(tc, only_holds_that_end_by_themselves_are_bursts);
	tcase_add_test(tc, a_mild_hot_pair_is_split_after_the_overload_intervals);
	tcase_add_test(tc, half_the_budget_is_kept_for_pile_ups);
	tcase_add_test(tc, half_the_budget_is_kept_for_a_cpu_one_flow_holds_up);
	tcase_add_test(tc, budget_does_not_hold_back_safety_or_new_irqs);
	tcase_add_test(tc, rate_formatting);
	tcase_add_test(tc, unmovable_by_probe_says_so);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
