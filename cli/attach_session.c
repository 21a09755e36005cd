// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope attach's run: the target's threads found in /proc, a private
 * tracing instance on the CPUs they may run on, the records of every CPU
 * merged in time order and fed to the activation tracker (lib/attach), each
 * activation accounted to its thread as timer's threads account theirs.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach_session.h"
#include "cli.h"
#include "latscope/clock.h"
#include "latscope/result.h"
#include "output_path.h"

/* How often the trace is read, and the target looked at again. */
#define DRAIN_INTERVAL_MS 200
/*
 * A record is fed once every CPU's records up to its time are in: those
 * older than this when the buffers were last read. A record written just
 * before the read may be committed just after it.
 */
#define MERGE_DELAY_NS (50 * NS_PER_MS)
/* The ring buffer of each traced CPU. */
#define BUFFER_KB 4096
/* The timer wake-ups kept one by one in the JSON (spike_records). */
#define SPIKE_THRESHOLD_NS NS_PER_MS
#define SPIKES_KEPT 1000
/* One filter names at most this many threads (the kernel's page). */
#define FILTER_MAX 4000

static struct attach_lane *lane_of(struct attach_session *s, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < s->nr_lanes; i++)
		if (s->lanes[i].thread.tid == tid)
			return &s->lanes[i];
	return NULL;
}

/* A thread of the target, measured from now on. */
static int add_lane(struct attach_session *s, const struct attach_thread *thread)
{
	struct attach_lane *lane;

	if (s->nr_lanes == s->lanes_capacity) {
		unsigned int capacity = s->lanes_capacity ? 2 * s->lanes_capacity : 8;
		struct attach_lane *grown = realloc(s->lanes, capacity * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->lanes = grown;
		s->lanes_capacity = capacity;
	}
	lane = &s->lanes[s->nr_lanes];
	memset(lane, 0, sizeof(*lane));
	lane->thread = *thread;
	lane->sched_known = !sched_thread_read(s->root, thread->pid, thread->tid, &lane->sched);
	lane->timer = timer_stats_new(&s->params, 0);
	if (!lane->timer)
		return -ENOMEM;
	lane->timer->thread = s->nr_lanes;
	lane->timer->tid = thread->tid;
	lane->timer->priority = lane->sched_known ? lane->sched.priority : 0;
	hist_init(&lane->other);
	s->nr_lanes++;
	if (s->tracker)
		return attach_tracker_follow(s->tracker, thread->tid);
	return 0;
}

static bool is_stranger(const struct attach_session *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->nr_strangers; i++)
		if (s->strangers[i] == tid)
			return true;
	return false;
}

/*
 * A task a followed thread made, at its first activation: one of the
 * target's (a thread of the process, of the name, in the cgroup) gets a
 * lane, any other is a stranger from then on.
 */
static struct attach_lane *newcomer(struct attach_session *s, pid_t tid)
{
	struct attach_threads found = { 0 };
	struct attach_lane *lane = NULL;
	unsigned int i;
	pid_t *grown;

	if (s->opts.target.by == ATTACH_TID || is_stranger(s, tid))
		return NULL;
	if (!attach_target_find(s->root, &s->opts.target, &found))
		for (i = 0; i < found.nr; i++)
			if (found.threads[i].tid == tid && !add_lane(s, &found.threads[i]))
				lane = &s->lanes[s->nr_lanes - 1];
	attach_threads_release(&found);
	if (lane)
		return lane;
	grown = realloc(s->strangers, (s->nr_strangers + 1) * sizeof(*grown));
	if (grown) {
		s->strangers = grown;
		s->strangers[s->nr_strangers++] = tid;
	}
	return NULL;
}

/* --activations: every one, written at the end */
static void keep_activation(struct attach_session *s, const struct attach_activation *a)
{
	if (s->nr_kept == s->kept_capacity) {
		size_t capacity = s->kept_capacity ? 2 * s->kept_capacity : 65536;
		struct attach_activation *grown = realloc(s->kept, capacity * sizeof(*grown));

		if (!grown) {
			s->kept_dropped++;
			return;
		}
		s->kept = grown;
		s->kept_capacity = capacity;
	}
	s->kept[s->nr_kept++] = *a;
}

