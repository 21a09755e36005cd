// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope report's option table, every entry in every spelling, and the rules between them. */
#include "option_exercise.h"

#define INPUT TEST_DATA_DIR "/report/noise-explain.json"
#define OTHER TEST_DATA_DIR "/report/timer-explain.json"

static const struct exercise_hint hints[] = {
	{ .long_name = "output",
	  .valid = "/tmp/latscope-exercise.html",
	  .invalid = "/nonexistent/dir/page.html" },
	{ .long_name = "label", .valid = "before=" INPUT, .invalid = "before" },
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &report_command,
			      .prefix = "report " INPUT,
			      .hints = hints };

	exercise_command(&x);
}
END_TEST

START_TEST(usage_line)
{
	struct exercise x = { .command = &report_command, .prefix = "report" };
	struct captured seen;
	int status;

	ck_assert(!exercise_parse(&x, "--help", &status, &seen));
	ck_assert_msg(strstr(seen.out, "usage: latscope report [--output FILE] [--svg DIR] "
				       "[--gnuplot DIR]\n"
				       "                       [--title TEXT] [--budget DUR] "
				       "[--label NAME=FILE]\n"
				       "                       FILE...\n"),
		      "%s", seen.out);
	ck_assert(strstr(seen.out, "(default: latscope-report.html)"));
}
END_TEST

/* What the words say together, checked before any file is read. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &report_command, .prefix = "report", .hints = hints };

	exercise_refuses(&x, "", "missing FILE");
	exercise_refuses(&x, "/nonexistent.json", "cannot read '/nonexistent.json' for FILE");
	exercise_refuses(&x, "/", "cannot read '/' for FILE");
	exercise_refuses(&x, INPUT " -o /nonexistent/page.html", "cannot write -o");
	exercise_refuses(&x, INPUT " --svg /proc/version", "--svg '/proc/version'");
	exercise_refuses(&x, INPUT " --budget 5x", "--budget");
	exercise_accepts(&x, INPUT " -o - --svg /tmp --gnuplot /tmp -t title -b 100");
	/* a file twice, however it is spelled */
	exercise_refuses(&x, INPUT " " INPUT, "is given twice");
	exercise_refuses(&x, INPUT " " TEST_DATA_DIR "/report/../report/noise-explain.json",
			 "is given twice");
	/* the page must not overwrite an input */
	exercise_refuses(&x, INPUT " -o " INPUT, "is one of the FILEs");
	/* labels name files given, each once, with names of their own */
	exercise_accepts(&x, INPUT " " OTHER " --label before=" INPUT " --label after=" OTHER);
	exercise_accepts(&x, INPUT " --label before=" TEST_DATA_DIR
				   "/report/../report/noise-explain.json");
	exercise_refuses(&x, INPUT " --label x=" OTHER, "is not one of the FILEs");
	exercise_refuses(&x, INPUT " --label a=" INPUT " --label b=" INPUT,
			 "is already called 'a'");
	exercise_refuses(&x, INPUT " " OTHER " --label a=" INPUT " --label a=" OTHER,
			 "two files called 'a'");
	exercise_refuses(&x, INPUT " --label =" INPUT, "invalid label");
	exercise_refuses(&x, INPUT " --label a=", "invalid label");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("report_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, usage_line);
	tcase_add_test(tc, rules_between_options);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
