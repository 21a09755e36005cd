// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "latscope/log.h"

/* the longest name part of the target kept in the temporary file's name */
#define KEPT_NAME (NAME_MAX - 32)
/* one write(2) per this many bytes, whatever the caller prints */
#define STREAM_BUFFER (64 * 1024)
/* writeback is started a chunk at a time: fewer calls, yet the disk kept busy */
#define WRITE_BEHIND_BYTES (4 << 20)
/* a replaced file this big is freed in a thread: ext4 took 50 ms for 120 MB */
#define FREE_BEHIND_BYTES (16 << 20)
#define FREE_BEHIND_STACK (64 * 1024)
/* as the kernel's limit on links followed in one lookup */
#define MAX_LINK_HOPS 40
/* from linux/magic.h, which not every libc's headers carry */
#define PROC_FS_MAGIC 0x9fa0

static void release(struct atomic_file *file)
{
	free(file->path);
	free(file->temp);
	free(file->buffer);
	memset(file, 0, sizeof(*file));
}

/* "dir/" names a directory, as do "." and ".."; a name longer than NAME_MAX is no name */
static int check_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EISDIR;
	return strlen(name) > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* The directory part of @path: "." for a bare name, "/" for "/name". */
static void directory_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else
		snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/*
 * /dev/stdout leads to /proc/self/fd/1: a link in procfs stands for an open
 * file (a pipe, a terminal, the file a shell redirected to), not for a
 * name to replace.
 */
static bool link_in_procfs(const char *link)
{
	char dir[PATH_MAX];
	struct statfs fs;

	directory_of(link, dir, sizeof(dir));
	return !statfs(dir, &fs) && fs.f_type == PROC_FS_MAGIC;
}

/*
 * The file the path's links lead to, as a name: a relative link is taken
 * from its own directory, a dangling one names the file to create. Sets
 * *in_place for a link into procfs. Returns 0 or a negative errno code.
 */
static int follow_links(char *path, bool *in_place)
{
	char target[PATH_MAX], next[PATH_MAX];
	struct stat st;
	const char *slash;
	ssize_t n;
	int hops;

	for (hops = 0; hops < MAX_LINK_HOPS; hops++) {
		if (lstat(path, &st))
			return errno == ENOENT ? 0 : -errno;
		if (!S_ISLNK(st.st_mode))
			return 0;
		if (link_in_procfs(path)) {
			*in_place = true;
			return 0;
		}
		n = readlink(path, target, sizeof(target));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
		target[n] = '\0';
		slash = strrchr(path, '/');
		if (target[0] == '/' || !slash)
			n = snprintf(next, sizeof(next), "%s", target);
		else
			n = snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - path), path,
				     target);
		if (n < 0 || (size_t)n >= sizeof(next))
			return -ENAMETOOLONG;
		memcpy(path, next, (size_t)n + 1);
	}
	return -ELOOP;
}

/*
 * Where @path's content will go: file->path, and whether it is written in
 * place (a pipe, a terminal, a device, an open file of /proc/PID/fd) or
 * replaced (a regular file, or one to create); file->mode is an existing
 * file's mode, kept by its replacement.
 */
static int resolve(struct atomic_file *file, const char *path, bool *in_place)
{
	struct stat st;
	int ret;

	*in_place = false;
	if (!path || !*path)
		return -ENOENT;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	file->path = malloc(PATH_MAX);
	if (!file->path)
		return -ENOMEM;
	strcpy(file->path, path);
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode)) {
			*in_place = true;
			return 0;
		}
		file->mode = st.st_mode & 07777;
		file->keep_mode = true;
		file->old_size = st.st_size;
	} else if (errno != ENOENT) {
		return -errno;
	}
	ret = follow_links(file->path, in_place);
	if (ret || *in_place) {
		/* in place: opened by the name given, which the kernel resolves */
		strcpy(file->path, path);
		return ret;
	}
	return check_name(file->path);
}

int atomic_file_creation_error(const char *path, int err)
{
	char dir[PATH_MAX];
	struct stat st;

	if (err != ENOENT)
		return -err;
	directory_of(path, dir, sizeof(dir));
	return !stat(dir, &st) && S_ISDIR(st.st_mode) ? -EPERM : -ENOENT;
}

/*
 * "<dir>/.<name>.<pid>.<n>.tmp": hidden, in the same directory (rename is
 * atomic only within a file system), and within NAME_MAX whatever the
 * length of the target's name.
 */
static void temp_name(const char *path, unsigned int attempt, char *temp, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0;

	snprintf(temp, size, "%.*s.%.*s.%d.%u.tmp", dir_len, path, KEPT_NAME, name, (int)getpid(),
		 attempt);
}

