// SPDX-License-Identifier: GPL-2.0-or-later
/* What latscope timer shows while its threads run: cyclictest's screen, -v samples. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "latscope/log.h"
#include "timer_render.h"
#include "timer_session.h"

void timer_live_print_lines(struct timer_session *s)
{
	const struct timer_options *opts = &s->opts;
	unsigned int i, nr = opts->params.nr_threads;

	for (i = 0; i < nr; i++) {
		struct timer_live live;
		struct timer_line line;
		pid_t tid;

		timer_read_live(s->run, i, &live, &tid);
		timer_line_from_live(&line, i, &live, tid, &opts->threads[i], opts->params.unit_ns);
		timer_render_line(s->out, &line, opts->nsecs);
	}
}

/* -M: redraw only when some maximum moved since the last drawing */
static bool new_maximum(struct timer_session *s)
{
	unsigned int i;
	bool moved = false;

	for (i = 0; i < s->opts.params.nr_threads; i++) {
		struct timer_live live;

		timer_read_live(s->run, i, &live, NULL);
		if (live.max_ns != s->shown_max[i]) {
			s->shown_max[i] = live.max_ns;
			moved = true;
		}
	}
	return moved;
}

/* The terminal screen: cyclictest's header and lines, redrawn in place. */
void timer_live_draw(struct timer_session *s, bool final)
{
	char loadavg[128];

	if (s->opts.refresh_on_max && !new_maximum(s) && s->drawn && !final)
		return;
	if (s->drawn)
		fprintf(s->out, "\033[%uA", s->opts.params.nr_threads + 2);
	if (sysroot_read(s->root, loadavg, sizeof(loadavg), "/proc/loadavg") < 0)
		snprintf(loadavg, sizeof(loadavg), "?");
	fprintf(s->out, "policy: %s: loadavg: %s          \n\n",
		rt_policy_name(s->opts.params.policy), loadavg);
	timer_live_print_lines(s);
	fflush(s->out);
	s->drawn = true;
}

static void print_sample(void *context, unsigned int thread, uint64_t cycle, uint64_t latency_ns)
{
	struct timer_session *s = context;

	fprintf(s->out, "%8u:%8" PRIu64 ":%8" PRIu64 "\n", thread, cycle,
		latency_ns / s->opts.params.unit_ns);
}

void timer_live_drain_samples(struct timer_session *s)
{
	unsigned int i;
	uint64_t lost;

	for (i = 0; i < s->opts.params.nr_threads; i++) {
		lost = timer_drain_samples(s->run, i, &s->next_sample[i], print_sample, s);
		if (lost)
			log_warning("-v fell behind: %" PRIu64 " samples of thread %u not printed",
				    lost, i);
	}
	fflush(s->out);
}

/*
 * The screen is redrawn once a second; with --explain the trace is read
 * four times a second.
 */
void timer_live_follow(struct timer_session *s, const sigset_t *wait_mask)
{
	bool refresh = s->live || s->opts.verbose, explain = s->explain.run.session != NULL;
	int step = explain ? 250 : 1000, since_draw = 0;

	/* nothing to refresh or read: wake only to collect the block maxima */
	if (!refresh && !explain)
		step = TIMER_BLOCK_COLLECT_MS;
	while (!stop_requested) {
		if (timer_wait(s->run, step, wait_mask))
			break;
		if (stop_requested)
			break;
		timer_collect_blocks(s->run);
		timer_explain_pump(&s->explain, s->run);
		since_draw += step;
		if (since_draw < 1000)
			continue;
		since_draw = 0;
		if (s->opts.verbose)
			timer_live_drain_samples(s);
		else if (s->live)
			timer_live_draw(s, false);
	}
}
