// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/atomic_file.h"

/* the longest name part of the target kept in the temporary file's name */
#define KEPT_NAME (NAME_MAX - 32)

static void release(struct atomic_file *file)
{
	free(file->path);
	free(file->temp);
	memset(file, 0, sizeof(*file));
}

/*
 * "<dir>/.<name>.<pid>.<n>.tmp": hidden, in the same directory (rename is
 * atomic only within a file system), and within NAME_MAX whatever the
 * length of the target's name.
 */
static int create_temp(struct atomic_file *file)
{
	const char *slash = strrchr(file->path, '/');
	const char *name = slash ? slash + 1 : file->path;
	int dir_len = slash ? (int)(slash - file->path + 1) : 0;
	size_t size = strlen(file->path) + 64;
	unsigned int attempt;
	int fd;

	file->temp = malloc(size);
	if (!file->temp)
		return -ENOMEM;
	for (attempt = 0; attempt < 100; attempt++) {
		snprintf(file->temp, size, "%.*s.%.*s.%d.%u.tmp", dir_len, file->path, KEPT_NAME,
			 name, (int)getpid(), attempt);
		/* 0666 less the umask: the mode a plain fopen() would give */
		fd = open(file->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int atomic_file_open(struct atomic_file *file, const char *path)
{
	struct stat st;
	int fd, ret;

	memset(file, 0, sizeof(*file));
	if (!path || !*path)
		return -ENOENT;
	/* through a link to the file it names, so that the link stays */
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		file->path = realpath(path, NULL);
	if (!file->path)
		file->path = strdup(path);
	if (!file->path)
		return -ENOMEM;
	if (!stat(file->path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			release(file);
			return -EISDIR;
		}
		fd = open(file->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	} else {
		fd = create_temp(file);
	}
	if (fd < 0) {
		release(file);
		return fd;
	}
	file->stream = fdopen(fd, "w");
	if (!file->stream) {
		ret = -errno;
		close(fd);
		atomic_file_abandon(file);
		return ret;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *file)
{
	int ret = 0;

	/* an earlier write may have failed already: ferror() keeps that */
	errno = 0;
	if (fflush(file->stream) || ferror(file->stream))
		ret = errno ? -errno : -EIO;
	/* a pipe or a terminal cannot be synced, and need not be */
	if (!ret && file->temp && fsync(fileno(file->stream)))
		ret = -errno;
	if (fclose(file->stream) && !ret)
		ret = -errno;
	file->stream = NULL;
	if (!ret && file->temp && rename(file->temp, file->path))
		ret = -errno;
	if (ret && file->temp)
		unlink(file->temp);
	release(file);
	return ret;
}

void atomic_file_abandon(struct atomic_file *file)
{
	if (file->stream)
		fclose(file->stream);
	if (file->temp)
		unlink(file->temp);
	release(file);
}
