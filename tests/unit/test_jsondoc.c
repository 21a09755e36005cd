// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hand-written JSON reader of lib/jsondoc.c against jansson's: the same
 * tree for every fixture, the same verdict on valid and malformed text
 * (hand-picked cases and thousands of mutations), and the packed tables.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsondoc_same.h"
#include "latscope/jsondoc.h"
#include "unit.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *text;
	long size;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	text[size] = '\0';
	*len = (size_t)size;
	return text;
}

START_TEST(same_tree_as_jansson_on_every_fixture)
{
	static const char *const files[] = {
		FIXTURE("report/noise-explain.json"),	  FIXTURE("report/noise-explain-v2.json"),
		FIXTURE("report/timer-explain.json"),	  FIXTURE("report/check.json"),
		FIXTURE("report/irq-plan.json"),	  FIXTURE("report/irq-show.json"),
		FIXTURE("peers/cyclictest-t2-h400.json"), FIXTURE("peers/oslat-c1.json"),
	};
	size_t i, len;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text = slurp(files[i], &len), why[256];
		json_error_t error;
		json_t *theirs = json_loadb(text, len, 0, &error);
		struct jsondoc *doc = jsondoc_parse(text, len, why, sizeof(why));

		ck_assert_msg(doc, "%s: %s", files[i], why);
		ck_assert_ptr_nonnull(theirs);
		ck_assert_msg(jsondoc_same(doc, jsondoc_root(doc), theirs), "%s differs", files[i]);
		json_decref(theirs);
		jsondoc_free(doc);
		free(text);
	}
}
END_TEST

static const char *const valid[] = {
	"{}",
	"[]",
	"0",
	"-0",
	"\"\"",
	"true",
	"null",
	" \t\r\n[ 1 , 2 ]\n",
	"[1.5e10, -2E-3, 0.0, 1e+2, 9223372036854775807, -9223372036854775808]",
	/* a run of integers, then other items after some of them */
	"[-0, 0, -5, 123456789012345678, 1234567890123456789, -123456789012345678]",
	"[1,\n 2 ,3 , 4.5, 6, [7], 8]",
	"[1, 2, \"x\", 3]",
	"{\"a\": {\"b\": [{\"c\": null}]}, \"b\": {\"b\": 2}}",
	"\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20ac \\ud83d\\ude00\"",
	"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf\"",
	"\"\\u0000 nul inside\"",
	"[[1, 2], [3, 4], [5, 6]]",
	"[[1, 2], [3], [\"x\"], []]",
	"[[[1]], [[2]]]",
	"{\"\\u00e9\": 1, \"\": 2}",
};

static const char *const invalid[] = {
	"",
	" ",
	"{",
	"[1,]",
	"[,1]",
	"[1 2]",
	"[1, 2 3]",
	"[1, 2, 01]",
	"[1, -]",
	"[1, 2",
	"[1, 2,",
	"{\"a\" 1}",
	"{\"a\": 1,}",
	"{1: 2}",
	"[01]",
	"[1.]",
	"[.5]",
	"[1e]",
	"[+1]",
	"[- 1]",
	"[NaN]",
	"[Infinity]",
	"[1e400]",
	"[tru]",
	"[nulll]",
	"\"unterminated",
	"\"tab\tinside\"",
	"\"bad escape \\x\"",
	"\"\\u12\"",
	"\"\\ud800\"",
	"\"\\udc00\"",
	"\"\\ud800\\u0041\"",
	"\"\xc3\"",
	"\"\xc0\xaf\"",
	"\"\xed\xa0\x80\"",
	"\"\xf5\x80\x80\x80\"",
	"{} {}",
	"[1] x",
	"/* comment */ {}",
	"{'a': 1}",
	/* a key given twice: which value counts is not defined, so neither does */
	"{\"a\": {\"b\": [{\"c\": null}]}, \"a\": 2}",
	"{\"a\": 1, \"b\": {\"c\": [1], \"c\": [1]}}",
	"[{\"t\": [[1, 2]], \"t\": [[1, 2]]}]",
};

static bool jansson_accepts(const char *text)
{
	json_error_t error;
	json_t *v = json_loadb(text, strlen(text),
			       JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &error);

	json_decref(v);
	return v != NULL;
}

static bool we_accept(const char *text, size_t len, char *why, size_t size)
{
	struct jsondoc *doc = jsondoc_parse(text, len, why, size);

	jsondoc_free(doc);
	return doc != NULL;
}

START_TEST(valid_and_invalid_like_jansson)
{
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		ck_assert_msg(we_accept(valid[i], strlen(valid[i]), why, sizeof(why)), "%s: %s",
			      valid[i], why);
		ck_assert_msg(jansson_accepts(valid[i]), "jansson refuses %s", valid[i]);
	}
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		ck_assert_msg(!we_accept(invalid[i], strlen(invalid[i]), why, sizeof(why)),
			      "accepted %s", invalid[i]);
		ck_assert_msg(!strncmp(why, "line ", 5), "%s", why);
		ck_assert_msg(!jansson_accepts(invalid[i]), "jansson accepts %s", invalid[i]);
	}
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

