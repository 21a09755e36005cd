// SPDX-License-Identifier: GPL-2.0-or-later
/* Where a measurement's conditions fall short, in words and in the result document. */
#include <errno.h>
#include <string.h>

#include "latscope/result.h"
#include "latscope/validity.h"

static const char *read_error_words(int error)
{
	return error == -ESRCH ? "it ended during the check" : strerror(-error);
}

static void add(json_t *lines, json_t *line)
{
	json_array_append_new(lines, line);
}

static void lane_shortfalls(const struct validity *v, json_t *lines)
{
	unsigned int i, not_realtime = 0;

	for (i = 0; i < v->nr_lanes; i++) {
		const struct validity_lane *lane = &v->lanes[i];

		if (lane->read_error) {
			add(lines,
			    json_sprintf("measuring thread %d: its policy could not be read "
					 "(%s): not counted as passed",
					 (int)lane->tid, read_error_words(lane->read_error)));
			continue;
		}
		if (lane->policy != lane->want_policy || lane->priority != lane->want_priority)
			add(lines,
			    json_sprintf("measuring thread %d runs %s %d, not the %s %d it "
					 "asked for",
					 (int)lane->tid, sched_thread_policy_name(lane->policy),
					 lane->priority,
					 sched_thread_policy_name(lane->want_policy),
					 lane->want_priority));
		else if (v->realtime_wanted && !sched_thread_policy_is_realtime(lane->policy))
			not_realtime++;
	}
	if (not_realtime)
		add(lines, json_sprintf("%u measuring thread%s ran %s: the latency is a "
					"time-shared task's, not a real-time task's",
					not_realtime, not_realtime == 1 ? "" : "s",
					sched_thread_policy_name(v->lanes[0].policy)));
}

static void rival_shortfalls(const struct validity *v, json_t *lines)
{
	unsigned int i;
	char cpus[256];

	if (!v->rivals_read)
		return;
	if (v->rivals_error)
		add(lines, json_sprintf("the real-time threads could not all be listed (%s): not "
					"counted as passed",
					strerror(-v->rivals_error)));
	for (i = 0; i < v->rivals.nr_threads; i++) {
		const struct sched_thread *t = &v->rivals.threads[i];
		char priority[16] = "";

		if (t->policy != SCHED_THREAD_DEADLINE)
			snprintf(priority, sizeof(priority), " %d", t->priority);
		cpuset_format_list(&t->allowed, cpus, sizeof(cpus));
		if (sched_thread_policy_is_realtime(v->query.policy))
			add(lines, json_sprintf("pid %d tid %d (%s) runs %s%s on cpus %s, at or "
						"above the measuring %s %d: it can preempt the "
						"measurement",
						(int)t->pid, (int)t->tid, t->comm,
						sched_thread_policy_name(t->policy), priority, cpus,
						sched_thread_policy_name(v->query.policy),
						v->query.priority));
		else
			add(lines, json_sprintf("pid %d tid %d (%s) runs %s%s on cpus %s, above "
						"the measuring %s: it can preempt the measurement",
						(int)t->pid, (int)t->tid, t->comm,
						sched_thread_policy_name(t->policy), priority, cpus,
						sched_thread_policy_name(v->query.policy)));
	}
	for (i = 0; i < v->rivals.nr_unread; i++) {
		const struct sched_unread *u = &v->rivals.unread[i];

		if (u->comm[0])
			add(lines, json_sprintf("pid %d tid %d (%s) %s %d could not be read whole "
						"(%s): not counted as passed",
						(int)u->pid, (int)u->tid, u->comm,
						sched_thread_policy_name(u->policy), u->priority,
						read_error_words(u->error)));
		else
			add(lines,
			    json_sprintf("pid %d tid %d could not be read (%s): not counted "
					 "as passed",
					 (int)u->pid, (int)u->tid, read_error_words(u->error)));
	}
}

