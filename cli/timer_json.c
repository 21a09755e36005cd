// SPDX-License-Identifier: GPL-2.0-or-later
/* latscope timer's result document (--json). */
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "latscope/result.h"
#include "output_path.h"
#include "timer_session.h"

static json_t *params_json(const struct timer_options *opts)
{
	static const char *const modes[] = {
		[TIMER_WAIT_ABSOLUTE] = "absolute",
		[TIMER_WAIT_RELATIVE] = "relative",
		[TIMER_WAIT_POSIX_TIMER] = "posix_timer",
	};
	const struct timer_params *params = &opts->params;
	json_t *p = json_object();

	json_object_set_new(p, "threads", json_integer(params->nr_threads));
	json_object_set_new(p, "policy", json_string(rt_policy_name(params->policy)));
	json_object_set_new(p, "priority", json_integer(opts->priority));
	json_object_set_new(p, "priospread", json_boolean(opts->priospread));
	json_object_set_new(p, "interval_ns", json_integer((json_int_t)opts->interval_us * 1000));
	json_object_set_new(p, "distance_ns", json_integer((json_int_t)opts->distance_us * 1000));
	json_object_set_new(p, "mode", json_string(modes[params->mode]));
	json_object_set_new(p, "clock", json_string("monotonic"));
	json_object_set_new(p, "duration_ns", json_integer((json_int_t)params->duration_ns));
	json_object_set_new(p, "loops", json_integer((json_int_t)params->loops));
	json_object_set_new(p, "affinity",
			    opts->pinned ? result_cpuset(&opts->measured) : json_null());
	json_object_set_new(p, "main_affinity",
			    opts->main_affinity_given ? result_cpuset(&opts->main_affinity) :
							json_null());
	json_object_set_new(p, "mlockall", json_boolean(opts->mlockall));
	json_object_set_new(p, "pm_qos_us",
			    opts->pm_qos ? json_integer(opts->latency_us) : json_null());
	json_object_set_new(p, "break_us",
			    opts->break_us ? json_integer((json_int_t)opts->break_us) :
					     json_null());
	json_object_set_new(p, "tracemark", json_boolean(params->tracemark));
	json_object_set_new(p, "histogram_us", json_integer(params->histogram_buckets));
	json_object_set_new(p, "histofall", json_boolean(opts->histofall));
	json_object_set_new(p, "nsecs", json_boolean(opts->nsecs));
	json_object_set_new(p, "spike_threshold_ns",
			    json_integer((json_int_t)params->spike_threshold_ns));
	json_object_set_new(p, "spike_capacity", json_integer((json_int_t)params->spike_capacity));
	json_object_set_new(p, "fail_above_ns",
			    opts->fail_above_ns ? json_integer((json_int_t)opts->fail_above_ns) :
						  json_null());
	return p;
}

static json_t *break_json(struct timer_session *s)
{
	struct timer_spike spike;
	unsigned int thread;
	json_t *explained;

	if (!timer_break(s->run, &thread, &spike))
		return json_null();
	explained = timer_explain_break_json(&s->explain, s->run);
	return json_pack("{sIsIsIsIsIsIso}", "thread", (json_int_t)thread, "tid",
			 (json_int_t)timer_result(s->run, thread)->tid, "latency_ns",
			 (json_int_t)spike.latency_ns, "above_ns",
			 (json_int_t)s->opts.params.break_above_ns, "expiry_ns",
			 (json_int_t)spike.expiry_ns, "cycle", (json_int_t)spike.cycle, "explained",
			 explained ? explained : json_null());
}

json_t *timer_json_document(struct timer_session *s, int status)
{
	json_t *doc = s->doc, *threads, *reader;
	uint64_t missed = 0;
	unsigned int i;

	for (i = 0; i < s->opts.params.nr_threads; i++)
		missed += timer_result(s->run, i)->missed;
	json_object_set_new(doc, "host", result_host_facts(s->root, &s->topo));
	json_object_set_new(doc, "params", params_json(&s->opts));
	json_object_set_new(doc, "clock", json_string("monotonic"));
	json_object_set_new(doc, "origin_ns", json_integer((json_int_t)timer_origin_ns(s->run)));
	json_object_set_new(doc, "end", json_string(timer_end_name(timer_end_reason(s->run))));
	json_object_set_new(doc, "signal",
			    stop_requested ? json_sprintf("SIG%s", sigabbrev_np(stop_requested)) :
					     json_null());
	json_object_set_new(doc, "break", break_json(s));
	json_object_set_new(doc, "tracing_stopped", json_boolean(timer_tracing_stopped(s->run)));
	json_object_set_new(doc, "missed", json_integer((json_int_t)missed));
	threads = timer_result_threads(s->run);
	timer_explain_json(&s->explain, &s->opts, threads);
	json_object_set_new(doc, "threads", threads);
	reader = explain_run_reader_json(&s->explain.run);
	if (reader)
		json_object_set_new(doc, "trace_reader", reader);
	json_object_set_new(doc, "validity", validity_json(&s->validity));
	json_object_set_new(doc, "exit_status", json_integer(status));
	result_set_end_time(doc);
	return doc;
}
