// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a result document to the path a user named: where it really goes
 * (through symbolic links), a temporary name beside it that fits NAME_MAX,
 * a buffered dump, fsync and rename. result_check_writable() walks the same
 * steps up to the first byte, so a path that cannot work fails before the
 * run instead of after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "latscope/result.h"

#define DUMP_BUFFER_SIZE (64 * 1024)
/* as the kernel's follow_link limit */
#define MAX_LINK_HOPS 40
/* from linux/magic.h, which not every libc's headers carry */
#define PROC_FS_MAGIC 0x9fa0
/* ".", ".tmp." and eight hex digits around the target's (cut) name */
#define TEMP_EXTRA_CHARS 14

/* Where a document goes, resolved. */
struct output_target {
	char path[PATH_MAX]; /* the file replaced (symlinks followed) */
	char dir[PATH_MAX]; /* its directory */
	const char *name; /* its last component, in @path */
	bool in_place; /* a pipe, terminal, device or an fd of /proc: no rename */
	bool exists;
	mode_t mode; /* of the existing file, kept by the replacement */
};

/* Copy @count bytes of @text into @buf (with NUL) or fail with -ENAMETOOLONG. */
static int copy_text(char *buf, size_t size, const char *text, size_t count)
{
	if (count >= size)
		return -ENAMETOOLONG;
	memcpy(buf, text, count);
	buf[count] = '\0';
	return 0;
}

static int split_path(struct output_target *t)
{
	char *slash = strrchr(t->path, '/');
	int ret;

	if (!slash) {
		strcpy(t->dir, ".");
		t->name = t->path;
	} else {
		ret = copy_text(t->dir, sizeof(t->dir), t->path,
				slash == t->path ? 1 : (size_t)(slash - t->path));
		if (ret)
			return ret;
		t->name = slash + 1;
	}
	/* "dir/" names a directory, as do "." and ".." */
	if (!t->name[0] || !strcmp(t->name, ".") || !strcmp(t->name, ".."))
		return -EISDIR;
	if (strlen(t->name) > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * /dev/stdout leads to /proc/self/fd/1, a link into procfs that stands for
 * an open file, not for a name: that file is written in place.
 */
static bool in_procfs(const char *dir)
{
	struct statfs fs;

	return !statfs(dir, &fs) && fs.f_type == PROC_FS_MAGIC;
}

/* Follow @t->path's symbolic links to the file they lead to. */
static int follow_links(struct output_target *t)
{
	char link[PATH_MAX], next[PATH_MAX];
	struct stat st;
	ssize_t n;
	int hops, ret;

	for (hops = 0; hops < MAX_LINK_HOPS; hops++) {
		if (lstat(t->path, &st))
			return errno == ENOENT ? 0 : -errno; /* a new file (or a dangling link's) */
		if (!S_ISLNK(st.st_mode))
			return 0;
		ret = split_path(t);
		if (ret)
			return ret;
		if (in_procfs(t->dir)) {
			t->in_place = true;
			return 0;
		}
		n = readlink(t->path, link, sizeof(link));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(link))
			return -ENAMETOOLONG;
		link[n] = '\0';
		if (link[0] == '/')
			ret = copy_text(next, sizeof(next), link, (size_t)n);
		else if (snprintf(next, sizeof(next), "%s/%s", t->dir, link) >= (int)sizeof(next))
			ret = -ENAMETOOLONG;
		if (ret)
			return ret;
		strcpy(t->path, next);
	}
	return -ELOOP;
}

static int resolve_target(const char *path, struct output_target *t)
{
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!path[0])
		return -ENOENT;
	ret = copy_text(t->path, sizeof(t->path), path, strlen(path));
	if (ret)
		return ret;
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode)) {
			t->in_place = true;
			return 0;
		}
		t->exists = true;
		t->mode = st.st_mode & 07777;
	} else if (errno != ENOENT) {
		return -errno;
	}
	ret = follow_links(t);
	if (ret || t->in_place)
		return ret;
	return split_path(t);
}

/*
 * Create the temporary file beside the target: "." and the target's name,
 * cut so that ".tmp." and eight random hex digits still fit NAME_MAX.
 * Random rather than the pid: two threads, or a pid reused after a crash
 * left a file, must not collide (O_EXCL makes a collision a retry).
 */
