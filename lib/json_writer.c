// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A JSON document written value by value to a stream, laid out byte for
 * byte as jansson's json_dumpf() lays out the same tree (JSON_COMPACT or
 * JSON_INDENT(2)), or to a tree of jansson values. See json_writer.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/json_writer.h"

/* deeper than any document latscope writes */
#define MAX_DEPTH 64
#define BUFFER_SIZE (64 * 1024)
#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD, for a byte that is not UTF-8 */

struct level {
	bool object; /* else an array */
	bool empty; /* nothing in it yet */
	json_t *tree; /* the container, for a tree writer */
};

struct json_writer {
	FILE *out; /* NULL for a tree writer */
	bool indent;
	int error;
	unsigned int depth; /* containers open */
	struct level levels[MAX_DEPTH];
	bool key_given; /* in an object: the next value is a member */
	bool done; /* the top value is written */
	json_t *root; /* a tree writer's top value */
	json_t *key; /* a tree writer's key waiting for its value (a string) */
	size_t used; /* a stream writer's bytes not yet handed to the stream */
	char buffer[];
};

static void fail(struct json_writer *w, int err)
{
	if (!w->error)
		w->error = err;
}

void json_writer_fail(struct json_writer *w, int err)
{
	fail(w, err);
}

/* --- bytes --- */

static void flush(struct json_writer *w)
{
	if (w->used && fwrite_unlocked(w->buffer, 1, w->used, w->out) != w->used)
		fail(w, errno ? -errno : -EIO);
	w->used = 0;
}

static void put(struct json_writer *w, const void *text, size_t len)
{
	if (len > BUFFER_SIZE - w->used) {
		flush(w);
		if (len > BUFFER_SIZE) {
			if (fwrite_unlocked(text, 1, len, w->out) != len)
				fail(w, errno ? -errno : -EIO);
			return;
		}
	}
	memcpy(w->buffer + w->used, text, len);
	w->used += len;
}

static void put_char(struct json_writer *w, char c)
{
	if (w->used == BUFFER_SIZE)
		flush(w);
	w->buffer[w->used++] = c;
}

/* a new line and the indent of @depth levels, when laid out for a reader */
static void new_line(struct json_writer *w, unsigned int depth)
{
	static const char spaces[] = "                                ";
	size_t n = 2 * (size_t)depth;

	if (!w->indent)
		return;
	put_char(w, '\n');
	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		put(w, spaces, sizeof(spaces) - 1);
	put(w, spaces, n);
}

/* the length of the UTF-8 sequence at @p (2 to 4), 0 when it is not one */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], low = 0x80, high = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong form, no surrogate, nothing beyond U+10FFFF */
	if (c == 0xe0)
		low = 0xa0;
	else if (c == 0xed)
		high = 0x9f;
	else if (c == 0xf0)
		low = 0x90;
	else if (c == 0xf4)
		high = 0x8f;
	if ((size_t)(end - p) < n || p[1] < low || p[1] > high)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * Eight bytes that need no escape: no control character, quote, backslash
 * nor non-ASCII byte. (x - 0x01..) & ~x has a byte's high bit set exactly
 * when some byte of x is 0 (and x - 0x20.. & ~x when one is below 0x20).
 */
static inline bool plain_word(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t v, quote, backslash;

	memcpy(&v, p, sizeof(v));
	quote = v ^ (ones * '"');
	backslash = v ^ (ones * '\\');
	return !((((v - ones * 0x20) & ~v) | ((quote - ones) & ~quote) |
		  ((backslash - ones) & ~backslash) | v) &
		 highs);
}

