/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_H
#define LATSCOPE_MONITOR_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/metrics.h"
#include "latscope/monitor_state.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/timer.h"
#include "latscope/topology.h"

/*
 * latscope monitor's engine: the timer wake-up latency of `latscope timer`
 * (lib/timer.c's threads: absolute clock_nanosleep, the policy asked for,
 * pinned, their memory on their node) on every measured CPU for as long as
 * it runs, each thread publishing into its CPU's state (monitor_cpu.h);
 * one housekeeping thread, away from the measured CPUs, that files closed
 * windows into 35-day rings, feeds --explain, reads the interrupt counts,
 * writes the textfile and checkpoints the state; an audit thread for the
 * drift. Scrapes take a snapshot with monitor_collect() from any thread.
 *
 * A command runs it as:
 *	monitor_params_default(&p); ...options...;
 *	m = monitor_new(&p, &topo);            checks, allocates; nothing runs
 *	monitor_load_state(m, &outcome);       continue, or keep the old aside
 *	http = exporter_http_open(...)         the port, before any measurement
 *	rt_lock_memory(), PM QoS ...           the command's kernel settings
 *	monitor_start(m);                      tracing, threads
 *	exporter_http_start(http);             serves monitor_collect()
 *	monitor_notify_ready(...);
 *	...wait for a signal, --duration, or monitor_wait() saying a thread failed...
 *	monitor_notify_stopping();
 *	monitor_stop(m);                       threads end, tracing removed,
 *	                                       windows closed, last checkpoint
 *	exporter_http_free(http);              no scrape after this
 *	...restore the command's kernel settings...
 *	monitor_free(m);
 */
#define MONITOR_DEFAULT_INTERVAL_NS 1000000ULL /* 1 ms */
#define MONITOR_DEFAULT_POLICY RT_POLICY_FIFO
#define MONITOR_DEFAULT_PRIORITY 95
#define MONITOR_DEFAULT_WINDOW_NS (300ULL * 1000000000ULL) /* 5 min, OSADL's practice */
#define MONITOR_DEFAULT_AUDIT_EVERY_NS (600ULL * 1000000000ULL) /* 10 min */
#define MONITOR_DEFAULT_CHECKPOINT_NS (60ULL * 1000000000ULL)
#define MONITOR_TEXTFILE_EVERY_NS (15ULL * 1000000000ULL)
#define MONITOR_DEFAULT_STATE "/var/lib/latscope/monitor.json"
/* the window ring covers at least this long */
#define MONITOR_HISTORY_NS (35ULL * 24 * 3600 * 1000000000ULL)

struct monitor_params {
	struct cpuset cpus; /* the measured CPUs; monitor_default_cpus() when empty */
	uint64_t interval_ns;
	enum rt_policy policy;
	int priority;
	uint64_t window_ns;
	bool explain;
	uint64_t explain_above_ns; /* 0: above each CPU's p99, followed */
	uint64_t audit_every_ns; /* 0: no audit */
	const char *state_path; /* NULL: no state */
	uint64_t checkpoint_ns;
	const char *textfile_dir; /* NULL: no textfile */
	uint64_t textfile_every_ns;
	struct sysroot *root; /* where /proc and /sys are read; must outlive the monitor */
	/* the command line, recorded in the state */
	int argc;
	char **argv;
};

/* Fill @params with the defaults (no CPUs: the default CPUs; no state path). */
void monitor_params_default(struct monitor_params *params);

/**
 * monitor_default_cpus - the CPUs measured when none are given
 * @topo: the topology
 * @cpus: receives the real-time CPUs (isolated and nohz_full), or every
 *	  online CPU when there are none
 * Returns true when they are real-time CPUs.
 */
bool monitor_default_cpus(const struct topology *topo, struct cpuset *cpus);

struct monitor;

/**
 * monitor_new - check the parameters and prepare every CPU's state
 * @params: the parameters (copied; the strings and root must outlive it)
 * @topo: the topology (copied where needed)
 *
 * Nothing runs yet and no kernel setting changes. Returns the monitor to
 * free with monitor_free(), or NULL (logged: a CPU not online, an interval
 * or window out of range, out of memory).
 */
struct monitor *monitor_new(const struct monitor_params *params, const struct topology *topo);

/**
 * monitor_load_state - continue the state file, or begin a new one
 * @m: a monitor not started yet
 * @outcome: receives what happened
 *
 * The state is this monitor's first: its lock is taken (held until
 * monitor_free(); another monitor holding it is -EBUSY, logged with its
 * pid) and the temporary files a killed writer left are removed. A state
 * of the same CPUs, interval and window is continued: its counts, windows
 * and causes go on from where they were. Another run's state is kept aside
 * as FILE.old.TIME, a corrupt or truncated one (or one holding values no
 * monitor writes) as FILE.corrupt.TIME, never over an earlier one, with one
 * warning saying why, and a new state begins. Returns 0, or a negative
 * errno code (logged) when the file exists but cannot be read or moved.
 */
int monitor_load_state(struct monitor *m, enum state_outcome *outcome);

