/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_OUTPUT_PATH_H
#define LATSCOPE_CLI_OUTPUT_PATH_H

#include <jansson.h>
#include <stdbool.h>

#include "latscope/atomic_file.h"
#include "latscope/result.h"

/*
 * The one rule for the paths a command writes and the trees it reads,
 * used by every command (the option kinds OPTION_OUTPUT_FILE,
 * OPTION_OUTPUT_DIR, OPTION_INPUT_FILE and OPTION_INPUT_DIR call the
 * checks):
 *
 *  - Before any work: a path that can never be written (its directory is
 *    missing or not writable, it is a directory, the file system is read
 *    only, it is empty) or a --root that is not a directory is a usage
 *    error, EXIT_USAGE, with one line naming the option and the path.
 *    Nothing is created by a check.
 *  - While writing: an I/O failure (ENOSPC, EDQUOT, EIO, EFBIG) is a
 *    runtime error, EXIT_ERROR, and leaves no partial file: JSON goes
 *    through result_write(), text through an atomic_file, both a temporary
 *    file renamed into place.
 *
 * The same I/O failures met by a check (a full disk refusing even an empty
 * file) are runtime errors too: the path is right, the machine is not.
 * Every function returns 0 or the exit status after printing one line.
 */

/* A file that will be written (--json FILE). */
int output_file_check(const char *option, const char *path);
/* A directory files will be written into: existing and writable, or creatable. */
int output_dir_check(const char *option, const char *dir);
/* A file that will be read: it exists, is readable and is not a directory. */
int input_file_check(const char *option, const char *path);
/* A directory that will be read as a tree (--root): it exists and is one. */
int input_dir_check(const char *option, const char *dir);

/*
 * Write a result document where --json says, laid out as --json-compact
 * says (result_write_as()); EXIT_ERROR when it fails.
 */
struct json_output;
int output_json_write(const struct json_output *json, json_t *doc);
/* The same for a document written as it is made (result_write_with()). */
struct json_writer;
int output_json_write_with(const struct json_output *json,
			   void (*write)(struct json_writer *w, void *arg), void *arg);
/*
 * For a command whose library streams its document itself (monitor's
 * state, too large to build in memory): the layout to ask for, and the
 * line and EXIT_ERROR when the write failed with @err (negative errno).
 */
enum result_layout json_output_layout(const struct json_output *json);
int output_json_failed(const struct json_output *json, int err);
/* Start a text output; EXIT_ERROR when it cannot be opened. */
int output_text_open(struct atomic_file *file, const char *option, const char *path);
/* Put it in place; EXIT_ERROR, with nothing left behind, when it fails. */
int output_text_commit(struct atomic_file *file, const char *option, const char *path);
/* Create a directory output_dir_check() accepted, when the command writes into it. */
int output_dir_create(const char *option, const char *dir);

/*
 * Whether @a and @b name the same file, however each is spelled: the same
 * text, or two paths of one existing file (device and inode).
 */
bool path_same_file(const char *a, const char *b);

#endif
