// SPDX-License-Identifier: GPL-2.0-or-later
/* The real-time threads that can preempt a measurement, read from /proc. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/sched_rivals.h"

static bool is_stopper(const struct sched_thread *thread)
{
	return (thread->flags & SCHED_THREAD_KERNEL) && !strncmp(thread->comm, "migration/", 10);
}

bool sched_rival_preempts(const struct sched_rival_query *query, const struct sched_thread *thread)
{
	/* a zombie keeps the policy it had but never runs again */
	if (!sched_thread_policy_is_realtime(thread->policy) || is_stopper(thread) ||
	    thread->state == 'Z' || thread->state == 'X')
		return false;
	if (!cpuset_intersects(&thread->allowed, &query->cpus))
		return false;
	/* deadline tasks run before every FIFO and RR task */
	if (thread->policy == SCHED_THREAD_DEADLINE)
		return true;
	if (query->policy == SCHED_THREAD_DEADLINE)
		return false;
	if (!sched_thread_policy_is_realtime(query->policy))
		return true;
	return thread->priority >= query->priority;
}

static int keep_rival(struct sched_rivals *rivals, const struct sched_thread *thread)
{
	struct sched_thread *grown = array_grow(rivals->threads, &rivals->cap_threads,
						rivals->nr_threads + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	rivals->threads = grown;
	grown[rivals->nr_threads++] = *thread;
	return 0;
}

static int keep_unread(struct sched_rivals *rivals, const struct sched_thread *thread, int error)
{
	struct sched_unread *grown = array_grow(rivals->unread, &rivals->cap_unread,
						rivals->nr_unread + 1, sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	rivals->unread = grown;
	grown[rivals->nr_unread] = (struct sched_unread){ .pid = thread->pid,
							  .tid = thread->tid,
							  .error = error,
							  .policy = thread->policy,
							  .priority = thread->priority };
	memcpy(grown[rivals->nr_unread].comm, thread->comm, sizeof(thread->comm));
	rivals->nr_unread++;
	return 0;
}

/* a directory entry that is a number: a pid or a tid */
static pid_t entry_id(const struct dirent *entry)
{
	const char *p;

	for (p = entry->d_name; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return (pid_t)atoi(entry->d_name);
}

static int scan_process(struct sysroot *root, const struct sched_rival_query *query, pid_t pid,
			struct sched_rivals *rivals)
{
	struct sched_thread thread;
	struct dirent *entry;
	DIR *tasks;
	int ret = 0;

	tasks = sysroot_opendir(root, "/proc/%d/task", (int)pid);
	if (!tasks) {
		if (errno == ENOENT || errno == ESRCH) { /* it ended between the two listings */
			rivals->nr_ended++;
			return 0;
		}
		thread = (struct sched_thread){ .pid = pid, .tid = pid };
		return keep_unread(rivals, &thread, -errno);
	}
	while (!ret && (entry = readdir(tasks))) {
		pid_t tid = entry_id(entry);
		int err;

		if (!tid)
			continue;
		err = sched_thread_read(root, pid, tid, &thread);
		if (err == -ESRCH && !thread.comm[0]) {
			rivals->nr_ended++;
			continue;
		}
		/* a thread gone mid-read matters only if it could have been a rival */
		if (err == -ESRCH && !sched_thread_policy_is_realtime(thread.policy))
			continue;
		if (err) {
			ret = keep_unread(rivals, &thread, err);
			continue;
		}
		rivals->nr_seen++;
		if (sched_rival_preempts(query, &thread))
			ret = keep_rival(rivals, &thread);
	}
	closedir(tasks);
	return ret;
}

int sched_rivals_scan(struct sysroot *root, const struct sched_rival_query *query,
		      struct sched_rivals *rivals)
{
	struct dirent *entry;
	DIR *proc;
	int ret = 0;

	memset(rivals, 0, sizeof(*rivals));
	proc = sysroot_opendir(root, "/proc");
	if (!proc)
		return -errno;
	while (!ret && (entry = readdir(proc))) {
		pid_t pid = entry_id(entry);

		if (pid && pid != query->exclude_pid)
			ret = scan_process(root, query, pid, rivals);
	}
	closedir(proc);
	return ret;
}

void sched_rivals_release(struct sched_rivals *rivals)
{
	free(rivals->threads);
	free(rivals->unread);
	memset(rivals, 0, sizeof(*rivals));
}
