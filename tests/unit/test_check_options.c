// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope check's option table, every entry in every spelling. */
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	{ .long_name = "rt-cpus", .valid = "2-3", .invalid = "3-x" },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &check_command, .hints = hints };

	exercise_command(&x);
}
END_TEST

START_TEST(help_lists_the_options)
{
	struct exercise x = { .command = &check_command };
	struct captured seen;
	int status;

	ck_assert(!exercise_parse(&x, "--help", &status, &seen));
	ck_assert_msg(strstr(seen.out, "usage: latscope check [OPTIONS]\n"), "%s", seen.out);
	ck_assert_msg(strstr(seen.out, "  -j, --json FILE "), "%s", seen.out);
	ck_assert_msg(strstr(seen.out, "      --json-compact "), "%s", seen.out);
	exercise_refuses(&x, "--fail-on sometimes", "invalid level 'sometimes' for --fail-on");
	exercise_refuses(&x, "--rt-cpus 99999", "'99999' for --rt-cpus");
	exercise_refuses(&x, "--root /nonexistent", "'/nonexistent' for --root");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("check_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, help_lists_the_options);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
