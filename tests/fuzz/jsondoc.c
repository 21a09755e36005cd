// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON reader of every imported file, against jansson: what one
 * accepts the other accepts, and the trees are the same (packed arrays
 * read back as tables). The known differences are allowed: an integer
 * beyond int64 (a real for us, an error for jansson), nesting beyond 512
 * levels (refused by us only) and duplicate keys (which we may refuse).
 * Found so: jansson accepts a NUL byte after a number; we refuse it.
 */
#include "../unit/jsondoc_same.h"
#include "fuzz.h"
#include "latscope/jsondoc.h"

/* Every array read as a table, as the importers read them: no crash, a sane shape. */
static void read_tables(struct jsondoc *doc, const json_t *value)
{
	struct jsondoc_table t;
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_array(value)) {
		if (!jsondoc_table(doc, value, &t) &&
		    ((t.rows && !t.width) || (!t.rows && t.width) || (t.rows && !t.values)))
			abort();
		json_array_foreach(value, i, item) read_tables(doc, item);
	} else if (json_is_object(value)) {
		json_object_foreach((json_t *)value, key, item) read_tables(doc, item);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct jsondoc *doc;
	json_error_t error;
	json_t *theirs;
	char why[256];

	doc = jsondoc_parse(text, size, why, sizeof(why));
	if (!doc && strncmp(why, "line ", 5) && strcmp(why, "out of memory"))
		abort();
	/*
	 * A raw NUL is JSON nowhere (in a string it must be escaped), but
	 * jansson skips one right after a number ("[599\0,9]"): no comparison.
	 */
	if (memchr(text, '\0', size)) {
		if (doc)
			abort();
		return 0;
	}
	theirs = json_loadb(text, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
	if (doc && theirs && !jsondoc_same(doc, jsondoc_root(doc), theirs))
		abort();
	if (doc && !theirs && !strstr(error.text, "too big") && !strstr(error.text, "nesting"))
		abort();
	if (!doc && theirs && !strstr(why, "nested more than") && !strstr(why, "too long") &&
	    !strstr(why, "duplicate")) {
		/* the one other refusal we may make: a key given twice */
		json_decref(theirs);
		theirs = json_loadb(text, size,
				    JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
				    &error);
		if (theirs)
			abort();
	}
	if (doc)
		read_tables(doc, jsondoc_root(doc));
	json_decref(theirs);
	jsondoc_free(doc);
	return 0;
}