/**
 * monitor_start - start tracing (--explain), then the measuring threads,
 * the housekeeping thread and the audit
 * Returns 0, or a negative errno code (logged) with nothing left running.
 */
int monitor_start(struct monitor *m);

/**
 * monitor_wait - wait until the measurement fails or @timeout_ms passed
 * @m: a started monitor
 * @timeout_ms: the longest wait, -1 for none
 * @sigmask: the signal mask during the wait, or NULL (see timer_wait())
 * Returns true when the measuring threads ended (an error).
 */
bool monitor_wait(struct monitor *m, int timeout_ms, const sigset_t *sigmask);

/**
 * monitor_collect - a snapshot of every metric, for a scrape or the
 * textfile; safe from any thread while the monitor runs
 * @monitor: the monitor (void * to be an exporter_collect)
 * Returns a snapshot to free with metrics_free(), or NULL.
 */
struct metrics *monitor_collect(void *monitor);

/**
 * monitor_checkpoint - write the state now, and return once it is on disk
 * (monitor_stop() does, after any checkpoint written behind)
 * Returns 0 or a negative errno code (logged).
 */
int monitor_checkpoint(struct monitor *m);

/**
 * monitor_checkpoint_behind - a checkpoint written by a thread of its own,
 * which holds the state only while it copies one CPU (its ring's coded
 * bytes, its blocks, its counts), then formats and writes that copy with
 * nothing held; the housekeeping thread does this every checkpoint_ns
 * Returns 0 once the thread is started, -EBUSY when the one before is still
 * writing (nothing done: try again later), or -ENOMEM (logged); the
 * write's own result is monitor_checkpoint_wait()'s.
 */
int monitor_checkpoint_behind(struct monitor *m);

/* What a checkpoint written behind cost. */
struct monitor_checkpoint_times {
	uint64_t held_ns; /* the state held, in all: each CPU's copy */
	uint64_t longest_hold_ns; /* the longest of those holds */
	uint64_t written_ns; /* until the file was on disk */
	uint64_t cpu_ns; /* the CPU time its thread took for all of it */
	/* no file: the windows' text made ahead after a state was continued */
	bool text_only;
};

/**
 * monitor_checkpoint_wait - wait until the checkpoint written behind is on
 * disk (renamed over the state, its directory synced), or the windows'
 * text that monitor_load_state() has made behind is made
 * @m: the monitor
 * @times: receives what it cost (zeros when there was none), or NULL
 * Returns its result: 0 (also when there is none) or a negative errno code,
 * logged by its thread.
 */
int monitor_checkpoint_wait(struct monitor *m, struct monitor_checkpoint_times *times);

/**
 * monitor_stop - end the run in order: the audit, the measuring threads,
 * the last spikes explained and the tracing instance removed, the open
 * windows closed, the last textfile and checkpoint
 * Returns 0, or the first error (a measuring thread failed, the last
 * checkpoint could not be written).
 */
int monitor_stop(struct monitor *m);

/**
 * monitor_write_result - the state document, written now to another file
 * (a command's --json), atomically
 * @m: the monitor
 * @path: the file
 * @extra: an object whose members are added after the header's ("end",
 *	   "end_time", ...), not taken; or NULL
 * @layout: as result_write_as()'s (indented on a terminal unless compact)
 * Returns 0 or a negative errno code (not logged: the caller names the
 * option that asked for the file).
 */
int monitor_write_result(struct monitor *m, const char *path, json_t *extra,
			 enum result_layout layout);

/* The largest latency this run measured, for --budget. */
uint64_t monitor_max_ns(const struct monitor *m);

/* How many CPUs are measured: the lanes of monitor_read_run(). */
unsigned int monitor_nr_cpus(const struct monitor *m);

/**
 * monitor_read_run - one measured CPU's wake-ups in this run alone (the
 * state's counts since it began are monitor_collect()'s)
 * @m: a started (or stopped) monitor
 * @lane: 0 .. monitor_nr_cpus() - 1, in CPU order
 * @cpu: receives the CPU
 * @live: receives this run's wake-ups, min, last, max and sum
 * Returns false before monitor_start() or for a lane out of range.
 */
bool monitor_read_run(const struct monitor *m, unsigned int lane, unsigned int *cpu,
		      struct timer_live *live);

/* The thread id of a lane's measuring thread, once monitor_start() returned. */
pid_t monitor_thread_tid(const struct monitor *m, unsigned int lane);

/* The measured CPUs, and the others (where every helper thread runs). */
const struct cpuset *monitor_cpus(const struct monitor *m);
const struct cpuset *monitor_housekeeping_cpus(const struct monitor *m);

/* Stop if needed and free. NULL is ignored. */
void monitor_free(struct monitor *m);

/**
 * monitor_notify_ready - tell systemd (Type=notify) the monitor measures
 * and serves; nothing without $NOTIFY_SOCKET
 * @status: a line for `systemctl status`, or NULL
 * Returns 0 or a negative errno code.
 */
int monitor_notify_ready(const char *status);

/* Tell systemd the monitor is stopping (checkpointing). */
int monitor_notify_stopping(void);

#endif
