// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope noise's option table, every entry in every spelling. */
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	{ .long_name = "policy", .valid = "fifo", .invalid = "deadline" },
	{ .long_name = "trace-dir", .companion = "--explain" },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &noise_command, .hints = hints };

	exercise_command(&x);
}
END_TEST

/* What the options say together, once every word is read. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &noise_command, .hints = hints };

	exercise_refuses(&x, "--policy other --priority 5",
			 "--priority 5 needs --policy fifo or rr");
	exercise_refuses(&x, "--trace-dir /tmp", "--trace-dir needs --explain");
	exercise_refuses(&x, "--explain=counters --trace-dir /tmp", "--trace-dir needs --explain");
	exercise_accepts(&x, "-p 5");
	exercise_accepts(&x, "--policy rr");
	exercise_accepts(&x, "-e --trace-dir /tmp -q -c 0 -d 1s -t 2us");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("noise_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, rules_between_options);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
