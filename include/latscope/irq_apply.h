/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_APPLY_H
#define LATSCOPE_IRQ_APPLY_H

#include <stdbool.h>

#include "latscope/irq.h"
#include "latscope/irq_journal.h"
#include "latscope/irqplan.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * Performing a plan. Before the first write, the original text of every
 * affinity file about to change and of /proc/irq/default_smp_affinity goes
 * into the journal (irq_journal.h), so that irq_journal_restore() puts
 * everything back, also after a crash.
 *
 * In a fixture tree (a root other than "/") no kernel derives
 * smp_affinity, effective_affinity_list and effective_affinity from a
 * write of smp_affinity_list; latscope writes them as the kernel would
 * (the effective CPU being the target) and journals them too, so that
 * plan-apply-plan and restore can be tested byte for byte.
 */

/* What became of one write, for the caller's report. */
enum irq_write_status {
	IRQ_WRITE_DONE,
	IRQ_WRITE_TEMPORARY, /* EBUSY, EAGAIN, EINVAL, ENOSPC: retried next time */
	IRQ_WRITE_PERMANENT, /* EIO, EPERM and others: the IRQ is unmovable */
	IRQ_WRITE_GONE, /* the IRQ vanished: skipped */
	IRQ_WRITE_CHANGED, /* someone else changed it since the plan: skipped */
};

/**
 * irq_write_status_of - sort a write error
 * @error: a positive errno value from writing an affinity file
 *
 * Pure. EBUSY, EAGAIN, EINVAL and ENOSPC (vectors exhausted) are
 * temporary; ENOENT means gone; EIO (kernels before 6.12) and EPERM
 * (later ones) mean the IRQ cannot be moved, as does any other error.
 */
enum irq_write_status irq_write_status_of(int error);

/* "done", "temporary failure", "unmovable", "gone", "changed by someone else" */
const char *irq_write_status_name(enum irq_write_status status);

struct irq_apply_result {
	enum irq_write_status status;
	int error; /* errno of the failed write, 0 */
	/* after a write: the effective CPUs are the target */
	bool effective_ok;
	int effective_cpu; /* the first effective CPU read back, -1 */
};

struct irq_apply_report {
	struct irq_apply_result *moves; /* one per plan move; the caller's array */
	bool default_written;
	int default_error; /* errno, 0 */
	unsigned int done, temporary, permanent, gone, changed;
};

/**
 * irq_apply - perform a plan
 * @root: where to write
 * @topo: the topology (mask width of default_smp_affinity)
 * @table: the table the plan was made from (the "from" affinities)
 * @plan: the plan
 * @journal: the lock of the journal to extend before the first write, held
 *	     by the caller since before it read the affinities it planned from
 * @report: receives what happened; report->moves must hold plan->nr_moves
 *
 * Reads each affinity back before writing and skips an IRQ that vanished
 * or was changed since the plan; journals; writes smp_affinity_list;
 * reads it and effective_affinity_list back. Nothing is written when the
 * journal cannot be read or saved. Returns 0 (see @report for each move)
 * or a negative errno code (logged).
 */
int irq_apply(struct sysroot *root, const struct topology *topo, const struct irq_table *table,
	      const struct irqplan *plan, const struct irq_journal_lock *journal,
	      struct irq_apply_report *report);

#endif
