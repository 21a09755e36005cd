// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/atomic_file.h"
#include "latscope/textbuf.h"
#include "latscope/utf8.h"

void textbuf_init(struct textbuf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->error = 0;
}

void textbuf_release(struct textbuf *b)
{
	free(b->data);
	textbuf_init(b);
}

void textbuf_reset(struct textbuf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int reserve(struct textbuf *b, size_t more)
{
	size_t need, cap;
	char *grown;

	if (b->error)
		return b->error;
	if (more > SIZE_MAX - b->len - 1)
		return b->error = -ENOMEM;
	need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	grown = realloc(b->data, cap);
	if (!grown)
		return b->error = -ENOMEM;
	b->data = grown;
	b->cap = cap;
	return 0;
}

void textbuf_append(struct textbuf *b, const char *text, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memcpy(b->data + b->len, text, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void textbuf_puts(struct textbuf *b, const char *text)
{
	textbuf_append(b, text, strlen(text));
}

void textbuf_vprintf(struct textbuf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	if (b->error)
		return;
	va_copy(copy, ap);
	n = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt, copy);
	va_end(copy);
	if (n < 0) {
		b->error = -EINVAL;
		return;
	}
	if (b->data && (size_t)n < b->cap - b->len) {
		b->len += (size_t)n;
		return;
	}
	if (reserve(b, (size_t)n))
		return;
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	b->len += (size_t)n;
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	textbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void textbuf_number(struct textbuf *b, double value, int decimals)
{
	static const long long scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char text[48], *p = text + sizeof(text);
	unsigned long long whole, fraction;
	bool negative = false;
	long long scaled;
	int digits;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (!isfinite(value) || fabs(value) >= 9e15 / (double)scale[decimals]) {
		/* beyond what fits in the fixed-point form: plain integer */
		textbuf_printf(b, "%.0f", isfinite(value) ? value : 0.0);
		return;
	}
	scaled = llround(value * (double)scale[decimals]);
	if (scaled < 0) {
		negative = true;
		scaled = -scaled;
	}
	whole = (unsigned long long)scaled / (unsigned long long)scale[decimals];
	fraction = (unsigned long long)scaled % (unsigned long long)scale[decimals];
	*--p = '\0';
	digits = decimals;
	while (digits > 0 && fraction % 10 == 0) {
		fraction /= 10;
		digits--;
	}
	if (digits) {
		while (digits--) {
			*--p = (char)('0' + fraction % 10);
			fraction /= 10;
		}
		*--p = '.';
	}
	do {
		*--p = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	if (negative && (p[0] != '0' || p[1] != '\0'))
		*--p = '-';
	textbuf_puts(b, p);
}

void textbuf_escape_n(struct textbuf *b, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, start = 0, len;
	uint32_t code;

	if (!text)
		return;
	while (i < n) {
		const char *with = NULL;

		switch (s[i]) {
		case '&':
			with = "&amp;";
			break;
		case '<':
			with = "&lt;";
			break;
		case '>':
			with = "&gt;";
			break;
		case '"':
			with = "&quot;";
			break;
		case '\'':
			with = "&#39;";
			break;
		case '\t':
		case '\n':
		case '\r':
			break;
		default:
			if (s[i] < 0x20 || s[i] == 0x7f) {
				with = "";
				break;
			}
			len = utf8_sequence(s + i, n - i, &code);
			/* XML 1.0 has no U+FFFE and U+FFFF */
			if (!len || code == 0xfffe || code == 0xffff) {
				with = "\xef\xbf\xbd";
				break;
			}
			i += len;
			continue;
		}
		if (with) {
			textbuf_append(b, text + start, i - start);
			textbuf_puts(b, with);
			start = i + 1;
		}
		i++;
	}
	textbuf_append(b, text + start, n - start);
}

void textbuf_escape(struct textbuf *b, const char *text)
{
	if (text)
		textbuf_escape_n(b, text, strlen(text));
}

int textbuf_error(const struct textbuf *b)
{
	return b->error;
}

const char *textbuf_text(const struct textbuf *b)
{
	return b->data ? b->data : "";
}

int textbuf_write_file(const struct textbuf *b, const char *path)
{
	struct atomic_file file;
	int ret;

	if (b->error)
		return b->error;
	ret = atomic_file_open(&file, path);
	if (ret)
		return ret;
	if (b->len && fwrite(b->data, 1, b->len, file.stream) != b->len) {
		ret = errno ? -errno : -EIO;
		atomic_file_abandon(&file);
		return ret;
	}
	return atomic_file_commit(&file);
}
