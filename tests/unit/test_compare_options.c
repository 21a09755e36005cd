// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope compare's option table, every entry in every spelling, and the rules between them. */
#include "compare_options.h"
#include "option_exercise.h"

#define A TEST_DATA_DIR "/report/timer-explain.json"
#define B TEST_DATA_DIR "/report/timer-explain-v2.json"

static const struct exercise_hint hints[] = {
	{ .long_name = "percentiles", .valid = "50,99.9,99.99", .invalid = "50,,99" },
	{ .long_name = "practical", .valid = "10%,2us", .invalid = "10%" },
	{ .long_name = "vs", .companion = B },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &compare_command,
			      .prefix = "compare " A " " B,
			      .hints = hints };

	exercise_command(&x);
}
END_TEST

START_TEST(usage_line)
{
	struct exercise x = { .command = &compare_command, .prefix = "compare" };
	struct captured seen;
	int status;

	ck_assert(!exercise_parse(&x, "--help", &status, &seen));
	ck_assert_msg(strstr(seen.out, "usage: latscope compare [OPTIONS] A B [MORE...]\n"), "%s",
		      seen.out);
	ck_assert(strstr(seen.out, "50,90,99,99.9,99.99)"));
	ck_assert(strstr(seen.out, "5%,1us)"));
	ck_assert(strstr(seen.out, "(default: 0.95)"));
}
END_TEST

/* What the words say, checked before any file is read. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &compare_command, .prefix = "compare", .hints = hints };

	exercise_refuses(&x, "", "missing A");
	exercise_refuses(&x, A, "missing B");
	exercise_refuses(&x, A " /nonexistent.json", "cannot read '/nonexistent.json' for B");
	exercise_accepts(&x, A " " B " " A " " B);
	exercise_refuses(&x, A " " B " --json " B, "--json '" B "' is one of the inputs");
	exercise_refuses(&x, A " " B " --json /nonexistent/x.json", "--json");
	exercise_accepts(&x, A " " B " --by all -b 100 -P 99.9 --practical 0,0 --confidence 0.9 "
			       "--fail-worse --json /tmp/latscope-exercise.json");
	/* percentiles lie strictly inside 0..100; the max is always compared */
	exercise_refuses(&x, A " " B " -P 50,100", "strictly between 0 and 100");
	exercise_refuses(&x, A " " B " -P 0", "strictly between 0 and 100");
	exercise_refuses(&x, A " " B " -P 50,x", "invalid number 'x' for -P");
	exercise_refuses(&x, A " " B " -P 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "at most 16");
	exercise_refuses(&x, A " " B " --practical 5%,", "invalid threshold '5%,'");
	exercise_refuses(&x, A " " B " --practical %,1us", "invalid threshold");
	exercise_refuses(&x, A " " B " --practical 5%,2h", "out of range");
	exercise_refuses(&x, A " " B " --practical 2000,1us", "out of range");
	/* --vs needs a file on each side */
	exercise_refuses(&x, "--vs " A " " B, "--vs: no file of A before it");
	exercise_refuses(&x, A " " B " --vs", "--vs: no file of B after it");
	exercise_accepts(&x, A " --vs " B);
}
END_TEST

/* --vs splits the files into A's runs and B's, wherever the options stand. */
START_TEST(vs_groups_the_runs)
{
	char *argv[] = { "compare", A,	      "--by",
			 "all",	    A,	      "--vs",
			 B,	    "--json", "/tmp/latscope-exercise.json",
			 B,	    B,	      NULL };
	struct compare_command_options o;
	int status;

	ck_assert(option_parse(&compare_command, 11, argv, &o, NULL, &status));
	ck_assert(o.vs_given);
	ck_assert_uint_eq(o.nr_paths, 5);
	ck_assert_uint_eq(o.group_of[0], 0);
	ck_assert_uint_eq(o.group_of[1], 0);
	ck_assert_uint_eq(o.group_of[2], 1);
	ck_assert_uint_eq(o.group_of[4], 1);
	ck_assert_str_eq(o.paths[1], A);
	ck_assert_str_eq(o.paths[2], B);
	/* the caller's words are left as they were: the command line is recorded from them */
	ck_assert_str_eq(argv[5], "--vs");
	option_release(&compare_command, &o);
}
END_TEST

/* The values stored, in the units the library takes. */
START_TEST(values_as_stored)
{
	char *argv[] = { "compare",	A,	   B,	 "-P",	"99.9,50,99.9",
			 "--practical", "10%,2us", "-b", "100", "--by",
			 "thread",	B,	   NULL };
	struct compare_command_options o;
	struct compare_settings s;
	int status;

	ck_assert(option_parse(&compare_command, 12, argv, &o, NULL, &status));
	s = o.statistics.settings;
	ck_assert_int_eq(o.statistics.by, COMPARE_BY_THREAD);
	ck_assert_uint_eq(o.nr_paths, 3);
	ck_assert_str_eq(o.paths[2], B);
	ck_assert_uint_eq(s.nr_percentiles, 2);
	ck_assert_double_eq(s.percentiles[0], 50);
	ck_assert_double_eq(s.percentiles[1], 99.9);
	ck_assert_double_eq_tol(s.stats.practical.fraction, 0.10, 1e-12);
	ck_assert_uint_eq(s.stats.practical.ns, 2000);
	ck_assert(s.has_budget);
	ck_assert_uint_eq(s.budget_ns, 100000);
	ck_assert_double_eq(s.stats.confidence, 0.95);
	option_release(&compare_command, &o);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("compare_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, usage_line);
	tcase_add_test(tc, rules_between_options);
	tcase_add_test(tc, values_as_stored);
	tcase_add_test(tc, vs_groups_the_runs);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
