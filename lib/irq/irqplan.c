// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/irq_history.h"
#include "latscope/irqplan.h"
#include "latscope/log.h"

#define HOUR_NS (3600ULL * 1000000000ULL)

void irqplan_policy_default(struct irqplan_policy *policy)
{
	policy->dead_band = 0.25;
	policy->min_excess = 100;
	policy->min_move_share = 0.125;
	policy->overload_intervals = 1;
	policy->pile_up_excess = 1.0;
	policy->min_dwell_ns = 5 * 60 * 1000000000ULL;
	/*
	 * a burst is over within a minute; twice that is a flow that stays
	 * (bench/irq-policies: at one minute, the minute-long bursts spent
	 * the budget the flows needed)
	 */
	policy->max_burst_ns = 2 * 60 * 1000000000ULL;
	/* with a 2 s interval: pile-ups split within seconds (bench/irq-policies) */
	policy->max_moves_per_hour = 96;
	/* x86 has ~200 vectors per CPU, some taken by the system */
	policy->max_irqs_per_cpu = 160;
}

void irqplan_policy_for_balance(struct irqplan_policy *policy)
{
	policy->overload_intervals = 3;
}

const char *irqplan_kind_name(enum irqplan_move_kind kind)
{
	switch (kind) {
	case IRQPLAN_SAFETY:
		return "safety";
	case IRQPLAN_NODE:
		return "node";
	case IRQPLAN_BALANCE:
		return "balance";
	}
	return "?";
}

/* Decimal digits of @value at @p; returns the end. */
static char *put_digits(char *p, unsigned long long value)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + value % 10);
	while ((value /= 10));
	while (n)
		*p++ = digits[--n];
	return p;
}

/*
 * Without printf: a plan of 10,000 moves formats 20,000 rates, and
 * snprintf was a third of the planner's time.
 */
char *irqplan_format_rate(double rate, char *buf, size_t size)
{
	static const char units[] = "kMG";
	char text[40], *p = text;
	unsigned long long tenths;
	int unit = -1;

	if (!(rate > 0))
		rate = 0;
	if (rate > 1e18)
		rate = 1e18;
	while (rate >= 999.5 && unit < 2) {
		rate /= 1000;
		unit++;
	}
	if (unit < 0) {
		p = put_digits(p, (unsigned long long)(rate + 0.5));
	} else {
		tenths = (unsigned long long)(rate * 10 + 0.5);
		p = put_digits(p, tenths / 10);
		*p++ = '.';
		*p++ = (char)('0' + tenths % 10);
		*p++ = units[unit];
	}
	*p = '\0';
	if (size) {
		size_t len = (size_t)(p - text) < size ? (size_t)(p - text) : size - 1;

		memcpy(buf, text, len);
		buf[len] = '\0';
	}
	return buf;
}

/* The CPUs an IRQ may be placed on: the allowed CPUs of a node, or all. */
struct domain {
	int node; /* -1: every allowed CPU */
	unsigned int nr;
	unsigned int *cpus; /* ascending */
	struct cpuset set;
};

struct planner {
	const struct irqplan_input *in;
	const struct irqplan_policy *policy;
	const struct topology *topo;
	const struct irq_table *table;
	struct irqplan *plan;
	unsigned int nr_cpus;
	double *load; /* per CPU, as the plan goes */
	double *core_load; /* per first SMT sibling */
	unsigned int *nr_irqs; /* IRQs delivered to each CPU */
	struct domain *nodes; /* topo->nr_nodes */
	struct domain any;
	bool *moved; /* per row */
	/* per row: where it is delivered now, -1 nowhere, SEVERAL_CPUS */
	int *delivery_cpu;
	bool *held; /* per row: counted in held_by_dwell */
	unsigned int moves_cap, unmovable_cap, unreadable_cap;
	unsigned int budget_left; /* UINT_MAX without a history */
	uint64_t burst_wait_ns; /* with a history: burst_wait() */
	const char *unit; /* "/s", or "" for counts since boot */
	/*
	 * The texts of the last sets formatted into reasons: on a big
	 * machine most IRQs share "0-1023" and the RT list, and formatting
	 * them anew for each of 10,000 reasons was half the planner's time.
	 */
	struct text_cache {
		struct cpuset set;
		char text[96];
		bool valid;
	} texts[2];
};

static const char *list(const struct cpuset *set, char *buf, size_t size)
{
	return cpuset_format_list(set, buf, size);
}

/* list() through a cache of two texts; slot 0 for affinities, 1 for RT CPUs */
static const char *cached_list(struct planner *p, unsigned int slot, const struct cpuset *set)
{
	struct text_cache *cache = &p->texts[slot];

	if (!cache->valid || !cpuset_equal(&cache->set, set)) {
		cache->set = *set;
		cpuset_format_list(set, cache->text, sizeof(cache->text));
		cache->valid = true;
	}
	return cache->text;
}

/* a rate with its unit ("3.1k/s"); @buf holds at least 32 bytes */
static const char *rate(const struct planner *p, double value, char *buf, size_t size)
{
	irqplan_format_rate(value, buf, size);
	strcat(buf, p->unit);
	return buf;
}

static unsigned int core_of(const struct planner *p, unsigned int cpu)
{
	int first = p->topo->cpus[cpu].first_sibling;

	return first >= 0 && (unsigned int)first < p->nr_cpus ? (unsigned int)first : cpu;
}

