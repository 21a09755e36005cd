// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/irq_history.h"

#define HOUR_NS (3600ULL * 1000000000ULL)

struct last_move {
	unsigned int irq;
	uint64_t time_ns;
};

struct irq_history {
	/* sorted by IRQ number */
	struct last_move *last;
	unsigned int nr_last;
	/* times of the moves of the last hour, oldest first */
	uint64_t *recent;
	unsigned int nr_recent, recent_cap;
	/* IRQ numbers of the last interval, ascending */
	unsigned int *known;
	unsigned int nr_known;
	bool started;
	unsigned short streak[CPUSET_MAX_CPUS];
	/* per CPU: the time of the first interval of its streak, 0 without one */
	uint64_t overloaded_since[CPUSET_MAX_CPUS];
	/* per CPU: the IRQ that alone holds it up (IRQPLAN_NO_IRQ), since when */
	unsigned int holder[CPUSET_MAX_CPUS];
	uint64_t held_since[CPUSET_MAX_CPUS];
	/* the last holds that ended by themselves, a ring */
	struct burst {
		uint64_t ended_ns, length_ns;
	} bursts[IRQ_HISTORY_BURSTS];
	unsigned int nr_bursts, next_burst;
};

static void forget_holders(struct irq_history *history)
{
	unsigned int cpu;

	for (cpu = 0; cpu < CPUSET_MAX_CPUS; cpu++)
		history->holder[cpu] = IRQPLAN_NO_IRQ;
	memset(history->held_since, 0, sizeof(history->held_since));
}

struct irq_history *irq_history_new(void)
{
	struct irq_history *history = calloc(1, sizeof(struct irq_history));

	if (history)
		forget_holders(history);
	return history;
}

void irq_history_free(struct irq_history *history)
{
	if (!history)
		return;
	free(history->last);
	free(history->recent);
	free(history->known);
	free(history);
}

static int compare_last_move(const void *key, const void *item)
{
	unsigned int irq = *(const unsigned int *)key;
	const struct last_move *last = item;

	return irq < last->irq ? -1 : irq > last->irq;
}

static const struct last_move *find_last(const struct irq_history *history, unsigned int irq)
{
	if (!history->nr_last)
		return NULL;
	return bsearch(&irq, history->last, history->nr_last, sizeof(*history->last),
		       compare_last_move);
}

uint64_t irq_history_last_move(const struct irq_history *history, unsigned int irq)
{
	const struct last_move *last = find_last(history, irq);

	return last ? last->time_ns : 0;
}

unsigned int irq_history_moves_since(const struct irq_history *history, uint64_t since_ns)
{
	unsigned int n = 0, i;

	for (i = 0; i < history->nr_recent; i++)
		if (history->recent[i] > since_ns)
			n++;
	return n;
}

unsigned int irq_history_overload_streak(const struct irq_history *history, unsigned int cpu)
{
	return cpu < CPUSET_MAX_CPUS ? history->streak[cpu] : 0;
}

uint64_t irq_history_overloaded_since(const struct irq_history *history, unsigned int cpu)
{
	return cpu < CPUSET_MAX_CPUS ? history->overloaded_since[cpu] : 0;
}

uint64_t irq_history_held_since(const struct irq_history *history, unsigned int cpu,
				unsigned int irq)
{
	return cpu < CPUSET_MAX_CPUS && history->holder[cpu] == irq ? history->held_since[cpu] : 0;
}

uint64_t irq_history_longest_burst(const struct irq_history *history, uint64_t since_ns,
				   uint64_t below_ns, unsigned int *count)
{
	uint64_t longest = 0;
	unsigned int i;

	*count = 0;
	for (i = 0; i < history->nr_bursts; i++) {
		const struct burst *burst = &history->bursts[i];

		if (burst->ended_ns <= since_ns || burst->length_ns >= below_ns)
			continue;
		++*count;
		if (burst->length_ns > longest)
			longest = burst->length_ns;
	}
	return longest;
}

bool irq_history_known(const struct irq_history *history, unsigned int irq)
{
	return history->nr_known && bsearch(&irq, history->known, history->nr_known,
					    sizeof(*history->known), array_compare_uint);
}

bool irq_history_started(const struct irq_history *history)
{
	return history->started;
}

void irq_history_forget_streaks(struct irq_history *history)
{
	memset(history->streak, 0, sizeof(history->streak));
	memset(history->overloaded_since, 0, sizeof(history->overloaded_since));
	forget_holders(history);
}

static void end_streak(struct irq_history *history, unsigned int cpu)
{
	history->streak[cpu] = 0;
	history->overloaded_since[cpu] = 0;
}

static int compare_last(const void *a, const void *b)
{
	const struct last_move *x = a, *y = b;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	/* the latest move of an IRQ first: it is the one kept */
	return x->time_ns > y->time_ns ? -1 : x->time_ns < y->time_ns;
}

