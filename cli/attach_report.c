// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope attach's lines at the end, and its result document (--json). */
#include <stdio.h>

#include "attach_session.h"
#include "cli.h"
#include "latscope/result.h"
#include "timer_render.h"

static const char *end_name(enum attach_end end)
{
	static const char *const names[] = {
		[ATTACH_END_DURATION] = "complete",
		[ATTACH_END_SIGNAL] = "stopped",
		[ATTACH_END_TARGET] = "target_ended",
		[ATTACH_END_ERROR] = "error",
	};

	return names[end];
}

/* "SCHED_FIFO 95 on cpus 1", from /proc when the thread was first seen */
static void describe(const struct attach_lane *lane, char *buf, size_t size)
{
	char cpus[64];

	if (!lane->sched_known) {
		snprintf(buf, size, "policy unknown");
		return;
	}
	snprintf(buf, size, "%s %d on cpus %s", sched_thread_policy_name(lane->sched.policy),
		 lane->sched.priority,
		 cpuset_format_list(&lane->sched.allowed, cpus, sizeof(cpus)));
}

/*
 * cyclictest's line per thread, of its timer wake-ups in us; I: is the
 * shortest time between two expiries it asked for (its period, when it
 * has one), 0 before it has two.
 */
void attach_session_lines(FILE *out, const struct attach_session *s)
{
	struct timer_thread_params config = { .cpu = -1 };
	struct timer_line line;
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++) {
		const struct attach_lane *lane = &s->lanes[i];

		config.priority = lane->timer->priority;
		config.interval_ns = lane->interval_ns;
		timer_line_from_live(&line, i, &lane->timer->live, lane->thread.tid, &config, 1000);
		timer_render_line(out, &line, false);
	}
}

void attach_session_report(FILE *out, const struct attach_session *s)
{
	char p50[24], p99[24], p999[24], max[24], what[96];
	unsigned int i;

	fprintf(out, "# latscope attach: latencies in us; timer wake-ups from the expiry the "
		     "thread asked for to its return to user space\n");
	attach_session_lines(out, s);
	for (i = 0; i < s->nr_lanes; i++) {
		const struct attach_lane *lane = &s->lanes[i];
		const struct hist *h = &lane->timer->hist, *o = &lane->other;

		describe(lane, what, sizeof(what));
		fprintf(out, "# T:%2u %s:%d (%s)", i, lane->thread.comm, (int)lane->thread.tid,
			what);
		if (h->count)
			fprintf(out, ": timer p50 %s p99 %s p99.9 %s",
				format_us(hist_percentile(h, 50), p50, sizeof(p50)),
				format_us(hist_percentile(h, 99), p99, sizeof(p99)),
				format_us(hist_percentile(h, 99.9), p999, sizeof(p999)));
		if (o->count)
			fprintf(out, "; %llu other wake-ups, p99 %s max %s",
				(unsigned long long)o->count,
				format_us(hist_percentile(o, 99), p99, sizeof(p99)),
				format_us(o->max, max, sizeof(max)));
		if (lane->unseen)
			fprintf(out, "; %llu wake-ups not traced",
				(unsigned long long)lane->unseen);
		fprintf(out, "\n");
	}
	if (s->lost_events)
		fprintf(out, "# the trace lost %llu events: some activations are missing\n",
			(unsigned long long)s->lost_events);
}

void attach_session_activations(FILE *out, const struct attach_session *s)
{
	static const char *const kinds[] = {
		[ATTACH_WAKEUP_TIMER] = "timer",
		[ATTACH_WAKEUP_OTHER] = "other",
		[ATTACH_WAKEUP_UNSEEN] = "unseen",
	};
	size_t i;

	fprintf(out, "# latscope attach activations; times in ns on CLOCK_MONOTONIC, 0 not seen\n"
		     "# tid kind cpu expiry_ns woken_ns switch_in_ns return_ns latency_ns\n");
	for (i = 0; i < s->nr_kept; i++) {
		const struct attach_activation *a = &s->kept[i];

		fprintf(out, "%d %s %u %llu %llu %llu %llu %llu\n", (int)a->tid, kinds[a->kind],
			a->cpu, (unsigned long long)a->expiry_ns, (unsigned long long)a->woken_ns,
			(unsigned long long)a->switch_in_ns, (unsigned long long)a->return_ns,
			(unsigned long long)attach_activation_latency(a));
	}
	if (s->kept_dropped)
		fprintf(out, "# %zu more not kept: out of memory\n", s->kept_dropped);
}

static json_t *other_wakeups_json(const struct attach_lane *lane)
{
	const struct hist *h = &lane->other;

	return json_pack("{sIsIsIsIsIsosIso}", "count", (json_int_t)h->count, "unseen",
			 (json_int_t)lane->unseen, "min_ns", (json_int_t)(h->count ? h->min : 0),
			 "avg_ns", (json_int_t)(hist_mean(h) + 0.5), "max_ns", (json_int_t)h->max,
			 "percentiles", result_percentiles(h), "switch_in_max_ns",
			 (json_int_t)lane->switch_in_max_ns, "histogram", result_histogram(h));
}

static json_t *thread_json(const struct attach_session *s, const struct attach_lane *lane)
{
	json_t *entry = timer_stats_json(lane->timer, s->origin_ns);

	json_object_set_new(entry, "pid", json_integer(lane->thread.pid));
	json_object_set_new(entry, "comm", json_string(lane->thread.comm));
	json_object_set_new(entry, "policy",
			    lane->sched_known ?
				    json_string(sched_thread_policy_name(lane->sched.policy)) :
				    json_null());
	json_object_set_new(entry, "cpus",
			    lane->sched_known ? result_cpuset(&lane->sched.allowed) : json_null());
	json_object_set_new(entry, "other_wakeups", other_wakeups_json(lane));
	return entry;
}

json_t *attach_session_document(struct attach_session *s, int status)
{
	static const char *const by[] = {
		[ATTACH_PID] = "pid",
		[ATTACH_TID] = "tid",
		[ATTACH_COMM] = "comm",
		[ATTACH_CGROUP] = "cgroup",
	};
	json_t *threads = json_array();
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++)
		json_array_append_new(threads, thread_json(s, &s->lanes[i]));
	json_object_set_new(
		s->doc, "target",
		json_pack("{ssss}", "by", by[s->opts.target.by], "value", s->opts.target.value));
	json_object_set_new(s->doc, "clock", json_string("monotonic"));
	json_object_set_new(s->doc, "origin_ns", json_integer((json_int_t)s->origin_ns));
	json_object_set_new(s->doc, "duration_ns",
			    json_integer((json_int_t)(s->end_ns - s->origin_ns)));
	json_object_set_new(s->doc, "end", json_string(end_name(s->end)));
	json_object_set_new(s->doc, "traced_cpus", result_cpuset(&s->cpus));
	json_object_set_new(s->doc, "trace",
			    json_pack("{sIsI}", "records", (json_int_t)s->records_read,
				      "lost_events", (json_int_t)s->lost_events));
	json_object_set_new(s->doc, "memory_locked_kb",
			    json_integer((json_int_t)s->memory_locked_kb));
	json_object_set_new(s->doc, "threads", threads);
	json_object_set_new(s->doc, "exit_status", json_integer(status));
	result_set_end_time(s->doc);
	return s->doc;
}
