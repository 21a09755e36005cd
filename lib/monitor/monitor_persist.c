// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The monitor's state, on the engine's side: continued at start (its
 * header checked against this run, each CPU's counts, windows, blocks and
 * causes restored), or set aside when it is another run's or corrupt; and
 * written back, at each checkpoint and as --json. The format itself is
 * monitor_state.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/atomic_file.h"
#include "latscope/clock.h"
#include "latscope/exporter.h"
#include "latscope/file_lock.h"
#include "latscope/log.h"
#include "latscope/monitor_state.h"
#include "latscope/result.h"
#include "latscope/rt.h"
#include "monitor_audit.h"
#include "monitor_engine.h"

struct load_context {
	struct monitor *m;
	uint64_t *scratch;
};

/* a state of either schema: latscope/2's cpu-list string, latscope/1's array */
static bool cpus_of(json_t *value, struct cpuset *set)
{
	return !result_read_cpuset(value, set);
}

static int check_header(void *context, json_t *header, char *why, size_t size)
{
	struct monitor *m = ((struct load_context *)context)->m;
	json_t *params = json_object_get(header, "params"), *state, *began, *restarts;
	struct cpuset cpus;
	char had[256], now[256];
	json_int_t interval, window;

	if (!json_is_object(params) ||
	    strcmp(json_string_value(json_object_get(header, "command")) ?: "", "monitor")) {
		snprintf(why, size, "not a monitor state");
		return STATE_CORRUPT;
	}
	interval = json_integer_value(json_object_get(params, "interval_ns"));
	window = json_integer_value(json_object_get(params, "window_ns"));
	if (!cpus_of(json_object_get(params, "cpus"), &cpus)) {
		snprintf(why, size, "its cpus are unreadable");
		return STATE_CORRUPT;
	}
	if (!cpuset_equal(&cpus, &m->cpus)) {
		snprintf(why, size, "it measured cpus %s, this run measures %s",
			 cpuset_format_list(&cpus, had, sizeof(had)),
			 cpuset_format_list(&m->cpus, now, sizeof(now)));
		return STATE_MISMATCH;
	}
	if ((uint64_t)interval != m->params.interval_ns) {
		snprintf(why, size, "its interval is %lld ns, this run's %" PRIu64 " ns",
			 (long long)interval, m->params.interval_ns);
		return STATE_MISMATCH;
	}
	if ((uint64_t)window != m->params.window_ns) {
		snprintf(why, size, "its window is %lld ns, this run's %" PRIu64 " ns",
			 (long long)window, m->params.window_ns);
		return STATE_MISMATCH;
	}
	/* a state this version wrote has both; one that has them wrong is not taken */
	state = json_object_get(header, "state");
	if (state) {
		began = json_object_get(state, "began");
		restarts = json_object_get(state, "restarts");
		if (!state_time_valid(json_string_value(began)) || !json_is_integer(restarts) ||
		    json_integer_value(restarts) < 0) {
			snprintf(why, size, "its began or restarts is malformed");
			return STATE_CORRUPT;
		}
		json_decref(m->began);
		m->began = json_incref(began);
		/* saturated: the state holds an int64 */
		m->restarts = (uint64_t)json_integer_value(restarts);
		if (m->restarts < MONITOR_COUNTER_MAX)
			m->restarts++;
	}
	return 0;
}

static int restore_cpu(void *context, struct jsondoc *doc, json_t *object, char *why, size_t size)
{
	struct load_context *load = context;
	struct monitor *m = load->m;
	struct monitor_cpu_reading reading = { .counts = load->scratch };
	json_t *cpu = json_object_get(object, "cpu");
	unsigned int lane;
	int ret;

	for (lane = 0; lane < m->nr_lanes; lane++)
		if (json_is_integer(cpu) && json_integer_value(cpu) == m->lanes[lane].cpu)
			break;
	if (lane == m->nr_lanes || m->lanes[lane].restored) {
		snprintf(why, size, "cpu %lld is not measured or comes twice",
			 (long long)json_integer_value(cpu));
		return STATE_CORRUPT;
	}
	ret = state_cpu_parse(doc, object, &reading, m->lanes[lane].windows, m->params.window_ns,
			      &m->lanes[lane].kept, m->lanes[lane].blocks, why, size);
	if (ret)
		return ret;
	monitor_cpu_restore(m->lanes[lane].state, &reading);
	m->lanes[lane].restored = true;
	return 0;
}

/*
 * One monitor per state: a second one would write over the first's
 * checkpoints, and the last writer's history would be all that is left.
 * Held until monitor_free(). Temporary files of a writer that died are
 * removed once the state is this monitor's.
 */
