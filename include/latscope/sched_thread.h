/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_SCHED_THREAD_H
#define LATSCOPE_SCHED_THREAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

/*
 * How the kernel schedules one thread, as /proc/PID/task/TID/stat and
 * status say: its policy (the kernel's SCHED_* number, so DEADLINE is
 * kept), its real-time priority and the CPUs it may run on. Read after
 * the fact, this is what a thread obtained, not what it asked for.
 */
#define SCHED_THREAD_OTHER 0
#define SCHED_THREAD_FIFO 1
#define SCHED_THREAD_RR 2
#define SCHED_THREAD_BATCH 3
#define SCHED_THREAD_IDLE 5
#define SCHED_THREAD_DEADLINE 6

/* PF_KTHREAD in the stat's flags field: a kernel thread */
#define SCHED_THREAD_KERNEL 0x00200000u

struct sched_thread {
	pid_t pid; /* the process (thread group) */
	pid_t tid;
	char comm[64]; /* as the kernel shows it, at most 15 characters from it */
	char state; /* R, S, D, ... Z for a zombie: ended, never to run again */
	unsigned int flags; /* the task's PF_* flags */
	int policy; /* SCHED_THREAD_* */
	int priority; /* 1-99 for FIFO/RR, 0 for the others */
	struct cpuset allowed; /* Cpus_allowed_list */
};

/* "SCHED_OTHER", "SCHED_FIFO", ..., "SCHED_DEADLINE"; "SCHED_?" for others */
const char *sched_thread_policy_name(int policy);

/* true for FIFO, RR and DEADLINE: the classes above the fair scheduler */
bool sched_thread_policy_is_realtime(int policy);

/**
 * sched_thread_parse_stat - the comm, state, flags, priority and policy of a stat line
 * @text: the text of /proc/PID/task/TID/stat (the comm may hold spaces
 *	  and parentheses: it ends at the last ')')
 * @thread: receives comm, state, flags, priority and policy; the rest is untouched
 *
 * Returns 0; -ENODATA when the line ends after the flags but before the
 * policy (comm and flags are then set: enough for who a task is); or
 * -EINVAL when the line is not a stat line.
 */
int sched_thread_parse_stat(const char *text, struct sched_thread *thread);

/**
 * sched_thread_parse_allowed - the Cpus_allowed_list of a status file
 * @text: the text of /proc/PID/task/TID/status
 * @allowed: receives the set
 *
 * Returns 0, or -EINVAL when the field is missing or malformed.
 */
int sched_thread_parse_allowed(const char *text, struct cpuset *allowed);

/**
 * sched_thread_read - read one thread's scheduling from /proc
 * @root: where /proc is
 * @pid: its process
 * @tid: the thread
 * @thread: receives everything; nothing to release
 *
 * Returns 0, -ESRCH when the thread ended before or while it was read
 * (its files vanished or read empty: @thread's comm is "" when its stat
 * was not read, else comm, policy and priority are its stat's), or another
 * negative errno code.
 */
int sched_thread_read(struct sysroot *root, pid_t pid, pid_t tid, struct sched_thread *thread);

#endif
