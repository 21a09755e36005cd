/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_SESSION_H
#define LATSCOPE_EXPLAIN_SESSION_H

#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/explain.h"
#include "latscope/trace.h"

/*
 * --explain while a measurement runs: a tracing session, attribution
 * engines and the glue that feeds them in the right order in bounded
 * memory. Each engine follows one lane: the spikes of one measuring thread
 * (noise: one per CPU; timer: one per thread, several may share a CPU) and
 * the events of that thread's CPU. The measurement reports its spikes as
 * windows and, per lane, a horizon: a time before which every spike is
 * known. Events before the horizon go to the engine; later ones wait.
 * Around the largest spikes the raw events are kept for --trace-dir.
 */
struct explain_session;

struct explain_session_options {
	unsigned int nr_lanes;
	const unsigned int *lane_cpu; /* the CPU of each lane (copied) */
	enum explain_mode mode;
	const char *clock; /* trace_clock: "x86-tsc" or "mono" */
	const struct tsc_clock *tsc; /* for "x86-tsc": converts to the ns timeline */
	unsigned int worst_kept; /* spikes kept in detail per CPU */
	uint64_t capture_margin_ns; /* raw events kept around them; 0: none */
	bool threaded_softirqs; /* PREEMPT_RT: every softirq runs in a thread */
};

/**
 * explain_session_start - start tracing and set up the engines
 * Returns a session to free with explain_session_free(), or NULL (logged).
 */
struct explain_session *explain_session_start(const struct explain_session_options *options);

/* A spike window of a lane; windows of a lane come in start order. */
int explain_session_add_window(struct explain_session *session, unsigned int lane,
			       const struct explain_window *window);

/**
 * explain_session_pump - read the trace and feed the engines
 * @session: the session
 * @horizon_ns: per lane, the time before which all its windows were added;
 *		UINT64_MAX when the measurement ended
 * Returns 0 or a negative errno code.
 */
int explain_session_pump(struct explain_session *session, const uint64_t *horizon_ns);

/**
 * explain_session_stop_tracing - end the tracing session now: stop recording,
 * remove the instance (the kernel state goes first), keep what was read.
 * The final explain_session_pump() before it reads what is left.
 */
void explain_session_stop_tracing(struct explain_session *session);

/**
 * explain_session_finish - close every window and find periodic causes
 * @end_ns: the end of the run on the timeline
 * @run_ns: the run's length
 * Returns 0 or -ENOMEM.
 */
int explain_session_finish(struct explain_session *session, uint64_t end_ns, uint64_t run_ns);

/* The engine of a lane. */
const struct explain_cpu *explain_session_lane(const struct explain_session *session,
					       unsigned int lane);

/* The interned names the records and causes use. */
const struct names *explain_session_names(const struct explain_session *session);

/*
 * The ring buffer each of @nr_cpus traced CPUs gets, in KiB: 8 MiB up to
 * 32 CPUs, a share of 256 MiB beyond, at least 256 KiB.
 */
size_t explain_session_buffer_kb(unsigned int nr_cpus);

/* Events dropped by the ring buffers, all CPUs. */
uint64_t explain_session_lost(const struct explain_session *session);

/* What reading the trace cost: the thread that pumps pays it. */
struct explain_reader {
	uint64_t cpu_ns; /* CPU time of every pump: reading and attributing */
	uint64_t records; /* records read */
	uint64_t lost; /* events the ring buffers dropped, exactly */
};

void explain_session_reader(const struct explain_session *session, struct explain_reader *reader);

/**
 * explain_session_write_captures - one text file per kept spike in @dir,
 * "<prefix><number>-spike<rank>.txt": the raw events from
 * capture_margin_ns before it to as long after it
 * @prefix: what a lane is called ("cpu", "thread")
 * @numbers: the number of each lane (a CPU), or NULL for the lane's index
 * Returns the number of files written, or a negative errno code.
 */
int explain_session_write_captures(const struct explain_session *session, const char *dir,
				   const char *prefix, const unsigned int *numbers);

/* Call @hook as each window of every lane closes (explain_cpu_set_window_hook). */
void explain_session_set_window_hook(struct explain_session *session, explain_window_hook hook,
				     void *context);

/*
 * Drop the cause tables of the lanes with no open window
 * (explain_cpu_forget_causes): a session fed for weeks stays bounded.
 */
void explain_session_forget_causes(struct explain_session *session);

void explain_session_free(struct explain_session *session);

#endif