/* room for temp_name() of @path */
static size_t temp_size(const char *path)
{
	return strlen(path) + 64;
}

static int create_temp(struct atomic_file *file)
{
	size_t size = temp_size(file->path);
	unsigned int attempt;
	int fd;

	file->temp = malloc(size);
	if (!file->temp)
		return -ENOMEM;
	for (attempt = 0; attempt < 100; attempt++) {
		temp_name(file->path, attempt, file->temp, size);
		/* 0666 less the umask: the mode a plain fopen() would give */
		fd = open(file->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return atomic_file_creation_error(file->temp, errno);
	}
	return -EEXIST;
}

/* Appending: what the program printed before (a shell's redirection) stays first. */
static int open_in_place(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

int atomic_file_check(const char *path)
{
	struct atomic_file file = { 0 };
	bool in_place;
	int ret, fd;

	ret = resolve(&file, path, &in_place);
	if (!ret && in_place) {
		/* a FIFO nobody reads yet: the write will wait for a reader, it is not wrong */
		fd = open_in_place(file.path, O_NONBLOCK);
		ret = fd == -ENXIO ? 0 : fd < 0 ? fd : close(fd);
	} else if (!ret) {
		fd = create_temp(&file);
		ret = fd < 0 ? fd : close(fd);
		if (fd >= 0)
			unlink(file.temp);
	}
	release(&file);
	return ret;
}

int atomic_file_check_directory(const char *dir)
{
	struct atomic_file file = { 0 };
	int ret, fd;

	if (!dir || !*dir)
		return -ENOENT;
	/* any name: only the temporary one beside it is made, with O_EXCL */
	if (asprintf(&file.path, "%s/latscope", dir) < 0) {
		file.path = NULL;
		return -ENOMEM;
	}
	fd = strlen(file.path) >= PATH_MAX ? -ENAMETOOLONG : create_temp(&file);
	ret = fd < 0 ? fd : close(fd);
	if (fd >= 0)
		unlink(file.temp);
	release(&file);
	return ret;
}

int atomic_file_open(struct atomic_file *file, const char *path)
{
	bool in_place;
	int fd, ret;

	memset(file, 0, sizeof(*file));
	ret = resolve(file, path, &in_place);
	if (ret) {
		release(file);
		return ret;
	}
	if (in_place) {
		/* what the program printed so far goes first */
		fflush(stdout);
		fd = open_in_place(file->path, 0);
	} else {
		fd = create_temp(file);
	}
	if (fd < 0) {
		release(file);
		return fd;
	}
	file->buffer = malloc(STREAM_BUFFER);
	file->stream = file->buffer ? fdopen(fd, "w") : NULL;
	if (!file->stream) {
		ret = file->buffer ? -errno : -ENOMEM;
		close(fd);
		atomic_file_abandon(file);
		return ret;
	}
	setvbuf(file->stream, file->buffer, _IOFBF, STREAM_BUFFER);
	return 0;
}

/*
 * The rename is on disk once the directory is: without this a crash after
 * the commit could bring back the old file (or none), which a checkpoint
 * or a journal must not allow. Best effort: the data itself is synced.
 */
static void sync_directory(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	directory_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

void atomic_file_write_behind(struct atomic_file *file)
{
	off_t at;

	/* a failed flush sets the stream's error, which the commit reports */
	if (!file->temp || fflush(file->stream))
		return;
	at = ftello(file->stream);
	if (at < 0 || at - file->behind < WRITE_BEHIND_BYTES)
		return;
	/* starts the writes and returns: the fsync still waits for them and reports their errors */
	sync_file_range(fileno(file->stream), file->behind, at - file->behind,
			SYNC_FILE_RANGE_WRITE);
	file->behind = at;
}

static pthread_once_t settle_at_exit = PTHREAD_ONCE_INIT;
static pthread_mutex_t freeing_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freeing_done = PTHREAD_COND_INITIALIZER;
static unsigned int freeing;

static void *free_old(void *name)
{
	unlink(name);
	free(name);
	pthread_mutex_lock(&freeing_lock);
	freeing--;
	pthread_cond_broadcast(&freeing_done);
	pthread_mutex_unlock(&freeing_lock);
	return NULL;
}

void atomic_file_settle(void)
{
	pthread_mutex_lock(&freeing_lock);
	while (freeing)
		pthread_cond_wait(&freeing_done, &freeing_lock);
	pthread_mutex_unlock(&freeing_lock);
}

static void register_settle(void)
{
	atexit(atomic_file_settle);
}

/*
 * A second name for a big file about to be replaced, so that the rename
 * does not free its blocks: a temporary file's name, which the next start
 * removes (atomic_file_remove_stale()) should the process die before
 * free_behind(). NULL when the file is small, or gone, or on any failure:
 * the rename then frees it as usual.
 */
static char *keep_old(const struct atomic_file *file)
{
	size_t size = temp_size(file->path);
	unsigned int attempt;
	char *name;

	if (!file->keep_mode || file->old_size < FREE_BEHIND_BYTES)
		return NULL;
	name = malloc(size);
	for (attempt = 0; name && attempt < 100; attempt++) {
		temp_name(file->path, attempt, name, size);
		if (!link(file->path, name))
			return name;
		if (errno != EEXIST)
			break;
	}
	free(name);
	return NULL;
}

/* @name (owned) unlinked in a thread, its freeing off the committer's path */
static void free_behind(char *name)
{
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	/* any program that commits one waits for the freeing when it exits */
	pthread_once(&settle_at_exit, register_settle);
	pthread_mutex_lock(&freeing_lock);
	freeing++;
	pthread_mutex_unlock(&freeing_lock);
	ret = pthread_attr_init(&attr);
	if (!ret) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		/* an unlink needs little, and under mlockall every byte of a stack is made */
		pthread_attr_setstacksize(&attr, FREE_BEHIND_STACK);
		ret = pthread_create(&thread, &attr, free_old, name);
		pthread_attr_destroy(&attr);
	}
	if (ret)
		free_old(name);
}

int atomic_file_commit(struct atomic_file *file)
{
	char *old = NULL;
	int ret = 0;

	/* an earlier write may have failed already: ferror() keeps that */
	errno = 0;
	if (fflush(file->stream) || ferror(file->stream))
		ret = errno ? -errno : -EIO;
	if (!ret && file->temp && file->keep_mode && fchmod(fileno(file->stream), file->mode))
		ret = -errno;
	/* a pipe or a terminal cannot be synced, and need not be */
	if (!ret && file->temp && fsync(fileno(file->stream)))
		ret = -errno;
	/* NFS and some FUSE file systems report a failed write only here */
	if (fclose(file->stream) && !ret)
		ret = -errno;
	file->stream = NULL;
	if (!ret && file->temp)
		old = keep_old(file);
	if (!ret && file->temp && rename(file->temp, file->path))
		ret = -errno;
	if (!ret && file->temp)
		sync_directory(file->path);
	if (ret && file->temp)
		unlink(file->temp);
	if (old && ret) {
		/* the target still has its own name: this unlink frees nothing */
		unlink(old);
		free(old);
	} else if (old) {
		free_behind(old);
	}
	release(file);
	return ret;
}

/* "<pid>.<n>.tmp" after the name's prefix: the writer's pid, or 0 when not a temporary file */
static pid_t temp_writer(const char *rest)
{
	char *end;
	long pid;

	if (!isdigit((unsigned char)rest[0]))
		return 0;
	pid = strtol(rest, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]) || pid <= 0 || pid > INT_MAX)
		return 0;
	strtoul(end + 1, &end, 10);
	return strcmp(end, ".tmp") ? 0 : (pid_t)pid;
}

