/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IMPORT_INTERNAL_H
#define LATSCOPE_IMPORT_INTERNAL_H

#ifndef LATSCOPE_INSIDE_IMPORT
#error "lib/import/import_internal.h is private to lib/import/: outside it, use the headers of include/latscope/"
#endif

/* Shared by the importers of lib/import*.c; not a public interface. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/import.h"

struct import_ctx {
	const char *name; /* the file, for messages */
	struct run *run;
	char error[512]; /* why the import failed */
};

/* record why the import fails; returns @err (a negative errno code) */
int import_fail(struct import_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* add a line the reader should know; returns 0 or -ENOMEM */
int import_note(struct import_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* strdup of NULL is NULL; sets *failed on allocation failure */
char *import_strdup(const char *text, bool *failed);

/* a new series at the end of run->series with every number absent */
struct run_series *import_add_series(struct run *run);

/* a new run with every field absent */
struct run *import_new_run(const char *name, enum run_format format, enum run_kind kind);

/**
 * import_iso_time - "2026-11-30T11:39:42.459Z" (or with an offset) in ns
 * since the epoch; RUN_NO_TIME when it does not parse
 */
int64_t import_iso_time(const char *text);

/* "Mon, 30 Nov 2026 11:40:10 +0000" (rt-tests) in ns since the epoch */
int64_t import_rfc2822_time(const char *text);

/*
 * a real read from a file as a whole number, rounded; RUN_NONE when it is
 * not finite, negative, or 2^63 or more (past what llround() returns)
 */
uint64_t import_whole(double real);

/* parse a decimal number such as "99.9" without the locale; false if not one */
bool import_decimal(const char *text, double *value);

/* sort and finish a series (events in time order, causes by total) */
void import_finish_series(struct run_series *s);

int import_latscope(struct import_ctx *ctx, struct jsondoc *doc);
int import_cyclictest_json(struct import_ctx *ctx, struct jsondoc *doc);
int import_oslat_json(struct import_ctx *ctx, struct jsondoc *doc);
bool import_is_cyclictest_text(const char *text, size_t len);
int import_cyclictest_text(struct import_ctx *ctx, const char *text, size_t len);

#endif
