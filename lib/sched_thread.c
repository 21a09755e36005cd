// SPDX-License-Identifier: GPL-2.0-or-later
/* One thread's scheduling as /proc shows it: what it obtained, not what it asked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/sched_thread.h"

/* after the comm, proc(5) numbers the fields from 3 (state) */
#define STAT_FLAGS 9
#define STAT_RT_PRIORITY 40
#define STAT_POLICY 41

const char *sched_thread_policy_name(int policy)
{
	switch (policy) {
	case SCHED_THREAD_OTHER:
		return "SCHED_OTHER";
	case SCHED_THREAD_FIFO:
		return "SCHED_FIFO";
	case SCHED_THREAD_RR:
		return "SCHED_RR";
	case SCHED_THREAD_BATCH:
		return "SCHED_BATCH";
	case SCHED_THREAD_IDLE:
		return "SCHED_IDLE";
	case SCHED_THREAD_DEADLINE:
		return "SCHED_DEADLINE";
	}
	return "SCHED_?";
}

bool sched_thread_policy_is_realtime(int policy)
{
	return policy == SCHED_THREAD_FIFO || policy == SCHED_THREAD_RR ||
	       policy == SCHED_THREAD_DEADLINE;
}

int sched_thread_parse_stat(const char *text, struct sched_thread *thread)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long value = 0;
	const char *p;
	size_t len;
	int field;

	if (!open || !close || close < open)
		return -EINVAL;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(thread->comm))
		len = sizeof(thread->comm) - 1;
	memcpy(thread->comm, open + 1, len);
	thread->comm[len] = '\0';
	/* fields from 3 on are numbers but the state, a letter */
	p = close + 1;
	for (field = 3; field <= STAT_POLICY; field++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			return field > STAT_FLAGS ? -ENODATA : -EINVAL;
		if (field == 3) {
			thread->state = *p++;
			continue;
		}
		/* priority and nice may be negative: only the three kept matter */
		value = strtoull(p, &end, 10);
		if (end == p)
			return -EINVAL;
		if (field == STAT_FLAGS)
			thread->flags = (unsigned int)value;
		else if (field == STAT_RT_PRIORITY && value <= 99)
			thread->priority = (int)value;
		else if (field == STAT_RT_PRIORITY)
			return -EINVAL;
		p = end;
	}
	if (value > 7)
		return -EINVAL;
	thread->policy = (int)value;
	return 0;
}

int sched_thread_parse_allowed(const char *text, struct cpuset *allowed)
{
	static const char key[] = "\nCpus_allowed_list:";
	const char *p = strstr(text, key);
	char list[4096];
	size_t len;

	if (!p)
		return -EINVAL;
	p += sizeof(key) - 1;
	p += strspn(p, " \t");
	len = strcspn(p, "\n");
	if (!len || len >= sizeof(list))
		return -EINVAL;
	memcpy(list, p, len);
	list[len] = '\0';
	return cpuset_parse_list(list, allowed) ? -EINVAL : 0;
}

/* A file of a thread that ended reads as missing, or as nothing at all. */
static int ended(int ret)
{
	return ret == -ENOENT || ret == -ESRCH || ret == 0 ? -ESRCH : ret;
}

int sched_thread_read(struct sysroot *root, pid_t pid, pid_t tid, struct sched_thread *thread)
{
	char stat[1024], *status = NULL;
	size_t len = 0;
	int ret;

	memset(thread, 0, sizeof(*thread));
	thread->pid = pid;
	thread->tid = tid;
	ret = sysroot_read(root, stat, sizeof(stat), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (ret <= 0)
		return ended(ret);
	ret = sched_thread_parse_stat(stat, thread);
	if (ret)
		return ret;
	ret = sysroot_read_alloc(root, &status, &len, "/proc/%d/task/%d/status", (int)pid,
				 (int)tid);
	if (ret || !len) {
		free(status);
		return ended(ret);
	}
	ret = sched_thread_parse_allowed(status, &thread->allowed);
	free(status);
	return ret;
}
