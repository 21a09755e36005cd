// SPDX-License-Identifier: GPL-2.0-or-later
/* The lock of a file replaced whole: see include/latscope/file_lock.h. */
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
#include "latscope/file_lock.h"
#include "latscope/log.h"

#define LOCK_SUFFIX ".lock"
/* how often a waiter tries again */
#define LOCK_POLL_NS (20 * 1000 * 1000)

struct file_lock {
	int fd;
	struct file_lock_words words;
	char target[PATH_MAX];
	char path[PATH_MAX]; /* the lock file */
};

/* "DIR/NAME.lock", NAME cut so that the whole still fits NAME_MAX */
static int lock_path_for(const char *target, char *buf, size_t size)
{
	const char *slash = strrchr(target, '/');
	const char *name = slash ? slash + 1 : target;
	int keep = (int)strlen(name);

	if (keep > NAME_MAX - (int)strlen(LOCK_SUFFIX))
		keep = NAME_MAX - (int)strlen(LOCK_SUFFIX);
	if (snprintf(buf, size, "%.*s%.*s" LOCK_SUFFIX, (int)(name - target), target, keep, name) >=
	    (int)size)
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
static int try_lock(struct file_lock *lock, int *pid)
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

static int take(struct file_lock *lock, uint64_t wait_ns)
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
			log_error("%s %s is in use by pid %d (%s)", lock->words.noun, lock->target,
				  pid, lock->words.holders);
			return -EBUSY;
		}
		if (!said) {
			log_warning("%s %s is in use by pid %d: waiting up to %.0f s",
				    lock->words.noun, lock->target, pid, (double)wait_ns / 1e9);
			said = true;
		}
		ret = wait_a_little();
		if (ret) {
			log_error("interrupted while waiting for the %s %s", lock->words.noun,
				  lock->target);
			return ret;
		}
	}
}

int file_lock_take(const char *path, bool create, uint64_t wait_ns,
		   const struct file_lock_words *words, struct file_lock **result)
{
	struct file_lock *lock;
	int ret;

	*result = NULL;
	if (strlen(path) >= PATH_MAX) {
		log_error("cannot lock the %s %s: %s", words->noun, path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	lock = calloc(1, sizeof(*lock));
	if (!lock)
		return -ENOMEM;
	lock->fd = -1;
	lock->words = *words;
	strcpy(lock->target, path);
	ret = lock_path_for(path, lock->path, sizeof(lock->path));
	if (!ret && create)
		ret = make_parent(path);
	if (!ret)
		ret = take(lock, wait_ns);
	if (ret) {
		if (ret != -EBUSY && ret != -EINTR && !(ret == -ENOENT && !create))
			log_error("cannot lock the %s %s (%s): %s", words->noun, path, lock->path,
				  strerror(-ret));
		free(lock);
		return ret;
	}
	*result = lock;
	return 0;
}

const char *file_lock_target(const struct file_lock *lock)
{
	return lock->target;
}

void file_lock_release(struct file_lock *lock)
{
	if (!lock)
		return;
	/* removed while still held: whoever waits on this file sees it is gone */
	unlink(lock->path);
	close(lock->fd);
	free(lock);
}
