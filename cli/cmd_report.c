// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope report: one self-contained HTML page (and, on request, an SVG
 * file per plot and gnuplot files) from any number of results, latscope's
 * and the peers'. The reading is import.h's and the page report.h's; this
 * file holds the command line and the order of the writes: every output is
 * made in full before the first one is put in place, so a failure leaves
 * every target as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common_options.h"
#include "latscope/import.h"
#include "latscope/parse.h"
#include "latscope/report.h"
#include "latscope/textbuf.h"
#include "option_table.h"
#include "output_path.h"

/* the page when -o is not given: in the current directory, as gnuplot and rtla do */
#define REPORT_DEFAULT_PAGE "latscope-report.html"

struct report_command_options {
	struct option_list files; /* FILE... */
	struct option_list labels; /* --label NAME=FILE, as given */
	const char *page_path; /* -o; "-" for stdout */
	bool page_given;
	const char *svg_dir;
	const char *gnuplot_dir;
	const char *title;
	uint64_t budget_ns;
	/* finish(): the name of each file (NULL when not labelled), owned */
	char **names;
};

#define REPORT(member) OPTION_FIELD(struct report_command_options, member)

/* -o FILE, or "-" for stdout; a file is held to the one path rule */
static int parse_page(const struct option_value *value)
{
	int ret = 0;

	if (strcmp(value->text, "-"))
		ret = output_file_check(value->spelled, value->text);
	if (!ret)
		*(const char **)value->field = value->text;
	return ret;
}

/* NAME=FILE with both parts; which FILE it names is settled by finish() */
static int parse_label(const struct option_value *value)
{
	const char *eq = strchr(value->text, '=');

	if (!eq || eq == value->text || !eq[1])
		return usage_error("invalid label '%s' for %s (NAME=FILE)", value->text,
				   value->spelled);
	return 0;
}

static const struct option_spec report_option_specs[] = {
	{ .long_name = "output",
	  .short_name = 'o',
	  .kind = OPTION_CUSTOM,
	  .where = REPORT(page_path),
	  .given = REPORT(page_given),
	  .parse = parse_page,
	  .complete_as = OPTION_OUTPUT_FILE,
	  .value_name = "FILE",
	  .help = "write the page to FILE ('-': standard output)",
	  .default_text = REPORT_DEFAULT_PAGE },
	{ .long_name = "svg",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = REPORT(svg_dir),
	  .help = "also write each plot as an SVG file into DIR" },
	{ .long_name = "gnuplot",
	  .kind = OPTION_OUTPUT_DIR,
	  .where = REPORT(gnuplot_dir),
	  .help = "also write the histograms as gnuplot .dat and .gp files into DIR" },
	{ .long_name = "title",
	  .short_name = 't',
	  .kind = OPTION_TEXT,
	  .where = REPORT(title),
	  .help = "the page's title",
	  .default_text = "latscope report" },
	OPTION_BUDGET(REPORT(budget_ns), 'b'),
	{ .long_name = "label",
	  .short_name = 'l',
	  .kind = OPTION_CUSTOM,
	  .flags = OPTION_REPEATABLE,
	  .where = REPORT(labels),
	  .parse = parse_label,
	  .value_name = "NAME=FILE",
	  .help = "call FILE (one of the FILEs) NAME in legends and headings",
	  .default_text = "the file name" },
	OPTION_TABLE_END,
};

static const struct option_positional report_positionals[] = {
	{ .name = "FILE",
	  .kind = OPTION_INPUT_FILE,
	  .min = 1,
	  .max = OPTION_MANY,
	  .where = REPORT(files),
	  .help = "results to show" },
	OPTION_POSITIONALS_END,
};

static void report_defaults(void *options)
{
	struct report_command_options *o = options;

	o->page_path = REPORT_DEFAULT_PAGE;
}

static int find_file(const struct report_command_options *o, const char *path)
{
	size_t i;

	for (i = 0; i < o->files.count; i++)
		if (path_same_file(o->files.items[i], path))
			return (int)i;
	return -1;
}

/* Each --label names a FILE given, once; no two files share a name. */
static int resolve_labels(struct report_command_options *o)
{
	size_t i, j, len;
	int file;

	o->names = calloc(o->files.count, sizeof(*o->names));
	if (!o->names)
		return runtime_error("out of memory");
	for (i = 0; i < o->labels.count; i++) {
		const char *text = o->labels.items[i], *eq = strchr(text, '=');

		len = (size_t)(eq - text);
		file = find_file(o, eq + 1);
		if (file < 0)
			return usage_error("--label '%s': '%s' is not one of the FILEs to report",
					   text, eq + 1);
		if (o->names[file])
			return usage_error("--label '%s': '%s' is already called '%s'", text,
					   eq + 1, o->names[file]);
		for (j = 0; j < o->files.count; j++)
			if (o->names[j] && strlen(o->names[j]) == len &&
			    !strncmp(o->names[j], text, len))
				return usage_error("--label '%s': two files called '%.*s'", text,
						   (int)len, text);
		o->names[file] = strndup(text, len);
		if (!o->names[file])
			return runtime_error("out of memory");
	}
	return 0;
}

