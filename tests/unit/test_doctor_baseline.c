// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * doctor --baseline: which files it takes (a timer result, a doctor
 * result's timer part) and refuses before anything is measured, and the
 * comparison it makes of a timer document with it: compare's document,
 * with the four verdicts, or why nothing was compared.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "doctor_baseline.h"
#include "json_load.h"
#include "unit.h"

START_TEST(a_timer_or_a_doctor_result_is_taken)
{
	const char *taken[] = { FIXTURE("report/timer-explain.json"),
				FIXTURE("doctor/doctor-vm.json") };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct doctor_baseline b = { .path = taken[i] };

		ck_assert_int_eq(doctor_baseline_load(&b), EXIT_OK);
		ck_assert_ptr_nonnull(b.timer);
		ck_assert_int_eq(b.timer->kind, RUN_TIMER);
		doctor_baseline_release(&b);
		doctor_baseline_release(&b); /* safe to repeat */
	}
}
END_TEST

START_TEST(anything_else_is_refused)
{
	const char *refused[] = { FIXTURE("report/noise-explain.json"),
				  FIXTURE("report/check.json"), FIXTURE("cpuinfo") };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct doctor_baseline b = { .path = refused[i] };

		ck_assert_int_eq(doctor_baseline_load(&b), EXIT_ERROR);
		ck_assert_ptr_null(b.timer);
		doctor_baseline_release(&b);
	}
}
END_TEST

START_TEST(the_timer_is_compared_as_compare_does)
{
	struct doctor_baseline b = { .path = FIXTURE("report/timer-explain.json") };
	json_t *timer = unit_load_json(FIXTURE("report/timer-explain-v2.json"));
	json_t *doc = json_object(), *cmp, *pair, *stat;
	char *words[] = { "doctor", "--baseline", "x", NULL };
	const char *verdict;
	size_t i, k, stats = 0;
	FILE *out = fopen("/dev/null", "w");

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(doctor_baseline_load(&b), EXIT_OK);
	ck_assert_int_eq(doctor_baseline_compare(&b, timer, out, doc, 3, words), EXIT_OK);
	ck_assert(b.compared);
	cmp = json_object_get(doc, "baseline");
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "command")), "compare");
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(cmp, "inputs"), 0), "file")),
			 b.path);
	json_array_foreach(json_object_get(cmp, "pairs"), i, pair)
		json_array_foreach(json_object_get(pair, "stats"), k, stat)
	{
		verdict = json_string_value(json_object_get(stat, "verdict"));
		ck_assert_msg(!strcmp(verdict, "worse") || !strcmp(verdict, "better") ||
				      !strcmp(verdict, "same") ||
				      !strcmp(verdict, "inconclusive") || !strcmp(verdict, "n/a"),
			      "verdict %s", verdict);
		stats++;
	}
	ck_assert_uint_gt(stats, 0);
	doctor_baseline_release(&b);
	json_decref(timer);
	json_decref(doc);
	fclose(out);
}
END_TEST

START_TEST(no_timer_nothing_compared)
{
	struct doctor_baseline b = { .path = FIXTURE("report/timer-explain.json") };
	json_t *doc = json_object();

	ck_assert_int_eq(doctor_baseline_load(&b), EXIT_OK);
	ck_assert_int_eq(doctor_baseline_compare(&b, NULL, stdout, doc, 0, NULL), EXIT_OK);
	ck_assert(!b.compared);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(doc, "baseline"), "error")),
		"the timer did not run: nothing to compare");
	doctor_baseline_release(&b);
	json_decref(doc);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("doctor_baseline");
	TCase *tc = tcase_create("baseline");

	tcase_add_test(tc, a_timer_or_a_doctor_result_is_taken);
	tcase_add_test(tc, anything_else_is_refused);
	tcase_add_test(tc, the_timer_is_compared_as_compare_does);
	tcase_add_test(tc, no_timer_nothing_compared);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
