/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_JOURNAL_H
#define LATSCOPE_IRQ_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "latscope/irq.h"
#include "latscope/sysroot.h"

/*
 * The journal of IRQ affinities (irq_journal.c): the original text of
 * every affinity file irq_apply() is about to change and of
 * /proc/irq/default_smp_affinity, written atomically before the first
 * write, so that irq_journal_restore() puts everything back, also after a
 * crash. An IRQ already in the journal keeps its first record: the journal
 * always holds the state before latscope touched it.
 */

/* where the journal goes by default, under the root */
#define IRQ_JOURNAL_PATH "/run/latscope/irq-journal.json"
#define IRQ_JOURNAL_SCHEMA "latscope-irq-journal/1"

struct irq_journal;

/**
 * irq_journal_default_path - the journal's path under a root
 * Returns 0 or -ENAMETOOLONG.
 */
int irq_journal_default_path(struct sysroot *root, char *buf, size_t size);

/**
 * irq_journal_load - read a journal
 * @root: the root the journal must belong to
 * @path: its file
 * @journal: receives it; free with irq_journal_free()
 *
 * Returns 0; -ENOENT when there is none; -EINVAL when it does not parse or
 * belongs to another root (logged, with what to do).
 */
int irq_journal_load(struct sysroot *root, const char *path, struct irq_journal **journal);

/* an empty journal for @root, or NULL */
struct irq_journal *irq_journal_new(struct sysroot *root);
void irq_journal_free(struct irq_journal *journal);

/* number of IRQs recorded */
unsigned int irq_journal_irqs(const struct irq_journal *journal);

/* whether @number is recorded */
bool irq_journal_has_irq(const struct irq_journal *journal, unsigned int number);

/**
 * irq_journal_record_irq - record the affinity files of an IRQ as they are
 * @journal: the journal
 * @root: where to read
 * @irq: the IRQ, not yet recorded
 *
 * Reads the exact bytes of smp_affinity_list (and in a fixture of the
 * files latscope fakes). Returns 0 or a negative errno code (-ENOENT: the
 * IRQ vanished).
 */
int irq_journal_record_irq(struct irq_journal *journal, struct sysroot *root,
			   const struct irq_info *irq);

bool irq_journal_has_default(const struct irq_journal *journal);
/* record /proc/irq/default_smp_affinity as it is; 0 or a negative errno code */
int irq_journal_record_default(struct irq_journal *journal, struct sysroot *root);

/**
 * irq_journal_save - write a journal atomically (temp file, fsync, rename)
 * Creates the directory when missing. Returns 0 or a negative errno code.
 */
int irq_journal_save(const struct irq_journal *journal, const char *path);

struct irq_restore_report {
	unsigned int restored, gone, failed;
	bool default_restored;
};

/**
 * irq_journal_restore - put back everything a journal holds
 * @root: where to write (the journal's root)
 * @journal_path: the journal
 * @report: receives the counts
 *
 * Writes each recorded file back and checks it. IRQs that vanished are
 * skipped (logged). The journal is removed when everything was restored,
 * kept otherwise. Returns 0; -ENOENT without a journal; -EINVAL for a bad
 * journal (nothing written); -EIO when some write failed (logged).
 */
int irq_journal_restore(struct sysroot *root, const char *journal_path,
			struct irq_restore_report *report);

#endif
