/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_AUDIT_H
#define LATSCOPE_MONITOR_AUDIT_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/monitor_audit.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include <jansson.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/metrics.h"
#include "latscope/sysroot.h"

/*
 * Audit drift: `check`'s audit (audit_run) re-run on the RT CPUs every
 * --audit-every from a housekeeping thread, keeping which rules fail now,
 * so that a fleet sees a machine whose real-time configuration drifted
 * (latscope_check_failed{rule, severity}).
 */
struct monitor_audit;

/**
 * monitor_audit_start - run the audit now, then every @every_ns
 * @root: where to read (must outlive the audit)
 * @rt_cpus: the CPUs to audit as real-time CPUs, or NULL for isolated and
 *	     nohz_full (copied)
 * @every_ns: the period (> 0)
 * @housekeeping: where the audit's thread runs, or NULL
 *
 * Returns the audit to end with monitor_audit_free(), or NULL (logged).
 */
struct monitor_audit *monitor_audit_start(struct sysroot *root, const struct cpuset *rt_cpus,
					  uint64_t every_ns, const struct cpuset *housekeeping);

/**
 * monitor_audit_wait_first - wait until the first run is done (a test, or
 * a command that wants the first answer before it serves)
 */
void monitor_audit_wait_first(struct monitor_audit *audit);

/**
 * monitor_audit_failed - the rules that failed in the last run
 * @audit: the audit
 * @rules: receives an array the caller frees with free()
 * @nr: receives its length
 * Returns 0 or -ENOMEM.
 */
int monitor_audit_failed(struct monitor_audit *audit, struct metrics_rule **rules,
			 unsigned int *nr);

/**
 * monitor_audit_json - the last run for the state: {"time", "runs",
 * "rt_cpus", "failed": [{"rule", "severity", "title", "detail"}]}, or
 * null before the first run
 * Returns a new reference.
 */
json_t *monitor_audit_json(struct monitor_audit *audit);

/* Stop the thread (at once, even in the middle of a wait) and free. */
void monitor_audit_free(struct monitor_audit *audit);

#endif
