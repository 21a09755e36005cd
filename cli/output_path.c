// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common_options.h"
#include "latscope/input_file.h"
#include "latscope/result.h"
#include "output_path.h"

/* The errors that say the machine, not the path, is at fault. */
static bool is_io_failure(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EIO || err == EFBIG;
}

static int refused(int err, const char *fmt, const char *option, const char *path)
{
	if (is_io_failure(err))
		return runtime_error(fmt, option, path, strerror(err));
	return usage_error(fmt, option, path, strerror(err));
}

int output_file_check(const char *option, const char *path)
{
	struct stat st;
	int ret;

	if (!*path)
		return usage_error("empty path for %s", option);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return usage_error("cannot write %s '%s': %s", option, path, strerror(EISDIR));
	ret = atomic_file_check(path);
	if (ret)
		return refused(-ret, "cannot write %s '%s': %s", option, path);
	return 0;
}

int output_dir_check(const char *option, const char *dir)
{
	struct stat st;
	int ret;

	if (!*dir)
		return usage_error("empty path for %s", option);
	if (stat(dir, &st)) {
		if (errno != ENOENT)
			return refused(errno, "cannot create %s '%s': %s", option, dir);
		/* made and removed at once: it can be made, and nothing is left behind */
		if (mkdir(dir, 0777))
			return refused(-atomic_file_creation_error(dir, errno),
				       "cannot create %s '%s': %s", option, dir);
		rmdir(dir);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return usage_error("cannot create %s '%s': %s", option, dir, strerror(ENOTDIR));
	ret = atomic_file_check_directory(dir);
	if (ret)
		return refused(-ret, "cannot write into %s '%s': %s", option, dir);
	return 0;
}

int input_file_check(const char *option, const char *path)
{
	char why[128];
	struct stat st;
	int fd;

	if (!*path)
		return usage_error("empty path for %s", option);
	/* the size is the reader's to bound: each says its own */
	fd = input_file_open(path, UINT64_MAX, &st);
	if (fd < 0)
		return usage_error("cannot read '%s' for %s: %s", path, option,
				   input_file_describe(fd, &st, UINT64_MAX, why, sizeof(why)));
	close(fd);
	return 0;
}

int input_dir_check(const char *option, const char *dir)
{
	struct stat st;

	if (!*dir)
		return usage_error("empty path for %s", option);
	if (stat(dir, &st))
		return usage_error("cannot use '%s' for %s: %s", dir, option, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return usage_error("cannot use '%s' for %s: not a directory", dir, option);
	return 0;
}

enum result_layout json_output_layout(const struct json_output *json)
{
	return json->compact ? RESULT_LAYOUT_COMPACT : RESULT_LAYOUT_AUTO;
}

int output_json_failed(const struct json_output *json, int err)
{
	return runtime_error("cannot write --json '%s': %s", json->path, strerror(-err));
}

int output_json_write(const struct json_output *json, json_t *doc)
{
	int ret = result_write_as(doc, json->path, json_output_layout(json));

	return ret ? output_json_failed(json, ret) : 0;
}

int output_json_write_with(const struct json_output *json,
			   void (*write)(struct json_writer *w, void *arg), void *arg)
{
	int ret = result_write_with(json->path, json_output_layout(json), write, arg);

	return ret ? output_json_failed(json, ret) : 0;
}

int output_text_open(struct atomic_file *file, const char *option, const char *path)
{
	int ret = atomic_file_open(file, path);

	if (ret)
		return runtime_error("cannot write %s '%s': %s", option, path, strerror(-ret));
	return 0;
}

int output_text_commit(struct atomic_file *file, const char *option, const char *path)
{
	int ret = atomic_file_commit(file);

	if (ret)
		return runtime_error("cannot write %s '%s': %s", option, path, strerror(-ret));
	return 0;
}

int output_dir_create(const char *option, const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return runtime_error("cannot create %s '%s': %s", option, dir, strerror(errno));
	return 0;
}

bool path_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