static int report_finish(void *options, void *context)
{
	struct report_command_options *o = options;
	size_t i;
	int status;

	(void)context;
	for (i = 0; i < o->files.count; i++)
		if (find_file(o, o->files.items[i]) != (int)i)
			return usage_error("'%s' is given twice", o->files.items[i]);
	/* the default page is held to the same rule as a page given */
	if (!o->page_given) {
		status = output_file_check("--output", o->page_path);
		if (status)
			return status;
	}
	if (strcmp(o->page_path, "-") && find_file(o, o->page_path) >= 0)
		return usage_error("--output '%s' is one of the FILEs to report: it would be "
				   "overwritten",
				   o->page_path);
	return resolve_labels(o);
}

static void report_release(void *options)
{
	struct report_command_options *o = options;
	size_t i;

	if (o->names)
		for (i = 0; i < o->files.count; i++)
			free(o->names[i]);
	free(o->names);
	o->names = NULL;
}

const struct option_command report_command = {
	.name = "report",
	.description =
		"Read results, latscope's JSON of every command and rt-tests' cyclictest and\n"
		"oslat --json and cyclictest -h text, recognised by their content, and write\n"
		"one self-contained HTML page: histograms, exceedance curves, spikes over\n"
		"time, their causes, the audit and the IRQ plan; several inputs overlaid.",
	.options = report_option_specs,
	.positionals = report_positionals,
	.size = sizeof(struct report_command_options),
	.init = report_defaults,
	.finish = report_finish,
	.release = report_release,
	.footer = "--budget: marked on the plots, the latencies above it counted.\n"
		  "Durations take a unit: ns, us, ms, s, m, h. Exit status:\n"
		  "0 ok, 1 a FILE is not a result that can be shown or an output could not\n"
		  "be written, 129 usage error. See latscope-report(1).",
};

static void free_runs(struct run **runs, size_t n)
{
	size_t i;

	if (!runs)
		return;
	for (i = 0; i < n; i++)
		run_free(runs[i]);
	free(runs);
}

/*
 * The page on standard output, whole: it is built in memory before. A
 * failure is said here, naming the option; what stdio still holds of the
 * page is dropped and the error cleared, so that the check of stdout at
 * exit (main.c) does not say it a second time.
 */
static int write_stdout(const struct textbuf *page)
{
	int err;

	errno = 0;
	if (fwrite(textbuf_text(page), 1, page->len, stdout) == page->len && !fflush(stdout))
		return 0;
	err = errno ? errno : EIO;
	__fpurge(stdout);
	clearerr(stdout);
	return runtime_error("cannot write --output '-': %s", strerror(err));
}

/* "412 kB" */
static const char *size_text(size_t bytes, char *buf, size_t size)
{
	if (bytes >= 10 * 1000 * 1000)
		snprintf(buf, size, "%.0f MB", (double)bytes / 1e6);
	else if (bytes >= 1000 * 1000)
		snprintf(buf, size, "%.1f MB", (double)bytes / 1e6);
	else
		snprintf(buf, size, "%.0f kB", (double)bytes / 1e3);
	return buf;
}

/*
 * Every output made before any is put in place: the page in memory, the
 * directories' files in private directories inside them; then the page
 * (atomically), then the directories. A failure before the page is written
 * leaves nothing behind.
 */
static int write_outputs(const struct report_command_options *o, struct report *report)
{
	struct report_staged *svg = NULL, *gnuplot = NULL;
	struct textbuf page;
	char size[32];
	int status = EXIT_OK, ret;

	textbuf_init(&page);
	if (report_html(report, &page) || textbuf_error(&page)) {
		status = runtime_error("out of memory");
		goto out;
	}
	if (o->svg_dir && report_stage_svg(report, o->svg_dir, &svg)) {
		status = EXIT_ERROR;
		goto out;
	}
	if (o->gnuplot_dir && report_stage_gnuplot(report, o->gnuplot_dir, &gnuplot)) {
		status = EXIT_ERROR;
		goto out;
	}
	if (!strcmp(o->page_path, "-")) {
		status = write_stdout(&page);
	} else {
		ret = textbuf_write_file(&page, o->page_path);
		if (ret)
			status = runtime_error("cannot write --output '%s': %s", o->page_path,
					       strerror(-ret));
	}
	if (status)
		goto out;
	ret = report_staged_commit(svg);
	svg = NULL;
	if (report_staged_commit(gnuplot) || ret)
		status = EXIT_ERROR;
	gnuplot = NULL;
	if (!status && strcmp(o->page_path, "-"))
		printf("%s: %u plots from %zu inputs, %s\n", o->page_path, report_nr_plots(report),
		       o->files.count, size_text(page.len, size, sizeof(size)));
out:
	report_staged_abandon(svg);
	report_staged_abandon(gnuplot);
	textbuf_release(&page);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_command_options o;
	struct report_options page = { 0 };
	struct report *report = NULL;
	struct run **runs = NULL;
	size_t i;
	int status;

	if (!option_parse(&report_command, argc, argv, &o, NULL, &status))
		goto out;
	runs = calloc(o.files.count, sizeof(*runs));
	if (!runs) {
		status = runtime_error("out of memory");
		goto out;
	}
	/* import_file() and report_new() say what is wrong with a file, naming it */
	for (i = 0; i < o.files.count; i++)
		if (import_file(o.files.items[i], &runs[i])) {
			status = EXIT_ERROR;
			goto out;
		}
	page.title = o.title;
	page.budget_ns = o.budget_ns;
	report = report_new(runs, (const char *const *)o.names, (unsigned int)o.files.count, &page);
	if (!report) {
		status = EXIT_ERROR;
		goto out;
	}
	status = write_outputs(&o, report);
out:
	report_free(report);
	free_runs(runs, o.files.count);
	option_release(&report_command, &o);
	return status;
}
