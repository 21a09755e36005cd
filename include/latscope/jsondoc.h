/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_JSONDOC_H
#define LATSCOPE_JSONDOC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A JSON document read for import: a jansson tree, except that arrays of
 * integers and arrays of equally long rows of integers ([[t, ns], ...],
 * [[low, high, count], ...]) are kept packed as int64 tables.
 *
 * Why not json_loadb(): a 64-CPU noise result with 100,000 gaps per CPU
 * holds 12.8 million numbers in 136 MB; jansson's parser makes one
 * allocation per value and took 5 s and 650 MB for it here, and the page
 * that reads it has 1 s. lib/jsondoc.c parses the text in one pass into
 * the same jansson tree, with the long number arrays going straight into
 * flat tables (see there why no other library did).
 *
 * A packed array appears in the tree as an empty array. Read every array of
 * numbers through jsondoc_table(), which works for packed and unpacked
 * arrays alike; json_array_size() on a packed array says 0.
 */
struct jsondoc;

/**
 * jsondoc_parse - parse one JSON text
 * @text: the text (need not be NUL-terminated)
 * @len: its length in bytes
 * @error: receives a one-line reason on failure ("line 3: ..."), may be NULL
 * @error_size: size of @error
 *
 * Anything after the one value, comments, invalid UTF-8 or nesting deeper
 * than 512 levels are errors. Returns a document the caller frees with
 * jsondoc_free(), or NULL.
 */
struct jsondoc *jsondoc_parse(const char *text, size_t len, char *error, size_t error_size);

/* A parser kept from one value to the next: its buffers and locale made once. */
struct jsondoc_reader;

/**
 * jsondoc_reader_new - a parser for many values read one after another
 *
 * Returns a reader the caller frees with jsondoc_reader_free(), or NULL.
 */
struct jsondoc_reader *jsondoc_reader_new(void);
void jsondoc_reader_free(struct jsondoc_reader *reader);

/**
 * jsondoc_reader_parse_first - parse the JSON value at the start of a text
 * @reader: the parser, its buffers reused (one thread at a time)
 * @text: the text; the value may be followed by anything
 * @len: its length in bytes
 * @used: receives the bytes up to the end of the value (white space before
 *	  it included); on failure, the offset at which the text stopped
 *	  being JSON
 * @error: receives the reason alone on failure (no line: see @used), may
 *	   be NULL
 * @error_size: size of @error
 *
 * For a reader that takes a long document value by value (the monitor's
 * state, CPU by CPU) and never holds all of it. Returns a document the
 * caller frees with jsondoc_free(), or NULL; the document does not depend
 * on @reader.
 */
struct jsondoc *jsondoc_reader_parse_first(struct jsondoc_reader *reader, const char *text,
					   size_t len, size_t *used, char *error,
					   size_t error_size);

void jsondoc_free(struct jsondoc *doc);

/* the top value; owned by the document (borrowed reference) */
json_t *jsondoc_root(const struct jsondoc *doc);

/* a table of integers: @rows rows of @width values each, row after row */
struct jsondoc_table {
	const int64_t *values;
	size_t rows;
	unsigned int width; /* 1 for a flat array; 0 for an empty one */
};

/**
 * jsondoc_table - the integers of an array in the document
 * @doc: the document @array belongs to
 * @array: an array of integers, or of arrays of integers of one length
 *	   (whole-valued reals are accepted as integers)
 * @table: receives the table; its values are owned by @doc and live as
 *	   long as it does
 *
 * Returns 0, or -EINVAL when @array is not an array of that shape (a
 * string, an object, mixed rows, a fraction).
 */
int jsondoc_table(struct jsondoc *doc, const json_t *array, struct jsondoc_table *table);

#endif
