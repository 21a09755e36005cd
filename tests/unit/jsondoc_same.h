/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_JSONDOC_SAME_H
#define LATSCOPE_TEST_JSONDOC_SAME_H

/*
 * Whether jansson's value equals the JSON reader's, packed arrays read as
 * tables: shared by tests/unit/test_jsondoc.c and the jsondoc fuzz harness.
 */
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "latscope/jsondoc.h"

static inline bool jsondoc_same(struct jsondoc *doc, const json_t *ours, const json_t *theirs)
{
	struct jsondoc_table t;
	const char *key;
	json_t *v;
	size_t i, j;

	if (json_is_array(theirs) && json_is_array(ours) && !json_array_size(ours) &&
	    json_array_size(theirs)) {
		if (jsondoc_table(doc, ours, &t) || t.rows != json_array_size(theirs))
			return false;
		for (i = 0; i < t.rows; i++) {
			const json_t *item = json_array_get(theirs, i);

			for (j = 0; j < t.width; j++) {
				const json_t *x = t.width == 1 && !json_is_array(item) ?
							  item :
							  json_array_get(item, j);

				if (!json_is_integer(x) ||
				    json_integer_value(x) != t.values[i * t.width + j])
					return false;
			}
			if (t.width > 1 && json_array_size(item) != t.width)
				return false;
		}
		return true;
	}
	if (json_typeof(ours) != json_typeof(theirs))
		return false;
	switch (json_typeof(theirs)) {
	case JSON_OBJECT:
		if (json_object_size(ours) != json_object_size(theirs))
			return false;
		json_object_foreach(
			(json_t *)theirs, key,
			v) if (!jsondoc_same(doc, json_object_get(ours, key), v)) return false;
		return true;
	case JSON_ARRAY:
		if (json_array_size(ours) != json_array_size(theirs))
			return false;
		for (i = 0; i < json_array_size(theirs); i++)
			if (!jsondoc_same(doc, json_array_get(ours, i), json_array_get(theirs, i)))
				return false;
		return true;
	case JSON_STRING:
		return json_string_length(ours) == json_string_length(theirs) &&
		       !memcmp(json_string_value(ours), json_string_value(theirs),
			       json_string_length(theirs));
	case JSON_INTEGER:
		return json_integer_value(ours) == json_integer_value(theirs);
	case JSON_REAL:
		return json_real_value(ours) == json_real_value(theirs);
	default:
		return true;
	}
}

#endif
