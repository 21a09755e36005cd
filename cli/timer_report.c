// SPDX-License-Identifier: GPL-2.0-or-later
/* What latscope timer prints once its threads ended, cyclictest's parts first. */
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "output_path.h"
#include "timer_render.h"
#include "timer_session.h"

static const struct timer_stats **results(struct timer_session *s)
{
	unsigned int i, nr = s->opts.params.nr_threads;
	const struct timer_stats **stats = calloc(nr, sizeof(*stats));

	if (stats)
		for (i = 0; i < nr; i++)
			stats[i] = timer_result(s->run, i);
	return stats;
}

/* cyclictest's -h/-H dump: on stdout, or whole (or not at all) in --histfile */
static int write_histogram(struct timer_session *s, const struct timer_stats **stats)
{
	struct atomic_file file;
	int status;

	if (!s->opts.histfile) {
		timer_render_histogram(s->out, stats, s->opts.params.nr_threads, s->opts.histofall);
		return 0;
	}
	status = output_text_open(&file, "--histfile", s->opts.histfile);
	if (status)
		return status;
	timer_render_histogram(file.stream, stats, s->opts.params.nr_threads, s->opts.histofall);
	return output_text_commit(&file, "--histfile", s->opts.histfile);
}

static void print_break(struct timer_session *s)
{
	struct timer_spike spike;
	unsigned int i, thread;

	fprintf(s->out, "# Thread Ids:");
	for (i = 0; i < s->opts.params.nr_threads; i++)
		fprintf(s->out, " %05d", timer_result(s->run, i)->tid);
	fprintf(s->out, "\n");
	if (!timer_break(s->run, &thread, &spike))
		return;
	fprintf(s->out, "# Break thread: %d\n", timer_result(s->run, thread)->tid);
	fprintf(s->out, "# Break value: %" PRIu64 "\n", spike.latency_ns / s->opts.params.unit_ns);
}

int timer_session_report(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	const struct timer_stats **stats = results(s);
	int ret = 0;

	if (!stats)
		return runtime_error("out of memory");
	if (opts->verbose) {
		timer_live_drain_samples(s);
		if (opts->quiet)
			timer_live_print_lines(s);
	} else if (s->live) {
		timer_live_draw(s, true);
	} else if (!(opts->quiet && opts->params.histogram_buckets)) {
		/* cyclictest -q -h prints the histogram alone */
		timer_live_print_lines(s);
	}
	if (opts->params.histogram_buckets)
		ret = write_histogram(s, stats);
	if (opts->break_us)
		print_break(s);
	timer_render_summary(s->out, stats, opts->params.nr_threads, timer_origin_ns(s->run));
	timer_explain_report(s->out, &s->explain, s->run, opts);
	fflush(s->out);
	free(stats);
	if (!ret && opts->trace_dir)
		ret = output_dir_create("--trace-dir", opts->trace_dir);
	if (!ret && opts->trace_dir &&
	    timer_explain_write_captures(&s->explain, opts->trace_dir) < 0)
		ret = EXIT_ERROR;
	return ret;
}
