/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_JSON_LOAD_H
#define LATSCOPE_TEST_JSON_LOAD_H

#include <check.h>
#include <jansson.h>

/* A JSON file the test reads whole: the test fails, naming the file and
 * jansson's reason, when it does not parse. */
static inline json_t *unit_load_json(const char *path)
{
	json_error_t error;
	json_t *doc = json_load_file(path, 0, &error);

	ck_assert_msg(doc != NULL, "%s: %s", path, error.text);
	return doc;
}

#endif