int atomic_file_remove_stale(const char *path)
{
	struct atomic_file file = { 0 };
	char dir[PATH_MAX], prefix[NAME_MAX + 3];
	const char *name, *slash;
	struct dirent *entry;
	int ret, removed = 0;
	bool in_place;
	pid_t pid;
	DIR *d;

	ret = resolve(&file, path, &in_place);
	if (ret || in_place) {
		release(&file);
		return ret == -ENOENT ? 0 : ret;
	}
	directory_of(file.path, dir, sizeof(dir));
	slash = strrchr(file.path, '/');
	name = slash ? slash + 1 : file.path;
	snprintf(prefix, sizeof(prefix), ".%.*s.", KEPT_NAME, name);
	release(&file);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((entry = readdir(d))) {
		if (strncmp(entry->d_name, prefix, strlen(prefix)))
			continue;
		pid = temp_writer(entry->d_name + strlen(prefix));
		/* a writer still running may be writing it (another command's --json) */
		if (!pid || pid == getpid() || !kill(pid, 0) || errno == EPERM)
			continue;
		if (!unlinkat(dirfd(d), entry->d_name, 0)) {
			log_warning("removed %s/%s, which a run that did not finish left", dir,
				    entry->d_name);
			removed++;
		}
	}
	closedir(d);
	return removed;
}

void atomic_file_abandon(struct atomic_file *file)
{
	if (file->stream)
		fclose(file->stream);
	if (file->temp)
		unlink(file->temp);
	release(file);
}