static bool any_lane_realtime(const struct validity *v)
{
	unsigned int i;

	for (i = 0; i < v->nr_lanes; i++)
		if (sched_thread_policy_is_realtime(
			    v->lanes[i].read_error ? v->lanes[i].want_policy : v->lanes[i].policy))
			return true;
	return false;
}

static void cpu_shortfalls(const struct validity *v, json_t *lines)
{
	unsigned int i;
	char siblings[256];

	for (i = 0; i < v->nr_cpus; i++) {
		const struct validity_cpu *c = &v->cpus[i];

		if (!c->isolated && !c->nohz_full)
			add(lines, json_sprintf("cpu %u is neither isolated nor nohz_full: the "
						"scheduler and the tick run other work there",
						c->cpu));
		if (c->sibling_busy > VALIDITY_SIBLING_BUSY_LIMIT)
			add(lines, json_sprintf("cpu %u's SMT sibling (cpu %s) was busy %.0f%% of "
						"the run: it shares the core",
						c->cpu,
						cpuset_format_list(&c->siblings, siblings,
								   sizeof(siblings)),
						100 * c->sibling_busy));
	}
}

const char *validity_kernel_shortfall(bool rt_verdict, int preempt_rt)
{
	if (!rt_verdict || preempt_rt == 1)
		return NULL;
	return preempt_rt ?
		       "whether the kernel is PREEMPT_RT is unknown: the RT verdict assumes it" :
		       "the kernel is not PREEMPT_RT: its RT verdict says nothing of a "
		       "real-time kernel's latency";
}

json_t *validity_shortfalls(const struct validity *v)
{
	json_t *lines = json_array();

	if (!lines)
		return NULL;
	lane_shortfalls(v, lines);
	rival_shortfalls(v, lines);
	if (!v->dma_latency_held)
		add(lines, json_string("/dev/cpu_dma_latency was not held: the cpus may sleep in "
				       "deep idle states and wake late"));
	cpu_shortfalls(v, lines);
	if (!v->throttling_known)
		add(lines, json_string("sched_rt_runtime_us could not be read: RT throttling "
				       "unknown"));
	else if (any_lane_realtime(v) && rt_throttling_active(&v->throttling))
		add(lines, json_sprintf("sched_rt_runtime_us is %lld of %lld: RT throttling can "
					"stop the measuring thread",
					v->throttling.runtime_us, v->throttling.period_us));
	if (v->rt_verdict && v->preempt_rt != 1)
		add(lines,
		    json_string(v->preempt_rt ? "whether the kernel is PREEMPT_RT is unknown: "
						"the RT verdict assumes it" :
						"the kernel is not PREEMPT_RT: the RT verdict "
						"does not hold for a real-time kernel"));
	if (v->explain_wanted && !v->explain_traced)
		add(lines, json_string("--explain could not trace (no tracefs or no events): the "
				       "spikes are explained with counters only"));
	if (v->explain_traced && v->trace_lost)
		add(lines, json_sprintf("the tracer lost %llu events: the spikes they touch are "
					"not attributed",
					v->trace_lost));
	return lines;
}

static json_t *lanes_json(const struct validity *v)
{
	json_t *lanes = json_array();
	unsigned int i;

	for (i = 0; i < v->nr_lanes; i++) {
		const struct validity_lane *lane = &v->lanes[i];
		json_t *entry =
			json_pack("{s:I, s:o, s:s, s:i}", "tid", (json_int_t)lane->tid, "cpu",
				  lane->cpu >= 0 ? json_integer(lane->cpu) : json_null(),
				  "asked_policy", sched_thread_policy_name(lane->want_policy),
				  "asked_priority", lane->want_priority);

		if (lane->read_error) {
			json_object_set_new(entry, "error",
					    json_string(read_error_words(lane->read_error)));
		} else {
			json_object_set_new(entry, "policy",
					    json_string(sched_thread_policy_name(lane->policy)));
			json_object_set_new(entry, "priority", json_integer(lane->priority));
		}
		json_array_append_new(lanes, entry);
	}
	return lanes;
}

