// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The page builder on the fixture results of tests/data/report and
 * tests/data/peers: every plot kind drawn, each SVG well-formed (xmllint),
 * strings from inputs escaped, nothing outside the page referred to, bad
 * input refused with one line, and the SVG and gnuplot files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latscope/import.h"
#include "latscope/log.h"
#include "latscope/report.h"
#include "unit.h"
#include "xml_check.h"

static char last_error[1024];

static void remember(enum log_level level, const char *message)
{
	if (level == LATSCOPE_LOG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", message);
}

static const char *const fixtures[] = {
	FIXTURE("report/noise-explain.json"),
	FIXTURE("report/timer-explain-v2.json"),
	FIXTURE("report/check.json"),
	FIXTURE("report/irq-plan.json"),
	FIXTURE("report/irq-show.json"),
	FIXTURE("peers/cyclictest-t2-h400.json"),
	FIXTURE("peers/cyclictest-t2-h400.txt"),
	FIXTURE("peers/oslat-c1.json"),
	FIXTURE("report/monitor-state.json"),
};
#define NR_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

/* a 3-day monitor state of 2 CPUs, with gaps listed for the time plot */
static const char monitor_state[] =
	"{\"schema\": \"latscope/2\", \"command\": \"monitor\", \"window_ns\": 300000000000,"
	" \"cpus\": [%s]}";

static char *monitor_text(void)
{
	struct textbuf cpus, doc;
	char *text;
	int cpu, w;

	textbuf_init(&cpus);
	for (cpu = 0; cpu < 2; cpu++) {
		textbuf_printf(&cpus,
			       "%s{\"cpu\": %d, \"count\": 864000, \"histogram\": {\"unit\": "
			       "\"ns\", \"buckets\": [[20000, 20159, 800000], [40000, 40319, "
			       "63999], [900000, 907007, 1]]}, \"max_ns\": 905000, "
			       "\"gaps\": {\"threshold_ns\": 30000, \"count\": 864, \"records\": [",
			       cpu ? ", " : "", cpu);
		for (w = 0; w < 864; w++)
			textbuf_printf(&cpus, "%s[%lld, %d]", w ? ", " : "", w * 300000000000LL,
				       w % 100 ? 40000 : 900000 - w);
		textbuf_puts(&cpus, "]}, \"windows\": [");
		for (w = 0; w < 864; w++)
			textbuf_printf(&cpus,
				       "%s{\"end_ns\": %lld, \"max_ns\": %d, \"p99_ns\": 40000,"
				       " \"count\": 300000, \"missed\": %d}",
				       w ? ", " : "", 1796000000000000000LL + w * 300000000000LL,
				       w % 100 ? 40000 + w * 10 : 905000, w == 500);
		textbuf_puts(&cpus, "]}");
	}
	textbuf_init(&doc);
	textbuf_printf(&doc, monitor_state, textbuf_text(&cpus));
	text = strdup(textbuf_text(&doc));
	textbuf_release(&cpus);
	textbuf_release(&doc);
	return text;
}

struct inputs {
	struct run *runs[16];
	unsigned int n;
};

static void load_all(struct inputs *in, bool with_monitor)
{
	unsigned int i;

	in->n = 0;
	for (i = 0; i < NR_FIXTURES; i++) {
		last_error[0] = '\0';
		ck_assert_msg(!import_file(fixtures[i], &in->runs[in->n]), "%s", last_error);
		in->n++;
	}
	if (with_monitor) {
		char *text = monitor_text();

		ck_assert_msg(
			!import_buffer("monitor-3days.json", text, strlen(text), &in->runs[in->n]),
			"%s", last_error);
		in->n++;
		free(text);
	}
}

static void free_all(struct inputs *in)
{
	unsigned int i;

	for (i = 0; i < in->n; i++)
		run_free(in->runs[i]);
}

static unsigned int occurrences(const char *text, const char *what)
{
	unsigned int n = 0;

	for (text = strstr(text, what); text; text = strstr(text + 1, what))
		n++;
	return n;
}

/* every <svg>...</svg> of a page, each checked as an XML document */
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

START_TEST(page_with_every_plot_kind)
{
	static const char *const kinds[] = {
		"id=\"noise-histogram\"",
		"id=\"noise-log-histogram\"",
		"id=\"noise-exceedance\"",
		"id=\"noise-over-time-cpu-1\"",
		"id=\"noise-anatomy\"",
		"id=\"noise-causes\"",
		"id=\"timer-explain-v2-over-time-thread-0-cpu-0\"",
		"id=\"irq-plan-irq-rates\"",
		"id=\"monitor-3days-windows\"",
		"id=\"monitor-3days-over-time-cpu-0\"",
		"id=\"monitor-state-windows\"",
		"id=\"monitor-state-anatomy\"",
		"id=\"compare-latency-exceedance\"",
		"id=\"compare-latency-histogram\"",
		"id=\"compare-latency-cpu1\"",
		"id=\"compare-noise-exceedance\"",
	};
	struct report_options opts = { .title = "fixture page", .budget_ns = 100000 };
	const char *labels[16] = { "noise" };
	struct inputs in;
	struct report *report;
	struct textbuf page;
	const char *html;
	unsigned int i;

	load_all(&in, true);
	report = report_new(in.runs, labels, in.n, &opts);
	ck_assert_ptr_nonnull(report);
	textbuf_init(&page);
	ck_assert_int_eq(report_html(report, &page), 0);
	html = textbuf_text(&page);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		ck_assert_msg(strstr(html, kinds[i]), "no %s", kinds[i]);
	/* one <svg> per plot, each well-formed */
	ck_assert_uint_eq(check_svgs(html), report_nr_plots(report));
	ck_assert_uint_ge(report_nr_plots(report), 25);
	/* self-contained: no script, no link, no URL but fragment references */
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "http:"));
	ck_assert_ptr_null(strstr(html, "https:"));
	ck_assert_ptr_null(strstr(html, "src="));
	ck_assert_ptr_null(strstr(html, "<link"));
	ck_assert_ptr_null(strstr(html, "@import"));
	ck_assert_uint_eq(occurrences(html, "url("), occurrences(html, "url(#"));
	/* the header and the summary in words */
	ck_assert_ptr_nonnull(strstr(html, "<title>fixture page</title>"));
	ck_assert_ptr_nonnull(strstr(html, "The worst timer wake-up latency was <b>8.91 ms</b>"));
	ck_assert_ptr_nonnull(strstr(html, "The largest OS noise gap was <b>2.6 ms</b>"));
	ck_assert_ptr_nonnull(strstr(html, "Against the budget of 100 us: "));
	ck_assert_ptr_nonnull(strstr(html, "at most 143 of 4\xe2\x80\x89"
					   "979 wake-ups of “timer-explain-v2” (2.9%)"));
	ck_assert_ptr_nonnull(strstr(html, "The audit “check” failed 2 rules"));
	ck_assert_ptr_nonnull(strstr(html, "PREEMPT_RT kernel"));
	ck_assert_ptr_nonnull(strstr(html, "Intel(R) Xeon(R) Processor"));
	/* the same file name twice keeps the extensions apart */
	ck_assert_ptr_nonnull(strstr(html, ">cyclictest-t2-h400.json</a>"));
	ck_assert_ptr_nonnull(strstr(html, ">cyclictest-t2-h400.txt</a>"));
	textbuf_release(&page);
	report_free(report);
	free_all(&in);
}
END_TEST