static int node_of(const struct planner *p, unsigned int cpu)
{
	return topology_cpu_node(p->topo, cpu);
}

static const struct irq_info *irq_of(const struct planner *p, unsigned int row)
{
	return &p->table->irqs[row];
}

/*
 * An effective affinity outside the affinity is a move the kernel has not
 * made yet: on x86 without interrupt remapping an MSI moves at its next
 * interrupt, so an idle IRQ written an hour ago may still show its old CPU.
 */
static bool move_pending(const struct irq_info *irq)
{
	return irq->has_effective && !cpuset_empty(irq->effective) &&
	       !cpuset_subset(irq->effective, irq->affinity);
}

/* Where an IRQ's load lands: its delivery CPUs that are online, or soon will be. */
static void delivery_online(const struct planner *p, const struct irq_info *irq,
			    struct cpuset *cpus)
{
	cpuset_and(cpus, move_pending(irq) ? irq->affinity : irq_delivery_cpus(irq),
		   &p->topo->online);
	if (cpuset_empty(cpus))
		cpuset_and(cpus, irq->affinity, &p->topo->online);
}

#define SEVERAL_CPUS (-2)

/* Add (@sign 1) or take away (-1) @share of a row's load on one CPU. */
static void account_cpu(struct planner *p, unsigned int cpu, double share, double sign)
{
	if (cpu >= p->nr_cpus)
		return;
	p->load[cpu] += sign * share;
	p->core_load[core_of(p, cpu)] += sign * share;
	if (sign > 0)
		p->nr_irqs[cpu]++;
	else if (p->nr_irqs[cpu])
		p->nr_irqs[cpu]--;
}

static void account_one(struct planner *p, unsigned int row, unsigned int cpu, double sign)
{
	account_cpu(p, cpu, p->in->rates[row], sign);
}

/*
 * A row's load where it is delivered now. Most IRQs go to one CPU, found
 * once in start(): 8192-bit sets are scanned only for the others.
 */
static void account_row(struct planner *p, unsigned int row, double sign)
{
	struct cpuset cpus;
	unsigned int count = 0;
	int cpu;

	if (p->delivery_cpu[row] >= 0) {
		account_one(p, row, (unsigned int)p->delivery_cpu[row], sign);
		return;
	}
	if (p->delivery_cpu[row] != SEVERAL_CPUS)
		return;
	delivery_online(p, irq_of(p, row), &cpus);
	cpuset_for_each(cpu, &cpus)
		count++;
	cpuset_for_each(cpu, &cpus)
		account_cpu(p, (unsigned int)cpu, p->in->rates[row] / count, sign);
}

static void find_delivery_cpu(struct planner *p, unsigned int row)
{
	struct cpuset cpus;
	int first;

	delivery_online(p, irq_of(p, row), &cpus);
	first = cpuset_next(&cpus, -1);
	if (first >= 0 && cpuset_next(&cpus, first) >= 0)
		first = SEVERAL_CPUS;
	p->delivery_cpu[row] = first;
}

static int build_domain(struct domain *domain, int node, const struct cpuset *cpus)
{
	int cpu;

	domain->node = node;
	domain->set = *cpus;
	domain->nr = 0;
	domain->cpus = malloc((cpuset_count(cpus) + 1) * sizeof(*domain->cpus));
	if (!domain->cpus)
		return -ENOMEM;
	cpuset_for_each(cpu, cpus)
		domain->cpus[domain->nr++] = (unsigned int)cpu;
	return 0;
}

static int build_domains(struct planner *p)
{
	const struct topology *topo = p->topo;
	struct cpuset cpus;
	unsigned int node;
	int ret;

	ret = build_domain(&p->any, -1, &p->plan->allowed);
	if (ret)
		return ret;
	p->nodes = calloc(topo->nr_nodes ? topo->nr_nodes : 1, sizeof(*p->nodes));
	if (!p->nodes)
		return -ENOMEM;
	for (node = 0; node < topo->nr_nodes; node++) {
		cpuset_and(&cpus, &topo->node_cpus[node], &p->plan->allowed);
		ret = build_domain(&p->nodes[node], (int)node, &cpus);
		if (ret)
			return ret;
	}
	return 0;
}

/* The domain of a movable IRQ; *remote when its node has no allowed CPU. */
static const struct domain *domain_of(const struct planner *p, const struct irq_info *irq,
				      bool *remote)
{
	*remote = false;
	if (irq->node < 0 || (unsigned int)irq->node >= p->topo->nr_nodes)
		return &p->any;
	if (!p->nodes[irq->node].nr) {
		*remote = true;
		return &p->any;
	}
	return &p->nodes[irq->node];
}

/* true when CPU a is a better target than CPU b (rule 4 of irqplan.h) */
static bool better_target(const struct planner *p, unsigned int a, unsigned int b)
{
	unsigned int room = p->policy->max_irqs_per_cpu;
	bool a_full = p->nr_irqs[a] >= room, b_full = p->nr_irqs[b] >= room;
	double a_core = p->core_load[core_of(p, a)], b_core = p->core_load[core_of(p, b)];

	if (a_full != b_full)
		return !a_full;
	if (a_core != b_core)
		return a_core < b_core;
	if (p->load[a] != p->load[b])
		return p->load[a] < p->load[b];
	if (p->nr_irqs[a] != p->nr_irqs[b])
		return p->nr_irqs[a] < p->nr_irqs[b];
	return a < b;
}