static void account(const struct attach_activation *a, void *context)
{
	struct attach_session *s = context;
	struct attach_lane *lane = lane_of(s, a->tid);

	if (!lane)
		lane = newcomer(s, a->tid);
	if (!lane)
		return;
	if (s->opts.activations_path)
		keep_activation(s, a);
	if (a->kind == ATTACH_WAKEUP_TIMER) {
		if (lane->last_expiry_ns && a->expiry_ns > lane->last_expiry_ns &&
		    (!lane->interval_ns || a->expiry_ns - lane->last_expiry_ns < lane->interval_ns))
			lane->interval_ns = a->expiry_ns - lane->last_expiry_ns;
		lane->last_expiry_ns = a->expiry_ns;
		timer_stats_add(lane->timer, a->expiry_ns, a->return_ns, 0);
		return;
	}
	if (a->kind == ATTACH_WAKEUP_UNSEEN) {
		lane->unseen++;
		return;
	}
	hist_add(&lane->other, attach_activation_latency(a));
	if (a->woken_ns && a->switch_in_ns > a->woken_ns &&
	    a->switch_in_ns - a->woken_ns > lane->switch_in_max_ns)
		lane->switch_in_max_ns = a->switch_in_ns - a->woken_ns;
}

/* The last pid the kernel gave out; 0 when unknown. */
static long last_pid(struct sysroot *root)
{
	char text[32];

	if (sysroot_read(root, text, sizeof(text), "/proc/sys/kernel/ns_last_pid") < 0)
		return 0;
	return strtol(text, NULL, 10);
}

/*
 * Whose returns to user space are recorded: "common_pid == 12 || common_pid
 * == 13 || common_pid > 4242", the target's threads, and any task made
 * after the last pid given out before they were read, so that a thread the
 * target makes is
 * recorded from its first activation, before a rescan names it (pids
 * wrapping around aside). A single thread (--tid) has no newcomers.
 */
static int syscall_filter(const struct attach_session *s, char *buf, size_t size)
{
	size_t used = 0;
	unsigned int i;
	int n;

	for (i = 0; i < s->nr_lanes; i++) {
		n = snprintf(buf + used, size - used, "%scommon_pid == %d", i ? " || " : "",
			     (int)s->lanes[i].thread.tid);
		if (n < 0 || (size_t)n >= size - used)
			return -E2BIG;
		used += (size_t)n;
	}
	/* a single thread has no newcomers; without the last pid, the looks find them */
	if (s->opts.target.by == ATTACH_TID || s->last_pid <= 0)
		return 0;
	n = snprintf(buf + used, size - used, " || common_pid > %ld", s->last_pid);
	return n < 0 || (size_t)n >= size - used ? -E2BIG : 0;
}

static const char *target_words(enum attach_by by)
{
	static const char *const words[] = {
		[ATTACH_PID] = "process",
		[ATTACH_TID] = "thread",
		[ATTACH_COMM] = "thread name",
		[ATTACH_CGROUP] = "cgroup",
	};

	return words[by];
}

/* The target's threads now, with a line for the user when there are none. */
static int find_threads(struct attach_session *s, struct attach_threads *found)
{
	const struct attach_target *t = &s->opts.target;
	int err = attach_target_find(s->root, t, found);

	switch (err) {
	case 0:
		return 0;
	case -EINVAL:
		return runtime_error("--%s '%s': not a %s id (a decimal number above 0)",
				     t->by == ATTACH_PID ? "pid" : "tid", t->value,
				     target_words(t->by));
	case -ESRCH:
		return runtime_error("no %s %s (or none of its threads is left)",
				     target_words(t->by), t->value);
	case -EPERM:
		return runtime_error("%s %s is a kernel thread: attach measures user threads",
				     target_words(t->by), t->value);
	case -ENOENT:
		return runtime_error("no user thread is named '%s'", t->value);
	case -ENAMETOOLONG:
		return runtime_error("--comm '%s': the kernel keeps 15 characters of a name",
				     t->value);
	case -ENOTDIR:
		return runtime_error("--cgroup %s: not a cgroup v2 directory (no cgroup.threads)",
				     t->value);
	default:
		return runtime_error("cannot read the %s %s: %s", target_words(t->by), t->value,
				     sysroot_strerror(err));
	}
}

/* The memory the target's process keeps locked (VmLck), in KiB. */
static uint64_t memory_locked_kb(struct sysroot *root, pid_t pid)
{
	char text[8192], *line;
	unsigned long long kb;

	if (sysroot_read(root, text, sizeof(text), "/proc/%d/status", (int)pid) < 0)
		return 0;
	line = strstr(text, "\nVmLck:");
	if (!line || sscanf(line + 7, "%llu", &kb) != 1)
		return 0;
	return kb;
}

