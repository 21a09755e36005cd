// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/parse.h"
#include "latscope/sysroot.h"

struct sysroot {
	char *dir;
	bool live;
	unsigned long files_read;
};

struct sysroot *sysroot_new(const char *dir)
{
	struct sysroot *root = calloc(1, sizeof(*root));
	size_t len;

	if (!root)
		return NULL;
	if (!dir || !*dir)
		dir = "/";
	root->dir = strdup(dir);
	if (!root->dir) {
		free(root);
		return NULL;
	}
	/* "dir/" and "dir" name the same root */
	len = strlen(root->dir);
	while (len > 1 && root->dir[len - 1] == '/')
		root->dir[--len] = '\0';
	root->live = !strcmp(root->dir, "/");
	return root;
}

void sysroot_free(struct sysroot *root)
{
	if (!root)
		return;
	free(root->dir);
	free(root);
}

bool sysroot_is_live(const struct sysroot *root)
{
	return root->live;
}

const char *sysroot_dir(const struct sysroot *root)
{
	return root->dir;
}

unsigned long sysroot_files_read(const struct sysroot *root)
{
	return root->files_read;
}

static int vpath(const struct sysroot *root, char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t prefix = root->live ? 0 : strlen(root->dir);
	int n;

	if (prefix >= size)
		return -ENAMETOOLONG;
	memcpy(buf, root->dir, prefix);
	n = vsnprintf(buf + prefix, size - prefix, fmt, ap);
	if (n < 0 || (size_t)n >= size - prefix)
		return -ENAMETOOLONG;
	return 0;
}

int sysroot_path(const struct sysroot *root, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, buf, size, fmt, ap);
	va_end(ap);
	return ret;
}

#define WITH_PATH(root, fmt, path)                                \
	char path[4096];                                          \
	do {                                                      \
		va_list ap_;                                      \
		int ret_;                                         \
		va_start(ap_, fmt);                               \
		ret_ = vpath(root, path, sizeof(path), fmt, ap_); \
		va_end(ap_);                                      \
		if (ret_)                                         \
			return ret_;                              \
	} while (0)

/*
 * Every file read through a root is opened here: without blocking (a FIFO
 * in a fixture tree would wait forever for a writer) and only when it is a
 * regular file (a /dev/zero planted as /proc/interrupts would be read for
 * ever). /proc and /sys files are regular files of size 0.
 */
static int open_regular(struct sysroot *root, const char *path)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = 0;
	if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = -SYSROOT_ENOTREG;
	else if ((unsigned long long)st.st_size > SYSROOT_READ_MAX)
		err = -EFBIG;
	if (err) {
		close(fd);
		return err;
	}
	root->files_read++;
	return fd;
}

static int read_fd_alloc(int fd, char **text, size_t *len)
{
	size_t cap = 4096, used = 0;
	char *buf = malloc(cap), *bigger;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (used + 1 >= cap) {
			if (used >= SYSROOT_READ_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap = cap * 2 > SYSROOT_READ_MAX + 1 ? SYSROOT_READ_MAX + 1 : cap * 2;
			bigger = realloc(buf, cap);
			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (!n)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*text = buf;
	if (len)
		*len = used;
	return 0;
}

static int read_whole(struct sysroot *root, const char *path, char **text, size_t *len)
{
	int fd, ret;

	fd = open_regular(root, path);
	if (fd < 0)
		return fd;
	ret = read_fd_alloc(fd, text, len);
	close(fd);
	return ret;
}

static int read_small(struct sysroot *root, const char *path, char *buf, size_t size)
{
	size_t used = 0;
	ssize_t n;
	int fd;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	fd = open_regular(root, path);
	if (fd < 0)
		return fd;
	for (;;) {
		if (used + 1 >= size) {
			char probe;

			/* Full: a longer file is an error, not a silent cut. */
			n = read(fd, &probe, 1);
			close(fd);
			if (n > 0)
				return -EFBIG;
			if (n < 0)
				return -errno;
			break;
		}
		n = read(fd, buf + used, size - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (!n) {
			close(fd);
			break;
		}
		used += (size_t)n;
		buf[used] = '\0';
	}
	while (used && buf[used - 1] == '\n')
		buf[--used] = '\0';
	return (int)used;
}

int sysroot_read_alloc(struct sysroot *root, char **text, size_t *len, const char *fmt, ...)
{
	WITH_PATH(root, fmt, path);
	return read_whole(root, path, text, len);
}

int sysroot_read(struct sysroot *root, char *buf, size_t size, const char *fmt, ...)
{
	WITH_PATH(root, fmt, path);
	return read_small(root, path, buf, size);
}

int sysroot_read_integer(struct sysroot *root, long long *value, const char *fmt, ...)
{
	char buf[64];
	int ret;

	WITH_PATH(root, fmt, path);
	ret = read_small(root, path, buf, sizeof(buf));
	if (ret < 0)
		return ret == -EFBIG ? -EINVAL : ret;
	return parse_integer(buf, INT64_MIN, INT64_MAX, value) ? -EINVAL : 0;
}

int sysroot_read_cpulist(struct sysroot *root, struct cpuset *set, const char *fmt, ...)
{
	char *text;
	int ret;

	WITH_PATH(root, fmt, path);
	ret = read_whole(root, path, &text, NULL);
	if (ret)
		return ret;
	ret = cpuset_parse_kernel_list(text, set) ? -EINVAL : 0;
	free(text);
	return ret;
}

int sysroot_write(struct sysroot *root, const char *text, const char *fmt, ...)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	WITH_PATH(root, fmt, path);
	fd = open(path, O_WRONLY | O_CLOEXEC | (root->live ? 0 : O_TRUNC));
	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	if (close(fd))
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int sysroot_open_file(struct sysroot *root, const char *fmt, ...)
{
	WITH_PATH(root, fmt, path);
	return open_regular(root, path);
}

const char *sysroot_strerror(int err)
{
	if (err == -SYSROOT_ENOTREG)
		return "not a regular file";
	return strerror(err < 0 ? -err : err);
}

int sysroot_stat(struct sysroot *root, struct stat *st, const char *fmt, ...)
{
	WITH_PATH(root, fmt, path);
	return stat(path, st) ? -errno : 0;
}

bool sysroot_exists(struct sysroot *root, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, path, sizeof(path), fmt, ap);
	va_end(ap);
	return !ret && !access(path, F_OK);
}

DIR *sysroot_opendir(struct sysroot *root, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(root, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return opendir(path);
}

int sysroot_open(struct sysroot *root, int flags, const char *fmt, ...)
{
	int fd;

	WITH_PATH(root, fmt, path);
	fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if ((flags & O_ACCMODE) != O_WRONLY)
		root->files_read++;
	return fd;
}