static int pick_target(const struct planner *p, const struct domain *domain, int exclude)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < domain->nr; i++) {
		unsigned int cpu = domain->cpus[i];

		if ((int)cpu == exclude || cpu >= p->nr_cpus)
			continue;
		if (best < 0 || better_target(p, cpu, (unsigned int)best))
			best = (int)cpu;
	}
	return best;
}

static struct irqplan_move *add_move(struct planner *p, unsigned int row,
				     enum irqplan_move_kind kind, unsigned int to, bool remote)
{
	struct irqplan *plan = p->plan;
	struct irqplan_move *move;

	move = array_grow(plan->moves, &p->moves_cap, plan->nr_moves + 1, sizeof(*move));
	if (!move)
		return NULL;
	plan->moves = move;
	move = &plan->moves[plan->nr_moves++];
	move->row = row;
	move->irq = irq_of(p, row)->number;
	move->kind = kind;
	move->from_cpu = cpuset_next(irq_delivery_cpus(irq_of(p, row)), -1);
	move->to = to;
	move->remote = remote;
	move->reason[0] = '\0';
	p->moved[row] = true;
	p->delivery_cpu[row] = (int)to;
	return move;
}

/*
 * Why this CPU: "node 0: cpu 2 load 3.1k/s, the least loaded core of
 * node 0 (core 2-3: 3.1k/s)". @load is the CPU's load before the IRQ came.
 */
static void describe_target(const struct planner *p, const struct domain *domain, unsigned int cpu,
			    double cpu_load, double core_load, bool remote,
			    const struct irq_info *irq, char *buf, size_t size)
{
	char load[40], core[40], siblings[64], where[32] = "the allowed cpus", prefix[96] = "";
	struct cpuset sibling_set;
	unsigned int i, nr_siblings = 0;

	/* the allowed siblings: from the domain, not a scan of every CPU */
	cpuset_clear(&sibling_set);
	for (i = 0; i < domain->nr; i++) {
		if (core_of(p, domain->cpus[i]) != core_of(p, cpu))
			continue;
		cpuset_add(&sibling_set, domain->cpus[i]);
		nr_siblings++;
	}
	if (domain->node >= 0)
		*put_digits(stpcpy(where, "node "), (unsigned long long)domain->node) = '\0';
	if (remote)
		snprintf(prefix, sizeof(prefix), "node %d of %s has no allowed cpu; ", irq->node,
			 irq->device);
	if (nr_siblings > 1)
		snprintf(buf, size,
			 "%snode %d: cpu %u load %s, the least loaded core of %s (core %s: %s)",
			 prefix, node_of(p, cpu), cpu, rate(p, cpu_load, load, sizeof(load)), where,
			 list(&sibling_set, siblings, sizeof(siblings)),
			 rate(p, core_load, core, sizeof(core)));
	else
		snprintf(buf, size, "%snode %d: cpu %u load %s, the least loaded cpu of %s", prefix,
			 node_of(p, cpu), cpu, rate(p, cpu_load, load, sizeof(load)), where);
}

static bool in_budget(struct planner *p)
{
	return p->budget_left > 0;
}

static void spend_budget(struct planner *p)
{
	if (p->budget_left && p->budget_left != UINT_MAX)
		p->budget_left--;
}

static bool dwelling(struct planner *p, unsigned int row)
{
	const struct irq_history *history = p->in->history;
	uint64_t last;

	if (!history)
		return false;
	last = irq_history_last_move(history, irq_of(p, row)->number);
	if (!last || last + p->policy->min_dwell_ns <= p->in->now_ns)
		return false;
	if (!p->held[row]) {
		p->held[row] = true;
		p->plan->held_by_dwell++;
	}
	return true;
}

/* One entry more in a list of IRQs the plan does not move, with its reason. */
static int vadd_entry(struct irqplan_unmovable **list, unsigned int *nr, unsigned int *cap,
		      const struct irq_info *irq, unsigned int row, bool reaches_rt,
		      const char *fmt, va_list ap)
{
	struct irqplan_unmovable *entry;

	entry = array_grow(*list, cap, *nr + 1, sizeof(*entry));
	if (!entry)
		return -ENOMEM;
	*list = entry;
	entry = &(*list)[(*nr)++];
	entry->row = row;
	entry->irq = irq->number;
	entry->reaches_rt = reaches_rt;
	vsnprintf(entry->reason, sizeof(entry->reason), fmt, ap);
	return 0;
}

