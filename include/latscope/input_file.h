/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_INPUT_FILE_H
#define LATSCOPE_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Opening a file a user hands latscope to read (a result, a state, a web
 * configuration and the certificates it names): a regular file of bounded
 * size, or a refusal that says what it is instead. A FIFO is never waited
 * on (opened without blocking, then refused), a device is never read (a
 * link to /dev/zero would be read for ever), and a file over its bound is
 * refused before a byte of it is read.
 */

/**
 * input_file_open - open @path for reading
 * @path: the file (symbolic links followed)
 * @max_bytes: the largest size read; UINT64_MAX for no bound
 * @st: receives what fstat(2) says of it (also on -EINVAL and -EFBIG)
 *
 * Returns a descriptor (blocking reads; the caller closes it), or -EISDIR
 * for a directory, -EINVAL for anything else that is not a regular file
 * (st_mode says what), -EFBIG for a file above @max_bytes, another negative
 * errno code of open(2).
 */
int input_file_open(const char *path, uint64_t max_bytes, struct stat *st);

/**
 * input_file_describe - why input_file_open() refused, in words
 * @err: its negative return
 * @st: what it filled in
 * @max_bytes: the bound it was given
 * @buf: receives "a FIFO, not a regular file", "larger than 64 KiB",
 *	 "No such file or directory", ...
 * @size: size of @buf
 * Returns @buf.
 */
const char *input_file_describe(int err, const struct stat *st, uint64_t max_bytes, char *buf,
				size_t size);

/* "a FIFO", "a character device", "a directory", ... of a file's mode */
const char *input_file_kind(mode_t mode);

#endif