static int own_state(struct monitor *m)
{
	static const struct file_lock_words words = {
		"state", "another latscope monitor; give each its own --state"
	};
	int ret;

	if (m->state_owner)
		return 0;
	ret = file_lock_take(m->state_path, false, 0, &words, &m->state_owner);
	if (ret)
		return ret;
	atomic_file_remove_stale(m->state_path);
	if (m->textfile_dir)
		exporter_remove_stale_textfile(m->textfile_dir);
	return 0;
}

static void warm_behind(struct monitor *m);

int monitor_load_state(struct monitor *m, enum state_outcome *outcome)
{
	struct load_context load = { .m = m };
	unsigned int lane;
	char why[512], aside[4200];
	int ret;

	*outcome = STATE_ABSENT;
	if (!m->state_path)
		return 0;
	/* the lanes are read into: no thread of an earlier load reads them */
	monitor_checkpoint_wait(m, NULL);
	ret = own_state(m);
	if (ret)
		return ret;
	load.scratch = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	if (!load.scratch)
		return -ENOMEM;
	ret = state_read(m->state_path, check_header, restore_cpu, &load, why, sizeof(why));
	free(load.scratch);
	if (ret == STATE_CONTINUED) {
		for (lane = 0; lane < m->nr_lanes; lane++) {
			if (!m->lanes[lane].restored) {
				snprintf(why, sizeof(why), "cpu %u is missing", m->lanes[lane].cpu);
				ret = STATE_CORRUPT;
				break;
			}
		}
	}
	if (ret < 0) {
		log_error("cannot read the state %s: %s", m->state_path, strerror(-ret));
		return ret;
	}
	*outcome = (enum state_outcome)ret;
	if (ret == STATE_CONTINUED)
		warm_behind(m);
	if (ret == STATE_ABSENT || ret == STATE_CONTINUED)
		return 0;
	/* whatever was read of it goes: a new state begins */
	ret = monitor_reset_lanes(m);
	json_decref(m->began);
	m->began = NULL;
	m->restarts = 0;
	if (ret)
		return ret;
	ret = state_keep_aside(m->state_path, *outcome == STATE_MISMATCH ? "old" : "corrupt", aside,
			       sizeof(aside));
	if (ret)
		return ret;
	if (*outcome == STATE_MISMATCH)
		log_warning("state %s: %s: kept as %s, a new state begins", m->state_path, why,
			    aside);
	else
		log_warning("state %s is corrupt (%s): kept as %s, a new state begins",
			    m->state_path, why, aside);
	return 0;
}

static json_t *params_json(const struct monitor *m)
{
	const struct monitor_params *p = &m->params;

	return json_pack("{sosIsIsssisbsIsIsIsi}", "cpus", result_cpuset(&m->cpus), "interval_ns",
			 (json_int_t)p->interval_ns, "window_ns", (json_int_t)p->window_ns,
			 "policy", rt_policy_name(p->policy), "priority", p->priority, "explain",
			 p->explain, "explain_above_ns", (json_int_t)p->explain_above_ns,
			 "audit_every_ns", (json_int_t)p->audit_every_ns, "checkpoint_ns",
			 (json_int_t)p->checkpoint_ns, "native_schema", NATIVE_SCHEMA);
}

static json_t *state_header(struct monitor *m)
{
	json_t *doc = json_deep_copy(m->run_doc), *state;

	if (!doc)
		return NULL;
	/* a new state begins with this run */
	if (!m->began)
		m->began = json_incref(json_object_get(doc, "start_time"));
	state = json_pack("{sOsosI}", "began", m->began, "checkpoint_time",
			  state_time(clock_ns(CLOCK_REALTIME)), "restarts",
			  (json_int_t)m->restarts);
	json_object_set(doc, "host", m->host ? m->host : json_null());
	json_object_set_new(doc, "params", params_json(m));
	json_object_set_new(doc, "state", state);
	json_object_set_new(doc, "audit",
			    m->audit	   ? monitor_audit_json(m->audit) :
			    m->final_audit ? json_incref(m->final_audit) :
					     json_null());
	return doc;
}

/*
 * One CPU as it was when its turn came, copied under state_lock (the
 * ring's coded bytes, the blocks' entries, the counts: tens of
 * microseconds) and formatted with no lock held. The buffers stay from
 * one CPU to the next: a whole state is never copied, nor a CPU's worth
 * allocated again.
 */
