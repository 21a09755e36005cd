// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <tracefs.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "latscope/log.h"
#include "latscope/trace.h"
#include "latscope/trace_mount.h"

#define RECORD_PREFIX "tracefs."

static bool process_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

int trace_remove_stale_instances(const char *tracing_dir)
{
	char path[4096];
	struct dirent *entry;
	int removed = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/instances", tracing_dir);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((entry = readdir(dir))) {
		char *end;
		long pid;

		if (strncmp(entry->d_name, TRACE_INSTANCE_PREFIX, strlen(TRACE_INSTANCE_PREFIX)))
			continue;
		pid = strtol(entry->d_name + strlen(TRACE_INSTANCE_PREFIX), &end, 10);
		if (*end || pid <= 0 || process_alive((pid_t)pid))
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", tracing_dir, entry->d_name);
		if (!rmdir(path)) {
			log_warning("removed the tracing instance %s of a run that did not end",
				    entry->d_name);
			removed++;
		}
	}
	closedir(dir);
	return removed;
}

/* The mount's id, which no other mount has while it is mounted; 0 when not tracefs. */
static uint64_t tracefs_mount_id(const char *dir)
{
	struct statx stx;
	struct statfs fs;

	if (statfs(dir, &fs) || fs.f_type != TRACEFS_MAGIC)
		return 0;
	if (statx(AT_FDCWD, dir, AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

static void record_path(char *buf, size_t size, pid_t pid)
{
	snprintf(buf, size, TRACE_MOUNT_RECORD_DIR "/" RECORD_PREFIX "%d", (int)pid);
}

/*
 * Written after the mount: a run killed between the two leaves a mount
 * without a record, the same as before records existed; written first, a
 * record could name a mount that never happened.
 */
static void write_record(struct trace_mount *m)
{
	uint64_t id = tracefs_mount_id(m->dir);
	struct atomic_file file;
	int ret;

	if (!id || (mkdir(TRACE_MOUNT_RECORD_DIR, 0755) && errno != EEXIST)) {
		log_debug("cannot record the tracefs mount at %s: %s", m->dir,
			  id ? strerror(errno) : "no mount id");
		return;
	}
	record_path(m->record, sizeof(m->record), getpid());
	/* whole or not at all: adopt() must never read half a record */
	ret = atomic_file_open(&file, m->record);
	if (!ret) {
		fprintf(file.stream, "%" PRIu64 " %s\n", id, m->dir);
		ret = atomic_file_commit(&file);
	}
	if (!ret)
		return;
	log_debug("cannot record the tracefs mount in %s: %s", m->record, strerror(-ret));
	m->record[0] = '\0';
}

/* A record of a dead run whose mount is still there becomes ours. */
static void adopt(struct trace_mount *m, const char *name)
{
	char path[sizeof(m->record)], dir[sizeof(m->dir)];
	unsigned long long id;
	char *end;
	FILE *f;
	long pid;
	int n;

	pid = strtol(name + strlen(RECORD_PREFIX), &end, 10);
	if (*end || pid <= 0 || process_alive((pid_t)pid))
		return;
	snprintf(path, sizeof(path), TRACE_MOUNT_RECORD_DIR "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return;
	n = fscanf(f, "%llu %255s", &id, dir);
	fclose(f);
	/* the mount it names is gone, or another one is there now */
	if (n != 2 || m->ours || strcmp(dir, m->dir) || tracefs_mount_id(dir) != id) {
		unlink(path);
		return;
	}
	record_path(m->record, sizeof(m->record), getpid());
	/* of two runs that start together, one wins the rename */
	if (rename(path, m->record)) {
		m->record[0] = '\0';
		return;
	}
	m->ours = true;
	log_info("tracefs at %s was mounted by a run that did not end (pid %ld): it is "
		 "unmounted when this run ends",
		 dir, pid);
}

static void adopt_stale(struct trace_mount *m)
{
	struct dirent *entry;
	DIR *dir = opendir(TRACE_MOUNT_RECORD_DIR);

	if (!dir)
		return;
	while ((entry = readdir(dir)))
		if (!strncmp(entry->d_name, RECORD_PREFIX, strlen(RECORD_PREFIX)) &&
		    !strchr(entry->d_name + strlen(RECORD_PREFIX), '.'))
			adopt(m, entry->d_name);
	closedir(dir);
}

int trace_mount_ensure(struct trace_mount *m)
{
	const char *where;

	memset(m, 0, sizeof(*m));
	if (tracefs_tracing_dir_is_mounted(false, &where) > 0) {
		snprintf(m->dir, sizeof(m->dir), "%s", where);
		/* the instances first: an instance of the dead run keeps its mount busy */
		trace_remove_stale_instances(m->dir);
		adopt_stale(m);
		return 0;
	}
	snprintf(m->dir, sizeof(m->dir), "%s", TRACE_MOUNT_DIR);
	if (mount("nodev", m->dir, "tracefs", 0, NULL)) {
		int err = errno;

		log_error("tracefs is not mounted and cannot be mounted at %s: %s%s", m->dir,
			  strerror(err), err == EPERM ? " (needs root)" : "");
		return -err;
	}
	m->ours = true;
	/* records of mounts that are gone */
	adopt_stale(m);
	write_record(m);
	return 0;
}

/* What the top level holds, trimmed; "" when unreadable. */
static void read_top(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
}

/* Somebody traces here: an instance, a tracer or events at the top level. */
static const char *in_use(const char *dir)
{
	char path[512], text[64];
	struct dirent *entry;
	bool instances = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	while (d && (entry = readdir(d)))
		if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
			instances = true;
	if (d)
		closedir(d);
	if (instances)
		return "a tracing instance exists";
	read_top(dir, "current_tracer", text, sizeof(text));
	if (*text && strcmp(text, "nop"))
		return "a tracer is set";
	read_top(dir, "set_event", text, sizeof(text));
	if (*text)
		return "events are enabled";
	return NULL;
}

void trace_mount_release(struct trace_mount *m)
{
	const char *why;

	if (!m->ours)
		return;
	m->ours = false;
	why = in_use(m->dir);
	if (!why && umount(m->dir))
		why = errno == EBUSY ? "a file in it is open" : strerror(errno);
	if (why) {
		/* the record stays: the next run unmounts it once it is free */
		log_warning("tracefs stays mounted at %s (%s)%s", m->dir, why,
			    *m->record ? "; a later run unmounts it" : "");
		return;
	}
	if (*m->record && unlink(m->record))
		log_debug("cannot remove %s: %s", m->record, strerror(errno));
	m->record[0] = '\0';
}
