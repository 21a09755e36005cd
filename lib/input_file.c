// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "latscope/input_file.h"

const char *input_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a file";
	}
}

int input_file_open(const char *path, uint64_t max_bytes, struct stat *st)
{
	int fd, flags, err;

	memset(st, 0, sizeof(*st));
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = errno;
		close(fd);
		return -err;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	if ((uint64_t)st->st_size > max_bytes) {
		close(fd);
		return -EFBIG;
	}
	/* a regular file reads as it always does */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

/* 64 KiB, 512 MiB, 1 GiB: the bounds are powers of two */
static void format_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	unsigned int unit = 0;

	while (bytes >= 1024 && !(bytes % 1024) && unit < 4) {
		bytes /= 1024;
		unit++;
	}
	snprintf(buf, size, "%llu %s", (unsigned long long)bytes, units[unit]);
}

const char *input_file_describe(int err, const struct stat *st, uint64_t max_bytes, char *buf,
				size_t size)
{
	char bound[32];

	if (err == -EINVAL) {
		snprintf(buf, size, "%s, not a regular file", input_file_kind(st->st_mode));
	} else if (err == -EFBIG) {
		format_bytes(max_bytes, bound, sizeof(bound));
		snprintf(buf, size, "%llu bytes, larger than the %s read",
			 (unsigned long long)st->st_size, bound);
	} else {
		snprintf(buf, size, "%s", strerror(-err));
	}
	return buf;
}
