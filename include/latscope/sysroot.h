/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_SYSROOT_H
#define LATSCOPE_SYSROOT_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "latscope/cpuset.h"

/*
 * Every /proc, /sys and /dev path goes through a sysroot, so that the same
 * code reads the live machine (root "/") or a fixture tree in a test. Paths
 * are printf formats of absolute paths ("/proc/irq/%d/node").
 * Functions return 0 (or a length) on success and a negative errno code.
 */
struct sysroot;

/*
 * Reads refuse what is not a regular file: a directory (-EISDIR), and a
 * FIFO, socket or device (-SYSROOT_ENOTREG), opened without blocking. No
 * file is read beyond SYSROOT_READ_MAX bytes (-EFBIG): /proc/interrupts of a
 * 1024-CPU machine is ~120 MB, so 1 GiB is no real file's limit.
 */
#define SYSROOT_ENOTREG EMEDIUMTYPE
#define SYSROOT_READ_MAX (1ULL << 30)

/**
 * sysroot_strerror - the reason of a read error in words
 * @err: a negative errno code from a sysroot function
 *
 * Returns a static string: strerror()'s, or "not a regular file" for
 * -SYSROOT_ENOTREG.
 */
const char *sysroot_strerror(int err);

/**
 * sysroot_new - make a sysroot for a directory
 * @dir: the root directory; NULL or "/" for the live system
 *
 * Returns a sysroot to be freed with sysroot_free(), or NULL (errno set).
 */
struct sysroot *sysroot_new(const char *dir);
void sysroot_free(struct sysroot *root);

/* true when the root is the live system "/" */
bool sysroot_is_live(const struct sysroot *root);
/* the root directory as given ("/" for the live system) */
const char *sysroot_dir(const struct sysroot *root);
/* number of files read through this root so far */
unsigned long sysroot_files_read(const struct sysroot *root);

/**
 * sysroot_path - build the real path of a path under the root
 * @root: the root
 * @buf: receives the path
 * @size: size of @buf
 * @fmt: printf format of the absolute path
 *
 * Returns 0, or -ENAMETOOLONG.
 */
int sysroot_path(const struct sysroot *root, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysroot_read - read a small file whole into a buffer
 * @root: the root
 * @buf: receives the text, NUL-terminated, trailing newline removed
 * @size: size of @buf; a longer file is an error (-EFBIG)
 * @fmt: printf format of the path
 *
 * Returns the length of the text, or a negative errno code.
 */
int sysroot_read(struct sysroot *root, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysroot_read_alloc - read a file of any size
 * @root: the root
 * @text: receives a NUL-terminated buffer the caller frees with free()
 * @len: receives the length, or NULL
 * @fmt: printf format of the path
 *
 * Returns 0 or a negative errno code.
 */
int sysroot_read_alloc(struct sysroot *root, char **text, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * sysroot_read_integer - read a file holding one decimal integer
 * Returns 0, -EINVAL when the file holds something else, or a read error.
 */
int sysroot_read_integer(struct sysroot *root, long long *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * sysroot_read_cpulist - read a file holding a cpu list ("0-3,8")
 * Returns 0, -EINVAL when the file holds something else, or a read error.
 */
int sysroot_read_cpulist(struct sysroot *root, struct cpuset *set, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * sysroot_write - write a string to a file (sysfs/procfs style: one write)
 * Returns 0 or a negative errno code, e.g. -EPERM for a managed IRQ.
 */
int sysroot_write(struct sysroot *root, const char *text, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * sysroot_open_file - open a regular file under the root for reading, the
 * way every read of this module does (no blocking, no FIFO or device)
 * @root: the root
 * @fmt: printf format of the path
 *
 * For readers that stream a file: they must stop at SYSROOT_READ_MAX bytes.
 * Returns a descriptor the caller closes, or a negative errno code.
 */
int sysroot_open_file(struct sysroot *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* stat(2) under the root; returns 0 or a negative errno code */
int sysroot_stat(struct sysroot *root, struct stat *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* true when the path exists under the root */
bool sysroot_exists(struct sysroot *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* opendir(3) under the root; NULL with errno set on failure */
DIR *sysroot_opendir(struct sysroot *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* open(2) under the root; returns a descriptor or a negative errno code */
int sysroot_open(struct sysroot *root, int flags, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