START_TEST(hostile_strings_are_escaped)
{
	static const char doc[] =
		"{\"file_version\": 1, \"cmdline:\": \"cyclictest <script>alert('x')</script> & "
		"\\\"q\\\" \\u0001\", \"sysinfo\": {\"nodename\": \"<img src=x onerror=alert(1)>\"},"
		"\"thread\": {\"0\": {\"histogram\": {\"20\": 5, \"30\": 4}, \"cycles\": 9,"
		" \"min\": 20, \"max\": 30, \"avg\": 24, \"cpu\": 0}}}";
	const char *labels[] = { "</title><script>bad()</script>" };
	struct report *report;
	struct textbuf page;
	struct run *run;

	ck_assert_int_eq(import_buffer("<b>evil</b>.json", doc, strlen(doc), &run), 0);
	report = report_new(&run, labels, 1, NULL);
	ck_assert_ptr_nonnull(report);
	textbuf_init(&page);
	ck_assert_int_eq(report_html(report, &page), 0);
	ck_assert_ptr_null(strstr(textbuf_text(&page), "<script"));
	ck_assert_ptr_null(strstr(textbuf_text(&page), "<img"));
	ck_assert_ptr_null(strstr(textbuf_text(&page), "<b>evil"));
	ck_assert_ptr_nonnull(strstr(textbuf_text(&page), "&lt;script&gt;alert(&#39;x&#39;)"));
	ck_assert_ptr_nonnull(strstr(textbuf_text(&page), "&lt;/title&gt;&lt;script&gt;bad()"));
	ck_assert_uint_eq(check_svgs(textbuf_text(&page)), report_nr_plots(report));
	textbuf_release(&page);
	report_free(report);
	run_free(run);
}
END_TEST

static void refused(const char *text, const char *why)
{
	struct report *report;
	struct run *run;

	ck_assert_int_eq(import_buffer("bad.json", text, strlen(text), &run), 0);
	last_error[0] = '\0';
	report = report_new(&run, NULL, 1, NULL);
	ck_assert_ptr_null(report);
	ck_assert_msg(strstr(last_error, "bad.json") && strstr(last_error, why), "'%s'",
		      last_error);
	run_free(run);
}