START_TEST(mutations_judged_like_jansson)
{
	static const char seed[] =
		"{\"schema\": \"latscope/2\", \"cpus\": [{\"cpu\": 1, \"max_ns\": 2182577,"
		" \"avg\": 14.25, \"label\": \"caf\xc3\xa9 \\u20ac\\n\", \"ok\": true, \"x\": null,"
		" \"buckets\": [[9, 9, 1], [10, 10, 22]], \"e\": -1.5e-3}]}";
	static const char alphabet[] = "{}[]\",:0123456789-+.eE \\utfnal\xc3\xa9\x01";
	uint64_t state = 0x1234567887654321ULL;
	char text[sizeof(seed) + 8], why[256];
	unsigned int round, disagree = 0;

	for (round = 0; round < 20000; round++) {
		size_t len = sizeof(seed) - 1, k, edits = 1 + next_random(&state) % 3;
		bool ours, theirs;

		memcpy(text, seed, sizeof(seed));
		for (k = 0; k < edits && len; k++) {
			size_t at = next_random(&state) % len;

			switch (next_random(&state) % 3) {
			case 0: /* replace */
				text[at] = alphabet[next_random(&state) % (sizeof(alphabet) - 1)];
				break;
			case 1: /* delete */
				memmove(text + at, text + at + 1, len - at);
				len--;
				break;
			default: /* cut */
				len = at;
				text[len] = '\0';
			}
		}
		text[len] = '\0';
		ours = we_accept(text, len, why, sizeof(why));
		theirs = jansson_accepts(text);
		/* jansson refuses integers beyond int64, which we read as reals */
		if (ours != theirs) {
			json_error_t error;
			json_t *v = json_loadb(
				text, len,
				JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &error);

			json_decref(v);
			if (strstr(error.text, "too big"))
				continue;
			disagree++;
			fprintf(stderr, "disagree (ours %d, jansson %d: %s): %s\n", ours, theirs,
				error.text, text);
		}
	}
	ck_assert_uint_eq(disagree, 0);
}
END_TEST

START_TEST(tables_of_integers)
{
	static const char text[] = "{\"flat\": [1, 2, 3], \"rows\": [[1, 2], [3, 4], [5, 6]],"
				   " \"ragged\": [[1, 2], [3]], \"mixed\": [1, \"a\"],"
				   " \"reals\": [1.0, 2.0], \"fraction\": [1.5], \"empty\": [],"
				   " \"nested\": [[[1]]], \"negative\": [-9223372036854775808]}";
	struct jsondoc *doc = jsondoc_parse(text, strlen(text), NULL, 0);
	json_t *root = jsondoc_root(doc);
	struct jsondoc_table t;

	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "flat"), &t), 0);
	ck_assert_uint_eq(t.rows, 3);
	ck_assert_uint_eq(t.width, 1);
	ck_assert_int_eq(t.values[2], 3);
	/* packed: the tree holds an empty array in its place */
	ck_assert_uint_eq(json_array_size(json_object_get(root, "flat")), 0);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "rows"), &t), 0);
	ck_assert_uint_eq(t.rows, 3);
	ck_assert_uint_eq(t.width, 2);
	ck_assert_int_eq(t.values[5], 6);
	/* rows of different lengths stay a tree, and are not a table */
	ck_assert_uint_eq(json_array_size(json_object_get(root, "ragged")), 2);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "ragged"), &t), -EINVAL);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "mixed"), &t), -EINVAL);
	/* whole reals read as integers, fractions do not */
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "reals"), &t), 0);
	ck_assert_uint_eq(t.rows, 2);
	ck_assert_int_eq(t.values[1], 2);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "fraction"), &t), -EINVAL);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "empty"), &t), 0);
	ck_assert_uint_eq(t.rows, 0);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "nested"), &t), -EINVAL);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "negative"), &t), 0);
	ck_assert_int_eq(t.values[0], INT64_MIN);
	ck_assert_int_eq(jsondoc_table(doc, json_object_get(root, "missing"), &t), -EINVAL);
	jsondoc_free(doc);
}
END_TEST

START_TEST(errors_say_the_line)
{
	char why[256];

	ck_assert(!we_accept("{\n\"a\": 1,\n\"b\": [1, 2,,]\n}", 24, why, sizeof(why)));
	ck_assert_str_eq(why, "line 3: an unexpected character");
	ck_assert(!we_accept("[\"x\"] [", 7, why, sizeof(why)));
	ck_assert_str_eq(why, "line 1: more after the end of the document");
	/* a number too large for an integer is a real, as JSON says */
	ck_assert(we_accept("[99999999999999999999]", 22, why, sizeof(why)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jsondoc");
	TCase *tc = tcase_create("jsondoc");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, same_tree_as_jansson_on_every_fixture);
	tcase_add_test(tc, valid_and_invalid_like_jansson);
	tcase_add_test(tc, mutations_judged_like_jansson);
	tcase_add_test(tc, tables_of_integers);
	tcase_add_test(tc, errors_say_the_line);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
