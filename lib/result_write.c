// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a result document: through a json_writer and an atomic_file (a
 * temporary file beside the target, renamed on commit) with its 64 KiB
 * buffer, so a document of millions of tokens costs one write(2) per
 * 64 KiB, not one per token.
 */
#include <errno.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "latscope/json_writer.h"
#include "latscope/result.h"

int result_write_with(const char *path, enum result_layout layout,
		      void (*write)(struct json_writer *w, void *arg), void *arg)
{
	struct json_writer *w;
	struct atomic_file file;
	int ret;

	ret = atomic_file_open(&file, path);
	if (ret)
		return ret;
	w = json_writer_stream(
		file.stream, layout == RESULT_LAYOUT_PRETTY ||
				     (layout == RESULT_LAYOUT_AUTO && isatty(fileno(file.stream))));
	if (w)
		write(w, arg);
	ret = json_writer_finish(w, NULL);
	if (!ret && fputc('\n', file.stream) == EOF)
		ret = errno ? -errno : -EIO;
	if (ret) {
		atomic_file_abandon(&file);
		return ret;
	}
	return atomic_file_commit(&file);
}

static void write_tree(struct json_writer *w, void *doc)
{
	json_writer_value(w, doc);
}

int result_write_as(json_t *doc, const char *path, enum result_layout layout)
{
	return result_write_with(path, layout, write_tree, doc);
}

int result_write(json_t *doc, const char *path)
{
	return result_write_as(doc, path, RESULT_LAYOUT_AUTO);
}