START_TEST(bad_inputs_make_no_page)
{
	refused("{\"schema\": \"latscope/1\", \"command\": \"noise\", \"cpus\": [{\"cpu\": 1,"
		" \"loops\": 0, \"histogram\": {\"unit\": \"ns\", \"buckets\": [], \"overflow\": 0}}]}",
		"cpu 1: the histogram is empty");
	refused("{\"schema\": \"latscope/1\", \"command\": \"timer\", \"threads\": [{\"thread\": 0,"
		" \"cpu\": 0, \"cycles\": 1, \"max_ns\": 5000, \"histogram\": {\"unit\": \"ns\","
		" \"buckets\": [[4992, 5023, 1]], \"overflow\": 0}}]}",
		"one sample, too few");
	refused("{\"schema\": \"latscope/1\", \"command\": \"noise\", \"cpus\": []}",
		"no CPU or thread was measured");
	refused("{\"file_version\": 1, \"thread\": {\"0\": {\"histogram\": {}, \"cycles\": 0,"
		" \"min\": 0, \"max\": 0, \"avg\": 0, \"cpu\": 0}}}",
		"thread 0 (cpu 0): the histogram is empty");
}
END_TEST

START_TEST(unwritable_page_leaves_nothing)
{
	struct inputs in;
	struct report *report;

	load_all(&in, false);
	report = report_new(in.runs, NULL, 2, NULL);
	ck_assert_ptr_nonnull(report);
	ck_assert_int_eq(report_write_html(report, "/nonexistent/dir/page.html"), -ENOENT);
	ck_assert_int_ne(access("/nonexistent/dir", F_OK), 0);
	report_free(report);
	free_all(&in);
}
END_TEST

static unsigned int files_ending(const char *dir, const char *suffix, bool check_xml)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), slen = strlen(suffix);
		char path[4096];
		FILE *f;
		char *text;
		long size;

		/* no temporary file left behind */
		ck_assert_msg(strncmp(e->d_name, ".latscope-", 10), "left %s", e->d_name);
		if (len < slen || strcmp(e->d_name + len - slen, suffix))
			continue;
		n++;
		if (!check_xml)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		rewind(f);
		text = calloc(1, (size_t)size + 1);
		ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
		fclose(f);
		ck_assert_ptr_nonnull(strstr(text, "xmlns=\"http://www.w3.org/2000/svg\""));
		ck_assert_msg(!xml_check(text, true), "%s is not well-formed", path);
		free(text);
	}
	closedir(d);
	return n;
}

START_TEST(svg_and_gnuplot_files)
{
	char dir[] = "/tmp/latscope-report-XXXXXX", svg[256], gp[256], command[1024];
	struct inputs in;
	struct report *report;
	int status;

	load_all(&in, true);
	report = report_new(in.runs, NULL, in.n, NULL);
	ck_assert_ptr_nonnull(report);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/svg", dir);
	snprintf(gp, sizeof(gp), "%s/gnuplot", dir);
	ck_assert_int_eq(report_write_svg(report, svg), 0);
	ck_assert_uint_eq(files_ending(svg, ".svg", true), report_nr_plots(report));
	ck_assert_int_eq(report_write_gnuplot(report, gp), 0);
	/* one .dat and one .gp per measuring input */
	ck_assert_uint_eq(files_ending(gp, ".dat", false), 7);
	ck_assert_uint_eq(files_ending(gp, ".gp", false), 7);
	/* OSADL's layout: the us, then a count per thread, tab-separated */
	snprintf(command, sizeof(command), "grep -q '^17\t1\t0$' '%s/cyclictest-t2-h400-json.dat'",
		 gp);
	ck_assert_int_eq(system(command), 0);
	/* gnuplot, when installed, draws what the script says */
	if (!system("command -v gnuplot >/dev/null 2>&1")) {
		snprintf(command, sizeof(command),
			 "cd '%s' && gnuplot noise-explain.gp && gnuplot oslat-c1.gp && "
			 "test -s noise-explain-gnuplot.svg && test -s oslat-c1-gnuplot.svg",
			 gp);
		status = system(command);
		ck_assert_int_eq(WEXITSTATUS(status), 0);
	}
	/* a file where the directory should be */
	snprintf(command, sizeof(command), "%s/svg/noise-explain-histogram.svg", dir);
	ck_assert_int_eq(report_write_svg(report, command), -ENOTDIR);
	unit_remove_tree(dir);
	report_free(report);
	free_all(&in);
}
END_TEST

