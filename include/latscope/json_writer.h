/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_JSON_WRITER_H
#define LATSCOPE_JSON_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * A JSON document written value by value, in order, to one of two ends:
 *
 * - a stream: the bytes go out as they come, laid out as jansson's dumps
 *   lay out a document (JSON_COMPACT, or JSON_INDENT(2)), byte for byte.
 *   A 1024-CPU machine's IRQ plan is half a million values: as a tree of
 *   jansson values it was 30 MB to allocate, dump and free, most of the
 *   command's time.
 * - a tree of jansson values, for a caller that keeps the document
 *   (doctor, a daemon adding to it).
 *
 * The same writing code serves both. Keys and strings must be UTF-8: a
 * byte sequence that is not becomes U+FFFD in either end, where a jansson
 * string would be refused. A real that is not finite is written as null.
 *
 * Errors (memory, a write) are remembered and every later call does
 * nothing; json_writer_finish() says the first one.
 */
struct json_writer;

/**
 * json_writer_stream - a writer of bytes
 * @out: an open stream the document goes to; not closed
 * @indent: lay it out with an indent of two (a document for a reader),
 *	    else compact
 * Returns the writer (finish it with json_writer_finish()) or NULL.
 */
struct json_writer *json_writer_stream(FILE *out, bool indent);

/**
 * json_writer_tree - a writer of jansson values
 * Returns the writer or NULL; json_writer_finish() hands over the value.
 */
struct json_writer *json_writer_tree(void);

/**
 * json_writer_finish - end and free a writer
 * @w: the writer (NULL is an error: the one of its creation)
 * @tree: for a tree writer, receives the value written (the caller owns
 *	  it), NULL when there was an error; ignored for a stream, may be NULL
 *
 * Returns 0, or the first error as a negative errno code (-EINVAL for a
 * document left unfinished or written out of order).
 */
int json_writer_finish(struct json_writer *w, json_t **tree);

void json_writer_object_begin(struct json_writer *w);
void json_writer_object_end(struct json_writer *w);
void json_writer_array_begin(struct json_writer *w);
void json_writer_array_end(struct json_writer *w);

/* the key of the next value, inside an object */
void json_writer_key(struct json_writer *w, const char *key);

/* values: a member of an object after its key, or an item of an array */
void json_writer_string(struct json_writer *w, const char *text); /* NULL: null */
void json_writer_integer(struct json_writer *w, long long value);
void json_writer_real(struct json_writer *w, double value);
void json_writer_bool(struct json_writer *w, bool value);
void json_writer_null(struct json_writer *w);
/* a jansson value as it is, members in their order (NULL: null) */
void json_writer_value(struct json_writer *w, const json_t *value);

/* an error met while making a value (memory): finish says it, nothing more is written */
void json_writer_fail(struct json_writer *w, int err);

/* key and value in one call, for the members of an object */
void json_writer_member_string(struct json_writer *w, const char *key, const char *text);
void json_writer_member_integer(struct json_writer *w, const char *key, long long value);
void json_writer_member_real(struct json_writer *w, const char *key, double value);
void json_writer_member_bool(struct json_writer *w, const char *key, bool value);
void json_writer_member_value(struct json_writer *w, const char *key, const json_t *value);

#endif
