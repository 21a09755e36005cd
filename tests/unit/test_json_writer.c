// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "latscope/json_writer.h"
#include "unit.h"

/* What the stream writer makes of @value, laid out or compact. */
static char *streamed(const json_t *value, bool indent)
{
	struct json_writer *w;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	w = json_writer_stream(out, indent);
	json_writer_value(w, value);
	ck_assert_int_eq(json_writer_finish(w, NULL), 0);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

/* The stream writer lays @value out as jansson does, and the tree writer rebuilds it. */
static void same_as_jansson(json_t *value)
{
	size_t layouts[] = { JSON_COMPACT, JSON_INDENT(2) };
	struct json_writer *w;
	json_t *tree;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char *want = json_dumps(value, layouts[i] | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
		char *got = streamed(value, i == 1);

		ck_assert_ptr_nonnull(want);
		ck_assert_str_eq(got, want);
		free(want);
		free(got);
	}
	w = json_writer_tree();
	json_writer_value(w, value);
	ck_assert_int_eq(json_writer_finish(w, &tree), 0);
	ck_assert(json_equal(tree, value));
	json_decref(tree);
	json_decref(value);
}

START_TEST(documents_laid_out_as_jansson_does)
{
	static const double reals[] = { 0.0,	  -0.0,	      1.0,    -1.5,
					0.1,	  1e20,	      1e-5,   1e-300,
					1e300,	  123456.0,   2.5e-8, 3.14159265358979,
					1e16,	  1e17,	      -7e-10, 4294967296,
					0.5,	  123.456e10, -123.0, 1e15,
					1e15 - 1, 1e14 + 0.5, -1e15,  2e-308 };
	json_t *doc, *array, *inner;
	unsigned int i;

	same_as_jansson(json_pack("{}"));
	same_as_jansson(json_pack("[]"));
	same_as_jansson(json_pack("{s:[], s:{}, s:[[]], s:[{}]}", "a", "b", "c", "d"));
	same_as_jansson(json_pack("[i, I, I, b, b, n, s]", 0, (json_int_t)INT64_MAX,
				  (json_int_t)INT64_MIN, 1, 0, "x"));
	same_as_jansson(json_pack("[s, s, s, s]", "a reason long enough for a word at a time",
				  "12345678\"2345678\\", "1234567\n",
				  "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f"));
	same_as_jansson(json_pack("{s:s, s:s, s:s}", "quote", "a\"b\\c/d", "controls",
				  "\b\f\n\r\t\x01\x1f\x7f", "utf-8", "é € 𝄞 nœud"));
	array = json_array();
	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		json_array_append_new(array, json_real(reals[i]));
	same_as_jansson(array);
	/* deeply nested and long: the writer's buffer is crossed many times */
	doc = json_object();
	inner = json_array();
	for (i = 0; i < 20000; i++)
		json_array_append_new(inner, json_pack("{s:i, s:s, s:f, s:[i, {s:b}]}", "n", i,
						       "name", "eth0-TxRx-7", "rate", i * 1.25, "x",
						       i, "deep", i & 1));
	json_object_set_new(doc, "irqs", inner);
	json_object_set_new(doc, "a key with \"quotes\"", json_string("and a value"));
	same_as_jansson(doc);
}
END_TEST

START_TEST(written_by_hand)
{
	struct json_writer *w = json_writer_tree();
	json_t *tree, *want;

	json_writer_object_begin(w);
	json_writer_member_string(w, "name", "eth0");
	json_writer_member_string(w, "none", NULL);
	json_writer_member_integer(w, "n", -42);
	json_writer_member_real(w, "rate", 2.5);
	json_writer_member_real(w, "nan", NAN);
	json_writer_member_bool(w, "yes", true);
	json_writer_key(w, "list");
	json_writer_array_begin(w);
	json_writer_integer(w, 1);
	json_writer_value(w, NULL);
	json_writer_array_end(w);
	json_writer_object_end(w);
	ck_assert_int_eq(json_writer_finish(w, &tree), 0);
	want = json_pack("{s:s, s:n, s:i, s:f, s:n, s:b, s:[i, n]}", "name", "eth0", "none", "n",
			 -42, "rate", 2.5, "nan", "yes", 1, "list", 1);
	ck_assert(json_equal(tree, want));
	json_decref(tree);
	json_decref(want);
}
END_TEST

/* What the stream writer makes of one string. */
static char *streamed_string(const char *text)
{
	struct json_writer *w;
	char *out_text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&out_text, &size);

	ck_assert_ptr_nonnull(out);
	w = json_writer_stream(out, false);
	json_writer_string(w, text);
	ck_assert_int_eq(json_writer_finish(w, NULL), 0);
	ck_assert_int_eq(fclose(out), 0);
	return out_text;
}

START_TEST(not_utf8_becomes_the_replacement_character)
{
	const char *bad = "a\xff"
			  "b\xc3"
			  "\xe2\x82"
			  "c\xed\xa0\x80";
	struct json_writer *w = json_writer_tree();
	char *want, *got;
	json_t *tree;

	/* jansson refuses it: a document would lose the IRQ that has the name */
	ck_assert_ptr_null(json_string(bad));
	json_writer_string(w, bad);
	ck_assert_int_eq(json_writer_finish(w, &tree), 0);
	ck_assert_str_eq(json_string_value(tree), "a\xef\xbf\xbd"
						  "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
						  "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* a stream writes what jansson writes of the string the tree holds */
	want = json_dumps(tree, JSON_ENCODE_ANY);
	got = streamed_string(bad);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	json_decref(tree);
}
END_TEST

START_TEST(out_of_order_is_an_error)
{
	struct json_writer *w = json_writer_tree();
	json_t *tree;

	/* a value with no key in an object */
	json_writer_object_begin(w);
	json_writer_integer(w, 1);
	json_writer_object_end(w);
	ck_assert_int_eq(json_writer_finish(w, &tree), -EINVAL);
	ck_assert_ptr_null(tree);
	/* a container left open */
	w = json_writer_tree();
	json_writer_array_begin(w);
	ck_assert_int_eq(json_writer_finish(w, &tree), -EINVAL);
	/* two documents */
	w = json_writer_tree();
	json_writer_integer(w, 1);
	json_writer_integer(w, 2);
	ck_assert_int_eq(json_writer_finish(w, &tree), -EINVAL);
	/* the wrong end */
	w = json_writer_tree();
	json_writer_array_begin(w);
	json_writer_object_end(w);
	ck_assert_int_eq(json_writer_finish(w, &tree), -EINVAL);
}
END_TEST

/* A full disk: the first write error is what finish says. */
START_TEST(write_errors_are_kept)
{
	FILE *full = fopen("/dev/full", "w");
	struct json_writer *w;
	unsigned int i;

	if (!full)
		return;
	w = json_writer_stream(full, false);
	json_writer_array_begin(w);
	for (i = 0; i < 100000; i++)
		json_writer_string(w, "a string to fill the buffer");
	json_writer_array_end(w);
	ck_assert_int_eq(json_writer_finish(w, NULL), -ENOSPC);
	fclose(full);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json_writer");
	TCase *tc = tcase_create("json_writer");

	tcase_add_test(tc, documents_laid_out_as_jansson_does);
	tcase_add_test(tc, written_by_hand);
	tcase_add_test(tc, not_utf8_becomes_the_replacement_character);
	tcase_add_test(tc, out_of_order_is_an_error);
	tcase_add_test(tc, write_errors_are_kept);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