/* staged files: nothing in the target until committed, nothing left when abandoned */
START_TEST(staged_files_all_or_nothing)
{
	char dir[] = "/tmp/latscope-report-XXXXXX", svg[256], made[256], old[300];
	struct report_staged *staged;
	struct inputs in;
	struct report *report;
	FILE *f;

	load_all(&in, true);
	report = report_new(in.runs, NULL, in.n, NULL);
	ck_assert_ptr_nonnull(report);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/svg", dir);
	ck_assert_int_eq(mkdir(svg, 0755), 0);
	snprintf(old, sizeof(old), "%s/mine.svg", svg);
	f = fopen(old, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	/* staged: only a private directory beside the old file */
	ck_assert_int_eq(report_stage_svg(report, svg, &staged), 0);
	ck_assert_uint_eq(unit_count_entries(svg), 2);
	ck_assert_int_eq(access(old, F_OK), 0);
	report_staged_abandon(staged);
	ck_assert_uint_eq(unit_count_entries(svg), 1);
	/* committed: every plot in place, the old file kept, nothing else */
	ck_assert_int_eq(report_stage_svg(report, svg, &staged), 0);
	ck_assert_int_eq(report_staged_commit(staged), 0);
	ck_assert_uint_eq(files_ending(svg, ".svg", false), report_nr_plots(report) + 1);
	ck_assert_uint_eq(unit_count_entries(svg), report_nr_plots(report) + 1);
	/* a directory made for staged files goes when they are abandoned */
	snprintf(made, sizeof(made), "%s/gnuplot", dir);
	ck_assert_int_eq(report_stage_gnuplot(report, made, &staged), 0);
	report_staged_abandon(staged);
	ck_assert_int_eq(access(made, F_OK), -1);
	report_staged_commit(NULL);
	report_staged_abandon(NULL);
	unit_remove_tree(dir);
	report_free(report);
	free_all(&in);
}
END_TEST

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * Damaged inputs: each fixture with bytes replaced, removed or cut. The
 * import refuses or reads it; what it reads, the page draws. Nothing
 * crashes (run under ASan/UBSan by the sanitizer build).
 */
START_TEST(damaged_inputs_never_crash)
{
	static const char *const files[] = {
		FIXTURE("peers/cyclictest-t2-h400.json"), FIXTURE("peers/oslat-c1.json"),
		FIXTURE("peers/cyclictest-t2-h400.txt"),  FIXTURE("report/irq-plan-v2.json"),
		FIXTURE("report/timer-explain.json"),
	};
	static const char alphabet[] = "{}[]\",:0123456789-.e \n#tfn";
	uint64_t state = 0xfeedface12345678ULL;
	unsigned int f, round, read = 0, rounds = 300;

	/* a longer campaign on request: REPORT_DAMAGE_ROUNDS=100000 */
	if (getenv("REPORT_DAMAGE_ROUNDS"))
		rounds = (unsigned int)strtoul(getenv("REPORT_DAMAGE_ROUNDS"), NULL, 10);

	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		FILE *in = fopen(files[f], "r");
		char *text, *copy;
		long size;

		ck_assert_ptr_nonnull(in);
		fseek(in, 0, SEEK_END);
		size = ftell(in);
		rewind(in);
		text = malloc((size_t)size + 1);
		copy = malloc((size_t)size + 1);
		ck_assert_uint_eq(fread(text, 1, (size_t)size, in), (size_t)size);
		fclose(in);
		for (round = 0; round < rounds; round++) {
			size_t len = (size_t)size, k;
			struct run *run;

			memcpy(copy, text, len);
			for (k = 0; k < 1 + next_random(&state) % 4 && len; k++) {
				size_t at = next_random(&state) % len;

				if (next_random(&state) % 4)
					copy[at] = alphabet[next_random(&state) %
							    (sizeof(alphabet) - 1)];
				else
					memmove(copy + at, copy + at + 1, --len - at);
			}
			if (!(next_random(&state) % 10))
				len = next_random(&state) % (len + 1);
			if (import_buffer("damaged", copy, len, &run))
				continue;
			read++;
			{
				struct report *report = report_new(&run, NULL, 1, NULL);
				struct textbuf page;

				if (report) {
					textbuf_init(&page);
					ck_assert_int_eq(report_html(report, &page), 0);
					textbuf_release(&page);
					report_free(report);
				}
			}
			run_free(run);
		}
		free(text);
		free(copy);
	}
	/* some damage leaves a readable file: those went all the way to a page */
	ck_assert_uint_gt(read, 50);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	log_set_hook(remember);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, page_with_every_plot_kind);
	tcase_add_test(tc, hostile_strings_are_escaped);
	tcase_add_test(tc, bad_inputs_make_no_page);
	tcase_add_test(tc, unwritable_page_leaves_nothing);
	tcase_add_test(tc, svg_and_gnuplot_files);
	tcase_add_test(tc, staged_files_all_or_nothing);
	tcase_add_test(tc, damaged_inputs_never_crash);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
