// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/jsondoc.h"
#include "latscope/utf8.h"

#define MAX_DEPTH 512
/* a row longer than this is not a table row ([t, ns] and [low, high, count] are) */
#define MAX_ROW 16

struct packed {
	const json_t *array; /* the (empty) array standing for it in the tree */
	int64_t *values;
	size_t rows;
	unsigned int width;
};

struct jsondoc {
	json_t *root;
	struct packed *packed;
	size_t nr_packed;
	size_t cap_packed;
};

enum frame_mode {
	FRAME_OBJECT,
	FRAME_ARRAY, /* an ordinary jansson array */
	FRAME_PACKING, /* so far only integers, or only rows of integers */
	FRAME_ROW, /* a row of a packing array, collected on its own */
};

struct frame {
	enum frame_mode mode;
	json_t *container; /* FRAME_OBJECT and FRAME_ARRAY */
	char *key; /* FRAME_OBJECT: the key of the value being read */
	size_t key_cap;
	int64_t *values; /* FRAME_PACKING; kept across uses of a level, as the key */
	int64_t row[MAX_ROW]; /* FRAME_ROW: its values, without an allocation per row */
	size_t count;
	size_t cap;
	size_t rows; /* FRAME_PACKING */
	bool rowwise; /* FRAME_PACKING: its items are rows */
	unsigned int width; /* FRAME_PACKING: row length, 0 while unknown */
};

struct builder {
	struct jsondoc *doc;
	struct frame frames[MAX_DEPTH];
	int depth;
	locale_t c_locale;
	const char *failure; /* why a callback stopped the parse */
	char failure_text[160]; /* a failure that names something */
};

static int push_value(struct frame *f, int64_t value)
{
	/* the level's buffer went to a table: a new one of its size, no growing again */
	if (!f->values && f->cap) {
		f->values = malloc(f->cap * sizeof(*f->values));
		if (!f->values)
			return -ENOMEM;
	}
	if (f->count == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		int64_t *grown;

		if (cap > SIZE_MAX / sizeof(*grown))
			return -ENOMEM;
		grown = realloc(f->values, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->values = grown;
		f->cap = cap;
	}
	f->values[f->count++] = value;
	return 0;
}

static int add_packed(struct jsondoc *doc, const json_t *array, int64_t *values, size_t rows,
		      unsigned int width)
{
	if (doc->nr_packed == doc->cap_packed) {
		size_t cap = doc->cap_packed ? doc->cap_packed * 2 : 16;
		struct packed *grown = realloc(doc->packed, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		doc->packed = grown;
		doc->cap_packed = cap;
	}
	doc->packed[doc->nr_packed++] =
		(struct packed){ .array = array, .values = values, .rows = rows, .width = width };
	return 0;
}

static json_t *integers_to_array(const int64_t *values, size_t n)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < n; i++)
		if (json_array_append_new(array, json_integer(values[i]))) {
			json_decref(array);
			return NULL;
		}
	return array;
}

/* a packing array met something that is not part of a table */
static int unpack(struct frame *f)
{
	json_t *array;
	size_t i;

	if (!f->rowwise || f->width == 0) {
		array = integers_to_array(f->values, f->count);
	} else {
		array = json_array();
		for (i = 0; array && i < f->rows; i++)
			if (json_array_append_new(
				    array, integers_to_array(f->values + i * f->width, f->width))) {
				json_decref(array);
				array = NULL;
			}
	}
	if (!array)
		return -ENOMEM;
	f->count = f->rows = 0;
	f->mode = FRAME_ARRAY;
	f->container = array;
	return 0;
}

/* a row met something that is not an integer: it and its array become a tree */
static int row_to_array(struct builder *b, struct frame *row)
{
	struct frame *parent = &b->frames[b->depth - 2];
	json_t *array;

	if (parent->mode == FRAME_PACKING && unpack(parent))
		return -ENOMEM;
	array = integers_to_array(row->row, row->count);
	if (!array)
		return -ENOMEM;
	row->count = 0;
	row->mode = FRAME_ARRAY;
	row->container = array;
	return 0;
}

