/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_UNIT_H
#define LATSCOPE_TEST_UNIT_H

#include <check.h>
#include <stdlib.h>

/* Fixture sysroots live in tests/data/<name>. */
#define FIXTURE(name) TEST_DATA_DIR "/" name

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