static int create_temp(const struct output_target *t, char *temp, size_t size)
{
	int keep = (int)strlen(t->name), tries, fd;
	unsigned int token;

	if (keep > NAME_MAX - TEMP_EXTRA_CHARS)
		keep = NAME_MAX - TEMP_EXTRA_CHARS;
	for (tries = 0; tries < 16; tries++) {
		if (getrandom(&token, sizeof(token), GRND_NONBLOCK) != sizeof(token))
			token = (unsigned int)getpid() ^ (unsigned int)time(NULL) ^
				(unsigned int)tries;
		if (snprintf(temp, size, "%s/.%.*s.tmp.%08x", t->dir, keep, t->name, token) >=
		    (int)size)
			return -ENAMETOOLONG;
		fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Where a pipe or a terminal is written: appending, after what was printed. */
static int open_in_place(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int result_check_writable(const char *path)
{
	char temp[PATH_MAX];
	struct output_target t;
	int ret, fd;

	ret = resolve_target(path, &t);
	if (ret)
		return ret;
	if (t.in_place) {
		/* a FIFO nobody reads yet: it will block then, it is not wrong */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return errno == ENXIO ? 0 : -errno;
		close(fd);
		return 0;
	}
	fd = create_temp(&t, temp, sizeof(temp));
	if (fd < 0)
		return fd;
	close(fd);
	unlink(temp);
	return 0;
}

struct dump_buffer {
	int fd;
	int error; /* the first write error, negative */
	size_t used;
	char data[DUMP_BUFFER_SIZE];
};

static int write_all(int fd, const char *data, size_t size)
{
	ssize_t n;

	while (size) {
		n = write(fd, data, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

static int flush_buffer(struct dump_buffer *b)
{
	if (!b->error && b->used)
		b->error = write_all(b->fd, b->data, b->used);
	b->used = 0;
	return b->error;
}

/* jansson hands over the text token by token: gather it into whole buffers */
static int buffer_piece(const char *piece, size_t size, void *data)
{
	struct dump_buffer *b = data;

	if (size > sizeof(b->data) - b->used && flush_buffer(b))
		return -1;
	if (size > sizeof(b->data)) {
		b->error = write_all(b->fd, piece, size);
		return b->error ? -1 : 0;
	}
	memcpy(b->data + b->used, piece, size);
	b->used += size;
	return 0;
}

static int dump(json_t *doc, int fd, enum result_layout layout)
{
	size_t flags = JSON_PRESERVE_ORDER;
	struct dump_buffer *b;
	int ret;

	if (layout == RESULT_LAYOUT_PRETTY || (layout == RESULT_LAYOUT_AUTO && isatty(fd)))
		flags |= JSON_INDENT(2);
	else
		flags |= JSON_COMPACT;
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->fd = fd;
	b->error = 0;
	b->used = 0;
	if (json_dump_callback(doc, buffer_piece, b, flags) && !b->error)
		b->error = -ENOMEM;
	if (!b->error)
		buffer_piece("\n", 1, b);
	ret = flush_buffer(b);
	free(b);
	return ret;
}

/*
 * Everything up to and after the bytes: in place, or a temporary file that
 * is fsynced and renamed over the target (and removed on any failure).
 */
static int write_target(const char *path, int (*emit)(int fd, void *data), void *data)
{
	char temp[PATH_MAX];
	struct output_target t;
	int fd, ret;

	ret = resolve_target(path, &t);
	if (ret)
		return ret;
	if (t.in_place) {
		/* what the program printed so far goes first */
		fflush(stdout);
		fd = open_in_place(path);
		if (fd < 0)
			return fd;
		ret = emit(fd, data);
		if (close(fd) && !ret && errno != EINTR)
			ret = -errno;
		return ret;
	}
	fd = create_temp(&t, temp, sizeof(temp));
	if (fd < 0)
		return fd;
	ret = emit(fd, data);
	if (!ret && t.exists && fchmod(fd, t.mode))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	/* NFS and some FUSE file systems report a failed write only here */
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(temp, t.path))
		ret = -errno;
	if (ret)
		unlink(temp);
	return ret;
}

struct document {
	json_t *doc;
	enum result_layout layout;
};

static int emit_document(int fd, void *data)
{
	const struct document *d = data;

	return dump(d->doc, fd, d->layout);
}

int result_write_as(json_t *doc, const char *path, enum result_layout layout)
{
	struct document d = { doc, layout };

	return write_target(path, emit_document, &d);
}

int result_write(json_t *doc, const char *path)
{
	return result_write_as(doc, path, RESULT_LAYOUT_AUTO);
}

struct text {
	int (*fill)(FILE *out, void *data);
	void *data;
};

static int emit_text(int fd, void *data)
{
	const struct text *t = data;
	int copy = dup(fd), ret;
	FILE *out;

	if (copy < 0)
		return -errno;
	out = fdopen(copy, "w");
	if (!out) {
		ret = -errno;
		close(copy);
		return ret;
	}
	/* stdio's buffer, as big as the documents' */
	setvbuf(out, NULL, _IOFBF, DUMP_BUFFER_SIZE);
	errno = 0;
	ret = t->fill(out, t->data);
	if (!ret && (fflush(out) || ferror(out)))
		ret = errno ? -errno : -EIO;
	if (fclose(out) && !ret)
		ret = errno ? -errno : -EIO;
	return ret;
}

int result_write_text(const char *path, int (*fill)(FILE *out, void *data), void *data)
{
	struct text t = { fill, data };

	return write_target(path, emit_text, &t);
}