bool attach_session_prepare(struct attach_session *s, int argc, char **argv, int *status)
{
	struct attach_threads found = { 0 };
	unsigned int i;

	if (!option_parse(&attach_command, argc, argv, &s->opts, NULL, status))
		return false;
	cli_set_verbosity(s->opts.verbose);
	if (s->opts.json.path && s->opts.activations_path &&
	    path_same_file(s->opts.json.path, s->opts.activations_path)) {
		*status = usage_error("--json and --activations name the same file");
		return false;
	}
	s->doc = result_new("attach", argc, argv);
	s->root = sysroot_new("/");
	s->names = names_new();
	if (!s->doc || !s->root || !s->names) {
		*status = runtime_error("out of memory");
		return false;
	}
	s->last_pid = last_pid(s->root);
	*status = find_threads(s, &found);
	if (*status)
		return false;
	if (geteuid() != 0) {
		attach_threads_release(&found);
		*status = runtime_error("attach reads the kernel's trace: run it as root");
		return false;
	}
	s->lane_params.cpu = -1;
	s->params.nr_threads = 1;
	s->params.threads = &s->lane_params;
	/* no grid to miss: the period is the application's */
	s->params.mode = TIMER_WAIT_RELATIVE;
	s->params.spike_threshold_ns = SPIKE_THRESHOLD_NS;
	s->params.spike_capacity = SPIKES_KEPT;
	for (i = 0; i < found.nr; i++) {
		if (add_lane(s, &found.threads[i])) {
			attach_threads_release(&found);
			*status = runtime_error("out of memory");
			return false;
		}
		if (s->lanes[i].sched_known)
			cpuset_or(&s->cpus, &s->cpus, &s->lanes[i].sched.allowed);
	}
	s->memory_locked_kb = memory_locked_kb(s->root, found.threads[0].pid);
	attach_threads_release(&found);
	if (cpuset_empty(&s->cpus)) {
		*status = runtime_error("cannot read where the target's threads may run");
		return false;
	}
	return true;
}

/* In time order; records of one time in the order they were read. */
static int by_time(const void *x, const void *y)
{
	const struct waiting_record *a = x, *b = y;

	if (a->record.ts != b->record.ts)
		return a->record.ts < b->record.ts ? -1 : 1;
	return a->sequence < b->sequence ? -1 : a->sequence > b->sequence;
}

static void collect(const struct trace_record *r, void *context)
{
	struct attach_session *s = context;

	if (s->nr_waiting == s->waiting_capacity) {
		size_t capacity = s->waiting_capacity ? 2 * s->waiting_capacity : 65536;
		struct waiting_record *grown = realloc(s->waiting, capacity * sizeof(*grown));

		if (!grown)
			return; /* a record lost: its activation is not counted */
		s->waiting = grown;
		s->waiting_capacity = capacity;
	}
	s->waiting[s->nr_waiting].record = *r;
	s->waiting[s->nr_waiting++].sequence = s->records_read++;
}

/*
 * Read every CPU's buffer, and feed in time order what is older than
 * @horizon: each CPU's records come in order, not the CPUs' among them.
 */
static int drain(struct attach_session *s, uint64_t horizon)
{
	size_t fed = 0;
	long read = trace_session_drain(s->trace, collect, s);

	if (read < 0)
		return (int)read;
	qsort(s->waiting, s->nr_waiting, sizeof(*s->waiting), by_time);
	while (fed < s->nr_waiting && s->waiting[fed].record.ts <= horizon)
		attach_tracker_feed(s->tracker, &s->waiting[fed++].record);
	memmove(s->waiting, s->waiting + fed, (s->nr_waiting - fed) * sizeof(*s->waiting));
	s->nr_waiting -= fed;
	return 0;
}

/* A thread that ended and waits to be reaped (a zombie) runs no more. */
static bool still_runs(struct attach_session *s, const struct attach_thread *thread)
{
	struct sched_thread t;

	return !sched_thread_read(s->root, thread->pid, thread->tid, &t) && t.state != 'Z';
}

/*
 * Look at the target again: threads it made since (a --pid, --comm or
 * --cgroup target) are followed from now on, and the filter moves on to
 * the pids given out since. Returns how many of its threads still run, or
 * -1 when /proc could not say (the run goes on).
 */
