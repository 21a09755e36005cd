/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_ATTACH_SESSION_H
#define LATSCOPE_CLI_ATTACH_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "common_options.h"
#include "latscope/attach_target.h"
#include "latscope/attach_tracker.h"
#include "latscope/hist.h"
#include "latscope/names.h"
#include "latscope/sched_thread.h"
#include "latscope/sysroot.h"
#include "latscope/timer.h"
#include "latscope/trace.h"

/* Everything `latscope attach` was asked to do (its table is cmd_attach.c's). */
struct attach_options {
	const char *pid, *tid, *comm, *cgroup; /* the one given names the target */
	struct attach_target target;
	uint64_t duration_ns; /* 0: until a signal or the target's end */
	struct json_output json;
	const char *activations_path; /* --activations: every one as a text row */
	bool quiet;
	int verbose;
};

/* One thread of the target, and what its activations measured. */
struct attach_lane {
	struct attach_thread thread;
	struct sched_thread sched; /* its policy, priority and CPUs when first seen */
	bool sched_known;
	struct timer_stats *timer; /* timer wake-ups: expiry to user space */
	struct hist other; /* other wake-ups: wake-up to user space */
	uint64_t switch_in_max_ns; /* of the other wake-ups: wake-up to switch-in */
	uint64_t unseen; /* other wake-ups the trace did not show: not measured */
	uint64_t last_expiry_ns, interval_ns; /* the shortest step between its expiries */
};

/* How a run ended. */
enum attach_end {
	ATTACH_END_DURATION,
	ATTACH_END_SIGNAL,
	ATTACH_END_TARGET, /* every thread of the target ended */
	ATTACH_END_ERROR,
};

/* A record drained, and its place in the reading order. */
struct waiting_record {
	struct trace_record record;
	uint64_t sequence;
};

struct attach_session {
	struct attach_options opts;
	struct sysroot *root;
	struct names *names;
	json_t *doc;
	struct attach_lane *lanes;
	unsigned int nr_lanes, lanes_capacity;
	/* tasks a followed thread made that are not the target's */
	pid_t *strangers;
	size_t nr_strangers;
	struct timer_thread_params lane_params;
	struct timer_params params; /* what each lane's timer_stats is made with */
	struct cpuset cpus; /* traced: where the target's threads may run */
	long last_pid; /* the kernel's last pid before the target was last read */
	struct trace_session *trace;
	struct attach_tracker *tracker;
	/* records drained, waiting until every CPU's are in to be fed in order */
	struct waiting_record *waiting;
	size_t nr_waiting, waiting_capacity;
	uint64_t records_read;
	uint64_t lost_events; /* the ring buffers dropped them: activations may be missing */
	/* --activations: every activation of the target's threads, in order */
	struct attach_activation *kept;
	size_t nr_kept, kept_capacity, kept_dropped;
	uint64_t origin_ns, end_ns; /* origin_ns 0: tracing never started */
	uint64_t memory_locked_kb; /* VmLck of the target's first process */
	enum attach_end end;
};

/*
 * Read the options, find the target's threads, check what can be checked
 * before any tracing. Returns true when the run should start; false with
 * *status set (0 after --help), the reason said.
 */
bool attach_session_prepare(struct attach_session *s, int argc, char **argv, int *status);

/* Trace and measure until the duration, a signal or the target's end. */
int attach_session_run(struct attach_session *s);

/* The T: line per thread, cyclictest's (the live view redraws them). */
void attach_session_lines(FILE *out, const struct attach_session *s);

/* The lines per thread, as cyclictest prints them, and what else was seen. */
void attach_session_report(FILE *out, const struct attach_session *s);

/* --activations: one row each, gnuplot-ready. */
void attach_session_activations(FILE *out, const struct attach_session *s);

/* The result document (--json), the session's own: valid until it is freed. */
json_t *attach_session_document(struct attach_session *s, int status);

void attach_session_free(struct attach_session *s);

#endif
