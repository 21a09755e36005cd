/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_UNIT_H
#define LATSCOPE_TEST_UNIT_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fixture sysroots live in tests/data/<name>. */
#define FIXTURE(name) TEST_DATA_DIR "/" name

/* What a directory holds, hidden files included ("." and ".." aside). */
static inline unsigned int unit_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* rm -rf of a scratch tree the test made. */
static inline void unit_remove_tree(const char *dir)
{
	char command[4200];

	ck_assert_int_lt(snprintf(command, sizeof(command), "rm -rf '%s'", dir),
			 (int)sizeof(command));
	ck_assert_int_eq(system(command), 0);
}

/* Run one suite and turn its result into the exit status meson expects. */
static inline int unit_run(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