/* make the innermost frame able to take any value as its next item */
static int make_tree(struct builder *b)
{
	struct frame *top;

	if (!b->depth)
		return 0;
	top = &b->frames[b->depth - 1];
	if (top->mode == FRAME_PACKING)
		return unpack(top);
	if (top->mode == FRAME_ROW)
		return row_to_array(b, top);
	return 0;
}

static int attach(struct builder *b, json_t *value)
{
	struct frame *top;

	if (!value)
		return -ENOMEM;
	if (!b->depth) {
		b->doc->root = value;
		return 0;
	}
	top = &b->frames[b->depth - 1];
	if (top->mode == FRAME_OBJECT) {
		/*
		 * A key given twice is refused: which value a reader takes is
		 * not defined (RFC 8259), and a document with two is not one
		 * latscope or a peer wrote.
		 */
		if (top->key && json_object_get(top->container, top->key)) {
			json_decref(value);
			snprintf(b->failure_text, sizeof(b->failure_text),
				 "the key \"%.100s\" given twice in one object", top->key);
			b->failure = b->failure_text;
			return -EEXIST;
		}
		if (!top->key || json_object_set_new_nocheck(top->container, top->key, value))
			return -ENOMEM;
		return 0;
	}
	/* callers made the frame a tree first */
	return json_array_append_new(top->container, value) ? -ENOMEM : 0;
}

/* The first reason a callback stopped the parse is kept (a key given twice, then "out of memory"). */
static int fail(struct builder *b, const char *why)
{
	if (!b->failure)
		b->failure = why;
	return 0;
}

static int add_scalar(struct builder *b, json_t *value)
{
	if (make_tree(b)) {
		json_decref(value);
		return fail(b, "out of memory");
	}
	return attach(b, value) ? fail(b, "out of memory") : 1;
}

static int add_integer(struct builder *b, int64_t value)
{
	struct frame *top = b->depth ? &b->frames[b->depth - 1] : NULL;

	if (top && top->mode == FRAME_ROW && top->count < MAX_ROW) {
		top->row[top->count++] = value;
		return 1;
	}
	if (top && top->mode == FRAME_PACKING && !top->rowwise) {
		top->width = 1;
		return push_value(top, value) ? fail(b, "out of memory") : 1;
	}
	return add_scalar(b, json_integer(value));
}

static int on_null(void *ctx)
{
	return add_scalar(ctx, json_null());
}

static int on_boolean(void *ctx, int value)
{
	return add_scalar(ctx, json_boolean(value));
}

/*
 * An integer as the reader has checked it (an optional '-', then digits): read
 * here rather than with strtoll(), which took a third of the parse of a
 * large document. False when it is not an integer or does not fit.
 */