/* Add this interval's moves, keep the latest per IRQ that still exists. */
static int merge_moves(struct irq_history *history, const struct irqplan *plan,
		       const struct irq_table *table, const bool *done, uint64_t now_ns)
{
	unsigned int n = history->nr_last + plan->nr_moves, kept = 0, i;
	struct last_move *all = malloc((n ? n : 1) * sizeof(*all));

	if (!all)
		return -ENOMEM;
	/* a new history has no array yet, and memcpy's source is nonnull */
	if (history->nr_last)
		memcpy(all, history->last, history->nr_last * sizeof(*all));
	n = history->nr_last;
	for (i = 0; i < plan->nr_moves; i++)
		if (!done || done[i])
			all[n++] = (struct last_move){ plan->moves[i].irq, now_ns };
	qsort(all, n, sizeof(*all), compare_last);
	for (i = 0; i < n; i++) {
		if (kept && all[kept - 1].irq == all[i].irq)
			continue;
		if (!irq_table_find(table, all[i].irq))
			continue; /* gone: a new IRQ with this number starts afresh */
		all[kept++] = all[i];
	}
	free(history->last);
	history->last = all;
	history->nr_last = kept;
	return 0;
}

static int record_recent(struct irq_history *history, const struct irqplan *plan, const bool *done,
			 uint64_t now_ns)
{
	unsigned int kept = 0, i, moves = 0;
	uint64_t *recent;

	for (i = 0; i < history->nr_recent; i++)
		if (history->recent[i] + HOUR_NS > now_ns)
			history->recent[kept++] = history->recent[i];
	history->nr_recent = kept;
	for (i = 0; i < plan->nr_moves; i++)
		moves += !done || done[i];
	recent = array_grow(history->recent, &history->recent_cap, history->nr_recent + moves,
			    sizeof(*recent));
	if (!recent)
		return -ENOMEM;
	history->recent = recent;
	for (i = 0; i < moves; i++)
		history->recent[history->nr_recent++] = now_ns;
	return 0;
}

static int remember_irqs(struct irq_history *history, const struct irq_table *table)
{
	unsigned int *known = malloc((table->nr_irqs + 1) * sizeof(*known)), i;

	if (!known)
		return -ENOMEM;
	for (i = 0; i < table->nr_irqs; i++)
		known[i] = table->irqs[i].number;
	free(history->known);
	history->known = known;
	history->nr_known = table->nr_irqs;
	return 0;
}

/*
 * Which IRQ alone holds each CPU up now. A hold that ends with the CPU's
 * overload passed, its IRQ not moved meanwhile, was a burst: remembered.
 * One whose IRQ moved, or whose CPU stays overloaded (another IRQ came,
 * two hot ones now), says nothing of how long bursts last. A plan that
 * does not say (held_up_by NULL: moves made by hand) changes nothing.
 */
static void follow_holders(struct irq_history *history, const struct irqplan *plan, uint64_t now_ns)
{
	unsigned int cpu, was, now;

	if (!plan->held_up_by)
		return;
	for (cpu = 0; cpu < CPUSET_MAX_CPUS; cpu++) {
		was = history->holder[cpu];
		now = cpu < plan->nr_cpus ? plan->held_up_by[cpu] : IRQPLAN_NO_IRQ;
		if (now == was)
			continue;
		if (was != IRQPLAN_NO_IRQ && !cpuset_has(&plan->overloaded, cpu) &&
		    irq_history_last_move(history, was) < history->held_since[cpu]) {
			history->bursts[history->next_burst] =
				(struct burst){ now_ns, now_ns - history->held_since[cpu] };
			history->next_burst = (history->next_burst + 1) % IRQ_HISTORY_BURSTS;
			if (history->nr_bursts < IRQ_HISTORY_BURSTS)
				history->nr_bursts++;
		}
		history->holder[cpu] = now;
		history->held_since[cpu] = now_ns;
	}
}

int irq_history_commit(struct irq_history *history, const struct irqplan *plan,
		       const struct irq_table *table, const bool *done, uint64_t now_ns)
{
	unsigned int cpu, i;
	int ret;

	ret = merge_moves(history, plan, table, done, now_ns);
	/*
	 * The first interval's moves are the initial placement: a budget
	 * they spent would stop all balancing for the hour that follows.
	 */
	if (!ret && history->started)
		ret = record_recent(history, plan, done, now_ns);
	if (!ret)
		ret = remember_irqs(history, table);
	if (ret)
		return ret;
	for (cpu = 0; cpu < CPUSET_MAX_CPUS; cpu++) {
		if (!cpuset_has(&plan->overloaded, cpu)) {
			end_streak(history, cpu);
			continue;
		}
		if (!history->streak[cpu])
			history->overloaded_since[cpu] = now_ns;
		if (history->streak[cpu] < 0xffff)
			history->streak[cpu]++;
	}
	/* CPUs that shed or took load start counting again */
	for (i = 0; i < plan->nr_moves; i++) {
		const struct irqplan_move *move = &plan->moves[i];

		if ((done && !done[i]) || move->kind != IRQPLAN_BALANCE)
			continue;
		end_streak(history, move->to);
		if (move->from_cpu >= 0 && move->from_cpu < CPUSET_MAX_CPUS)
			end_streak(history, (unsigned int)move->from_cpu);
	}
	follow_holders(history, plan, now_ns);
	history->started = true;
	return 0;
}
