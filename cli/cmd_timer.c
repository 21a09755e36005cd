// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope timer (alias cyclic): cyclictest's options and output, with
 * checked values, percentiles, missed periods and the largest spikes. The
 * options are timer_options.c's, the run timer_session.c's, the screen
 * timer_live.c's and the document timer_json.c's; this is the lifecycle
 * and what is printed at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "latscope/log.h"
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

/* Everything printed after the run, cyclictest's parts first. */
static int print_results(struct timer_session *s)
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

/* --fail-above: name every thread over the budget */
static int check_budget(struct timer_session *s)
{
	char max[32], limit[32];
	unsigned int i;
	int status = EXIT_OK;

	for (i = 0; s->opts.fail_above_ns && i < s->opts.params.nr_threads; i++) {
		const struct timer_stats *stats = timer_result(s->run, i);

		if (stats->hist.count && stats->hist.max > s->opts.fail_above_ns) {
			fprintf(stderr,
				"latscope timer: thread %u: max %s us is above --fail-above %s\n",
				i, format_us(stats->hist.max, max, sizeof(max)),
				format_duration(s->opts.fail_above_ns, limit, sizeof(limit)));
			status = EXIT_BUDGET;
		}
	}
	return status;
}

int cmd_timer(int argc, char **argv)
{
	struct timer_session s = { 0 };
	sigset_t stop_signals, wait_mask;
	int ret, status;

	if (!timer_session_prepare(&s, argc, argv, &status))
		goto out;
	/*
	 * Stop signals are blocked except inside the wait, so that one that
	 * comes between a check of the flag and the wait is not missed.
	 */
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &wait_mask);

	status = timer_session_start(&s);
	if (status) {
		pthread_sigmask(SIG_SETMASK, &wait_mask, NULL);
		goto out;
	}
	timer_live_follow(&s, &wait_mask);
	ret = timer_stop(s.run);
	timer_session_restore(&s);
	if (timer_explain_end(&s.explain, s.run))
		log_warning("out of memory explaining the spikes");
	pthread_sigmask(SIG_SETMASK, &wait_mask, NULL);

	status = ret ? EXIT_ERROR : EXIT_OK;
	if (print_results(&s))
		status = EXIT_ERROR;
	if (timer_tracing_stopped(s.run))
		fprintf(stderr, "latscope timer: tracing stopped at the break (tracing_on is 0: "
				"write 1 to it to trace again)\n");
	if (status == EXIT_OK && timer_end_reason(s.run) == TIMER_END_BREAK)
		status = EXIT_BUDGET;
	if (status == EXIT_OK)
		status = check_budget(&s);
	if (s.opts.json.path && timer_json_write(&s, status))
		status = EXIT_ERROR;
out:
	timer_session_free(&s);
	return status;
}
