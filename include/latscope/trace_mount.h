/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TRACE_MOUNT_H
#define LATSCOPE_TRACE_MOUNT_H

#include <stdbool.h>

/*
 * The tracefs mount a tracing session may have to make. A mount latscope
 * makes is recorded in TRACE_MOUNT_RECORD_DIR ("tracefs.<pid>": the mount's
 * id and place), so that a run killed before it could unmount does not
 * leave tracefs mounted for good: the next session adopts the dead run's
 * mount and unmounts it when it ends, as if it had mounted it itself. A
 * mount is only ever unmounted when nothing else uses it: no tracing
 * instance left, no tracer or event set at the top level, no file open.
 * The directory is shared with the IRQ journal and stays (/run is tmpfs).
 */
#define TRACE_MOUNT_RECORD_DIR "/run/latscope"
#define TRACE_MOUNT_DIR "/sys/kernel/tracing"

struct trace_mount {
	bool ours; /* mounted by this process, or adopted from a dead run */
	char dir[256]; /* where it is mounted */
	char record[320]; /* the record file of ours, "" when none */
};

/**
 * trace_mount_ensure - make sure tracefs is mounted, mounting it when it is not
 * @mount: receives what was done; end with trace_mount_release()
 *
 * A mount left by a dead run is adopted. Returns 0, or a negative errno
 * code (logged) when tracefs is not mounted and cannot be.
 */
int trace_mount_ensure(struct trace_mount *mount);

/**
 * trace_mount_release - unmount tracefs when it is ours and unused, and
 * forget the record; when it is in use the record stays for a later run
 * @mount: from trace_mount_ensure()
 */
void trace_mount_release(struct trace_mount *mount);

/**
 * trace_remove_stale_instances - remove "latscope-<pid>" instances whose
 * process is gone (a run that crashed). Returns how many were removed.
 */
int trace_remove_stale_instances(const char *tracing_dir);

#endif