struct cpu_copy {
	unsigned int cpu;
	struct monitor_cpu_reading reading; /* counts: room for NATIVE_SLOTS */
	struct window_ring *windows;
	struct monitor_blocks blocks;
	struct time_block_entry *entries; /* the blocks' */
	unsigned int entries_cap;
	struct monitor_explained explained;
};

/* A state document being written: by the caller, or by the checkpoint's thread. */
struct state_job {
	struct monitor *m;
	json_t *header; /* made by the caller, under state_lock */
	const char *path;
	enum result_layout layout;
	bool warm_only; /* no document: the CPUs' texts made ahead (write_job()) */
	bool give_up; /* atomic: a warm_only job stops at the next CPU (a wait for it) */
	struct cpu_copy copy;
	struct monitor_checkpoint_times times;
	int error;
};

/* Lane @lane into @c, the state held meanwhile; 0 or -ENOMEM. */
static int copy_lane(struct monitor *m, unsigned int lane, struct cpu_copy *c, uint64_t *held)
{
	struct lane *l = &m->lanes[lane];
	uint64_t now, started = clock_ns(CLOCK_MONOTONIC);
	int ret = 0;

	pthread_mutex_lock(&m->state_lock);
	now = clock_ns(CLOCK_REALTIME);
	c->cpu = l->cpu;
	monitor_cpu_read(l->state, &c->reading);
	/* the blocks up to this very reading: they add up to what is written */
	if (l->blocks->from_ns && monitor_blocks_fold(l->blocks, &c->reading, now))
		log_warning("cpu %u: out of memory for its time blocks", l->cpu);
	ret = window_ring_copy(c->windows, l->windows);
	if (!ret && l->blocks->start_ns)
		ret = monitor_blocks_copy(&c->blocks, l->blocks, &c->entries, &c->entries_cap);
	else
		c->blocks.start_ns = 0;
	pthread_mutex_unlock(&m->state_lock);
	*held = clock_ns(CLOCK_MONOTONIC) - started;
	if (m->explain)
		monitor_explain_read(m->explain, lane, &c->explained);
	else if (m->params.explain)
		c->explained = l->kept;
	return ret;
}

/*
 * @job's document, a CPU at a time; its result also in job->error, its
 * times in job->times. A job warm_only writes nothing: it makes each CPU's
 * texts as a checkpoint would, ahead of the first one.
 */
static int write_job(struct state_job *job)
{
	struct monitor *m = job->m;
	struct cpu_copy *c = &job->copy;
	struct state_writer *writer = NULL;
	uint64_t started = clock_ns(CLOCK_MONOTONIC), cpu_time = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t held;
	unsigned int lane;
	int ret;

	memset(&job->times, 0, sizeof(job->times));
	job->times.text_only = job->warm_only;
	c->reading.counts = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	c->windows = window_ring_new(monitor_ring_capacity(m));
	ret = !c->reading.counts || !c->windows ? -ENOMEM :
	      job->warm_only			? 0 :
			       state_writer_open(&writer, job->path, job->header, job->layout);
	for (lane = 0; lane < m->nr_lanes && !ret; lane++) {
		struct state_cpu cpu = { .window_ns = m->params.window_ns,
					 .reading = &c->reading,
					 .windows = c->windows,
					 .blocks = &c->blocks,
					 .explained = &c->explained };

		/* the texts made so far are kept: the next checkpoint makes the rest */
		if (job->warm_only && __atomic_load_n(&job->give_up, __ATOMIC_RELAXED))
			break;
		ret = copy_lane(m, lane, c, &held);
		job->times.held_ns += held;
		if (held > job->times.longest_hold_ns)
			job->times.longest_hold_ns = held;
		cpu.cpu = c->cpu;
		/* out of memory for them: the writer makes this CPU's text without them */
		if (!m->lanes[lane].text)
			m->lanes[lane].text = window_text_new();
		if (!m->lanes[lane].blocks_text)
			m->lanes[lane].blocks_text = blocks_text_new();
		cpu.text = m->lanes[lane].text;
		cpu.blocks_text = m->lanes[lane].blocks_text;
		if (!c->blocks.start_ns)
			cpu.blocks = NULL;
		if (!m->explain && !m->params.explain)
			cpu.explained = NULL;
		if (!ret)
			ret = job->warm_only ? state_cpu_text(&cpu) :
					       state_writer_cpu(writer, &cpu);
	}
	/* a CPU not copied (out of memory): no state without it */
	if (writer && ret)
		state_writer_abandon(writer);
	else if (writer)
		ret = state_writer_close(writer);
	free(c->reading.counts);
	window_ring_free(c->windows);
	free(c->entries);
	memset(c, 0, sizeof(*c));
	job->times.written_ns = clock_ns(CLOCK_MONOTONIC) - started;
	job->times.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_time;
	job->error = ret;
	return ret;
}