static json_t *rivals_json(const struct validity *v)
{
	json_t *rivals = json_array();
	unsigned int i;

	for (i = 0; i < v->rivals.nr_threads; i++) {
		const struct sched_thread *t = &v->rivals.threads[i];

		json_array_append_new(rivals,
				      json_pack("{s:I, s:I, s:s, s:s, s:i, s:o}", "pid",
						(json_int_t)t->pid, "tid", (json_int_t)t->tid,
						"comm", t->comm, "policy",
						sched_thread_policy_name(t->policy), "priority",
						t->priority, "cpus", result_cpuset(&t->allowed)));
	}
	return rivals;
}

static json_t *unread_json(const struct validity *v)
{
	json_t *unread = json_array();
	unsigned int i;

	for (i = 0; i < v->rivals.nr_unread; i++) {
		const struct sched_unread *u = &v->rivals.unread[i];

		json_array_append_new(
			unread,
			json_pack("{s:I, s:I, s:o, s:o, s:s}", "pid", (json_int_t)u->pid, "tid",
				  (json_int_t)u->tid, "comm",
				  u->comm[0] ? json_string(u->comm) : json_null(), "policy",
				  u->comm[0] ? json_string(sched_thread_policy_name(u->policy)) :
					       json_null(),
				  "error", read_error_words(u->error)));
	}
	return unread;
}

static json_t *cpus_json(const struct validity *v)
{
	json_t *cpus = json_array();
	unsigned int i;

	for (i = 0; i < v->nr_cpus; i++) {
		const struct validity_cpu *c = &v->cpus[i];

		json_array_append_new(
			cpus,
			json_pack("{s:i, s:b, s:b, s:o, s:o}", "cpu", (int)c->cpu, "isolated",
				  c->isolated, "nohz_full", c->nohz_full, "smt_siblings",
				  result_cpuset(&c->siblings), "sibling_busy",
				  c->sibling_busy >= 0 ? json_real(c->sibling_busy) : json_null()));
	}
	return cpus;
}

static json_t *optional_bool(int value)
{
	return value < 0 ? json_null() : json_boolean(value);
}

json_t *validity_json(const struct validity *v)
{
	json_t *shortfalls = validity_shortfalls(v), *doc;

	if (!shortfalls)
		return NULL;
	doc = json_pack("{s:b, s:o, s:o, s:o, s:o, s:I}", "ok", json_array_size(shortfalls) == 0,
			"shortfalls", shortfalls, "threads", lanes_json(v), "rivals",
			v->rivals_read ? rivals_json(v) : json_null(), "unread", unread_json(v),
			"threads_seen", (json_int_t)v->rivals.nr_seen);
	if (doc)
		json_object_set_new(doc, "threads_ended", json_integer(v->rivals.nr_ended));
	if (!doc)
		return NULL;
	json_object_set_new(
		doc, "dma_latency",
		json_pack("{s:b, s:o}", "held", v->dma_latency_held, "value_us",
			  v->dma_latency_held ? json_integer(v->dma_latency_us) : json_null()));
	json_object_set_new(doc, "cpus", cpus_json(v));
	json_object_set_new(doc, "rt_throttling",
			    v->throttling_known ?
				    json_pack("{s:I, s:I}", "runtime_us",
					      (json_int_t)v->throttling.runtime_us, "period_us",
					      (json_int_t)v->throttling.period_us) :
				    json_null());
	json_object_set_new(doc, "preempt_rt", optional_bool(v->preempt_rt));
	json_object_set_new(doc, "rt_verdict", json_boolean(v->rt_verdict));
	/* the reader's whole cost is in "trace_reader" beside this object */
	json_object_set_new(
		doc, "explain",
		v->explain_wanted ?
			json_pack("{s:b, s:I, s:f, s:o}", "traced", v->explain_traced,
				  "lost_events", (json_int_t)v->trace_lost, "reader_cpu_share",
				  v->trace_cpu_share, "cost",
				  v->explain_traced ? json_string("trace_reader") : json_null()) :
			json_null());
	return doc;
}
