// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/sched_thread.h"

/* who a task is, from /proc/PID/stat: its comm and PF_* flags */
static int parse_stat(const char *text, struct audit_task *task)
{
	struct sched_thread thread = { 0 };
	int ret = sched_thread_parse_stat(text, &thread);

	if (ret && ret != -ENODATA)
		return ret;
	/* the kernel's comm is 15 characters: it fits; thread was zeroed */
	memcpy(task->comm, thread.comm, sizeof(task->comm) - 1);
	task->comm[sizeof(task->comm) - 1] = '\0';
	task->flags = thread.flags;
	return 0;
}

/* false when the task is gone (it exited since the directory was read) */
static bool read_allowed(struct sysroot *root, struct audit_task *task)
{
	char *status;
	int ret;

	task->allowed_known = false;
	ret = sysroot_read_alloc(root, &status, NULL, "/proc/%d/status", task->pid);
	if (ret == -ENOENT || ret == -ESRCH)
		return false;
	task->status_error = ret;
	if (ret)
		return true;
	task->status_error = sched_thread_parse_allowed(status, &task->allowed);
	task->allowed_known = !task->status_error;
	free(status);
	return true;
}

/* a stat that is there but does not read or parse: the task is unknown, not gone */
static void note_unreadable_stat(struct audit_context *ctx, int pid, int err)
{
	if (!ctx->nr_tasks_unreadable++)
		snprintf(ctx->task_unreadable, sizeof(ctx->task_unreadable), "/proc/%d/stat: %s",
			 pid, err == -EINVAL ? "does not parse" : strerror(-err));
}

static bool is_pid(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

int audit_tasks(struct audit_context *ctx)
{
	struct audit_task *grown;
	struct dirent *entry;
	size_t cap = 0;
	DIR *dir;

	if (ctx->tasks_loaded)
		return ctx->tasks_ret;
	ctx->tasks_loaded = true;
	dir = sysroot_opendir(ctx->root, "/proc");
	if (!dir) {
		ctx->tasks_ret = -errno;
		return ctx->tasks_ret;
	}
	while ((entry = readdir(dir))) {
		struct audit_task *task;
		char stat[1024];
		long pid;
		int ret;

		if (!is_pid(entry->d_name))
			continue;
		pid = strtol(entry->d_name, NULL, 10);
		if (pid <= 0 || pid > INT32_MAX)
			continue;
		if (ctx->nr_tasks == cap) {
			cap = cap ? cap * 2 : 256;
			grown = realloc(ctx->tasks, cap * sizeof(*grown));
			if (!grown) {
				closedir(dir);
				ctx->tasks_ret = -ENOMEM;
				return ctx->tasks_ret;
			}
			ctx->tasks = grown;
		}
		task = &ctx->tasks[ctx->nr_tasks];
		memset(task, 0, sizeof(*task));
		task->pid = (int)pid;
		/* a task that exits between readdir and read is simply gone */
		ret = sysroot_read(ctx->root, stat, sizeof(stat), "/proc/%d/stat", task->pid);
		if (ret == -ENOENT || ret == -ESRCH)
			continue;
		if (ret >= 0)
			ret = parse_stat(stat, task);
		if (ret < 0) {
			note_unreadable_stat(ctx, task->pid, ret == -EFBIG ? -EINVAL : ret);
			continue;
		}
		if (read_allowed(ctx->root, task))
			ctx->nr_tasks++;
	}
	closedir(dir);
	ctx->tasks_ret = 0;
	return 0;
}

bool audit_task_is_per_cpu(const struct audit_task *task)
{
	/*
	 * The kernel sets PF_NO_SETAFFINITY on the kthreads it binds to one CPU
	 * (ksoftirqd/N, migration/N, cpuhp/N, kworker/N:M): they follow their CPU
	 * by design. IRQ threads follow their IRQ's affinity, which the IRQ rules
	 * judge.
	 */
	if (task->flags & AUDIT_PF_NO_SETAFFINITY)
		return true;
	return (task->flags & AUDIT_PF_KTHREAD) && !strncmp(task->comm, "irq/", 4);
}

void audit_task_note_unknown(struct audit_finding *f, const struct audit_task *task,
			     unsigned int *unknown, char *first, size_t size)
{
	char path[64];
	const char *why = task->status_error == -EINVAL ? "no Cpus_allowed_list that parses" :
							  strerror(-task->status_error);

	snprintf(path, sizeof(path), "/proc/%d/status", task->pid);
	if (!first[0])
		snprintf(first, size, "%s: %s", path, why);
	audit_evidence_listed(f, unknown, path, "%s: %s: its CPUs are unknown", task->comm, why);
}

void audit_tasks_note_unreadable(struct audit_context *ctx, struct audit_finding *f,
				 unsigned int *unknown, char *first, size_t size)
{
	if (!ctx->nr_tasks_unreadable)
		return;
	if (!first[0])
		snprintf(first, size, "%s", ctx->task_unreadable);
	finding_evidence(f, "/proc/*/stat",
			 "%u tasks not read (first %s): what they are is unknown",
			 ctx->nr_tasks_unreadable, ctx->task_unreadable);
	*unknown += ctx->nr_tasks_unreadable;
}

bool audit_need_tasks(struct audit_context *ctx, struct audit_finding *f)
{
	int ret;

	if (!audit_need_rt(ctx, f))
		return false;
	ret = audit_tasks(ctx);
	if (!ret)
		return true;
	finding_skip_unreadable(f, "/proc", ret);
	return false;
}

void audit_tasks_release(struct audit_context *ctx)
{
	free(ctx->tasks);
	ctx->tasks = NULL;
	ctx->nr_tasks = 0;
	ctx->nr_tasks_unreadable = 0;
	ctx->tasks_loaded = false;
}
