// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/irq_apply.h"
#include "latscope/log.h"
#include "latscope/sysroot.h"

/* a mask of 8192 CPUs: 2048 digits and 255 commas */
#define MASK_TEXT_SIZE 4096

enum irq_write_status irq_write_status_of(int error)
{
	switch (error) {
	case 0:
		return IRQ_WRITE_DONE;
	case EBUSY:
	case EAGAIN:
	case EINVAL: /* e.g. the target went offline meanwhile */
	case ENOSPC: /* no vector left on the target */
		return IRQ_WRITE_TEMPORARY;
	case ENOENT:
		return IRQ_WRITE_GONE;
	default: /* EIO before 6.12, EPERM after: managed; anything else too */
		return IRQ_WRITE_PERMANENT;
	}
}

const char *irq_write_status_name(enum irq_write_status status)
{
	switch (status) {
	case IRQ_WRITE_DONE:
		return "done";
	case IRQ_WRITE_TEMPORARY:
		return "temporary failure, retried next time";
	case IRQ_WRITE_PERMANENT:
		return "unmovable";
	case IRQ_WRITE_GONE:
		return "gone";
	case IRQ_WRITE_CHANGED:
		return "changed by someone else since the plan";
	}
	return "?";
}

/* The IRQ's affinity as it is now; 0 or a negative errno code. */
static int read_back(struct sysroot *root, unsigned int number, struct cpuset *now)
{
	return sysroot_read_cpulist(root, now, "/proc/irq/%u/smp_affinity_list", number);
}

/*
 * Before the journal and again before the write: the affinity must still
 * be the one the plan started from, or someone else is at work.
 */
static enum irq_write_status still_as_planned(struct sysroot *root, const struct irq_info *irq,
					      int *error)
{
	struct cpuset now;

	*error = read_back(root, irq->number, &now);
	if (*error == -ENOENT)
		return IRQ_WRITE_GONE;
	if (*error)
		return irq_write_status_of(-*error);
	return cpuset_equal(&now, irq->affinity) ? IRQ_WRITE_DONE : IRQ_WRITE_CHANGED;
}

/* Journal what is about to change; nothing is written when this fails. */
static int journal_moves(struct sysroot *root, const struct irq_table *table,
			 const struct irqplan *plan, const struct irq_journal_lock *lock,
			 struct irq_apply_report *report)
{
	const char *path = irq_journal_lock_journal(lock);
	struct irq_journal *journal = NULL;
	bool changed = false;
	unsigned int i;
	int ret, error;

	ret = irq_journal_load(root, path, &journal);
	if (ret == -ENOENT) {
		journal = irq_journal_new(root);
		ret = journal ? 0 : -ENOMEM;
	}
	if (ret)
		return ret;
	for (i = 0; i < plan->nr_moves && !ret; i++) {
		const struct irq_info *irq = &table->irqs[plan->moves[i].row];
		struct irq_apply_result *result = &report->moves[i];

		result->status = still_as_planned(root, irq, &error);
		result->error = -error;
		if (result->status != IRQ_WRITE_DONE || irq_journal_has_irq(journal, irq->number))
			continue;
		ret = irq_journal_record_irq(journal, root, irq);
		if (ret == -ENOENT) {
			result->status = IRQ_WRITE_GONE;
			ret = 0;
		}
		changed |= !ret && result->status == IRQ_WRITE_DONE;
	}
	if (!ret && plan->default_change && !irq_journal_has_default(journal)) {
		ret = irq_journal_record_default(journal, root);
		changed = true;
	}
	if (ret)
		log_error("cannot journal the affinities before changing them: %s", strerror(-ret));
	else if (changed)
		ret = irq_journal_save(journal, path);
	irq_journal_free(journal);
	return ret;
}

/*
 * The writes the kernel refused (ENOSPC, EIO, EPERM...): the IRQs stayed
 * where they were, and the journal says why for whoever reads it later.
 */
static void journal_refusals(struct sysroot *root, const struct irq_table *table,
			     const struct irqplan *plan, const struct irq_journal_lock *lock,
			     const struct irq_apply_report *report)
{
	struct irq_journal *journal = NULL;
	bool any = false;
	unsigned int i;
	int ret;

	for (i = 0; i < plan->nr_moves; i++)
		any |= report->moves[i].status == IRQ_WRITE_TEMPORARY ||
		       report->moves[i].status == IRQ_WRITE_PERMANENT;
	if (!any)
		return;
	ret = irq_journal_load(root, irq_journal_lock_journal(lock), &journal);
	if (ret == -ENOENT) {
		journal = irq_journal_new(root);
		ret = journal ? 0 : -ENOMEM;
	}
	for (i = 0; i < plan->nr_moves && !ret; i++) {
		const struct irq_apply_result *result = &report->moves[i];

		if (result->status == IRQ_WRITE_TEMPORARY || result->status == IRQ_WRITE_PERMANENT)
			ret = irq_journal_record_refusal(journal, &table->irqs[plan->moves[i].row],
							 plan->moves[i].to, result->error);
	}
	if (!ret)
		ret = irq_journal_save(journal, irq_journal_lock_journal(lock));
	else
		log_error("cannot journal the refused moves: %s", strerror(-ret));
	irq_journal_free(journal);
}