/* @text quoted and escaped as jansson escapes it; a byte that is not UTF-8 becomes U+FFFD */
static void put_string(struct json_writer *w, const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *run = p, *end = p + strlen(text);
	char escape[8];

	put_char(w, '"');
	while (p < end) {
		unsigned char c = *p;
		size_t n;

		/* names and reasons are plain ASCII: a word at a time */
		while (end - p >= 8 && plain_word(p))
			p += 8;
		if (p == end)
			break;
		c = *p;
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			p++;
			continue;
		}
		if (c >= 0x80 && (n = utf8_length(p, end))) {
			p += n;
			continue;
		}
		put(w, run, (size_t)(p - run));
		if (c >= 0x80) {
			put(w, REPLACEMENT, 3);
		} else {
			switch (c) {
			case '"':
			case '\\':
				escape[1] = (char)c;
				break;
			case '\b':
				escape[1] = 'b';
				break;
			case '\f':
				escape[1] = 'f';
				break;
			case '\n':
				escape[1] = 'n';
				break;
			case '\r':
				escape[1] = 'r';
				break;
			case '\t':
				escape[1] = 't';
				break;
			default:
				escape[1] = 0;
			}
			escape[0] = '\\';
			if (escape[1])
				put(w, escape, 2);
			else
				put(w, escape,
				    (size_t)snprintf(escape, sizeof(escape), "\\u%04X", c));
		}
		run = ++p;
	}
	put(w, run, (size_t)(p - run));
	put_char(w, '"');
}

/* @text as a jansson string: NULL when out of memory */
static json_t *tree_string(const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + strlen(text);
	json_t *value;
	char *clean, *out;

	while (p < end && (*p < 0x80 || utf8_length(p, end)))
		p += *p < 0x80 ? 1 : utf8_length(p, end);
	if (p == end)
		return json_stringn_nocheck(text, (size_t)(end - (const unsigned char *)text));
	/* rare: a byte that is not UTF-8, each becomes U+FFFD */
	clean = malloc(3 * (size_t)(end - (const unsigned char *)text) + 1);
	if (!clean)
		return NULL;
	for (p = (const unsigned char *)text, out = clean; p < end;) {
		size_t n = *p < 0x80 ? 1 : utf8_length(p, end);

		if (n) {
			memcpy(out, p, n);
			out += n;
			p += n;
		} else {
			memcpy(out, REPLACEMENT, 3);
			out += 3;
			p++;
		}
	}
	value = json_stringn_nocheck(clean, (size_t)(out - clean));
	free(clean);
	return value;
}

/*
 * A real as jansson writes it: "%.17g", ".0" when that looks like an
 * integer, no '+' nor leading zeros in the exponent.
 */
static size_t format_real(char *text, size_t size, double value)
{
	char *start, *end;
	size_t len;

	/* an integral value prints its digits and ".0": rates are counts on a tree */
	if (fabs(value) < 1e15 && value == (double)(long long)value &&
	    !(value == 0 && signbit(value))) {
		long long n = (long long)value;
		unsigned long long magnitude =
			n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
		char digits[24], *p = digits + sizeof(digits);

		do
			*--p = (char)('0' + magnitude % 10);
		while (magnitude /= 10);
		if (n < 0)
			*--p = '-';
		len = (size_t)(digits + sizeof(digits) - p);
		memcpy(text, p, len);
		memcpy(text + len, ".0", 3);
		return len + 2;
	}
	len = (size_t)snprintf(text, size, "%.17g", value);

	if (len >= size - 3)
		return 0;
	if (!strchr(text, '.') && !strchr(text, 'e')) {
		memcpy(text + len, ".0", 3);
		len += 2;
	}
	start = strchr(text, 'e');
	if (start) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - text) + 1);
			len -= (size_t)(end - start);
		}
	}
	return len;
}

/* --- structure --- */

/*
 * Where the next value goes: after its key in an object, the separator and
 * new line before it in an array. False (and an error) when it cannot be.
 */