static int add_unmovable(struct planner *p, unsigned int row, bool reaches_rt, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_unmovable(struct planner *p, unsigned int row, bool reaches_rt, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vadd_entry(&p->plan->unmovable, &p->plan->nr_unmovable, &p->unmovable_cap,
			 irq_of(p, row), row, reaches_rt, fmt, ap);
	va_end(ap);
	return ret;
}

static int add_unreadable(struct planner *p, unsigned int row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int add_unreadable(struct planner *p, unsigned int row, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vadd_entry(&p->plan->unreadable, &p->plan->nr_unreadable, &p->unreadable_cap,
			 irq_of(p, row), row, false, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * An IRQ whose affinity files are there but say nothing usable: where it
 * may fire, or is delivered now, is unknown, so the plan cannot call the
 * placement good, and does not place it: the files a move reads back and
 * journals are the ones that do not read. False, with the IRQ listed, for
 * such an IRQ.
 */
static bool note_unreadable(struct planner *p, unsigned int row, int *ret)
{
	const struct irq_info *irq = irq_of(p, row);
	bool affinity = irq->affinity_error && irq->affinity_error != -ENOENT;

	*ret = 0;
	if (!irq_affinity_unreadable(irq))
		return true;
	*ret = add_unreadable(
		p, row, "/proc/irq/%u/%s: %s: where it %s is unknown; not placed", irq->number,
		affinity ? "smp_affinity_list" : "effective_affinity_list",
		irq_file_error_text(affinity ? irq->affinity_error : irq->effective_error),
		affinity ? "may fire" : "is delivered now");
	return false;
}

struct pending {
	unsigned int row;
	enum irqplan_move_kind kind;
};

/* Heavy IRQs first, so they spread over cores; then by row (number). */
static int compare_pending(const void *a, const void *b, void *rates_arg)
{
	const struct pending *x = a, *y = b;
	const double *rates = rates_arg;

	if (rates[x->row] != rates[y->row])
		return rates[x->row] > rates[y->row] ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int add_pending(struct pending **list, unsigned int *nr, unsigned int *cap, unsigned int row,
		       enum irqplan_move_kind kind)
{
	struct pending *grown = array_grow(*list, cap, *nr + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*list = grown;
	(*list)[(*nr)++] = (struct pending){ row, kind };
	return 0;
}

/* Rules 2 and 3: which IRQs must move; unmovable ones are listed. */
static int classify(struct planner *p, struct pending **pending, unsigned int *nr_pending)
{
	const struct cpuset *online = &p->topo->online, *rt = &p->plan->rt;
	char a[96], b[96], c[96];
	unsigned int row, cap = 0;
	int ret = 0;

	for (row = 0; row < p->table->nr_irqs && !ret; row++) {
		const struct irq_info *irq = irq_of(p, row);
		const struct cpuset *delivery = irq_delivery_cpus(irq);
		struct cpuset reach, usable;
		const struct domain *domain;
		bool remote;

		if (!note_unreadable(p, row, &ret))
			continue;
		if (!irq->has_affinity) {
			ret = add_unmovable(p, row, false,
					    "no /proc/irq/%u/smp_affinity_list: the IRQ is gone",
					    irq->number);
			continue;
		}
		if (!irq->movable) {
			cpuset_and(&reach, delivery, rt);
			if (cpuset_empty(&reach))
				ret = add_unmovable(
					p, row, false,
					"managed or not settable from user space (%s); effective cpu %s is not an RT cpu",
					irq_unmovable_why(irq), list(delivery, a, sizeof(a)));
			else if (cpuset_intersects(irq->affinity, &p->plan->allowed))
				ret = add_unmovable(
					p, row, true,
					"managed or not settable from user space (%s); effective cpu %s reaches RT cpu %s: boot with isolcpus=managed_irq,domain,%s",
					irq_unmovable_why(irq), list(delivery, a, sizeof(a)),
					list(&reach, b, sizeof(b)), list(rt, c, sizeof(c)));
			else
				/* managed_irq moves a queue only onto a housekeeping CPU of its own */
				ret = add_unmovable(
					p, row, true,
					"managed or not settable from user space (%s); effective cpu %s reaches RT cpu %s, and its affinity has no allowed cpu: even isolcpus=managed_irq,domain,%s leaves it there; keep I/O off those cpus, or give the device fewer queues",
					irq_unmovable_why(irq), list(delivery, a, sizeof(a)),
					list(&reach, b, sizeof(b)), list(rt, c, sizeof(c)));
			continue;
		}
		/* what user space sets is what counts: a write cannot do more */
		cpuset_and(&reach, irq->affinity, rt);
		cpuset_and(&usable, irq->affinity, online);
		if (!cpuset_empty(&reach) || cpuset_empty(&usable)) {
			ret = add_pending(pending, nr_pending, &cap, row, IRQPLAN_SAFETY);
			continue;
		}
		if (move_pending(irq) && cpuset_intersects(delivery, rt))
			p->plan->rt_until_next_interrupt++;
		domain = domain_of(p, irq, &remote);
		if (domain->node >= 0 && !cpuset_subset(&usable, &domain->set))
			ret = add_pending(pending, nr_pending, &cap, row, IRQPLAN_NODE);
	}
	return ret;
}

static void why_leave(struct planner *p, const struct irq_info *irq, enum irqplan_move_kind kind,
		      char *buf, size_t size)
{
	const char *affinity = cached_list(p, 0, irq->affinity);
	struct cpuset in_affinity;

	if (kind == IRQPLAN_NODE) {
		snprintf(buf, size, "its device %s is on node %d, its affinity %s is not",
			 irq->device, irq->node, affinity);
		return;
	}
	cpuset_and(&in_affinity, irq->affinity, &p->plan->rt);
	if (!cpuset_empty(&in_affinity))
		snprintf(buf, size, "its affinity %s includes RT cpu %s", affinity,
			 cached_list(p, 1, &in_affinity));
	else
		snprintf(buf, size, "no online cpu in its affinity %s", affinity);
}

/* Rules 3, 4 and 6: place the IRQs that must move, heaviest first. */
static int place(struct planner *p, struct pending *pending, unsigned int nr_pending)
{
	const struct irq_history *history = p->in->history;
	unsigned int i;
	size_t len;

	/* They leave where they are: targets are chosen without them. */
	for (i = 0; i < nr_pending; i++)
		account_row(p, pending[i].row, -1);
	/* nothing pending may come as NULL, which qsort_r must not be given */
	if (nr_pending)
		qsort_r(pending, nr_pending, sizeof(*pending), compare_pending,
			(void *)p->in->rates);
	for (i = 0; i < nr_pending; i++) {
		unsigned int row = pending[i].row;
		const struct irq_info *irq = irq_of(p, row);
		const struct domain *domain;
		struct irqplan_move *move;
		double cpu_load, core_load;
		bool remote, held = false;
		int to;

		domain = domain_of(p, irq, &remote);
		/* a known IRQ's move to its node waits for its dwell and the budget */
		if (pending[i].kind == IRQPLAN_NODE && history &&
		    irq_history_known(history, irq->number)) {
			if (dwelling(p, row)) {
				held = true;
			} else if (!in_budget(p)) {
				p->plan->held_by_budget++;
				held = true;
			}
		}
		to = held ? -1 : pick_target(p, domain, -1);
		if (to < 0) {
			/* stays: its load is back where it is */
			account_row(p, row, 1);
			continue;
		}
		cpu_load = p->load[to];
		core_load = p->core_load[core_of(p, (unsigned int)to)];
		move = add_move(p, row, pending[i].kind, (unsigned int)to, remote);
		if (!move)
			return -ENOMEM;
		account_one(p, row, (unsigned int)to, 1);
		spend_budget(p);
		/* "why it leaves; why there", written in place */
		why_leave(p, irq, move->kind, move->reason, sizeof(move->reason));
		len = strlen(move->reason);
		if (len + 3 < sizeof(move->reason)) {
			memcpy(move->reason + len, "; ", 3);
			len += 2;
			describe_target(p, domain, move->to, cpu_load, core_load, remote, irq,
					move->reason + len, sizeof(move->reason) - len);
		}
	}
	return 0;
}

static void node_means(const struct planner *p, double *means)
{
	unsigned int node, i;

	for (node = 0; node < p->topo->nr_nodes; node++) {
		const struct domain *domain = &p->nodes[node];
		double sum = 0;

		for (i = 0; i < domain->nr; i++)
			sum += p->load[domain->cpus[i]];
		means[node] = domain->nr ? sum / domain->nr : 0;
	}
}

/*
 * Above @band (the dead band to trigger, half of it to release) and by
 * min_excess: a few interrupts per second are no imbalance.
 */
static bool above(const struct planner *p, const double *means, unsigned int cpu, double band)
{
	double mean = means[node_of(p, cpu)];

	return p->load[cpu] > mean * (1 + band) && p->load[cpu] - mean >= p->policy->min_excess;
}

/*
 * The hottest IRQ delivered to each CPU, as the plan goes: its rate in
 * @hottest[nr_cpus], its row in @rows[nr_cpus] (meaningful where the
 * rate is above 0).
 */
static void hottest_irqs(const struct planner *p, double *hottest, unsigned int *rows)
{
	unsigned int row;

	memset(hottest, 0, p->nr_cpus * sizeof(*hottest));
	for (row = 0; row < p->table->nr_irqs; row++) {
		int cpu = p->delivery_cpu[row];

		if (cpu >= 0 && (unsigned int)cpu < p->nr_cpus &&
		    p->in->rates[row] > hottest[cpu]) {
			hottest[cpu] = p->in->rates[row];
			rows[cpu] = row;
		}
	}
}

/* One IRQ alone holds @cpu up: it is above half the dead band, the others together are not. */
static bool held_up(const struct planner *p, const double *means, unsigned int cpu, double hottest)
{
	double release = means[node_of(p, cpu)] * (1 + p->policy->dead_band / 2);

	return hottest > release && p->load[cpu] - hottest <= release;
}

/*
 * Bursts to have seen before their longest is how long one may last: a
 * burst outlasts the longest of n earlier ones with a chance of 1/(n+1),
 * one in 20 at most from 19 on (if they came one by one; bursts that hit
 * several queues at once count as several).
 */
#define BURSTS_TO_LEARN 19

/*
 * How long one IRQ may hold a CPU up as a burst: as long as the longest
 * burst of the last hour (irq_history.h), once BURSTS_TO_LEARN shorter
 * than max_burst ended in it; max_burst until then. Found once a plan,
 * in start(): p->burst_wait_ns.
 */
static uint64_t burst_wait(const struct planner *p)
{
	uint64_t since = p->in->now_ns > HOUR_NS ? p->in->now_ns - HOUR_NS : 0, longest;
	unsigned int count;

	longest = irq_history_longest_burst(p->in->history, since, p->policy->max_burst_ns, &count);
	return count >= BURSTS_TO_LEARN ? longest : p->policy->max_burst_ns;
}

/*
 * Whether an overloaded CPU sheds load now (rule 5). How long its overload
 * must have lasted depends on what shedding can do for it:
 * - a pile-up, a CPU still pile_up_excess above its node's mean without
 *   its hottest IRQ (two hot queues together), sheds at once: a burst is
 *   over in seconds, and one move halves it;
 * - a CPU held up by one IRQ (that IRQ alone keeps it above half the dead
 *   band, the others together would not) cannot be brought under by
 *   shedding the others, and a burst passes by itself; once that IRQ has
 *   held it up longer than the bursts of the last hour (burst_wait()), it is
 *   a flow that stays, and every other IRQ there waits behind it: they
 *   all leave, small ones too, and the hot one stays (moving it would
 *   only move the problem);
 * - any other, after overload_intervals intervals.
 * Without a history (a one-shot plan) every overloaded CPU sheds.
 */
enum shedding {
	SHED_NOT_YET,
	SHED_PILE_UP,
	SHED_DOMINATED, /* held up by one IRQ past max_burst: the others leave */
	SHED_SUSTAINED, /* any other overload, lasting long enough */
};

static enum shedding sheds_now(const struct planner *p, const double *means, unsigned int cpu,
			       double hottest, unsigned int hottest_row)
{
	const struct irq_history *history = p->in->history;
	double mean = means[node_of(p, cpu)], rest = p->load[cpu] - hottest;
	uint64_t since;

	if (!history)
		return SHED_SUSTAINED;
	if (rest > mean * (1 + p->policy->pile_up_excess) && rest - mean >= p->policy->min_excess)
		return SHED_PILE_UP;
	if (held_up(p, means, cpu, hottest)) {
		since = irq_history_held_since(history, cpu, irq_of(p, hottest_row)->number);
		return since && since + p->burst_wait_ns <= p->in->now_ns ? SHED_DOMINATED :
									    SHED_NOT_YET;
	}
	return irq_history_overload_streak(history, cpu) + 1 >= p->policy->overload_intervals ?
		       SHED_SUSTAINED :
		       SHED_NOT_YET;
}

/*
 * Half the hour's budget is kept for pile-ups and for the CPUs one flow
 * holds up: the moves that mend a lasting, milder overload come every
 * hour as the day's load shifts, and would otherwise spend it all before
 * the next burst piles two hot queues on one CPU, or the next flow finds
 * a CPU still shared.
 */
static bool spare_budget(const struct planner *p)
{
	return p->budget_left > p->policy->max_moves_per_hour / 2;
}

/* Candidates for balance moves: active, movable IRQs delivered to one CPU. */
static int balance_candidates(const struct planner *p, unsigned int **rows, unsigned int *nr)
{
	unsigned int row;

	*nr = 0;
	*rows = malloc((p->table->nr_irqs + 1) * sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (row = 0; row < p->table->nr_irqs; row++) {
		const struct irq_info *irq = irq_of(p, row);
		int cpu;

		if (!irq->movable || !irq->has_affinity || irq_affinity_unreadable(irq) ||
		    p->moved[row] || !(p->in->rates[row] > 0))
			continue;
		cpu = p->delivery_cpu[row];
		if (cpu < 0 || !cpuset_has(&p->plan->balance_eligible, (unsigned int)cpu))
			continue;
		(*rows)[(*nr)++] = row;
	}
	return 0;
}

struct balance_choice {
	int row;
	unsigned int from, to;
	double gain;
	bool dominant; /* off a CPU held up by another IRQ */
};

/*
 * The best move of @row off @cpu so far into @best. Off a CPU held up by
 * one IRQ (@dominant), any other IRQ is worth moving, however small and
 * however recently moved: it waits behind the hot one, and the hot one
 * itself stays.
 */
static void consider(struct planner *p, const double *means, unsigned int row, unsigned int cpu,
		     bool dominant, struct balance_choice *best)
{
	const struct irq_info *irq = irq_of(p, row);
	double w = p->in->rates[row], release = 1 + p->policy->dead_band / 2;
	double after_target, gain, left;
	const struct domain *domain;
	bool remote;
	int to;

	if (!dominant && w < p->policy->min_move_share * means[node_of(p, cpu)])
		return;
	domain = domain_of(p, irq, &remote);
	to = pick_target(p, domain, (int)cpu);
	if (to < 0)
		return;
	after_target = p->load[to] + w;
	/*
	 * A target ends under half the dead band, or, when the IRQ alone is
	 * hotter than that (two hot queues on one CPU), under what the source
	 * carries now by half the dead band: the maximum falls, and the way
	 * back could never qualify, so a sustained pile-up is split without
	 * ping-pong.
	 */
	if (after_target > means[node_of(p, (unsigned int)to)] * release &&
	    after_target * release > p->load[cpu])
		return;
	left = p->load[cpu] - w;
	gain = p->load[cpu] - (left > after_target ? left : after_target);
	if (!dominant && gain < p->policy->min_excess)
		return;
	/*
	 * The dwell keeps an IRQ from going back and forth; off a CPU a flow
	 * holds up it does not come back while the flow is there (the
	 * busiest CPU is no target), and waiting would leave it behind the
	 * flow for the rest of its dwell.
	 */
	if (!dominant && dwelling(p, row))
		return;
	if (best->row < 0 || gain > best->gain || (gain == best->gain && (int)row < best->row))
		*best = (struct balance_choice){ (int)row, cpu, (unsigned int)to, gain, dominant };
}

/* the move @c, explained; @hot_row is the IRQ that holds its CPU up when it is dominated */
static int balance_move(struct planner *p, const double *means, const struct balance_choice *c,
			unsigned int hot_row)
{
	char from_load[32], mean[32], moved[32], to_before[32], to_after[32], left[32], hot[32];
	unsigned int row = (unsigned int)c->row, intervals = 1;
	double w = p->in->rates[row], before = p->load[c->from];
	int node = node_of(p, c->from), len;
	struct irqplan_move *move;
	uint64_t since, wait;

	if (p->in->history)
		intervals += irq_history_overload_streak(p->in->history, c->from);
	move = add_move(p, row, IRQPLAN_BALANCE, c->to, false);
	if (!move)
		return -ENOMEM;
	len = snprintf(
		move->reason, sizeof(move->reason),
		"cpu %u load %s is %.0f%% above the node %d mean %s (dead band %.0f%%) for %u interval%s; ",
		c->from, rate(p, before, from_load, sizeof(from_load)),
		means[node] > 0 ? (before / means[node] - 1) * 100 : 100.0, node,
		rate(p, means[node], mean, sizeof(mean)), p->policy->dead_band * 100, intervals,
		intervals == 1 ? "" : "s");
	if (c->dominant && len > 0 && (size_t)len < sizeof(move->reason)) {
		since = irq_history_held_since(p->in->history, c->from, irq_of(p, hot_row)->number);
		wait = p->burst_wait_ns;
		len += snprintf(
			move->reason + len, sizeof(move->reason) - (size_t)len,
			"irq %u alone (%s) holds it up, for %llu s, longer than %s (%llu s): it stays, the others leave; ",
			irq_of(p, hot_row)->number,
			rate(p, p->in->rates[hot_row], hot, sizeof(hot)),
			(unsigned long long)((p->in->now_ns - since) / 1000000000ULL),
			wait < p->policy->max_burst_ns ? "the bursts of the last hour" : "a burst",
			(unsigned long long)(wait / 1000000000ULL));
	}
	if (len > 0 && (size_t)len < sizeof(move->reason))
		snprintf(move->reason + len, sizeof(move->reason) - (size_t)len,
			 "its %s go to cpu %u (%s -> %s), cpu %u keeps %s",
			 rate(p, w, moved, sizeof(moved)), c->to,
			 rate(p, p->load[c->to], to_before, sizeof(to_before)),
			 rate(p, p->load[c->to] + w, to_after, sizeof(to_after)), c->from,
			 rate(p, before - w, left, sizeof(left)));
	account_one(p, row, c->from, -1);
	account_one(p, row, c->to, 1);
	spend_budget(p);
	return 0;
}

/* Rule 5: shed load from overloaded CPUs while a move is worth it. */
static int balance(struct planner *p)
{
	double *means = calloc(p->topo->nr_nodes + 1, sizeof(*means));
	double *hottest = calloc(p->nr_cpus + 1, sizeof(*hottest));
	unsigned int *hot_rows = calloc(p->nr_cpus + 1, sizeof(*hot_rows));
	unsigned int *rows = NULL, nr_rows = 0, i, cpu;
	int ret = 0;

	if (!means || !hottest || !hot_rows) {
		free(means);
		free(hottest);
		free(hot_rows);
		return -ENOMEM;
	}
	node_means(p, means);
	hottest_irqs(p, hottest, hot_rows);
	for (i = 0; i < p->any.nr; i++) {
		cpu = p->any.cpus[i];
		if (!above(p, means, cpu, p->policy->dead_band))
			continue;
		cpuset_add(&p->plan->overloaded, cpu);
		if (held_up(p, means, cpu, hottest[cpu]))
			p->plan->held_up_by[cpu] = irq_of(p, hot_rows[cpu])->number;
		if (sheds_now(p, means, cpu, hottest[cpu], hot_rows[cpu]) != SHED_NOT_YET)
			cpuset_add(&p->plan->balance_eligible, cpu);
	}
	if (!cpuset_empty(&p->plan->balance_eligible))
		ret = balance_candidates(p, &rows, &nr_rows);
	while (!ret && nr_rows) {
		struct balance_choice best = { .row = -1 };
		bool reserved = false;
		enum shedding shed;

		node_means(p, means);
		hottest_irqs(p, hottest, hot_rows);
		for (i = 0; i < nr_rows; i++) {
			unsigned int row = rows[i];

			if (p->moved[row])
				continue;
			cpu = (unsigned int)p->delivery_cpu[row];
			/*
			 * An IRQ alone on its CPU only moves the problem. A
			 * CPU sheds load until it is under half the dead band.
			 */
			if (p->nr_irqs[cpu] <= 1 || !above(p, means, cpu, p->policy->dead_band / 2))
				continue;
			shed = sheds_now(p, means, cpu, hottest[cpu], hot_rows[cpu]);
			if (shed == SHED_SUSTAINED && !spare_budget(p)) {
				reserved = true;
				continue;
			}
			/* the IRQ that holds its CPU up stays: the others leave it */
			if (shed == SHED_DOMINATED && p->in->rates[row] >= hottest[cpu])
				continue;
			if (shed != SHED_NOT_YET)
				consider(p, means, row, cpu, shed == SHED_DOMINATED, &best);
		}
		if (best.row < 0) {
			p->plan->held_by_budget += reserved;
			break;
		}
		if (!in_budget(p)) {
			p->plan->held_by_budget++;
			break;
		}
		ret = balance_move(p, means, &best, hot_rows[best.from]);
	}
	free(rows);
	free(hot_rows);
	free(hottest);
	free(means);
	return ret;
}

static void plan_default_affinity(struct planner *p)
{
	struct irqplan *plan = p->plan;
	struct cpuset online_part;

	cpuset_and(&online_part, &p->in->default_affinity, &p->topo->online);
	plan->default_from = p->in->default_affinity;
	plan->default_to = plan->allowed;
	plan->default_change = !cpuset_equal(&online_part, &plan->allowed) ||
			       cpuset_intersects(&p->in->default_affinity, &plan->rt);
}

static void free_planner(struct planner *p)
{
	unsigned int node;

	if (p->nodes)
		for (node = 0; node < p->topo->nr_nodes; node++)
			free(p->nodes[node].cpus);
	free(p->nodes);
	free(p->any.cpus);
	free(p->core_load);
	free(p->nr_irqs);
	free(p->moved);
	free(p->held);
	free(p->delivery_cpu);
}

static int start(struct planner *p)
{
	const struct irq_history *history = p->in->history;
	size_t rows = p->table->nr_irqs + 1;
	unsigned int row, cpu;
	int ret;

	p->nr_cpus = p->plan->nr_cpus = p->topo->nr_cpus;
	p->plan->load_before = calloc(p->nr_cpus + 1, sizeof(double));
	p->plan->load_after = calloc(p->nr_cpus + 1, sizeof(double));
	p->plan->held_up_by = malloc((p->nr_cpus + 1) * sizeof(unsigned int));
	p->core_load = calloc(p->nr_cpus + 1, sizeof(double));
	p->nr_irqs = calloc(p->nr_cpus + 1, sizeof(unsigned int));
	p->moved = calloc(rows, sizeof(bool));
	p->held = calloc(rows, sizeof(bool));
	p->delivery_cpu = calloc(rows, sizeof(int));
	if (!p->plan->load_before || !p->plan->load_after || !p->plan->held_up_by ||
	    !p->core_load || !p->nr_irqs || !p->moved || !p->held || !p->delivery_cpu)
		return -ENOMEM;
	for (cpu = 0; cpu <= p->nr_cpus; cpu++)
		p->plan->held_up_by[cpu] = IRQPLAN_NO_IRQ;
	p->load = p->plan->load_after;
	ret = build_domains(p);
	if (ret)
		return ret;
	p->unit = p->in->rates_are_counts ? "" : "/s";
	p->budget_left = UINT_MAX;
	if (history) {
		unsigned int recent = irq_history_moves_since(
			history, p->in->now_ns > HOUR_NS ? p->in->now_ns - HOUR_NS : 0);

		p->budget_left = recent < p->policy->max_moves_per_hour ?
					 p->policy->max_moves_per_hour - recent :
					 0;
		p->burst_wait_ns = burst_wait(p);
	}
	for (row = 0; row < p->table->nr_irqs; row++) {
		p->delivery_cpu[row] = -1;
		if (!irq_of(p, row)->has_affinity)
			continue;
		find_delivery_cpu(p, row);
		account_row(p, row, 1);
	}
	memcpy(p->plan->load_before, p->load, p->nr_cpus * sizeof(double));
	return 0;
}

int irqplan_make(const struct irqplan_input *input, const struct irqplan_policy *policy,
		 struct irqplan *plan)
{
	struct planner p = {
		.in = input,
		.policy = policy,
		.topo = input->topo,
		.table = input->table,
		.plan = plan,
	};
	const struct topology *topo = input->topo;
	struct pending *pending = NULL;
	unsigned int nr_pending = 0;
	char a[96], b[96], c[96], d[96];
	int ret;

	memset(plan, 0, sizeof(*plan));
	cpuset_or(&plan->rt, &topo->isolated, &topo->nohz_full);
	cpuset_or(&plan->rt, &plan->rt, &input->rt_cpus);
	cpuset_andnot(&plan->allowed, &topo->online, &plan->rt);
	if (cpuset_empty(&plan->allowed)) {
		log_error(
			"no cpu is left for interrupts: online %s, isolated %s, nohz_full %s, RT cpus asked for %s",
			list(&topo->online, a, sizeof(a)), list(&topo->isolated, b, sizeof(b)),
			list(&topo->nohz_full, c, sizeof(c)), list(&input->rt_cpus, d, sizeof(d)));
		return -EINVAL;
	}
	ret = start(&p);
	if (!ret)
		ret = classify(&p, &pending, &nr_pending);
	if (!ret)
		ret = place(&p, pending, nr_pending);
	if (!ret)
		ret = balance(&p);
	if (!ret)
		plan_default_affinity(&p);
	free(pending);
	free_planner(&p);
	if (ret) {
		log_error("out of memory planning the IRQ placement");
		irqplan_release(plan);
	}
	return ret;
}

void irqplan_release(struct irqplan *plan)
{
	free(plan->moves);
	free(plan->unmovable);
	free(plan->unreadable);
	free(plan->load_before);
	free(plan->load_after);
	free(plan->held_up_by);
	memset(plan, 0, sizeof(*plan));
}
