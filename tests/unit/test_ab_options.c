// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope ab's option table, every entry in every spelling, and what it refuses of the measurement. */
#include "ab_rounds.h"
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	{ .long_name = "percentiles", .valid = "50,99.9", .invalid = "50,,99" },
	{ .long_name = "practical", .valid = "10%,2us", .invalid = "10%" },
	{ .long_name = "a-setup", .valid = "true" },
	{ .long_name = "b-setup", .valid = "true" },
	{ .long_name = "cleanup", .valid = "true" },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &ab_command,
			      .prefix = "ab --a-setup true --b-setup true",
			      .suffix = "-- noise --cpus 0",
			      .hints = hints };

	exercise_command(&x);
}
END_TEST

/* What ab needs, and what it keeps to itself of the measurement's options. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &ab_command, .prefix = "ab", .hints = hints };

	exercise_refuses(&x, "--a-setup true -- noise", "needs --a-setup and --b-setup");
	exercise_refuses(&x, "--a-setup true --b-setup true", "missing -- timer|noise OPTIONS");
	exercise_refuses(&x, "--a-setup true --b-setup true -- oslat",
			 "'oslat' is no measurement ab runs: timer or noise");
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --duration 5s",
			 "--duration of noise: --round sets each round's length");
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise -d5s",
			 "--duration of noise: --round");
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --dur=5s",
			 "--duration of noise");
	exercise_refuses(&x, "--a-setup true --b-setup true -- timer -qD5",
			 "--duration of timer: --round");
	exercise_refuses(&x, "--a-setup true --b-setup true -- timer -l 1000",
			 "--loops of timer: --round");
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --json /tmp/x.json",
			 "--json of noise: ab keeps each round's result");
	exercise_refuses(&x, "--a-setup true --b-setup true -- timer -b 100",
			 "--breaktrace of timer: a round must measure its whole length");
	/* the budget by either of its names */
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --fail-above 1ms",
			 "--budget of noise: ab's verdict is --fail-worse");
	exercise_refuses(&x, "--a-setup true --b-setup true -- timer --budget 1ms",
			 "--budget of timer: ab's verdict is --fail-worse");
	/* the measurement's own options are checked as it checks them, before any round */
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --cpus x", "--cpus");
	exercise_refuses(&x, "--a-setup true --b-setup true -- noise --bogus",
			 "unknown option '--bogus'");
	/* a value that looks like an option ab keeps is a value */
	exercise_accepts(&x, "--a-setup true --b-setup true -- noise --cpus 0 --threshold 5us");
	exercise_accepts(&x, "--a-setup true --b-setup true -n 20 -r 2s --seed 7 -P 50,99 "
			     "--json /tmp/latscope-exercise.json -- noise --cpus 0");
	exercise_refuses(&x, "--a-setup true --b-setup true -n 1 -- noise",
			 "-n '1' is out of range");
	exercise_refuses(&x, "--a-setup true --b-setup true -r 100ms -- noise",
			 "-r '100ms' is out of range");
}
END_TEST

/* A round whose setup fails ends the rounds, and they keep why. */
START_TEST(rounds_keep_why_they_ended)
{
	struct ab_rounds r = { .pairs = 2,
			       .round_ns = NS_PER_SEC,
			       .seed = 1,
			       .setup = { "exit 3", "exit 3" },
			       .measurement = "noise" };

	ck_assert_int_eq(ab_rounds_run(&r), EXIT_ERROR);
	ck_assert_int_eq(r.result.reason, PART_FAILED);
	ck_assert_int_eq(r.result.status, EXIT_ERROR);
	ck_assert_msg(strstr(r.result.text, "pair 1: the ") &&
			      strstr(r.result.text, " setup 'exit 3' exited 3"),
		      "%s", r.result.text);
	ck_assert_uint_eq(r.pairs_measured, 0);
	ab_rounds_release(&r);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("ab_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, rules_between_options);
	tcase_add_test(tc, rounds_keep_why_they_ended);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