static bool integer_of(const char *text, size_t len, int64_t *value)
{
	bool negative = len && text[0] == '-';
	uint64_t v = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	size_t i = negative ? 1 : 0;

	if (i == len)
		return false;
	/* up to 18 digits cannot overflow: check only longer numbers */
	if (len - i <= 18) {
		for (; i < len; i++) {
			unsigned int digit = (unsigned int)(text[i] - '0');

			if (digit > 9)
				return false;
			v = v * 10 + digit;
		}
	} else {
		for (; i < len; i++) {
			unsigned int digit = (unsigned int)(text[i] - '0');

			if (digit > 9 || v > (limit - digit) / 10)
				return false;
			v = v * 10 + digit;
		}
	}
	*value = negative ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static int on_number(void *ctx, const char *text, size_t len)
{
	struct builder *b = ctx;
	char copy[400];
	double real;
	int64_t value;

	if (integer_of(text, len, &value))
		return add_integer(b, value);
	/* a fraction, an exponent, or an integer too large: a real */
	if (len >= sizeof(copy))
		return fail(b, "a number too long to read");
	memcpy(copy, text, len);
	copy[len] = '\0';
	real = strtod_l(copy, NULL, b->c_locale);
	if (!isfinite(real))
		return fail(b, "a number out of range");
	return add_scalar(b, json_real(real));
}

static int on_string(void *ctx, const unsigned char *text, size_t len)
{
	return add_scalar(ctx, json_stringn_nocheck((const char *)text, len));
}

static struct frame *push_frame(struct builder *b, enum frame_mode mode)
{
	struct frame *f;

	if (b->depth == MAX_DEPTH) {
		fail(b, "nested more than 512 levels deep");
		return NULL;
	}
	f = &b->frames[b->depth++];
	f->mode = mode;
	f->container = NULL;
	f->count = f->rows = 0;
	f->rowwise = false;
	f->width = 0;
	/* key and value buffers are kept across uses of a level */
	return f;
}

static int on_start_map(void *ctx)
{
	struct builder *b = ctx;
	struct frame *f;

	if (make_tree(b))
		return fail(b, "out of memory");
	f = push_frame(b, FRAME_OBJECT);
	if (!f)
		return 0;
	f->container = json_object();
	if (f->key)
		f->key[0] = '\0';
	return f->container ? 1 : fail(b, "out of memory");
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct builder *b = ctx;
	struct frame *f = &b->frames[b->depth - 1];

	if (len + 1 > f->key_cap) {
		char *grown = realloc(f->key, len + 1);

		if (!grown)
			return fail(b, "out of memory");
		f->key = grown;
		f->key_cap = len + 1;
	}
	/* a key with a NUL inside is cut there, as jansson's own parser refuses it */
	memcpy(f->key, key, len);
	f->key[len] = '\0';
	return 1;
}

static int on_start_array(void *ctx)
{
	struct builder *b = ctx;
	struct frame *top = b->depth ? &b->frames[b->depth - 1] : NULL;

	if (top && top->mode == FRAME_PACKING && (top->rowwise || top->count == 0)) {
		top->rowwise = true;
		return push_frame(b, FRAME_ROW) ? 1 : 0;
	}
	if (make_tree(b))
		return fail(b, "out of memory");
	return push_frame(b, FRAME_PACKING) ? 1 : 0;
}

static int end_row(struct builder *b, struct frame *row)
{
	struct frame *parent = &b->frames[b->depth - 1];
	size_t i;

	if (parent->mode == FRAME_PACKING && row->count &&
	    (parent->width == 0 || parent->width == row->count)) {
		parent->width = (unsigned int)row->count;
		for (i = 0; i < row->count; i++)
			if (push_value(parent, row->row[i]))
				return fail(b, "out of memory");
		parent->rows++;
		return 1;
	}
	/* a row of another length (or an empty one): no table after all */
	if (parent->mode == FRAME_PACKING && unpack(parent))
		return fail(b, "out of memory");
	{
		json_t *array = integers_to_array(row->row, row->count);

		return attach(b, array) ? fail(b, "out of memory") : 1;
	}
}

/*
 * A table that fills at least half of the level's buffer takes the buffer
 * (the level gets a new one of its size for its next array): the copy of
 * every long column was a fifth of a 256-CPU state's load. A smaller one
 * leaves in a copy of its size, the buffer kept for the next array. Never
 * fitted with realloc(): that moved a table of 10,000 numbers out of the
 * 128 kB glibc maps on its own into a mapping below that, which glibc then
 * unmapped, a TLB flush of every CPU each time: at 256 CPUs, 1,500 of them
 * took a quarter of a state's load.
 */
static int end_packing(struct builder *b, struct frame *f)
{
	json_t *array = json_array();
	size_t rows = f->rowwise ? f->rows : f->count;
	bool take = f->count * 2 >= f->cap;
	int64_t *values = NULL;

	b->depth--;
	if (!array)
		return fail(b, "out of memory");
	if (rows) {
		values = take ? f->values : malloc(f->count * sizeof(*values));
		if (!values || add_packed(b->doc, array, values, rows, f->width)) {
			if (!take)
				free(values);
			json_decref(array);
			return fail(b, "out of memory");
		}
		if (take)
			f->values = NULL;
		else
			memcpy(values, f->values, f->count * sizeof(*values));
	}
	return attach(b, array) ? fail(b, "out of memory") : 1;
}

static int on_end_container(void *ctx)
{
	struct builder *b = ctx;
	struct frame *f = &b->frames[b->depth - 1];
	json_t *container;

	switch (f->mode) {
	case FRAME_ROW:
		b->depth--;
		return end_row(b, f);
	case FRAME_PACKING:
		return end_packing(b, f);
	default:
		container = f->container;
		f->container = NULL;
		b->depth--;
		return attach(b, container) ? fail(b, "out of memory") : 1;
	}
}

/*
 * The reader: a strict RFC 8259 parser driving the builder above, one pass
 * over the text, no copy of strings that have no escape.
 *
 * Why not a library: jansson's parser makes one allocation per value (5 s
 * and 650 MB for a 64-CPU result with 100,000 gaps per CPU, 136 MB of
 * text); yajl, the streaming parser Debian ships, lexes at about 150 MB/s
 * here, which alone took 0.85 s of the 1 s a page may take; simdjson is C++
 * and builds a 590 MB tape of that document first. This one reads it in a
 * fraction of that. It is checked against jansson on every fixture and on
 * malformed input by tests/unit/test_jsondoc.c.
 */
struct lexer {
	const char *start;
	const char *p;
	const char *end;
	struct builder *b;
	int depth;
	const char *error; /* why the text is not JSON */
	char *scratch; /* strings with escapes, decoded */
	size_t scratch_cap;
};

static bool lex_fail(struct lexer *lx, const char *why)
{
	if (!lx->error)
		lx->error = why;
	return false;
}

/* a callback of the builder said no (out of memory, too deep) */
static bool built(struct lexer *lx, int ok)
{
	return ok ? true : lex_fail(lx, lx->b->failure ? lx->b->failure : "out of memory");
}

static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static void skip_space(struct lexer *lx)
{
	while (lx->p < lx->end && is_space(*lx->p))
		lx->p++;
}

static bool scratch_put(struct lexer *lx, size_t at, const char *bytes, size_t n)
{
	if (at + n > lx->scratch_cap) {
		size_t cap = lx->scratch_cap ? lx->scratch_cap : 256;
		char *grown;

		while (cap < at + n)
			cap *= 2;
		grown = realloc(lx->scratch, cap);
		if (!grown)
			return lex_fail(lx, "out of memory");
		lx->scratch = grown;
		lx->scratch_cap = cap;
	}
	if (n)
		memcpy(lx->scratch + at, bytes, n);
	return true;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_hex4(struct lexer *lx, uint32_t *value)
{
	int i, d;

	if (lx->end - lx->p < 4)
		return lex_fail(lx, "a \\u escape cut short");
	*value = 0;
	for (i = 0; i < 4; i++) {
		d = hex_digit(lx->p[i]);
		if (d < 0)
			return lex_fail(lx,
					"a \\u escape with a character that is not hexadecimal");
		*value = *value << 4 | (uint32_t)d;
	}
	lx->p += 4;
	return true;
}

static size_t utf8_encode(uint32_t code, char *out)
{
	if (code < 0x80) {
		out[0] = (char)code;
		return 1;
	}
	if (code < 0x800) {
		out[0] = (char)(0xc0 | code >> 6);
		out[1] = (char)(0x80 | (code & 0x3f));
		return 2;
	}
	if (code < 0x10000) {
		out[0] = (char)(0xe0 | code >> 12);
		out[1] = (char)(0x80 | ((code >> 6) & 0x3f));
		out[2] = (char)(0x80 | (code & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | code >> 18);
	out[1] = (char)(0x80 | ((code >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((code >> 6) & 0x3f));
	out[3] = (char)(0x80 | (code & 0x3f));
	return 4;
}

/* the escape after a backslash, decoded into the scratch buffer at *at */
static bool read_escape(struct lexer *lx, size_t *at)
{
	static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
	const char *which;
	uint32_t code, low;
	char utf8[4];
	size_t n;

	if (lx->p == lx->end)
		return lex_fail(lx, "a string cut short");
	which = strchr(plain, *lx->p);
	if (*lx->p && which) {
		lx->p++;
		return scratch_put(lx, (*at)++, &meant[which - plain], 1);
	}
	if (*lx->p != 'u')
		return lex_fail(lx, "an invalid escape in a string");
	lx->p++;
	if (!read_hex4(lx, &code))
		return false;
	if (code >= 0xdc00 && code <= 0xdfff)
		return lex_fail(lx, "a lone low surrogate in a \\u escape");
	if (code >= 0xd800 && code <= 0xdbff) {
		if (lx->end - lx->p < 2 || lx->p[0] != '\\' || lx->p[1] != 'u')
			return lex_fail(lx, "a high surrogate without its low half");
		lx->p += 2;
		if (!read_hex4(lx, &low))
			return false;
		if (low < 0xdc00 || low > 0xdfff)
			return lex_fail(lx, "a high surrogate without its low half");
		code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
	}
	n = utf8_encode(code, utf8);
	if (!scratch_put(lx, *at, utf8, n))
		return false;
	*at += n;
	return true;
}

/* a string after its opening quote: *text points into the input or scratch */
static bool read_string(struct lexer *lx, const char **text, size_t *len)
{
	const char *run = lx->p;
	size_t at = 0;
	bool escaped = false;

	while (lx->p < lx->end) {
		unsigned char c = (unsigned char)*lx->p;

		if (c == '"') {
			if (escaped) {
				if (!scratch_put(lx, at, run, (size_t)(lx->p - run)))
					return false;
				at += (size_t)(lx->p - run);
				*text = lx->scratch;
				*len = at;
			} else {
				*text = run;
				*len = (size_t)(lx->p - run);
			}
			lx->p++;
			return true;
		}
		if (c == '\\') {
			if (!scratch_put(lx, at, run, (size_t)(lx->p - run)))
				return false;
			at += (size_t)(lx->p - run);
			lx->p++;
			if (!read_escape(lx, &at))
				return false;
			run = lx->p;
			escaped = true;
			continue;
		}
		if (c < 0x20)
			return lex_fail(lx, "a control character in a string");
		if (c < 0x80) {
			lx->p++;
			continue;
		}
		{
			size_t n = utf8_sequence((const unsigned char *)lx->p,
						 (size_t)(lx->end - lx->p), NULL);

			if (!n)
				return lex_fail(lx, "invalid UTF-8 in a string");
			lx->p += n;
		}
	}
	return lex_fail(lx, "a string without its closing quote");
}

static bool read_digits(struct lexer *lx)
{
	const char *from = lx->p;

	while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9')
		lx->p++;
	return lx->p > from;
}

static bool read_number(struct lexer *lx)
{
	const char *from = lx->p, *digits;
	bool negative = *lx->p == '-';
	uint64_t value = 0;

	if (negative)
		lx->p++;
	digits = lx->p;
	if (lx->p < lx->end && *lx->p == '0') {
		lx->p++;
	} else {
		/* the value made as the digits are read: most numbers are integers */
		while (lx->p < lx->end && (unsigned int)(*lx->p - '0') <= 9)
			value = value * 10 + (unsigned int)(*lx->p++ - '0');
		if (lx->p == digits)
			return lex_fail(lx, "a number without digits");
	}
	/* up to 18 digits cannot overflow; a longer one is on_number()'s to check */
	if (lx->p - digits <= 18 &&
	    (lx->p == lx->end || (*lx->p != '.' && *lx->p != 'e' && *lx->p != 'E')))
		return built(lx,
			     add_integer(lx->b, negative ? (int64_t)(0 - value) : (int64_t)value));
	if (lx->p < lx->end && *lx->p == '.') {
		lx->p++;
		if (!read_digits(lx))
			return lex_fail(lx, "a number without digits after its point");
	}
	if (lx->p < lx->end && (*lx->p == 'e' || *lx->p == 'E')) {
		lx->p++;
		if (lx->p < lx->end && (*lx->p == '+' || *lx->p == '-'))
			lx->p++;
		if (!read_digits(lx))
			return lex_fail(lx, "a number without digits in its exponent");
	}
	return built(lx, on_number(lx->b, from, (size_t)(lx->p - from)));
}

static bool read_literal(struct lexer *lx, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(lx->end - lx->p) < n || memcmp(lx->p, word, n))
		return lex_fail(lx, "an unexpected character");
	lx->p += n;
	if (word[0] == 'n')
		return built(lx, on_null(lx->b));
	return built(lx, on_boolean(lx->b, word[0] == 't'));
}

static bool read_value(struct lexer *lx);

static bool read_object(struct lexer *lx)
{
	const char *key;
	size_t len;

	lx->p++;
	if (!built(lx, on_start_map(lx->b)))
		return false;
	skip_space(lx);
	if (lx->p < lx->end && *lx->p == '}') {
		lx->p++;
		return built(lx, on_end_container(lx->b));
	}
	for (;;) {
		skip_space(lx);
		if (lx->p == lx->end || *lx->p != '"')
			return lex_fail(lx, "an object key that is not a string");
		lx->p++;
		if (!read_string(lx, &key, &len) ||
		    !built(lx, on_map_key(lx->b, (const unsigned char *)key, len)))
			return false;
		skip_space(lx);
		if (lx->p == lx->end || *lx->p != ':')
			return lex_fail(lx, "an object key without ':'");
		lx->p++;
		if (!read_value(lx))
			return false;
		skip_space(lx);
		if (lx->p < lx->end && *lx->p == ',') {
			lx->p++;
			continue;
		}
		if (lx->p < lx->end && *lx->p == '}') {
			lx->p++;
			return built(lx, on_end_container(lx->b));
		}
		return lex_fail(lx, "an object member without ',' or '}' after it");
	}
}

enum run_end {
	RUN_OTHER, /* at an item that is not a plain integer: read_value()'s */
	RUN_CLOSED, /* the closing bracket read */
	RUN_FAILED,
};

/*
 * The long columns of a state: integers one after another, each pushed
 * straight into the level's table (what read_number() and add_integer()
 * do, without a call per item). Stops at an item that is anything else (a
 * real, a nested array, a malformed one), where read_array() goes on.
 */
static enum run_end read_integer_run(struct lexer *lx, struct frame *f)
{
	const char *p = lx->p, *end = lx->end, *item, *digits;
	uint64_t value;
	bool negative;

	for (;;) {
		item = p;
		negative = p < end && *p == '-';
		p += negative;
		digits = p;
		value = 0;
		while (p < end && (unsigned int)(*p - '0') <= 9)
			value = value * 10 + (unsigned int)(*p++ - '0');
		/* no digit, a leading zero, more than 18 digits, a fraction or an exponent */
		if (p == digits || (*digits == '0' && p - digits > 1) || p - digits > 18 ||
		    (p < end && (*p == '.' || *p == 'e' || *p == 'E'))) {
			lx->p = item;
			return RUN_OTHER;
		}
		f->width = 1;
		/* room in the level's buffer: stored here, push_value() only to grow it */
		if (f->values && f->count < f->cap)
			f->values[f->count++] = negative ? (int64_t)(0 - value) : (int64_t)value;
		else if (push_value(f, negative ? (int64_t)(0 - value) : (int64_t)value)) {
			lx->p = p;
			built(lx, fail(lx->b, "out of memory"));
			return RUN_FAILED;
		}
		while (p < end && is_space(*p))
			p++;
		if (p < end && *p == ',') {
			p++;
			while (p < end && is_space(*p))
				p++;
			continue;
		}
		lx->p = p;
		if (p < end && *p == ']') {
			lx->p++;
			return RUN_CLOSED;
		}
		lex_fail(lx, "an array item without ',' or ']' after it");
		return RUN_FAILED;
	}
}

static bool read_array(struct lexer *lx)
{
	struct frame *top;

	lx->p++;
	if (!built(lx, on_start_array(lx->b)))
		return false;
	skip_space(lx);
	if (lx->p < lx->end && *lx->p == ']') {
		lx->p++;
		return built(lx, on_end_container(lx->b));
	}
	for (;;) {
		top = &lx->b->frames[lx->b->depth - 1];
		if (top->mode == FRAME_PACKING && !top->rowwise) {
			switch (read_integer_run(lx, top)) {
			case RUN_CLOSED:
				return built(lx, on_end_container(lx->b));
			case RUN_FAILED:
				return false;
			case RUN_OTHER:
				break;
			}
		}
		if (!read_value(lx))
			return false;
		skip_space(lx);
		if (lx->p < lx->end && *lx->p == ',') {
			lx->p++;
			continue;
		}
		if (lx->p < lx->end && *lx->p == ']') {
			lx->p++;
			return built(lx, on_end_container(lx->b));
		}
		return lex_fail(lx, "an array item without ',' or ']' after it");
	}
}

static bool read_value(struct lexer *lx)
{
	const char *text;
	size_t len;
	bool ok;

	skip_space(lx);
	if (lx->p == lx->end)
		return lex_fail(lx, "the text ends where a value should be");
	switch (*lx->p) {
	case '{':
	case '[':
		/* the builder keeps the same bound, so the C stack stays small too */
		if (++lx->depth > MAX_DEPTH)
			return lex_fail(lx, "nested more than 512 levels deep");
		ok = *lx->p == '{' ? read_object(lx) : read_array(lx);
		lx->depth--;
		return ok;
	case '"':
		lx->p++;
		return read_string(lx, &text, &len) &&
		       built(lx, on_string(lx->b, (const unsigned char *)text, len));
	case 't':
		return read_literal(lx, "true");
	case 'f':
		return read_literal(lx, "false");
	case 'n':
		return read_literal(lx, "null");
	default:
		if (*lx->p == '-' || (*lx->p >= '0' && *lx->p <= '9'))
			return read_number(lx);
		return lex_fail(lx, "an unexpected character");
	}
}

static int compare_packed(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct packed *)a)->array;
	uintptr_t y = (uintptr_t)((const struct packed *)b)->array;

	return x < y ? -1 : x > y;
}

/* The containers of a parse that stopped half way; the levels' buffers stay for the next. */
static void builder_reset(struct builder *b)
{
	int i;

	for (i = 0; i < b->depth; i++) {
		json_decref(b->frames[i].container);
		b->frames[i].container = NULL;
	}
	b->depth = 0;
	b->doc = NULL;
	b->failure = NULL;
	b->failure_text[0] = '\0';
}

struct jsondoc_reader {
	struct builder b;
};

struct jsondoc_reader *jsondoc_reader_new(void)
{
	struct jsondoc_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->b.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!r->b.c_locale) {
		free(r);
		return NULL;
	}
	return r;
}

void jsondoc_reader_free(struct jsondoc_reader *r)
{
	int i;

	if (!r)
		return;
	builder_reset(&r->b);
	for (i = 0; i < MAX_DEPTH; i++) {
		free(r->b.frames[i].values);
		free(r->b.frames[i].key);
	}
	freelocale(r->b.c_locale);
	free(r);
}

static void line_of(const char *text, size_t offset, size_t *line)
{
	size_t i;

	*line = 1;
	for (i = 0; i < offset; i++)
		if (text[i] == '\n')
			(*line)++;
}

/*
 * One value at the start of @text; with @used, what follows it is left to
 * the caller and @used receives where the value ended (or where the text
 * stopped being JSON), without it anything after the value is an error.
 */
static struct jsondoc *parse(struct jsondoc_reader *r, const char *text, size_t len, size_t *used,
			     char *error, size_t error_size)
{
	struct jsondoc *doc = calloc(1, sizeof(*doc));
	struct lexer lx = { .start = text, .p = text, .end = text + len, .b = &r->b };
	size_t line;
	bool ok;

	if (error && error_size)
		error[0] = '\0';
	if (!doc) {
		if (error && error_size)
			snprintf(error, error_size, "out of memory");
		return NULL;
	}
	r->b.doc = doc;
	ok = read_value(&lx);
	if (ok && !used) {
		skip_space(&lx);
		if (lx.p != lx.end)
			ok = lex_fail(&lx, "more after the end of the document");
	}
	if (used)
		*used = (size_t)(lx.p - text);
	if (!ok || !doc->root) {
		if (error && error_size && used) {
			snprintf(error, error_size, "%s", lx.error ? lx.error : "no JSON value");
		} else if (error && error_size) {
			line_of(text, (size_t)(lx.p - text), &line);
			snprintf(error, error_size, "line %zu: %s", line,
				 lx.error ? lx.error : "no JSON value");
		}
		jsondoc_free(doc);
		doc = NULL;
	}
	free(lx.scratch);
	builder_reset(&r->b);
	if (doc && doc->nr_packed)
		qsort(doc->packed, doc->nr_packed, sizeof(*doc->packed), compare_packed);
	return doc;
}

struct jsondoc *jsondoc_parse(const char *text, size_t len, char *error, size_t error_size)
{
	struct jsondoc_reader *r = jsondoc_reader_new();
	struct jsondoc *doc;

	if (!r) {
		if (error && error_size)
			snprintf(error, error_size, "out of memory");
		return NULL;
	}
	doc = parse(r, text, len, NULL, error, error_size);
	jsondoc_reader_free(r);
	return doc;
}

struct jsondoc *jsondoc_reader_parse_first(struct jsondoc_reader *r, const char *text, size_t len,
					   size_t *used, char *error, size_t error_size)
{
	return parse(r, text, len, used, error, error_size);
}

void jsondoc_free(struct jsondoc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = 0; i < doc->nr_packed; i++)
		free(doc->packed[i].values);
	free(doc->packed);
	json_decref(doc->root);
	free(doc);
}

json_t *jsondoc_root(const struct jsondoc *doc)
{
	return doc->root;
}

static struct packed *find_packed(struct jsondoc *doc, const json_t *array)
{
	struct packed key = { .array = array };

	if (!doc->nr_packed)
		return NULL;
	return bsearch(&key, doc->packed, doc->nr_packed, sizeof(*doc->packed), compare_packed);
}

static bool whole_number(const json_t *value, int64_t *out)
{
	double real;

	if (json_is_integer(value)) {
		*out = json_integer_value(value);
		return true;
	}
	if (!json_is_real(value))
		return false;
	real = json_real_value(value);
	if (real != floor(real) || fabs(real) > 9.2e18)
		return false;
	*out = (int64_t)real;
	return true;
}

/* an unpacked array read once as a table, then kept packed beside it */
static int pack_tree_array(struct jsondoc *doc, const json_t *array, struct packed **out)
{
	size_t n = json_array_size(array), i, j, width = 1;
	const json_t *first = json_array_get(array, 0);
	int64_t *values;
	struct packed *at;

	if (json_is_array(first)) {
		width = json_array_size(first);
		if (!width || width > MAX_ROW)
			return -EINVAL;
	}
	if (n > SIZE_MAX / sizeof(*values) / width)
		return -ENOMEM;
	values = malloc(n * width * sizeof(*values));
	if (!values)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const json_t *item = json_array_get(array, i);

		if (json_is_array(first)) {
			if (!json_is_array(item) || json_array_size(item) != width)
				goto bad;
			for (j = 0; j < width; j++)
				if (!whole_number(json_array_get(item, j), &values[i * width + j]))
					goto bad;
		} else if (!whole_number(item, &values[i])) {
			goto bad;
		}
	}
	if (add_packed(doc, array, values, n, (unsigned int)width)) {
		free(values);
		return -ENOMEM;
	}
	qsort(doc->packed, doc->nr_packed, sizeof(*doc->packed), compare_packed);
	at = find_packed(doc, array);
	*out = at;
	return at ? 0 : -ENOMEM;
bad:
	free(values);
	return -EINVAL;
}

int jsondoc_table(struct jsondoc *doc, const json_t *array, struct jsondoc_table *table)
{
	struct packed *packed;
	int ret;

	table->values = NULL;
	table->rows = 0;
	table->width = 0;
	if (!json_is_array(array))
		return -EINVAL;
	packed = find_packed(doc, array);
	if (!packed) {
		if (!json_array_size(array))
			return 0;
		ret = pack_tree_array(doc, array, &packed);
		if (ret)
			return ret;
	}
	table->values = packed->values;
	table->rows = packed->rows;
	table->width = packed->width;
	return 0;
}