/* The header, with @extra's members after its own; NULL when out of memory. */
static json_t *job_header(struct monitor *m, json_t *extra)
{
	json_t *header;

	pthread_mutex_lock(&m->state_lock);
	header = state_header(m);
	pthread_mutex_unlock(&m->state_lock);
	if (header && extra && json_object_update(header, extra)) {
		json_decref(header);
		header = NULL;
	}
	return header;
}

/* The state document to @path, with @extra's members after the header's; not logged. */
static int write_document(struct monitor *m, const char *path, json_t *extra,
			  enum result_layout layout)
{
	struct state_job job = { .m = m, .path = path, .layout = layout };
	int ret;

	/* the CPUs' texts have one writer at a time */
	monitor_checkpoint_wait(m, NULL);
	job.header = job_header(m, extra);
	ret = job.header ? write_job(&job) : -ENOMEM;
	json_decref(job.header);
	return ret;
}

static void *write_behind(void *arg)
{
	struct state_job *job = arg;

	if (write_job(job) && job->warm_only)
		/* not an error of the state: its checkpoints make what is missing */
		log_warning("cannot make the state's text ahead: %s", strerror(-job->error));
	else if (job->error)
		log_error("cannot write the state %s: %s", job->path, strerror(-job->error));
	if (job->warm_only)
		job->error = 0;
	__atomic_store_n(&job->m->behind_done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* @job (allocated, its header made) done by a thread of its own, or here; 0 or its error. */
static int start_behind(struct monitor *m, struct state_job *job)
{
	int ret;

	m->behind = job;
	m->behind_done = false;
	/* on the housekeeping CPUs: a checkpoint is kept off the measured ones */
	ret = rt_start_housekeeping_thread(&m->checkpointer, &m->housekeeping, write_behind, job);
	if (ret) {
		/* no thread: done here, as a checkpoint was before */
		m->behind = NULL;
		write_behind(job);
		ret = job->error;
		json_decref(job->header);
		free(job);
	}
	return ret;
}

void monitor_texts_give_up(struct monitor *m)
{
	if (m->behind)
		__atomic_store_n(&m->behind->give_up, true, __ATOMIC_RELAXED);
}

int monitor_checkpoint_wait(struct monitor *m, struct monitor_checkpoint_times *times)
{
	int ret;

	if (times)
		memset(times, 0, sizeof(*times));
	if (!m->behind)
		return 0;
	pthread_join(m->checkpointer, NULL);
	ret = m->behind->error;
	if (times)
		*times = m->behind->times;
	json_decref(m->behind->header);
	free(m->behind);
	m->behind = NULL;
	return ret;
}

/*
 * After a state is continued: its texts made behind (write_job()), so that
 * its first checkpoint is as quick as the ones after it. Without memory or
 * a thread, that checkpoint makes them.
 */
static void warm_behind(struct monitor *m)
{
	struct state_job *job = calloc(1, sizeof(*job));

	if (!job)
		return;
	*job = (struct state_job){ .m = m, .warm_only = true };
	start_behind(m, job);
}

int monitor_checkpoint_behind(struct monitor *m)
{
	struct state_job *job;

	if (!m->state_path)
		return 0;
	/* one writer of the file at a time: the next tick tries again */
	if (m->behind && !__atomic_load_n(&m->behind_done, __ATOMIC_ACQUIRE))
		return -EBUSY;
	monitor_checkpoint_wait(m, NULL);
	job = calloc(1, sizeof(*job));
	if (job) {
		*job = (struct state_job){ .m = m,
					   .path = m->state_path,
					   .layout = RESULT_LAYOUT_COMPACT };
		job->header = job_header(m, NULL);
	}
	if (!job || !job->header) {
		free(job);
		log_error("cannot write the state %s: %s", m->state_path, strerror(ENOMEM));
		return -ENOMEM;
	}
	return start_behind(m, job);
}

int monitor_checkpoint(struct monitor *m)
{
	int ret;

	if (!m->state_path)
		return 0;
	monitor_checkpoint_wait(m, NULL);
	ret = write_document(m, m->state_path, NULL, RESULT_LAYOUT_COMPACT);
	if (ret)
		log_error("cannot write the state %s: %s", m->state_path, strerror(-ret));
	return ret;
}

int monitor_write_result(struct monitor *m, const char *path, json_t *extra,
			 enum result_layout layout)
{
	return write_document(m, path, extra, layout);
}
