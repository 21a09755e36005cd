/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IRQ_JOURNAL_H
#define LATSCOPE_IRQ_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* how long apply, balance or restore waits for another one to be done */
#define IRQ_JOURNAL_LOCK_WAIT_NS (10 * 1000000000ULL)

struct irq_journal;

/*
 * One journal, one writer (irq_journal_lock.c). apply, balance and restore
 * each take the journal's lock before they first read it (apply: before it
 * samples and plans) and keep it until their last write (balance: for its
 * whole run), so that two of them can never each save a journal over the
 * other's.
 *
 * The lock is an flock(2) on "JOURNAL.lock" beside the journal, into which
 * the holder writes its pid. The holder removes the file when it is done
 * (a waiter that had it open sees that it is gone and takes the new one),
 * so nothing is left behind; a crashed holder's flock dies with it.
 */
struct irq_journal_lock;

/**
 * irq_journal_check_path - whether a path can be a journal at all
 * @path: the journal the user named
 *
 * Returns 0 (also when it does not exist yet); -ENAMETOOLONG (the path or
 * its name); -EISDIR for a directory; -EINVAL for something that is not a
 * regular file (a device, a FIFO: a journal there would be lost); other
 * errors of stat(2) (-ENOTDIR, -ELOOP, -EACCES). Pure check, logs nothing.
 */
int irq_journal_check_path(const char *path);

/**
 * irq_journal_lock - take a journal for this process alone
 * @path: the journal
 * @create: make the journal's directory when it is missing (apply,
 *	    balance); without, a missing directory is -ENOENT (no journal)
 * @wait_ns: how long to wait while another process holds it (0: not at all)
 * @lock: receives the lock; the caller releases it with irq_journal_unlock()
 *
 * While waiting, says once which pid holds the journal (a warning).
 * Returns 0; -EBUSY when the other holder kept it for all of @wait_ns
 * (logged with its pid); -EINTR when a signal ended the wait (logged);
 * -ENOENT without @create and without the directory (not logged); another
 * negative errno code (logged).
 */
int irq_journal_lock(const char *path, bool create, uint64_t wait_ns,
		     struct irq_journal_lock **lock);

/* the journal a lock is for (owned by the lock) */
const char *irq_journal_lock_journal(const struct irq_journal_lock *lock);

/* release the lock and remove its file; NULL is fine */
void irq_journal_unlock(struct irq_journal_lock *lock);

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
 * An empty file (what mktemp(1) makes) is an empty journal. Returns 0;
 * -ENOENT when there is none; -EISDIR for a directory; -EINVAL when it
 * does not parse, is not a regular file, or belongs to another root
 * (logged, with what to do).
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

/**
 * irq_journal_record_refusal - note that the kernel refused to move an IRQ
 * @journal: the journal
 * @irq: the IRQ; it stays where it was
 * @to: the CPU it was to go to
 * @error: the errno the write failed with (ENOSPC: no vector left there;
 *	   EIO or EPERM: the kernel manages the IRQ)
 *
 * Keeps the latest refusal of each IRQ under "refused" (its number, name,
 * target, errno name, reason and time), so that whoever reads the journal
 * learns why an IRQ was not moved. Restore ignores it. Returns 0 or
 * -ENOMEM.
 */
int irq_journal_record_refusal(struct irq_journal *journal, const struct irq_info *irq,
			       unsigned int to, int error);

bool irq_journal_has_default(const struct irq_journal *journal);
/* record /proc/irq/default_smp_affinity as it is; 0 or a negative errno code */
int irq_journal_record_default(struct irq_journal *journal, struct sysroot *root);

/**
 * irq_journal_save - write a journal atomically (temp file, fsync, rename)
 * The caller holds its lock (which made the directory). Returns 0 or a
 * negative errno code (logged).
 */
int irq_journal_save(const struct irq_journal *journal, const char *path);

struct irq_restore_report {
	unsigned int restored; /* IRQs written back and read back as recorded */
	unsigned int gone; /* IRQs that no longer exist: nothing to restore */
	unsigned int stale; /* the IRQ number now belongs to another action: skipped */
	/* the kernel does not let user space set its affinity now (irq_info.movable): skipped */
	unsigned int unmovable;
	unsigned int failed; /* writes that failed, default_smp_affinity included */
	bool default_restored;
};

/**
 * irq_journal_restore - put back everything a journal holds
 * @root: where to write (the journal's root)
 * @journal: the lock of the journal, held by the caller
 * @report: receives the counts of what was really done
 *
 * First checks the whole journal against the system, writing nothing
 * until every value is a non-empty cpu list (or mask) of possible CPUs;
 * an invalid value refuses the journal (each one logged). An entry whose
 * IRQ now has another action name than the one recorded is skipped and
 * named (its number was reused, or the device renamed it): its value would
 * land on the wrong interrupt. An entry whose IRQ is not movable now, as
 * irq_table_load() tells it, is skipped and named too: the kernel refuses
 * the write (a managed IRQ an apply tried to move on a kernel that leaves
 * its file writable; its affinity never changed). Then writes every entry,
 * reads each back, default_smp_affinity last, and logs each failed write
 * with its reason.
 *
 * The journal is removed when everything was restored (IRQs that are gone
 * or not movable aside), kept otherwise. An empty journal restores nothing
 * and is removed. Returns 0; -ENOENT without a journal (logged); -EINVAL for a
 * journal refused (nothing written); -EIO when a write failed; -ESTALE when
 * entries were skipped for their name (logged); another negative errno
 * code when the system could not be read (nothing written).
 */
int irq_journal_restore(struct sysroot *root, const struct irq_journal_lock *journal,
			struct irq_restore_report *report);

#endif
