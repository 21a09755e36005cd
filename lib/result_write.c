// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a result document: through an atomic_file (a temporary file beside
 * the target, renamed on commit) and its 64 KiB buffer, so a document of
 * millions of tokens costs one write(2) per 64 KiB, not one per token.
 */
#include <errno.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "latscope/result.h"

int result_write_as(json_t *doc, const char *path, enum result_layout layout)
{
	size_t flags = JSON_PRESERVE_ORDER;
	struct atomic_file file;
	int ret;

	ret = atomic_file_open(&file, path);
	if (ret)
		return ret;
	if (layout == RESULT_LAYOUT_PRETTY ||
	    (layout == RESULT_LAYOUT_AUTO && isatty(fileno(file.stream))))
		flags |= JSON_INDENT(2);
	else
		flags |= JSON_COMPACT;
	/* json_dumpf() fails on a write error or on memory; the commit tells which */
	errno = 0;
	if (json_dumpf(doc, file.stream, flags) || fputc('\n', file.stream) == EOF) {
		ret = errno ? -errno : -ENOMEM;
		atomic_file_abandon(&file);
		return ret;
	}
	return atomic_file_commit(&file);
}

int result_write(json_t *doc, const char *path)
{
	return result_write_as(doc, path, RESULT_LAYOUT_AUTO);
}
