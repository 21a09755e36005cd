// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The journal's lock: an flock(2) on "JOURNAL.lock" beside the journal.
 * Not on the journal itself: saving renames a new file over it and restore
 * removes it, and a lock on a file that was replaced protects nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latscope/clock.h"
#include "latscope/irq_journal.h"
#include "latscope/log.h"

#define LOCK_SUFFIX ".lock"
/* how often a waiter tries again */
#define LOCK_POLL_NS (20 * 1000 * 1000)

struct irq_journal_lock {
	int fd;
	char journal[PATH_MAX];
	char path[PATH_MAX]; /* the lock file */
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

/* "DIR/NAME.lock", NAME cut so that the whole still fits NAME_MAX */
static int lock_path_for(const char *journal, char *buf, size_t size)
{
	const char *slash = strrchr(journal, '/');
	const char *name = slash ? slash + 1 : journal;
	int keep = (int)strlen(name);

	if (keep > NAME_MAX - (int)strlen(LOCK_SUFFIX))
		keep = NAME_MAX - (int)strlen(LOCK_SUFFIX);
	if (snprintf(buf, size, "%.*s%.*s" LOCK_SUFFIX, (int)(name - journal), journal, keep,
		     name) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir -p of the directory holding @path */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* The pid the holder wrote into the lock file, 0 when not (yet) there. */
static int holder_pid(int fd)
{
	char text[32];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	long pid;

	if (n <= 0)
		return 0;
	text[n] = '\0';
	pid = strtol(text, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (int)pid : 0;
}

/* Whether the file locked is still the one at @path (not removed by its last holder). */
static bool still_there(int fd, const char *path)
{
	struct stat locked, named;

	return !fstat(fd, &locked) && !lstat(path, &named) && locked.st_dev == named.st_dev &&
	       locked.st_ino == named.st_ino;
}

static int mark_held(int fd)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) || pwrite(fd, text, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * One attempt: 0 (held), -EWOULDBLOCK (*pid: the holder), -ESTALE (the file
 * was removed by its last holder: try again at once).
 */
static int try_lock(struct irq_journal_lock *lock, int *pid)
{
	int fd, ret;

	fd = open(lock->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
		*pid = holder_pid(fd);
		close(fd);
		return ret;
	}
	if (!still_there(fd, lock->path)) {
		close(fd);
		return -ESTALE;
	}
	ret = mark_held(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	lock->fd = fd;
	return 0;
}

static int wait_a_little(void)
{
	struct timespec ts = clock_timespec(LOCK_POLL_NS);

	/* a signal (the CLI catches them without SA_RESTART) ends the wait */
	return nanosleep(&ts, NULL) && errno == EINTR ? -EINTR : 0;
}

static int take(struct irq_journal_lock *lock, uint64_t wait_ns)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	bool said = false;
	int ret, pid = 0;

	for (;;) {
		ret = try_lock(lock, &pid);
		if (ret == -ESTALE)
			continue;
		if (ret != -EWOULDBLOCK)
			return ret;
		if (clock_ns(CLOCK_MONOTONIC) - start >= wait_ns) {
			log_error(
				"journal %s is in use by pid %d (another latscope irq apply, balance or restore); try again when it is done",
				lock->journal, pid);
			return -EBUSY;
		}
		if (!said) {
			log_warning("journal %s is in use by pid %d: waiting up to %.0f s",
				    lock->journal, pid, (double)wait_ns / 1e9);
			said = true;
		}
		ret = wait_a_little();
		if (ret) {
			log_error("interrupted while waiting for the journal %s", lock->journal);
			return ret;
		}
	}
}

int irq_journal_lock(const char *path, bool create, uint64_t wait_ns,
		     struct irq_journal_lock **result)
{
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
	lock->fd = -1;
	strcpy(lock->journal, path);
	ret = lock_path_for(path, lock->path, sizeof(lock->path));
	if (!ret && create)
		ret = make_parent(path);
	if (!ret)
		ret = take(lock, wait_ns);
	if (ret) {
		if (ret != -EBUSY && ret != -EINTR && !(ret == -ENOENT && !create))
			log_error("cannot lock the journal %s (%s): %s", path, lock->path,
				  strerror(-ret));
		free(lock);
		return ret;
	}
	*result = lock;
	return 0;
}

const char *irq_journal_lock_journal(const struct irq_journal_lock *lock)
{
	return lock->journal;
}

void irq_journal_unlock(struct irq_journal_lock *lock)
{
	if (!lock)
		return;
	/* removed while still held: whoever waits on this file sees it is gone */
	unlink(lock->path);
	close(lock->fd);
	free(lock);
}
