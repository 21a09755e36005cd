// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "latscope/jsondoc.h"

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
	int64_t *values; /* FRAME_PACKING, FRAME_ROW */
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
};

static int push_value(struct frame *f, int64_t value)
{
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
	free(f->values);
	f->values = NULL;
	f->count = f->cap = f->rows = 0;
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
	array = integers_to_array(row->values, row->count);
	if (!array)
		return -ENOMEM;
	free(row->values);
	row->values = NULL;
	row->count = row->cap = 0;
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
		if (!top->key || json_object_set_new_nocheck(top->container, top->key, value))
			return -ENOMEM;
		return 0;
	}
	/* callers made the frame a tree first */
	return json_array_append_new(top->container, value) ? -ENOMEM : 0;
}

static int fail(struct builder *b, const char *why)
{
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

	if (top && top->mode == FRAME_ROW && top->count < MAX_ROW)
		return push_value(top, value) ? fail(b, "out of memory") : 1;
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

static bool is_integer_text(const char *text, size_t len)
{
	size_t i = text[0] == '-' ? 1 : 0;

	for (; i < len; i++)
		if (text[i] < '0' || text[i] > '9')
			return false;
	return true;
}

static int on_number(void *ctx, const char *text, size_t len)
{
	struct builder *b = ctx;
	char copy[400];
	double real;
	long long value;

	/* yajl has checked the syntax; an overlong number is a real anyway */
	if (len >= sizeof(copy))
		return fail(b, "a number too long to read");
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (is_integer_text(copy, len)) {
		errno = 0;
		value = strtoll(copy, NULL, 10);
		if (!errno)
			return add_integer(b, value);
	}
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
	f->values = NULL;
	f->count = f->cap = f->rows = 0;
	f->rowwise = false;
	f->width = 0;
	/* key buffers are kept across uses of a level */
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
			if (push_value(parent, row->values[i]))
				return fail(b, "out of memory");
		parent->rows++;
		free(row->values);
		row->values = NULL;
		return 1;
	}
	/* a row of another length (or an empty one): no table after all */
	if (parent->mode == FRAME_PACKING && unpack(parent))
		return fail(b, "out of memory");
	{
		json_t *array = integers_to_array(row->values, row->count);

		free(row->values);
		row->values = NULL;
		return attach(b, array) ? fail(b, "out of memory") : 1;
	}
}

static int end_packing(struct builder *b, struct frame *f)
{
	json_t *array = json_array();
	size_t rows = f->rowwise ? f->rows : f->count;
	int64_t *values = f->values;

	f->values = NULL;
	b->depth--;
	if (!array) {
		free(values);
		return fail(b, "out of memory");
	}
	if (rows) {
		int64_t *fitted = realloc(values, f->count * sizeof(*values));

		if (fitted)
			values = fitted;
		if (add_packed(b->doc, array, values, rows, f->width)) {
			free(values);
			json_decref(array);
			return fail(b, "out of memory");
		}
	} else {
		free(values);
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

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_container,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_container,
};

static int compare_packed(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct packed *)a)->array;
	uintptr_t y = (uintptr_t)((const struct packed *)b)->array;

	return x < y ? -1 : x > y;
}

static void builder_release(struct builder *b)
{
	int i;

	for (i = 0; i < MAX_DEPTH; i++) {
		struct frame *f = &b->frames[i];

		if (i < b->depth) {
			json_decref(f->container);
			free(f->values);
		}
		free(f->key);
	}
}

static void line_of(const char *text, size_t offset, size_t *line)
{
	size_t i;

	*line = 1;
	for (i = 0; i < offset; i++)
		if (text[i] == '\n')
			(*line)++;
}

struct jsondoc *jsondoc_parse(const char *text, size_t len, char *error, size_t error_size)
{
	struct builder *b = calloc(1, sizeof(*b));
	struct jsondoc *doc = calloc(1, sizeof(*doc));
	yajl_handle parser = NULL;
	yajl_status status;
	size_t line;

	if (error && error_size)
		error[0] = '\0';
	if (!b || !doc)
		goto nomem;
	b->doc = doc;
	b->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!b->c_locale)
		goto nomem;
	parser = yajl_alloc(&callbacks, NULL, b);
	if (!parser)
		goto nomem;
	status = yajl_parse(parser, (const unsigned char *)text, len);
	if (status == yajl_status_ok)
		status = yajl_complete_parse(parser);
	if (status != yajl_status_ok || b->failure || !doc->root) {
		if (error && error_size) {
			unsigned char *why = NULL;
			size_t at = yajl_get_bytes_consumed(parser);

			if (!b->failure)
				why = yajl_get_error(parser, 0, NULL, 0);
			line_of(text, at <= len ? at : len, &line);
			snprintf(error, error_size, "line %zu: %s", line,
				 b->failure ? b->failure :
				 why	    ? (const char *)why :
					      "no JSON value");
			/* yajl ends its messages with a newline */
			error[strcspn(error, "\n")] = '\0';
			if (why)
				yajl_free_error(parser, why);
		}
		goto fail;
	}
	yajl_free(parser);
	builder_release(b);
	freelocale(b->c_locale);
	free(b);
	qsort(doc->packed, doc->nr_packed, sizeof(*doc->packed), compare_packed);
	return doc;

nomem:
	if (error && error_size)
		snprintf(error, error_size, "out of memory");
fail:
	if (parser)
		yajl_free(parser);
	if (b) {
		builder_release(b);
		if (b->c_locale)
			freelocale(b->c_locale);
		free(b);
	}
	jsondoc_free(doc);
	return NULL;
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
