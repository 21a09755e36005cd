// SPDX-License-Identifier: GPL-2.0-or-later
/* The threads a `latscope attach` target names, as /proc and cgroupfs list them. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/attach_target.h"
#include "latscope/log.h"
#include "latscope/parse.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define KTHREADD 2
/* TASK_COMM_LEN - 1: what the kernel keeps of a name a thread is given */
#define COMM_MAX 15
/*
 * A kworker's comm file says which workqueue it runs ("kworker/u8:2-events_unbound"),
 * past 15 characters; the scan reads it before it knows it is a kernel thread.
 */
#define COMM_FILE_MAX 256

/* What a scan needs of /proc/ID/status. */
struct task_status {
	pid_t tgid;
	pid_t ppid;
	int kthread; /* "Kthread:" as 1 or 0; -1 before Linux 6.0, which has no such line */
};

/* The files of a task that ended read as missing, or as "no such process". */
static bool ended(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

/*
 * Strictly decimal, from 1 to pid_t's largest: no sign, no space, no hex,
 * so that "--pid -1" or "--tid 0x10" are refused rather than read as
 * something else.
 */
static int parse_id(const char *text, pid_t *id)
{
	long long value;
	const char *p;

	if (!text || !*text)
		return -EINVAL;
	for (p = text; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
	if (parse_integer(text, 1, INT_MAX, &value))
		return -EINVAL;
	*id = (pid_t)value;
	return 0;
}

/* The number of a status line "KEY:\tNUMBER"; -ENODATA when there is no such line. */
static int status_field(const char *text, const char *key, long long *value)
{
	size_t key_len = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, key_len) && line[key_len] == ':') {
			const char *p = line + key_len + 1;
			char number[24];
			size_t len;

			p += strspn(p, " \t");
			len = strcspn(p, "\n");
			if (!len || len >= sizeof(number))
				return -EBADMSG;
			memcpy(number, p, len);
			number[len] = '\0';
			return parse_integer(number, 0, INT_MAX, value) ? -EBADMSG : 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENODATA;
}

/* Returns 0, -ESRCH when the task ended, -EBADMSG or a read error. */
static int read_status(struct sysroot *root, pid_t id, struct task_status *status)
{
	long long tgid = 0, ppid = 0, kthread = -1;
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = sysroot_read_alloc(root, &text, &len, "/proc/%d/status", (int)id);
	if (ret)
		return ended(ret) ? -ESRCH : ret;
	/* a task reaped while it was read leaves nothing to read */
	if (!len) {
		free(text);
		return -ESRCH;
	}
	ret = status_field(text, "Tgid", &tgid);
	if (!ret)
		ret = status_field(text, "PPid", &ppid);
	if (!ret) {
		ret = status_field(text, "Kthread", &kthread);
		if (ret == -ENODATA)
			ret = 0;
	}
	free(text);
	if (ret || tgid < 1 || kthread > 1) {
		log_debug("/proc/%d/status has no valid Tgid, PPid or Kthread line", (int)id);
		return -EBADMSG;
	}
	status->tgid = (pid_t)tgid;
	status->ppid = (pid_t)ppid;
	status->kthread = (int)kthread;
	return 0;
}

/*
 * "Kthread:" is the kernel's own answer. Without it, kthreadd and its
 * children are the kernel threads; in a pid namespace that guess would
 * refuse a user's process 2, which is why the line comes first.
 */
static bool is_kernel_thread(pid_t tgid, const struct task_status *status)
{
	if (status->kthread >= 0)
		return status->kthread;
	return tgid == KTHREADD || status->ppid == KTHREADD;
}

/* Returns 0, -ESRCH when the thread ended, or a read error. */
static int read_comm(struct sysroot *root, pid_t pid, pid_t tid, char comm[COMM_FILE_MAX])
{
	int ret = sysroot_read(root, comm, COMM_FILE_MAX, "/proc/%d/task/%d/comm", (int)pid,
			       (int)tid);

	if (ret < 0)
		return ended(ret) ? -ESRCH : ret;
	return 0;
}

static int add_thread(struct attach_threads *out, pid_t pid, pid_t tid, const char *comm)
{
	struct attach_thread *grown =
		array_grow(out->threads, &out->capacity, out->nr + 1, sizeof(*grown));
	struct attach_thread *thread;
	size_t len = strlen(comm);

	if (!grown)
		return -ENOMEM;
	out->threads = grown;
	thread = &grown[out->nr++];
	thread->pid = pid;
	thread->tid = tid;
	if (len > COMM_MAX)
		len = COMM_MAX;
	memcpy(thread->comm, comm, len);
	thread->comm[len] = '\0';
	return 0;
}

/*
 * The user threads of /proc/@pid/task named @name, or all of them when
 * @name is NULL: the caller then has checked that @pid is a user process.
 * With a name, the process's status is read at its first match only, as
 * most processes have none. A process or thread that ends meanwhile adds
 * nothing.
 */
static int add_process_threads(struct sysroot *root, pid_t pid, const char *name,
			       struct attach_threads *out)
{
	bool checked = !name;
	struct task_status status;
	char comm[COMM_FILE_MAX];
	struct dirent *entry;
	pid_t tgid = pid;
	DIR *tasks;
	int ret = 0;

	tasks = sysroot_opendir(root, "/proc/%d/task", (int)pid);
	if (!tasks)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	while ((entry = readdir(tasks))) {
		pid_t tid;

		if (parse_id(entry->d_name, &tid))
			continue;
		ret = read_comm(root, pid, tid, comm);
		if (ret == -ESRCH) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		if (name && strcmp(comm, name))
			continue;
		if (!checked) {
			ret = read_status(root, pid, &status);
			if (ret == -ESRCH) {
				ret = 0;
				break;
			}
			if (ret || is_kernel_thread(pid, &status))
				break;
			tgid = status.tgid;
			checked = true;
		}
		ret = add_thread(out, tgid, tid, comm);
		if (ret)
			break;
	}
	closedir(tasks);
	return ret;
}

static int find_process(struct sysroot *root, const char *value, struct attach_threads *out)
{
	struct task_status status;
	pid_t pid;
	int ret;

	ret = parse_id(value, &pid);
	if (!ret)
		ret = read_status(root, pid, &status);
	if (ret)
		return ret;
	/* /proc/TID opens for any thread, hidden as it is from the listing of /proc */
	if (status.tgid != pid)
		return -ESRCH;
	if (is_kernel_thread(pid, &status))
		return -EPERM;
	ret = add_process_threads(root, pid, NULL, out);
	return !ret && !out->nr ? -ESRCH : ret;
}

static int find_thread(struct sysroot *root, const char *value, struct attach_threads *out)
{
	struct task_status status;
	char comm[COMM_FILE_MAX];
	pid_t tid;
	int ret;

	ret = parse_id(value, &tid);
	if (!ret)
		ret = read_status(root, tid, &status);
	if (ret)
		return ret;
	/* a thread shares its process's parent: the leader's status would say the same */
	if (is_kernel_thread(status.tgid, &status))
		return -EPERM;
	ret = read_comm(root, status.tgid, tid, comm);
	return ret ? ret : add_thread(out, status.tgid, tid, comm);
}

static int find_comm(struct sysroot *root, const char *value, struct attach_threads *out)
{
	struct dirent *entry;
	DIR *proc;
	int ret = 0;

	if (!value || !*value)
		return -EINVAL;
	if (strlen(value) > COMM_MAX)
		return -ENAMETOOLONG;
	proc = sysroot_opendir(root, "/proc");
	if (!proc)
		return -errno;
	/* /proc lists processes only: every thread is found under its process */
	while (!ret && (entry = readdir(proc))) {
		pid_t pid;

		if (!parse_id(entry->d_name, &pid))
			ret = add_process_threads(root, pid, value, out);
	}
	closedir(proc);
	return !ret && !out->nr ? -ENOENT : ret;
}

/* A thread of a cgroup's list: it may have ended since the list was read. */
static int add_cgroup_thread(struct sysroot *root, pid_t tid, struct attach_threads *out)
{
	struct task_status status;
	char comm[COMM_FILE_MAX];
	int ret;

	ret = read_status(root, tid, &status);
	if (!ret && is_kernel_thread(status.tgid, &status))
		return 0;
	if (!ret)
		ret = read_comm(root, status.tgid, tid, comm);
	if (!ret)
		ret = add_thread(out, status.tgid, tid, comm);
	return ret == -ESRCH ? 0 : ret;
}

/* Missing, a file in the way, or a directory without the file: no cgroup v2. */
static int cgroup_read_result(int ret)
{
	return ret == -ENOENT || ret == -ENOTDIR || ret == -EISDIR ? -ENOTDIR : ret;
}

static bool under_cgroup_root(const char *path)
{
	size_t len = strlen(CGROUP_ROOT);

	return !strncmp(path, CGROUP_ROOT, len) && (path[len] == '/' || !path[len]);
}

/*
 * Where a path relative to the cgroup v2 hierarchy may be: in
 * /sys/fs/cgroup, or, on systemd's hybrid layout (v1 controllers in
 * /sys/fs/cgroup), in /sys/fs/cgroup/unified.
 */
static const char *const cgroup_v2_roots[] = { CGROUP_ROOT, CGROUP_ROOT "/unified" };

static int read_cgroup_threads(struct sysroot *root, const char *value, char **text)
{
	int len = (int)strlen(value), ret = -ENOTDIR;
	size_t i;

	/* "lab/" is the cgroup "lab" is */
	while (len > 1 && value[len - 1] == '/')
		len--;
	if (value[0] == '/') {
		ret = cgroup_read_result(
			sysroot_read_alloc(root, text, NULL, "%.*s/cgroup.threads", len, value));
		/* a path in /sys/fs/cgroup means just what it says */
		if (under_cgroup_root(value))
			return ret;
	}
	/* "lab", or "/lab" as /proc/PID/cgroup shows it ("0::/lab") */
	while (len > 1 && value[0] == '/') {
		value++;
		len--;
	}
	for (i = 0; ret == -ENOTDIR && i < sizeof(cgroup_v2_roots) / sizeof(cgroup_v2_roots[0]);
	     i++)
		ret = cgroup_read_result(sysroot_read_alloc(root, text, NULL,
							    "%s/%.*s/cgroup.threads",
							    cgroup_v2_roots[i], len, value));
	return ret;
}

static int find_cgroup(struct sysroot *root, const char *value, struct attach_threads *out)
{
	char *text = NULL, *line, *next;
	int ret;

	/* not the whole machine's root cgroup: that takes "/sys/fs/cgroup" said out loud */
	if (!value || !*value)
		return -EINVAL;
	ret = read_cgroup_threads(root, value, &text);
	if (ret)
		return ret;
	for (line = text; !ret && *line; line = next) {
		pid_t tid;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (parse_id(line, &tid)) {
			log_debug("cgroup %s lists '%s', not a thread id", value, line);
			ret = -EBADMSG;
		} else {
			ret = add_cgroup_thread(root, tid, out);
		}
	}
	free(text);
	return !ret && !out->nr ? -ESRCH : ret;
}

static int compare_tid(const void *a, const void *b)
{
	pid_t x = ((const struct attach_thread *)a)->tid;
	pid_t y = ((const struct attach_thread *)b)->tid;

	return x < y ? -1 : x > y;
}

/* Ascending tids, each once, so that attach_threads_has() can search them. */
static void sort_unique(struct attach_threads *threads)
{
	unsigned int i, kept = 0;

	if (!threads->nr)
		return;
	qsort(threads->threads, threads->nr, sizeof(*threads->threads), compare_tid);
	for (i = 1; i < threads->nr; i++)
		if (threads->threads[i].tid != threads->threads[kept].tid)
			threads->threads[++kept] = threads->threads[i];
	threads->nr = kept + 1;
}

int attach_target_find(struct sysroot *root, const struct attach_target *target,
		       struct attach_threads *out)
{
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!target)
		return -EINVAL;
	switch (target->by) {
	case ATTACH_PID:
		ret = find_process(root, target->value, out);
		break;
	case ATTACH_TID:
		ret = find_thread(root, target->value, out);
		break;
	case ATTACH_COMM:
		ret = find_comm(root, target->value, out);
		break;
	case ATTACH_CGROUP:
		ret = find_cgroup(root, target->value, out);
		break;
	}
	if (ret) {
		attach_threads_release(out);
		return ret;
	}
	sort_unique(out);
	return 0;
}

void attach_threads_release(struct attach_threads *threads)
{
	free(threads->threads);
	memset(threads, 0, sizeof(*threads));
}

bool attach_threads_has(const struct attach_threads *threads, pid_t tid)
{
	struct attach_thread key = { .tid = tid };

	return threads->nr &&
	       bsearch(&key, threads->threads, threads->nr, sizeof(*threads->threads), compare_tid);
}
