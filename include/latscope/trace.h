/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TRACE_H
#define LATSCOPE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/names.h"
#include "latscope/trace_record.h"
#include "latscope/tsc.h"

/*
 * A private tracing session: a tracefs instance "latscope-<pid>" recording
 * the generic interrupt, softirq, vector, NMI, scheduler and hrtimer events
 * of the measured CPUs, read while the measurement runs through per-CPU raw
 * readers kept open. The top-level instance is never touched. Whatever the
 * session changed (the instance, a tracefs mount it made) goes away with
 * trace_session_destroy(); an instance left by a crashed run (its pid is
 * dead) is removed when the next session starts, and a mount it made is
 * unmounted when that session ends (latscope/trace_mount.h).
 */
struct trace_session;

/* The name of a session's instance: this prefix, then the pid of its process. */
#define TRACE_INSTANCE_PREFIX "latscope-"

struct trace_options {
	struct cpuset cpus; /* CPUs to record */
	/* "x86-tsc" (timestamps are rdtsc values) or "mono" (CLOCK_MONOTONIC ns) */
	const char *clock;
	/* converts x86-tsc timestamps to the caller's ns timeline; NULL for mono */
	const struct tsc_clock *tsc;
	size_t buffer_kb; /* ring buffer per recorded CPU */
	/*
	 * NULL, or also raw_syscalls:sys_exit with this filter ("common_pid
	 * == 12 || common_pid == 13"): the returns to user space of the tasks
	 * that matter (latscope attach), never every task's; and
	 * sched:sched_process_fork, the threads they make
	 */
	const char *syscall_exits_of;
};

/**
 * trace_session_create - mount tracefs if needed, create and start the instance
 * @options: what to record
 * @names: where task and interrupt names are interned (not owned)
 *
 * Events this kernel lacks are named in one warning; recording goes on with
 * the others. Returns a session to end with trace_session_destroy(), or
 * NULL (logged: no tracefs, not root, no usable event).
 */
struct trace_session *trace_session_create(const struct trace_options *options,
					   struct names *names);

/*
 * Filter raw_syscalls:sys_exit anew (the target made threads): returns 0,
 * or -EINVAL, said.
 */
int trace_session_filter_syscall_exits(struct trace_session *session, const char *filter);

/* The events recorded, for the report ("irq:irq_handler_entry ..."). */
unsigned int trace_session_nr_events(const struct trace_session *session);

typedef void (*trace_emit)(const struct trace_record *record, void *context);

/**
 * trace_session_drain - hand every record available now to @emit
 * @session: the session
 * @emit: called once per record; per CPU in time order
 * @context: passed to @emit
 *
 * Never blocks. A loss reported by the ring buffer comes as a TRACE_LOST
 * record at the point it happened. Returns the number of records, or a
 * negative errno code.
 */
long trace_session_drain(struct trace_session *session, trace_emit emit, void *context);

/*
 * Events the ring buffers dropped so far, all CPUs: exact, the kernel's
 * per-CPU count where the records said "some" without a number.
 */
uint64_t trace_session_lost(const struct trace_session *session);

/*
 * The same for one CPU (0 for a CPU not recorded); reads the kernel's
 * count only once a loss went uncounted on that CPU.
 */
uint64_t trace_session_lost_on(const struct trace_session *session, unsigned int cpu);

/**
 * trace_session_destroy - stop recording, remove the instance, unmount
 * tracefs if the session mounted it. Safe with NULL.
 */
void trace_session_destroy(struct trace_session *session);

#endif
