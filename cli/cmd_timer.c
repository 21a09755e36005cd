// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope timer (alias cyclic): cyclictest's options and output, with
 * checked values, percentiles, missed periods and the largest spikes. The
 * options are timer_options.c's, the run timer_session.c's, the screen
 * timer_live.c's and the document timer_json.c's, what is printed at the
 * end timer_report.c's; this is the order they come in and the exit status.
 */
#include <errno.h>
#include <string.h>

#include "budget.h"
#include "cli.h"
#include "junit_output.h"
#include "measure_junit.h"
#include "output_path.h"
#include "timer_session.h"
#include "validity_report.h"

/* --budget: name every thread over it */
static int check_budget(struct timer_session *s)
{
	struct budget_check check = { s->opts.fail_above_ns, "thread", EXIT_OK };
	unsigned int i;

	for (i = 0; check.budget_ns && i < s->opts.params.nr_threads; i++) {
		const struct timer_stats *stats = timer_result(s->run, i);

		if (stats->hist.count)
			budget_check_lane(&check, i, stats->hist.max);
	}
	return check.status;
}

/* --json and --junit, from the one document */
static int write_results(struct timer_session *s, int status)
{
	json_t *doc = timer_json_document(s, status);
	struct junit_suite suite;
	int ret;

	if (s->opts.json.path && output_json_write(&s->opts.json, doc))
		return EXIT_ERROR;
	if (!s->opts.junit.path)
		return EXIT_OK;
	junit_output_start(&suite, "timer", doc, s->opts.json.path);
	measure_junit_cases(&suite, doc, s->opts.fail_above_ns);
	measure_junit_validity(&suite, doc, s->opts.strict);
	ret = output_junit_write(&s->opts.junit, &suite);
	junit_suite_release(&suite);
	return ret;
}

int cmd_timer(int argc, char **argv)
{
	struct timer_session s = { 0 };
	int status;

	if (!timer_session_prepare(&s, argc, argv, &status))
		goto out;
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	status = timer_session_run(&s);
	if (status && !s.run)
		goto out;
	if (timer_session_report(&s))
		status = EXIT_ERROR;
	if (timer_tracing_stopped(s.run))
		fprintf(stderr, "latscope timer: tracing stopped at the break (tracing_on is 0: "
				"write 1 to it to trace again)\n");
	if (status == EXIT_OK && timer_end_reason(s.run) == TIMER_END_BREAK)
		status = EXIT_BUDGET;
	if (status == EXIT_OK)
		status = check_budget(&s);
	status = validity_say(&s.validity, s.opts.strict, status);
	if ((s.opts.json.path || s.opts.junit.path) && write_results(&s, status))
		status = EXIT_ERROR;
out:
	timer_session_free(&s);
	return status;
}
