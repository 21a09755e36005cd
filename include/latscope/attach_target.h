/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_ATTACH_TARGET_H
#define LATSCOPE_ATTACH_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "latscope/sysroot.h"

/*
 * The threads `latscope attach` watches: the user names a process, a
 * thread, a thread name or a cgroup, and this finds the threads that name
 * stands for at the moment it is read from /proc (and /sys/fs/cgroup). A
 * thread that starts later is not in the list; one that ends during the
 * scan is left out of it.
 *
 * Kernel threads are never attached to: they are what attach explains a
 * user's latency with, not what it measures. A kernel thread is one whose
 * /proc/P/status says "Kthread: 1" (Linux 6.0 on) or, on kernels without
 * that line, process 2 (kthreadd) and its children (PPid 2).
 */
enum attach_by {
	ATTACH_PID, /* --pid PID: every thread of process PID */
	ATTACH_TID, /* --tid TID: that one thread */
	ATTACH_COMM, /* --comm NAME: every thread named NAME, in any process */
	ATTACH_CGROUP, /* --cgroup PATH: every thread of a cgroup v2 */
};

struct attach_target {
	enum attach_by by;
	const char *value; /* the option's text, as the user gave it */
};

struct attach_thread {
	pid_t pid; /* its process (thread group) */
	pid_t tid;
	char comm[16]; /* its name as the kernel keeps it: at most 15 characters */
};

/* Found threads in ascending tid order, each tid once. */
struct attach_threads {
	struct attach_thread *threads;
	unsigned int nr, capacity;
};

/**
 * attach_target_find - the threads a target names
 * @root: where /proc and /sys/fs/cgroup are
 * @target: what the user named:
 *	ATTACH_PID: a process id, strictly decimal and above 0; every thread
 *	of /proc/PID/task. A thread's id that is not its process's is no
 *	process (that is what ATTACH_TID is for).
 *	ATTACH_TID: a thread id, strictly decimal and above 0; that thread,
 *	of the process its /proc/TID/status names (Tgid).
 *	ATTACH_COMM: a thread name; every thread of every process whose own
 *	name (/proc/P/task/T/comm) equals it exactly: all of cyclictest's
 *	threads are "cyclictest", and a process's threads may have names of
 *	their own (pthread_setname_np), which count, not the process's.
 *	ATTACH_CGROUP: a cgroup v2 directory; every thread its cgroup.threads
 *	lists, which holds the cgroup's own threads, not its descendants'.
 *	Either an absolute path ("/sys/fs/cgroup/lab"), or a path in the
 *	cgroup v2 hierarchy: relative ("lab") or as /proc/PID/cgroup shows
 *	it ("/lab", tried when the path as given is no cgroup), looked for
 *	in /sys/fs/cgroup, then in /sys/fs/cgroup/unified (systemd's hybrid
 *	layout, v1 controllers in /sys/fs/cgroup).
 * @out: receives the threads (at least one), in ascending tid order; the
 *	caller releases them with attach_threads_release(). Left empty on an
 *	error, with nothing to release.
 *
 * Each error is a different code, for one clear line to the user:
 * -EINVAL, a PID or TID that is not a decimal number above 0 (or out of
 * pid_t's range), an empty value or an unknown @target->by;
 * -ESRCH, no such process or thread, or none of its threads left by the
 * end of the scan (an ATTACH_CGROUP's empty cgroup too);
 * -EPERM, a PID or TID that names a kernel thread;
 * -ENOENT, an ATTACH_COMM name no user thread has;
 * -ENAMETOOLONG, an ATTACH_COMM name longer than the 15 characters the
 * kernel keeps of one (it could match nothing);
 * -ENOTDIR, an ATTACH_CGROUP path that is not a cgroup v2 directory (no
 * cgroup.threads in it: missing, a file, or a cgroup v1 hierarchy);
 * -EBADMSG, a /proc or cgroup file not as the kernel writes it;
 * -ENOMEM, or another error reading /proc (-EACCES, ...).
 */
int attach_target_find(struct sysroot *root, const struct attach_target *target,
		       struct attach_threads *out);

/* Free the list and leave it empty; an empty list may be released again. */
void attach_threads_release(struct attach_threads *threads);

/* true when thread @tid is in the list */
bool attach_threads_has(const struct attach_threads *threads, pid_t tid);

#endif
