// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope monitor's option table, every entry in every spelling, and its rules. */
#include <stdlib.h>

#include "latscope/exporter_http.h"
#include "monitor_options.h"
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	{ .long_name = "listen", .valid = "127.0.0.1:0", .invalid = "127.0.0.1:65536" },
	{ .long_name = "explain-above", .companion = "--explain" },
	/* checked once every option is read (cmd_monitor.c): only the empty path here */
	{ .long_name = "state", .valid = "/tmp/latscope-exercise-state.json", .invalid = "" },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &monitor_command, .hints = hints };

	exercise_command(&x);
}
END_TEST

/* Parse @line into @o; true when it would run. */
static bool parse(const char *line, struct monitor_options *o)
{
	static char text[512];
	char *argv[32], *word, *save = NULL;
	int argc = 0, status;

	snprintf(text, sizeof(text), "monitor %s", line);
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	return option_parse(&monitor_command, argc, argv, o, NULL, &status);
}

/* The defaults are the library's, in one place. */
START_TEST(defaults_come_from_the_library)
{
	struct monitor_options o;

	ck_assert(parse("", &o));
	ck_assert(cpuset_empty(&o.params.cpus));
	ck_assert_uint_eq(o.params.interval_ns, MONITOR_DEFAULT_INTERVAL_NS);
	ck_assert_int_eq(o.params.policy, MONITOR_DEFAULT_POLICY);
	ck_assert_int_eq(o.params.priority, MONITOR_DEFAULT_PRIORITY);
	ck_assert_uint_eq(o.params.window_ns, MONITOR_DEFAULT_WINDOW_NS);
	ck_assert_uint_eq(o.params.audit_every_ns, MONITOR_DEFAULT_AUDIT_EVERY_NS);
	ck_assert_uint_eq(o.params.checkpoint_ns, MONITOR_DEFAULT_CHECKPOINT_NS);
	ck_assert_uint_eq(o.params.textfile_every_ns, MONITOR_TEXTFILE_EVERY_NS);
	ck_assert_str_eq(o.params.state_path, MONITOR_DEFAULT_STATE);
	ck_assert(!o.state_given && !o.cpus_given);
	ck_assert_ptr_null(o.listen);
	ck_assert(!o.params.explain);
	ck_assert_uint_eq(o.duration_ns, 0);
	ck_assert_uint_eq(o.budget_ns, 0);
	option_release(&monitor_command, &o);
}
END_TEST

START_TEST(values_land_where_the_engine_reads_them)
{
	struct monitor_options o;

	ck_assert(parse("-c 1 -i 500 --policy rr -p 80 -e --explain-above 2ms -w 1m "
			"--audit-every 0 --listen [::1]:0 --state /tmp/latscope-m.json "
			"--checkpoint 10 -d 15 -b 1ms --textfile /tmp -q",
			&o));
	ck_assert(cpuset_has(&o.params.cpus, 1) && cpuset_count(&o.params.cpus) == 1);
	ck_assert_uint_eq(o.params.interval_ns, 500 * NS_PER_US);
	ck_assert_int_eq(o.params.policy, RT_POLICY_RR);
	ck_assert_int_eq(o.params.priority, 80);
	ck_assert(o.params.explain);
	ck_assert_uint_eq(o.params.explain_above_ns, 2 * NS_PER_MS);
	ck_assert_uint_eq(o.params.window_ns, 60 * NS_PER_SEC);
	ck_assert_uint_eq(o.params.audit_every_ns, 0);
	ck_assert_str_eq(o.listen, "[::1]:0");
	ck_assert_str_eq(o.params.state_path, "/tmp/latscope-m.json");
	ck_assert(o.state_given);
	ck_assert_uint_eq(o.params.checkpoint_ns, 10 * NS_PER_SEC);
	ck_assert_uint_eq(o.duration_ns, 15 * NS_PER_SEC);
	ck_assert_uint_eq(o.budget_ns, NS_PER_MS);
	ck_assert_str_eq(o.params.textfile_dir, "/tmp");
	ck_assert(o.quiet);
	ck_assert_ptr_null(o.json.path);
	option_release(&monitor_command, &o);
	/* the --json every command takes */
	ck_assert(parse("-j /tmp/latscope-m-result.json --json-compact", &o));
	ck_assert_str_eq(o.json.path, "/tmp/latscope-m-result.json");
	ck_assert(o.json.compact);
	option_release(&monitor_command, &o);
}
END_TEST

/* What the options say together, once every word is read. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &monitor_command, .hints = hints };

	exercise_refuses(&x, "--explain-above 1ms", "--explain-above needs --explain");
	exercise_refuses(&x, "--json-compact", "--json-compact needs --json");
	exercise_refuses(&x, "--audit-every 500ms", "--audit-every");
	exercise_refuses(&x, "--window 1d --interval 10us", "at most 4294967295");
	exercise_refuses(&x, "--policy other", "--policy");
	exercise_refuses(&x, "--listen 0.0.0.0", "--listen");
	exercise_refuses(&x, "--listen [::1:80", "--listen");
	exercise_refuses(&x, "--listen no.such.host.invalid:80", "--listen");
	exercise_accepts(&x, "--audit-every 0");
	exercise_accepts(&x, "--listen :9737");
	exercise_accepts(&x, "--listen localhost:19000");
	exercise_accepts(&x, "--window 1s --interval 1s");
	exercise_accepts(&x, "-e --explain-above 100us");
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("monitor_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, defaults_come_from_the_library);
	tcase_add_test(tc, values_land_where_the_engine_reads_them);
	tcase_add_test(tc, rules_between_options);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
