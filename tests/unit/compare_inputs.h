/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_COMPARE_INPUTS_H
#define LATSCOPE_TEST_COMPARE_INPUTS_H

/*
 * Result documents for the tests of compare, built as the measuring
 * commands write them and read back through import_buffer(), so that the
 * pairing and the statistics see what they see from real files.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "latscope/hist.h"
#include "latscope/import.h"
#include "latscope/result.h"
#include "unit.h"

/* one series of an input: where it ran and what it saw */
struct test_series {
	int cpu; /* -1: not pinned (null) */
	int thread; /* -1: a per-CPU entry without "thread" */
	uint64_t samples; /* spread evenly over [low_ns, high_ns] */
	uint64_t low_ns, high_ns;
	unsigned int blocks; /* block maxima, 1 s each: high_ns - i */
	const uint64_t *maxima; /* or these, when given */
};

/* a latscope document of @command ("timer" or "noise") with @n series */
static inline json_t *test_document(const char *command, const struct test_series *series,
				    unsigned int n)
{
	bool noise = !strcmp(command, "noise");
	json_t *doc = json_pack("{ssss}", "schema", "latscope/1", "command", command);
	json_t *list = json_array();
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const struct test_series *t = &series[i];
		json_t *entry = json_object(), *maxima = json_array();
		struct hist h;
		uint64_t v;

		hist_init(&h);
		for (v = 0; v < t->samples; v++)
			hist_add(&h, t->low_ns + (t->high_ns - t->low_ns) * v /
							 (t->samples > 1 ? t->samples - 1 : 1));
		json_object_set_new(entry, "cpu", t->cpu >= 0 ? json_integer(t->cpu) : json_null());
		if (t->thread >= 0)
			json_object_set_new(entry, "thread", json_integer(t->thread));
		json_object_set_new(entry, noise ? "loops" : "cycles",
				    json_integer((json_int_t)t->samples));
		json_object_set_new(entry, "min_ns", json_integer((json_int_t)h.min));
		json_object_set_new(entry, "max_ns", json_integer((json_int_t)h.max));
		if (noise)
			json_object_set_new(entry, "run_ns", json_integer(10000000000LL));
		else
			json_object_set_new(entry, "interval_ns", json_integer(1000000));
		json_object_set_new(entry, "histogram", result_histogram(&h));
		for (k = 0; k < t->blocks; k++)
			json_array_append_new(
				maxima, json_integer((json_int_t)(t->maxima ? t->maxima[k] :
									      t->high_ns - k)));
		if (t->blocks)
			json_object_set_new(entry, "block_maxima",
					    json_pack("{sIso}", "block_ns", (json_int_t)1000000000,
						      "max_ns", maxima));
		else
			json_decref(maxima);
		json_array_append_new(list, entry);
	}
	json_object_set_new(doc, noise ? "cpus" : "threads", list);
	return doc;
}

/* the document read back as import_file() would read it from a file */
static inline struct run *test_import(const char *name, json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	struct run *run = NULL;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(import_buffer(name, text, strlen(text), &run), 0);
	free(text);
	json_decref(doc);
	return run;
}

static inline struct run *test_run(const char *name, const char *command,
				   const struct test_series *series, unsigned int n)
{
	return test_import(name, test_document(command, series, n));
}

#endif