static bool begin_value(struct json_writer *w)
{
	struct level *level = w->depth ? &w->levels[w->depth - 1] : NULL;

	if (w->error)
		return false;
	if (!level) {
		if (w->done) {
			fail(w, -EINVAL);
			return false;
		}
		return true;
	}
	if (level->object) {
		if (!w->key_given) {
			fail(w, -EINVAL);
			return false;
		}
		w->key_given = false;
		return true;
	}
	if (w->out) {
		if (!level->empty)
			put_char(w, ',');
		new_line(w, w->depth);
	}
	level->empty = false;
	return true;
}

/* a tree writer's value, put where it belongs (its reference taken) */
static void place(struct json_writer *w, json_t *value)
{
	struct level *level = w->depth ? &w->levels[w->depth - 1] : NULL;
	int ret;

	if (!value) {
		fail(w, -ENOMEM);
		return;
	}
	if (!level) {
		w->root = value;
		return;
	}
	if (level->object) {
		ret = json_object_set_new_nocheck(level->tree, json_string_value(w->key), value);
		json_decref(w->key);
		w->key = NULL;
	} else {
		ret = json_array_append_new(level->tree, value);
	}
	if (ret)
		fail(w, -ENOMEM);
}

/* after a value: the top one ends the document */
static void end_value(struct json_writer *w)
{
	if (!w->depth)
		w->done = true;
}

static void begin_container(struct json_writer *w, bool object)
{
	struct level *level;
	json_t *tree = NULL;

	if (!begin_value(w))
		return;
	if (w->depth == MAX_DEPTH) {
		fail(w, -EINVAL);
		return;
	}
	if (w->out) {
		put_char(w, object ? '{' : '[');
	} else {
		tree = object ? json_object() : json_array();
		if (!tree) {
			fail(w, -ENOMEM);
			return;
		}
		json_incref(tree);
		place(w, tree);
	}
	level = &w->levels[w->depth++];
	level->object = object;
	level->empty = true;
	level->tree = tree;
}

static void end_container(struct json_writer *w, bool object)
{
	struct level *level = w->depth ? &w->levels[w->depth - 1] : NULL;

	if (w->error)
		return;
	if (!level || level->object != object || w->key_given) {
		fail(w, -EINVAL);
		return;
	}
	w->depth--;
	if (w->out) {
		if (!level->empty)
			new_line(w, w->depth);
		put_char(w, object ? '}' : ']');
	} else {
		/* the reference place() left for the level */
		json_decref(level->tree);
	}
	end_value(w);
}

struct json_writer *json_writer_stream(FILE *out, bool indent)
{
	struct json_writer *w = calloc(1, sizeof(*w) + BUFFER_SIZE);

	if (!w)
		return NULL;
	w->out = out;
	w->indent = indent;
	return w;
}

struct json_writer *json_writer_tree(void)
{
	return calloc(1, sizeof(struct json_writer));
}

int json_writer_finish(struct json_writer *w, json_t **tree)
{
	int ret;

	if (tree)
		*tree = NULL;
	if (!w)
		return -ENOMEM;
	if (!w->error && (w->depth || !w->done))
		fail(w, -EINVAL);
	if (w->out)
		flush(w);
	ret = w->error;
	while (w->depth)
		json_decref(w->levels[--w->depth].tree);
	json_decref(w->key);
	if (!ret && tree)
		*tree = w->root;
	else
		json_decref(w->root);
	free(w);
	return ret;
}

void json_writer_object_begin(struct json_writer *w)
{
	begin_container(w, true);
}

void json_writer_object_end(struct json_writer *w)
{
	end_container(w, true);
}

void json_writer_array_begin(struct json_writer *w)
{
	begin_container(w, false);
}

void json_writer_array_end(struct json_writer *w)
{
	end_container(w, false);
}

