// SPDX-License-Identifier: GPL-2.0-or-later
/* A compare result on the report page: its tables and its two plots per pair. */
#include <string.h>

#include "compare_fixture.h"
#include "latscope/compare_document.h"
#include "latscope/report.h"
#include "latscope/textbuf.h"
#include "xml_check.h"

static const char *const names[] = { "before.json", "after.json" };

/* the compare document of two generated runs, read back as a file would be */
static struct run *compare_run(bool with_blocks)
{
	uint64_t *ma = test_gumbel_maxima(300, 30000, 2000, 3);
	uint64_t *mb = test_gumbel_maxima(300, 45000, 3000, 4);
	const struct test_series a[] = {
		{ 1, 0, 100000, 10000, 20000, with_blocks ? 300 : 0, ma },
		{ 2, 1, 100000, 10000, 20000, with_blocks ? 300 : 0, ma },
	};
	const struct test_series b[] = {
		{ 1, 0, 100000, 10000, 30000, with_blocks ? 300 : 0, mb },
		{ 2, 1, 100000, 10000, 20000, with_blocks ? 300 : 0, ma },
	};
	struct run *runs[2] = { test_run("before.json", "timer", a, 2),
				test_run("after.json", "timer", b, 2) };
	struct compare_settings s;
	struct test_comparison c;
	json_t *doc;

	compare_settings_default(&s);
	s.has_budget = true;
	s.budget_ns = 25000;
	test_compare(&c, runs, names, 2, COMPARE_BY_CPU, &s);
	doc = json_pack("{sssssosososssss[]}", "schema", "latscope/1", "command", "compare",
			"params", compare_document_params(&s, c.plan.by), "inputs",
			compare_document_inputs((const struct run *const *)runs, names, 2, &c.plan),
			"pairs",
			compare_document_pairs((const struct run *const *)runs, names, &c.result),
			"verdict", compare_result_verdict(&c.result), "summary",
			"worse: after.json is worse than before.json", "unpaired");
	ck_assert_ptr_nonnull(doc);
	test_comparison_release(&c);
	free(ma);
	free(mb);
	return test_import("cmp.json", doc);
}

static unsigned int occurrences(const char *text, const char *what)
{
	unsigned int n = 0;

	for (text = strstr(text, what); text; text = strstr(text + 1, what))
		n++;
	return n;
}

static unsigned int check_svgs(const char *page)
{
	const char *at = page;
	unsigned int n = 0;

	while ((at = strstr(at, "<svg"))) {
		const char *end = strstr(at, "</svg>");
		char *svg;

		ck_assert_ptr_nonnull(end);
		svg = strndup(at, (size_t)(end + 6 - at));
		ck_assert_msg(!xml_check(svg, true), "svg %u is not well-formed", n);
		free(svg);
		at = end;
		n++;
	}
	return n;
}

START_TEST(compare_page_has_tables_and_plots)
{
	struct run *run = compare_run(true);
	struct report *report = report_new(&run, NULL, 1, NULL);
	struct textbuf page;
	const char *html;

	ck_assert_ptr_nonnull(report);
	/* two pairs, each with its exceedance curves and its return levels */
	ck_assert_uint_eq(report_nr_plots(report), 4);
	textbuf_init(&page);
	ck_assert_int_eq(report_html(report, &page), 0);
	html = textbuf_text(&page);
	ck_assert_uint_eq(check_svgs(html), 4);
	ck_assert_uint_eq(occurrences(html, "nothing to draw"), 0);
	ck_assert_ptr_nonnull(strstr(html, "id=\"fig-cmp-pair1-exceedance\""));
	ck_assert_ptr_nonnull(strstr(html, "id=\"fig-cmp-pair2-return-levels\""));
	ck_assert_ptr_nonnull(strstr(html, "The comparison “cmp”: inconclusive."));
	ck_assert_ptr_nonnull(strstr(html, "<b>Verdict:</b> worse: after.json is worse"));
	ck_assert_ptr_nonnull(strstr(
		html, "cpu 1: <code>before.json cpu 1</code> → <code>after.json cpu 1</code>"));
	/* the intervals, packed as integer arrays in the file, are read */
	/* one run a side: inconclusive, each statistic of both pairs, in its own colour */
	ck_assert_uint_eq(occurrences(html, "background:#9A6700\">inconclusive</span>"), 10);
	ck_assert_ptr_nonnull(strstr(html, "1-day return level"));
	ck_assert_ptr_nonnull(strstr(html, "Deadline misses above 25 us"));
	ck_assert_ptr_nonnull(strstr(html, "95% interval of each point"));
	ck_assert_ptr_nonnull(strstr(html, "dots: block maxima"));
	ck_assert_uint_eq(occurrences(html, "budget 25 us"), 4);
	textbuf_release(&page);
	report_free(report);
	run_free(run);
}
END_TEST

/* without block maxima there is no fit: its reason instead of a plot */
START_TEST(compare_page_without_block_maxima)
{
	struct run *run = compare_run(false);
	struct report *report = report_new(&run, NULL, 1, NULL);
	struct textbuf page;
	const char *html;

	ck_assert_ptr_nonnull(report);
	ck_assert_uint_eq(report_nr_plots(report), 2);
	textbuf_init(&page);
	ck_assert_int_eq(report_html(report, &page), 0);
	html = textbuf_text(&page);
	ck_assert_uint_eq(check_svgs(html), 2);
	ck_assert_ptr_nonnull(strstr(html, "has no block maxima"));
	textbuf_release(&page);
	report_free(report);
	run_free(run);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("report_compare");
	TCase *tc = tcase_create("page");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, compare_page_has_tables_and_plots);
	tcase_add_test(tc, compare_page_without_block_maxima);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
