// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope compare's text (compare_render.c) on results computed from built inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_fixture.h"
#include "compare_render.h"

static const char *const names[] = { "a.json", "b.json", "c.json", "d.json", "e.json", "f.json" };

static int ascending(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* What the command prints for @runs compared @by, with @s. */
struct rendered {
	struct test_comparison compared;
	char *text;
	size_t size;
};

static void render_groups(struct rendered *r, struct run **runs, unsigned int n,
			  const unsigned int *group_of, enum compare_by by,
			  const struct compare_settings *s)
{
	FILE *f;

	test_compare_groups(&r->compared, runs, names, n, group_of, false, by, s);
	f = open_memstream(&r->text, &r->size);
	ck_assert_ptr_nonnull(f);
	compare_render(f, (const struct run *const *)runs, names, n, &r->compared.plan,
		       &r->compared.result, s);
	ck_assert_int_eq(fclose(f), 0);
}

static void render(struct rendered *r, struct run **runs, unsigned int n, enum compare_by by,
		   const struct compare_settings *s)
{
	render_groups(r, runs, n, NULL, by, s);
}

/* the comparison released and its runs freed, with the text */
static void rendered_release(struct rendered *r)
{
	test_comparison_release(&r->compared);
	free(r->text);
}

/* the line of @text that starts with @prefix, as a new string */
static char *line_of(const char *text, const char *prefix)
{
	const char *at = text;

	while (at && *at) {
		const char *end = strchr(at, '\n');
		size_t len = end ? (size_t)(end - at) : strlen(at);

		if (!strncmp(at, prefix, strlen(prefix)))
			return strndup(at, len);
		at = end ? end + 1 : NULL;
	}
	ck_abort_msg("no line starting with '%s' in:\n%s", prefix, text);
	return NULL;
}

/* The table per pair: every statistic with A, B, the difference, its interval and verdict. */
START_TEST(stats_table_and_reasons)
{
	const struct test_series a[] = { { 1, 0, 50000, 10000, 20000, 0, NULL },
					 { 2, 1, 50000, 10000, 20000, 0, NULL } };
	const struct test_series b[] = { { 1, 0, 50000, 10000, 30000, 0, NULL },
					 { 3, 1, 50000, 10000, 20000, 0, NULL } };
	struct run *runs[2] = { test_run("a.json", "timer", a, 2),
				test_run("b.json", "timer", b, 2) };
	struct compare_settings s;
	struct rendered r;
	char *line;

	compare_settings_default(&s);
	render(&r, runs, 2, COMPARE_BY_CPU, &s);
	ck_assert_ptr_nonnull(strstr(r.text,
				     "compare: A = a.json (timer, 2 series)\n"
				     "         B = b.json (timer, 2 series)\n"
				     "paired by cpu; 95% intervals; a change counts when it "
				     "exceeds 5% of A and 1.0 us\n"));
	ck_assert_ptr_nonnull(
		strstr(r.text, "\ncpu 1: A a.json, B b.json (thread 0 (cpu 1))\n"
			       "                    A (us)        B (us)    B - A (us)        95% "
			       "interval (us)  verdict\n"));
	/* B spreads the same samples over twice the range: its p50 lies 5 us higher,
	 * which one run a side cannot tell from the variation between runs */
	line = line_of(strstr(r.text, "\ncpu 1:"), "  p50 ");
	ck_assert_msg(strstr(line, "+5.0") && strstr(line, "  inconclusive"), "%s", line);
	free(line);
	ck_assert_ptr_nonnull(strstr(r.text, "  intervals: the values as if independent (neither "
					     "input has time blocks); one run a side does not "
					     "measure the variation between runs: repeat each "
					     "side (compare A1 A2 A3 --vs B1 B2 B3) or interleave "
					     "them (latscope ab)\n"));
	line = line_of(strstr(r.text, "\ncpu 1:"), "  max ");
	ck_assert_msg(strstr(line, "20.000") && strstr(line, "30.000") && strstr(line, "+10.000") &&
			      strstr(line, " -  n/a"),
		      "%s", line);
	free(line);
	line = line_of(strstr(r.text, "\ncpu 1:"), "  samples ");
	ck_assert_msg(strstr(line, "50000") && strstr(line + 20, "50000"), "%s", line);
	free(line);
	/* 50,000 samples are too few for p99.99's interval: said with the reason */
	ck_assert_ptr_nonnull(strstr(r.text, "  p99.99: A: p99.99 needs at least 100000 samples"));
	ck_assert_ptr_nonnull(
		strstr(r.text, "  max: exact, but a run's max grows with its length"));
	/* no block maxima: no tail estimate, and why */
	ck_assert_ptr_nonnull(strstr(r.text,
				     "    A: no tail estimate: thread 0 (cpu 1) has no block "
				     "maxima"));
	/* cpu 2 of A and cpu 3 of B are listed, not paired with each other */
	ck_assert_ptr_nonnull(strstr(r.text,
				     "\nnot paired:\n"
				     "  a.json cpu 2: b.json has no cpu 2: not compared\n"
				     "  b.json cpu 3: a.json has no cpu 3: not compared\n"));
	line = line_of(r.text, "verdict: ");
	ck_assert_str_eq(line, "verdict: inconclusive: no statistic is shown to differ, nor to be "
			       "the same; 0 decided, 4 inconclusive, 2 n/a");
	free(line);
	rendered_release(&r);
}
END_TEST

/* A budget: each side's misses with their interval and rate per hour. */
START_TEST(misses_of_a_budget)
{
	const struct test_series a[] = { { 1, 0, 100000, 10000, 20000, 0, NULL } };
	struct run *runs[2] = { test_run("a.json", "timer", a, 1),
				test_run("b.json", "timer", a, 1) };
	struct compare_settings s;
	struct rendered r;
	char *line;

	compare_settings_default(&s);
	s.has_budget = true;
	s.budget_ns = 19000;
	render(&r, runs, 2, COMPARE_BY_CPU, &s);
	ck_assert_ptr_nonnull(strstr(r.text, "  misses above 19.0 us (exact 95% intervals)\n"));
	line = line_of(strstr(r.text, "  misses above"), "    A  ");
	/* a tenth of the samples lie above 19 us: 100 a second at 1 kHz, 360000 an hour */
	ck_assert_msg(strstr(line, " of 100000 (") && strstr(line, " per hour ("), "%s", line);
	free(line);
	line = line_of(r.text, "verdict: ");
	ck_assert_str_eq(line, "verdict: inconclusive: no statistic is shown to differ, nor to be "
			       "the same; 0 decided, 5 inconclusive, 1 n/a");
	free(line);
	rendered_release(&r);
}
END_TEST

/* The tail estimates side by side: B's column starts at the same place on every row. */
START_TEST(tail_columns_line_up)
{
	uint64_t *ma = test_gumbel_maxima(300, 50000, 3000, 3);
	uint64_t *mb = test_gumbel_maxima(300, 50000, 3000, 4);
	const struct test_series a[] = { { 1, 0, 10000, 10000, 20000, 300, ma } };
	const struct test_series b[] = { { 1, 0, 10000, 10000, 20000, 300, mb } };
	struct run *runs[2];
	struct compare_settings s;
	struct rendered r;
	const char *at, *table, *header;
	int column, rows = 0;

	/* A's maxima in ascending order: a run that grew worse, which two checks
	 * catch, and a long cell in A's column */
	qsort(ma, 300, sizeof(*ma), ascending);
	runs[0] = test_run("a.json", "timer", a, 1);
	runs[1] = test_run("b.json", "timer", b, 1);
	compare_settings_default(&s);
	s.has_budget = true;
	s.budget_ns = 100000;
	render(&r, runs, 2, COMPARE_BY_CPU, &s);
	table = strstr(r.text, "  extremes (GEV fit to the block maxima)\n");
	ck_assert_ptr_nonnull(table);
	/* the header names A and B over their columns */
	header = strchr(table, '\n') + 1;
	column = (int)(strchr(header, 'B') - header);
	ck_assert_int_eq(header[4 + 26 + 1], 'A');
	for (at = strchr(header, '\n') + 1; !strncmp(at, "    ", 4) && at[4] != 'A' && at[4] != 'B';
	     at = strchr(at, '\n') + 1) {
		/* A's cell ends before B's column, and B's cell begins there */
		ck_assert_msg(at[column - 1] == ' ' && at[column] != ' ' && at[column] != '\n',
			      "B's column is not at %d:\n%s", column, table);
		rows++;
	}
	/* 3 return levels, blocks, P(above the budget in a day), shape, reliable */
	ck_assert_int_eq(rows, 7);
	ck_assert_ptr_nonnull(strstr(table, "    blocks                     300 x 1.00 s"));
	ck_assert_ptr_nonnull(strstr(table, "    P(above 100.0 us in a day) "));
	ck_assert_ptr_nonnull(strstr(table, "NO: failed independence stationarity"));
	ck_assert_ptr_nonnull(strstr(table, "    A: lag-1 autocorrelation of the maxima's ranks"));
	ck_assert_ptr_nonnull(strstr(table, "    A: long enough? "));
	ck_assert_ptr_nonnull(strstr(table, "    B: long enough? "));
	rendered_release(&r);
	free(ma);
	free(mb);
}
END_TEST

/*
 * Groups of two runs, B and C each facing A; the summary names a few
 * statistics and counts the rest.
 */
START_TEST(summary_names_six_and_counts_the_rest)
{
	static const unsigned int groups[] = { 0, 0, 1, 1, 2, 2 };
	const struct test_series a[] = { { 1, 0, 200000, 10000, 20000, 0, NULL },
					 { 2, 1, 200000, 10000, 20000, 0, NULL } };
	const struct test_series worse[] = { { 1, 0, 200000, 20000, 40000, 0, NULL },
					     { 2, 1, 200000, 20000, 40000, 0, NULL } };
	const struct test_series better[] = { { 1, 0, 200000, 5000, 10000, 0, NULL },
					      { 2, 1, 200000, 5000, 10000, 0, NULL } };
	struct run *runs[6] = {
		test_run("a.json", "timer", a, 2),	test_run("b.json", "timer", a, 2),
		test_run("c.json", "timer", worse, 2),	test_run("d.json", "timer", worse, 2),
		test_run("e.json", "timer", better, 2), test_run("f.json", "timer", better, 2)
	};
	struct compare_settings s;
	struct rendered r;
	char *line;

	compare_settings_default(&s);
	render_groups(&r, runs, 6, groups, COMPARE_BY_CPU, &s);
	ck_assert_ptr_nonnull(strstr(r.text, "         C = e.json (timer, 2 series)\n"
					     "           = f.json (timer, 2 series)\n"
					     "paired by cpu, each against A;"));
	ck_assert_ptr_nonnull(strstr(r.text, "\ncpu 1: A a.json and 1 more, C e.json and 1 more"));
	ck_assert_ptr_nonnull(strstr(r.text, "  intervals: 2 and 2 runs resampled, each run whole: "
					     "the variation between runs is in the interval\n"));
	/* runs resampled whole say nothing of blocks they do not use */
	ck_assert_ptr_null(strstr(r.text, "no time blocks"));
	line = line_of(r.text, "verdict: ");
	/* B is worse on 5 statistics of 2 cpus: 6 named, 4 counted */
	ck_assert_msg(strstr(line, "verdict: mixed: c.json and 1 more is worse than a.json and 1 "
				   "more on cpu 1 p50 (") == line,
		      "%s", line);
	ck_assert_msg(strstr(line, " and 4 more; e.json and 1 more is better than a.json and 1 "
				   "more on cpu 1 p50 (-"),
		      "%s", line);
	ck_assert_msg(strstr(line, " and 4 more; 20 decided, 0 inconclusive, 4 n/a"), "%s", line);
	free(line);
	rendered_release(&r);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("compare_render");
	TCase *tc = tcase_create("render");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, stats_table_and_reasons);
	tcase_add_test(tc, misses_of_a_budget);
	tcase_add_test(tc, tail_columns_line_up);
	tcase_add_test(tc, summary_names_six_and_counts_the_rest);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
