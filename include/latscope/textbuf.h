/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEXTBUF_H
#define LATSCOPE_TEXTBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A growing text buffer for documents built in memory (HTML pages, SVG,
 * gnuplot scripts) and written out in one go. An allocation failure is
 * remembered and every later append is a no-op, so a writer appends without
 * checking each call and asks textbuf_error() once at the end.
 *
 * Numbers go through textbuf_number(), which never depends on the locale
 * (a decimal comma would break SVG coordinates).
 */
struct textbuf {
	char *data; /* NUL-terminated while len > 0 */
	size_t len;
	size_t cap;
	int error; /* 0 or -ENOMEM */
};

/* an empty buffer; it owns the memory it grows, freed by textbuf_release() */
void textbuf_init(struct textbuf *b);
/* frees the text; the buffer can be initialised again */
void textbuf_release(struct textbuf *b);
/* forget the text but keep the memory */
void textbuf_reset(struct textbuf *b);

/* append @n bytes as they are (no escaping: for the writer's own markup) */
void textbuf_append(struct textbuf *b, const char *text, size_t n);
/* append a NUL-terminated string as it is */
void textbuf_puts(struct textbuf *b, const char *text);
/* append formatted text; %f and friends follow the locale: use textbuf_number() */
void textbuf_printf(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void textbuf_vprintf(struct textbuf *b, const char *fmt, va_list ap);

/**
 * textbuf_number - append a number with at most @decimals decimals
 * @b: the buffer
 * @value: the number; NaN and infinities are written as 0
 * @decimals: 0 to 6; trailing zeros and a trailing point are dropped
 *
 * Always writes a '.' as the decimal point, whatever the locale.
 */
void textbuf_number(struct textbuf *b, double value, int decimals);

/**
 * textbuf_escape - append text from outside (file names, command lines, host
 * names) escaped for XML and HTML, attribute values included
 * @b: the buffer
 * @text: any bytes; NULL appends nothing
 *
 * Escapes & < > " and '; drops the control characters XML 1.0 forbids
 * (all below 0x20 but tab, newline and carriage return) and replaces bytes
 * that are not valid UTF-8 by U+FFFD, so the result is always well-formed.
 */
void textbuf_escape(struct textbuf *b, const char *text);
/* the same for @n bytes that need not be NUL-terminated */
void textbuf_escape_n(struct textbuf *b, const char *text, size_t n);

/* 0, or -ENOMEM when an append failed */
int textbuf_error(const struct textbuf *b);

/* the text ("" when empty); owned by the buffer */
const char *textbuf_text(const struct textbuf *b);

/**
 * textbuf_write_file - write the text to @path whole or not at all
 * @b: the buffer; refused with its error when an append failed
 * @path: the file, written through struct atomic_file (atomic_file.h): a
 *	  temporary file beside it renamed on success, a symbolic link
 *	  followed, a pipe or /dev/stdout written in place
 *
 * Returns 0 or a negative errno code; on failure the target is as it was.
 */
int textbuf_write_file(const struct textbuf *b, const char *path);

#endif
