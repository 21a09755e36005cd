// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-render: the page builder driven from the command line, for the
 * benchmark and the page test until `latscope report` exists. Not the
 * command: no option table, no --help beyond the usage line.
 *
 * usage: report-render -o PAGE.html [--svg DIR] [--gnuplot DIR]
 *                      [--title TEXT] [--budget DUR] [--label NAME=FILE]... FILE...
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latscope/import.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "latscope/report.h"

static void print_log(enum log_level level, const char *message)
{
	fprintf(stderr, "report-render: %s%s\n", level == LATSCOPE_LOG_WARNING ? "warning: " : "",
		message);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 's' },
		{ "gnuplot", required_argument, NULL, 'g' },
		{ "title", required_argument, NULL, 't' },
		{ "budget", required_argument, NULL, 'b' },
		{ "label", required_argument, NULL, 'l' },
		{ "times", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_options opts = { 0 };
	const char *output = NULL, *svg = NULL, *gnuplot = NULL;
	char **label_args = NULL;
	const char **labels;
	struct run **runs;
	struct report *report;
	struct timespec start;
	int c, nr_labels = 0, i, j, n, ret = 0;
	bool times = false;

	log_set_hook(print_log);
	label_args = calloc((size_t)argc, sizeof(*label_args));
	if (!label_args)
		return 1;
	while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 's':
			svg = optarg;
			break;
		case 'g':
			gnuplot = optarg;
			break;
		case 't':
			opts.title = optarg;
			break;
		case 'b':
			if (parse_duration(optarg, NS_PER_US, 1, 3600 * NS_PER_SEC,
					   &opts.budget_ns)) {
				fprintf(stderr,
					"report-render: invalid duration '%s' for --budget\n",
					optarg);
				return 129;
			}
			break;
		case 'l':
			if (!strchr(optarg, '=')) {
				fprintf(stderr, "report-render: --label wants NAME=FILE\n");
				return 129;
			}
			label_args[nr_labels++] = optarg;
			break;
		case 'T':
			times = true;
			break;
		default:
			return 129;
		}
	}
	n = argc - optind;
	if (n < 1 || (!output && !svg && !gnuplot)) {
		fprintf(stderr, "usage: report-render -o PAGE.html [--svg DIR] [--gnuplot DIR] "
				"[--title TEXT] [--budget DUR] [--label NAME=FILE]... FILE...\n");
		return 129;
	}
	runs = calloc((size_t)n, sizeof(*runs));
	labels = calloc((size_t)n, sizeof(*labels));
	if (!runs || !labels)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < n; i++) {
		const char *file = argv[optind + i];

		if (import_file(file, &runs[i])) {
			ret = 1;
			goto out;
		}
		for (j = 0; j < nr_labels; j++) {
			char *eq = strchr(label_args[j], '=');

			if (!strcmp(eq + 1, file)) {
				*eq = '\0';
				labels[i] = label_args[j];
			}
		}
	}
	if (times)
		fprintf(stderr, "import: %.3f s\n", seconds_since(&start));
	report = report_new(runs, labels, (unsigned int)n, &opts);
	if (!report) {
		ret = 1;
		goto out;
	}
	if (output && (c = report_write_html(report, output))) {
		fprintf(stderr, "report-render: cannot write '%s': %s\n", output, strerror(-c));
		ret = 1;
	}
	if (!ret && svg && report_write_svg(report, svg))
		ret = 1;
	if (!ret && gnuplot && report_write_gnuplot(report, gnuplot))
		ret = 1;
	if (times)
		fprintf(stderr, "total: %.3f s, %u plots\n", seconds_since(&start),
			report_nr_plots(report));
	report_free(report);
out:
	for (i = 0; i < n; i++)
		run_free(runs[i]);
	free(runs);
	free(labels);
	free(label_args);
	return ret;
}
