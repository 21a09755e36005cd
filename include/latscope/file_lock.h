/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_FILE_LOCK_H
#define LATSCOPE_FILE_LOCK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One writer for a file that is replaced whole (the IRQ journal, the
 * monitor's state): an flock(2) on "FILE.lock" beside it, not on the file
 * itself, since a lock on a file that was renamed over protects nothing.
 * The holder writes its pid into the lock file, so a refusal can say who
 * holds it, and removes the file when it is done (a waiter that had it
 * open sees that it is gone and takes the new one), so nothing is left
 * behind; a crashed holder's flock dies with it.
 */
struct file_lock;

/* How a refusal or a wait is worded: "NOUN PATH is in use by pid N (HOLDERS)". */
struct file_lock_words {
	const char *noun; /* "journal", "state" */
	const char *holders; /* "another latscope monitor" */
};

/**
 * file_lock_take - take @path for this process alone
 * @path: the file to guard (it need not exist)
 * @create: make the file's directory (mkdir -p) when it is missing;
 *	    without, a missing directory is -ENOENT (not logged)
 * @wait_ns: how long to wait while another process holds it (0: not at all)
 * @words: how messages name the file and its other holders
 * @lock: receives the lock; release it with file_lock_release()
 *
 * While waiting, says once which pid holds the file (a warning). Returns 0;
 * -EBUSY when another holder kept it for all of @wait_ns (logged, with its
 * pid); -EINTR when a signal ended the wait (logged); -ENOENT as above;
 * another negative errno code (logged).
 */
int file_lock_take(const char *path, bool create, uint64_t wait_ns,
		   const struct file_lock_words *words, struct file_lock **lock);

/* the file a lock guards (owned by the lock) */
const char *file_lock_target(const struct file_lock *lock);

/* release the lock and remove its file; NULL is ignored */
void file_lock_release(struct file_lock *lock);

#endif