void json_writer_key(struct json_writer *w, const char *key)
{
	struct level *level = w->depth ? &w->levels[w->depth - 1] : NULL;

	if (w->error)
		return;
	if (!level || !level->object || w->key_given) {
		fail(w, -EINVAL);
		return;
	}
	w->key_given = true;
	if (!w->out) {
		w->key = tree_string(key);
		if (!w->key)
			fail(w, -ENOMEM);
		return;
	}
	if (!level->empty)
		put_char(w, ',');
	new_line(w, w->depth);
	level->empty = false;
	put_string(w, key);
	if (w->indent)
		put(w, ": ", 2);
	else
		put_char(w, ':');
}

void json_writer_string(struct json_writer *w, const char *text)
{
	if (!text) {
		json_writer_null(w);
		return;
	}
	if (!begin_value(w))
		return;
	if (w->out)
		put_string(w, text);
	else
		place(w, tree_string(text));
	end_value(w);
}

void json_writer_integer(struct json_writer *w, long long value)
{
	char text[24], *p = text + sizeof(text);
	unsigned long long magnitude =
		value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;

	if (!begin_value(w))
		return;
	if (!w->out) {
		place(w, json_integer(value));
		end_value(w);
		return;
	}
	/* digits by hand: a plan writes tens of thousands */
	do
		*--p = (char)('0' + magnitude % 10);
	while (magnitude /= 10);
	if (value < 0)
		*--p = '-';
	put(w, p, (size_t)(text + sizeof(text) - p));
	end_value(w);
}

void json_writer_real(struct json_writer *w, double value)
{
	char text[40];
	size_t len;

	if (!isfinite(value)) {
		json_writer_null(w);
		return;
	}
	if (!begin_value(w))
		return;
	if (!w->out) {
		place(w, json_real(value));
	} else {
		len = format_real(text, sizeof(text), value);
		if (len)
			put(w, text, len);
		else
			fail(w, -EINVAL);
	}
	end_value(w);
}

void json_writer_bool(struct json_writer *w, bool value)
{
	if (!begin_value(w))
		return;
	if (w->out)
		put(w, value ? "true" : "false", value ? 4 : 5);
	else
		place(w, json_boolean(value));
	end_value(w);
}

void json_writer_null(struct json_writer *w)
{
	if (!begin_value(w))
		return;
	if (w->out)
		put(w, "null", 4);
	else
		place(w, json_null());
	end_value(w);
}

void json_writer_value(struct json_writer *w, const json_t *value)
{
	const char *key;
	json_t *item;
	size_t i;

	switch (value ? json_typeof(value) : JSON_NULL) {
	case JSON_OBJECT:
		json_writer_object_begin(w);
		json_object_foreach((json_t *)value, key, item)
		{
			json_writer_key(w, key);
			json_writer_value(w, item);
		}
		json_writer_object_end(w);
		break;
	case JSON_ARRAY:
		json_writer_array_begin(w);
		json_array_foreach(value, i, item) json_writer_value(w, item);
		json_writer_array_end(w);
		break;
	case JSON_STRING:
		json_writer_string(w, json_string_value(value));
		break;
	case JSON_INTEGER:
		json_writer_integer(w, (long long)json_integer_value(value));
		break;
	case JSON_REAL:
		json_writer_real(w, json_real_value(value));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		json_writer_bool(w, json_is_true(value));
		break;
	case JSON_NULL:
		json_writer_null(w);
		break;
	}
}

void json_writer_member_string(struct json_writer *w, const char *key, const char *text)
{
	json_writer_key(w, key);
	json_writer_string(w, text);
}

void json_writer_member_integer(struct json_writer *w, const char *key, long long value)
{
	json_writer_key(w, key);
	json_writer_integer(w, value);
}

void json_writer_member_real(struct json_writer *w, const char *key, double value)
{
	json_writer_key(w, key);
	json_writer_real(w, value);
}

void json_writer_member_bool(struct json_writer *w, const char *key, bool value)
{
	json_writer_key(w, key);
	json_writer_bool(w, value);
}

void json_writer_member_value(struct json_writer *w, const char *key, const json_t *value)
{
	json_writer_key(w, key);
	json_writer_value(w, value);
}