/* In a fixture no kernel derives these: write them as the kernel would. */
static void play_kernel(struct sysroot *root, const struct topology *topo, unsigned int number,
			unsigned int to)
{
	char mask[MASK_TEXT_SIZE], text[MASK_TEXT_SIZE + 1];
	struct cpuset one;

	cpuset_clear(&one);
	cpuset_add(&one, to);
	snprintf(text, sizeof(text), "%s\n",
		 cpuset_format_mask(&one, topo->nr_cpus, mask, sizeof(mask)));
	if (sysroot_exists(root, "/proc/irq/%u/smp_affinity", number))
		sysroot_write(root, text, "/proc/irq/%u/smp_affinity", number);
	if (sysroot_exists(root, "/proc/irq/%u/effective_affinity", number))
		sysroot_write(root, text, "/proc/irq/%u/effective_affinity", number);
	snprintf(text, sizeof(text), "%u\n", to);
	if (sysroot_exists(root, "/proc/irq/%u/effective_affinity_list", number))
		sysroot_write(root, text, "/proc/irq/%u/effective_affinity_list", number);
}

static void write_move(struct sysroot *root, const struct topology *topo,
		       const struct irq_info *irq, const struct irqplan_move *move,
		       struct irq_apply_result *result)
{
	struct cpuset now, effective;
	char text[32];
	int error;

	result->effective_cpu = -1;
	result->status = still_as_planned(root, irq, &error);
	result->error = -error;
	if (result->status != IRQ_WRITE_DONE)
		return;
	snprintf(text, sizeof(text), "%u\n", move->to);
	error = sysroot_write(root, text, "/proc/irq/%u/smp_affinity_list", irq->number);
	if (error) {
		result->status = irq_write_status_of(-error);
		result->error = -error;
		/* a failed write must leave the mask as it was */
		if (!read_back(root, irq->number, &now) && !cpuset_equal(&now, irq->affinity))
			log_error(
				"irq %u %s: affinity changed to something else after a failed write",
				irq->number, irq->name);
		return;
	}
	if (!sysroot_is_live(root))
		play_kernel(root, topo, irq->number, move->to);
	error = read_back(root, irq->number, &now);
	if (error || cpuset_count(&now) != 1 || !cpuset_has(&now, move->to)) {
		log_error("irq %u %s: the affinity read back is not cpu %u", irq->number, irq->name,
			  move->to);
		result->status = IRQ_WRITE_PERMANENT;
		result->error = error ? -error : EIO;
		return;
	}
	/* x86 moves the vector at once; other chips may wait for the next interrupt */
	if (!sysroot_read_cpulist(root, &effective, "/proc/irq/%u/effective_affinity_list",
				  irq->number)) {
		result->effective_cpu = cpuset_next(&effective, -1);
		result->effective_ok =
			cpuset_count(&effective) == 1 && cpuset_has(&effective, move->to);
	} else {
		/* no effective_affinity_list (old kernel): the affinity must do */
		result->effective_ok = true;
		result->effective_cpu = (int)move->to;
	}
}

static void write_default(struct sysroot *root, const struct topology *topo,
			  const struct irqplan *plan, struct irq_apply_report *report)
{
	char mask[MASK_TEXT_SIZE], text[MASK_TEXT_SIZE + 1];
	struct cpuset now;
	int ret;

	snprintf(text, sizeof(text), "%s\n",
		 cpuset_format_mask(&plan->default_to, topo->nr_cpus, mask, sizeof(mask)));
	ret = sysroot_write(root, text, "/proc/irq/default_smp_affinity");
	if (!ret &&
	    (irq_read_default_affinity(root, &now) || !cpuset_equal(&now, &plan->default_to)))
		ret = -EIO;
	report->default_written = !ret;
	report->default_error = -ret;
	if (ret)
		log_error("cannot set /proc/irq/default_smp_affinity to %s: %s", mask,
			  sysroot_strerror(ret));
}

int irq_apply(struct sysroot *root, const struct topology *topo, const struct irq_table *table,
	      const struct irqplan *plan, const struct irq_journal_lock *journal,
	      struct irq_apply_report *report)
{
	unsigned int i;
	int ret;

	report->default_written = false;
	report->default_error = 0;
	report->done = report->temporary = report->permanent = report->gone = 0;
	report->changed = 0;
	memset(report->moves, 0, plan->nr_moves * sizeof(*report->moves));
	if (!plan->nr_moves && !plan->default_change)
		return 0;
	ret = journal_moves(root, table, plan, journal, report);
	if (ret)
		return ret;
	for (i = 0; i < plan->nr_moves; i++) {
		struct irq_apply_result *result = &report->moves[i];
		const struct irqplan_move *move = &plan->moves[i];

		if (result->status == IRQ_WRITE_DONE)
			write_move(root, topo, &table->irqs[move->row], move, result);
		switch (result->status) {
		case IRQ_WRITE_DONE:
			report->done++;
			break;
		case IRQ_WRITE_TEMPORARY:
			report->temporary++;
			break;
		case IRQ_WRITE_PERMANENT:
			report->permanent++;
			break;
		case IRQ_WRITE_GONE:
			report->gone++;
			break;
		case IRQ_WRITE_CHANGED:
			report->changed++;
			break;
		}
	}
	if (plan->default_change)
		write_default(root, topo, plan, report);
	/* the moves are made: a journal that cannot say why some were not is logged */
	journal_refusals(root, table, plan, journal, report);
	return 0;
}
