/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_ATOMIC_FILE_H
#define LATSCOPE_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * A text output that appears whole or not at all: it is written to a
 * temporary file in the target's directory and renamed over the target on
 * commit, so a reader never sees half a file and a full disk leaves the old
 * file (or none) behind, never a partial one. The one way the project
 * writes a file: result documents (result_write()), the IRQ journal, text
 * outputs (histograms, gap lists, trace captures, report pages and plots),
 * the monitor's state and textfile, the tracefs mount record.
 */
struct atomic_file {
	FILE *stream; /* write the content here (a 64 KiB buffer: one write(2) per 64 KiB) */
	char *path; /* where the file lands on commit, symbolic links followed (owned) */
	char *temp; /* the temporary file beside it; NULL when written in place */
	mode_t mode; /* of the file replaced, when keep_mode */
	bool keep_mode;
	char *buffer; /* the stream's (glibc ignores setvbuf's size without one) */
	off_t old_size; /* of the file replaced */
	off_t behind; /* bytes handed to the kernel's writeback by atomic_file_write_behind() */
};

/**
 * atomic_file_open - start writing a file
 * @file: receives the stream; end it with atomic_file_commit() or
 *	  atomic_file_abandon(), which free what this allocates
 * @path: the file to write. A regular file, or a name that does not exist
 *	  yet, is replaced on commit (keeping an existing file's mode); a
 *	  symbolic link is followed, relative or dangling, so the file it names
 *	  is replaced (or created) in its own directory and the link kept;
 *	  anything else that exists (a pipe, a terminal, /dev/null) and any
 *	  file reached through /proc/PID/fd (/dev/stdout redirected to a file)
 *	  is written in place, appending after what the program printed.
 *
 * Returns 0 or a negative errno code (ENOENT for a missing directory,
 * EACCES, EROFS, EISDIR, ENAMETOOLONG, ELOOP, ...); @file is then left
 * empty.
 */
int atomic_file_open(struct atomic_file *file, const char *path);

/**
 * atomic_file_check - whether atomic_file_open() of @path would succeed,
 * leaving nothing behind
 * @path: the file to write
 *
 * Does what atomic_file_open() does up to the first byte: resolves the
 * target and creates (then removes) the temporary file beside it, or opens
 * an in-place target without changing it. Root passes access(2) almost
 * everywhere, so nothing is decided by it. Returns 0 or the negative errno
 * code atomic_file_open() would return.
 */
int atomic_file_check(const char *path);

/**
 * atomic_file_check_directory - whether files can be created in @dir,
 * leaving nothing behind
 * @dir: an existing directory
 *
 * Creates (then removes) a temporary file in @dir as atomic_file_open()
 * would for a file there, since root passes access(2) even on a read-only
 * file system. Returns 0 or a negative errno code (ENOENT, ENOTDIR,
 * EACCES, EROFS, ENOSPC, ...).
 */
int atomic_file_check_directory(const char *dir);

/**
 * atomic_file_commit - finish the file: flush, sync and rename it into place
 * @file: opened with atomic_file_open(); released whatever the outcome
 *
 * The directory is synced after the rename too, so the new file survives
 * a crash that follows the commit. A big file replaced is kept under a
 * hidden name until then and freed behind (see atomic_file_settle()).
 *
 * Returns 0, or a negative errno code (ENOSPC, EDQUOT, EIO, EFBIG, ...)
 * after removing the temporary file: the target is then as it was.
 */
int atomic_file_commit(struct atomic_file *file);

/**
 * atomic_file_write_behind - start writing what was written so far to the
 * disk, without waiting for it
 * @file: opened with atomic_file_open()
 *
 * For a file of many megabytes, called at natural points (after each part):
 * the disk writes while the caller formats the rest, and the fsync of
 * atomic_file_commit() waits only for the tail. A hint: does nothing below
 * a few megabytes since the last call, or for a file written in place; a
 * failed flush stays in the stream for atomic_file_commit() to report.
 */
void atomic_file_write_behind(struct atomic_file *file);

/**
 * atomic_file_settle - wait until the files that commits replaced are freed
 *
 * atomic_file_commit() frees a big replaced file (tens of megabytes, whose
 * blocks take the file system tens of milliseconds to free) in a thread of
 * its own, after the new file is in place and synced. The first such
 * commit registers this with atexit(), so that a program that exits
 * leaves none behind under its hidden name; a long-running one may call it
 * to have the freeing done at a point of its choosing.
 */
void atomic_file_settle(void);

/**
 * atomic_file_creation_error - the error to report when creating @path
 * failed with @err: ENOENT from a directory that exists is a file system
 * that takes no new files (/proc, /sys), -EPERM, not a missing directory
 * Returns a negative errno code.
 */
int atomic_file_creation_error(const char *path, int err);

/**
 * atomic_file_remove_stale - remove the temporary files that writers of
 * @path left when they died before their commit (a kill -9 inside the
 * fsync window): ".NAME.PID.N.tmp" beside the target, PID no longer alive
 * @path: the file (symbolic links followed, as atomic_file_open() does)
 *
 * Each removal is a warning naming the file. A live process's temporary
 * file is left alone. Returns how many were removed, or a negative errno
 * code when the directory cannot be read.
 */
int atomic_file_remove_stale(const char *path);

/**
 * atomic_file_abandon - drop the file: the temporary file is removed and
 * the target left as it was
 * @file: opened with atomic_file_open(), or zeroed; safe to repeat
 */
void atomic_file_abandon(struct atomic_file *file);

#endif
