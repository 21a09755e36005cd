// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal's lock: file_lock.c's "JOURNAL.lock" beside the journal,
 * held by apply, balance and restore.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "latscope/file_lock.h"
#include "latscope/irq_journal.h"
#include "latscope/log.h"

struct irq_journal_lock {
	struct file_lock *lock;
};

int irq_journal_check_path(const char *path)
{
	const char *name = strrchr(path, '/');
	struct stat st;

	name = name ? name + 1 : path;
	if (strlen(path) >= PATH_MAX || strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (!path[0])
		return -ENOENT;
	if (!name[0])
		return -EISDIR;
	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

int irq_journal_lock(const char *path, bool create, uint64_t wait_ns,
		     struct irq_journal_lock **result)
{
	static const struct file_lock_words words = {
		"journal",
		"another latscope irq apply, balance or restore; try again when it is done"
	};
	struct irq_journal_lock *lock;
	int ret;

	*result = NULL;
	ret = irq_journal_check_path(path);
	if (ret) {
		log_error("cannot use the journal %s: %s", path,
			  ret == -EINVAL ? "not a regular file" : strerror(-ret));
		return ret;
	}
	lock = calloc(1, sizeof(*lock));
	if (!lock)
		return -ENOMEM;
	ret = file_lock_take(path, create, wait_ns, &words, &lock->lock);
	if (ret) {
		free(lock);
		return ret;
	}
	*result = lock;
	return 0;
}

const char *irq_journal_lock_journal(const struct irq_journal_lock *lock)
{
	return file_lock_target(lock->lock);
}

void irq_journal_unlock(struct irq_journal_lock *lock)
{
	if (!lock)
		return;
	file_lock_release(lock->lock);
	free(lock);
}
