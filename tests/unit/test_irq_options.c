// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope irq's option tables, one per subcommand, every entry in every spelling. */
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_subcommand_every_option)
{
	const struct option_command *const *sub;

	for (sub = irq_group.subcommands; *sub; sub++) {
		struct exercise x = { .command = *sub,
				      .prefix = strchr((*sub)->name, ' ') + 1,
				      .hints = hints };

		exercise_command(&x);
	}
}
END_TEST

START_TEST(options_of_other_subcommands_are_named)
{
	const struct option_command *const *sub = irq_group.subcommands;
	struct exercise plan = { .command = sub[1], .prefix = "plan" };
	struct exercise show = { .command = sub[0], .prefix = "show" };

	exercise_refuses(&plan, "--verify", "option '--verify' is not for 'latscope irq plan'");
	exercise_refuses(&show, "--interval 1s", "option '--interval' is not for");
	exercise_refuses(&plan, "--bogus", "unknown option '--bogus'");
}
END_TEST

START_TEST(one_help_for_every_subcommand)
{
	const struct option_command *const *sub;
	struct captured seen;
	int status;

	for (sub = irq_group.subcommands; *sub; sub++) {
		struct exercise x = { .command = *sub, .prefix = strchr((*sub)->name, ' ') + 1 };

		ck_assert(!exercise_parse(&x, "--help", &status, &seen));
		ck_assert_int_eq(status, EXIT_OK);
		ck_assert(strstr(seen.out, "       latscope irq balance [--root DIR]"));
		ck_assert(strstr(seen.out, "(default: 25)"));
		ck_assert(strstr(seen.out, "balance interval (default: 2s;"));
		ck_assert(strstr(seen.out, "balance budget (default: 96)"));
		ck_assert(strstr(seen.out, "stays at least this long (default: 5m;"));
	}
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("irq_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_subcommand_every_option);
	tcase_add_test(tc, options_of_other_subcommands_are_named);
	tcase_add_test(tc, one_help_for_every_subcommand);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