static int follow_new_threads(struct attach_session *s)
{
	struct attach_threads found = { 0 };
	char filter[FILTER_MAX];
	long before = last_pid(s->root);
	unsigned int i, added = 0;
	int err, running = 0;

	err = attach_target_find(s->root, &s->opts.target, &found);
	if (err)
		return err == -ESRCH ? 0 : -1;
	for (i = 0; i < found.nr; i++) {
		struct attach_lane *known = lane_of(s, found.threads[i].tid);

		if (!still_runs(s, &found.threads[i]))
			continue;
		running++;
		/* a name changes (exec, pthread_setname_np): the latest is kept */
		if (known)
			memcpy(known->thread.comm, found.threads[i].comm,
			       sizeof(known->thread.comm));
		if (known || s->opts.target.by == ATTACH_TID)
			continue;
		if (add_lane(s, &found.threads[i]))
			break;
		added++;
	}
	attach_threads_release(&found);
	if (added || before != s->last_pid) {
		s->last_pid = before;
		if (!syscall_filter(s, filter, sizeof(filter)))
			trace_session_filter_syscall_exits(s->trace, filter);
	}
	return running;
}

/* The live view: the T: lines redrawn in place, as cyclictest's on a terminal. */
static void redraw(const struct attach_session *s, unsigned int *shown)
{
	if (*shown)
		printf("\033[%uA", *shown);
	attach_session_lines(stdout, s);
	*shown = s->nr_lanes;
	fflush(stdout);
}

int attach_session_run(struct attach_session *s)
{
	struct trace_options options = { .clock = "mono", .buffer_kb = BUFFER_KB };
	char filter[FILTER_MAX], what[PATH_MAX + 16];
	bool live = !s->opts.quiet && isatty(STDOUT_FILENO);
	unsigned int i, shown = 0;
	uint64_t deadline;

	if (syscall_filter(s, filter, sizeof(filter)))
		return runtime_error("the target has too many threads (%u) for one trace filter",
				     s->nr_lanes);
	s->tracker = attach_tracker_new(account, s);
	if (!s->tracker)
		return runtime_error("out of memory");
	for (i = 0; i < s->nr_lanes; i++)
		attach_tracker_follow(s->tracker, s->lanes[i].thread.tid);
	options.cpus = s->cpus;
	options.syscall_exits_of = filter;
	/* before the first record: every activation comes after it */
	s->origin_ns = clock_ns(CLOCK_MONOTONIC);
	s->trace = trace_session_create(&options, s->names);
	if (!s->trace) {
		s->origin_ns = 0; /* nothing was measured */
		return EXIT_ERROR;
	}
	/* the moment from which every activation is seen: a script may wait for it */
	if (s->opts.target.by == ATTACH_COMM)
		snprintf(what, sizeof(what), "named %s", s->opts.target.value);
	else
		snprintf(what, sizeof(what), "of %s %s", target_words(s->opts.target.by),
			 s->opts.target.value);
	cli_say("tracing %u thread%s %s on cpus %s", s->nr_lanes, s->nr_lanes == 1 ? "" : "s", what,
		cpuset_format_list(&s->cpus, filter, sizeof(filter)));
	deadline = s->opts.duration_ns ? s->origin_ns + s->opts.duration_ns : UINT64_MAX;
	s->end = ATTACH_END_DURATION;
	while (clock_ns(CLOCK_MONOTONIC) < deadline) {
		struct timespec pause = clock_timespec(DRAIN_INTERVAL_MS * NS_PER_MS);

		if (stop_requested) {
			s->end = ATTACH_END_SIGNAL;
			break;
		}
		if (drain(s, clock_ns(CLOCK_MONOTONIC) - MERGE_DELAY_NS)) {
			s->end = ATTACH_END_ERROR;
			break;
		}
		if (follow_new_threads(s) == 0) {
			s->end = ATTACH_END_TARGET;
			break;
		}
		if (live)
			redraw(s, &shown);
		nanosleep(&pause, NULL);
	}
	s->end_ns = clock_ns(CLOCK_MONOTONIC);
	/* what the buffers still hold: everything up to the end */
	if (s->end != ATTACH_END_ERROR && drain(s, UINT64_MAX))
		s->end = ATTACH_END_ERROR;
	s->lost_events = trace_session_lost(s->trace);
	trace_session_destroy(s->trace);
	s->trace = NULL;
	return s->end == ATTACH_END_ERROR ? runtime_error("reading the trace failed") : EXIT_OK;
}

void attach_session_free(struct attach_session *s)
{
	unsigned int i;

	trace_session_destroy(s->trace);
	attach_tracker_free(s->tracker);
	for (i = 0; i < s->nr_lanes; i++) {
		timer_stats_free(s->lanes[i].timer);
		hist_release(&s->lanes[i].other);
	}
	free(s->lanes);
	free(s->strangers);
	free(s->kept);
	free(s->waiting);
	names_free(s->names);
	sysroot_free(s->root);
	json_decref(s->doc);
	option_release(&attach_command, &s->opts);
}
