/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_AUDIT_H
#define LATSCOPE_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The real-time readiness audit: a table of small rules, each reading the
 * kernel configuration and the running settings through a sysroot and
 * returning one finding. The engine is a pure function of what it reads, so
 * `check`, a future `doctor` and the tests share it.
 */

/* The vocabulary of the kernel's real-time configuration documentation. */
enum audit_severity {
	AUDIT_FATAL,
	AUDIT_HIGH,
	AUDIT_MEDIUM,
	AUDIT_LOW,
	AUDIT_INFO,
	AUDIT_NR_SEVERITIES,
};

enum audit_status {
	AUDIT_FAIL, /* costs latency: fix it */
	AUDIT_WARN, /* may cost latency, depending on the workload */
	AUDIT_PASS,
	AUDIT_SKIP, /* the rule's input is missing or it does not apply */
	AUDIT_NR_STATUSES,
};

/* One file read (or one fact taken from it) and the value seen. */
struct audit_evidence {
	char *path; /* as under the root: "/proc/sys/kernel/numa_balancing" */
	char *value;
};

struct audit_finding {
	const char *id; /* stable and dotted: "kernel.preempt_rt" */
	const char *title;
	enum audit_severity severity;
	enum audit_status status;
	char *detail; /* what was found; for a skip, why the rule was skipped */
	struct audit_evidence *evidence;
	size_t nr_evidence;
	char *expected;
	const char *why; /* one sentence */
	char *fix; /* the exact command, sysctl or boot parameter; NULL on pass and skip */
};

struct audit_report {
	struct cpuset rt_cpus;
	struct cpuset housekeeping; /* online minus rt_cpus */
	bool rt_cpus_given; /* from the caller rather than isolated and nohz_full */
	struct audit_finding *findings; /* in rule table order */
	size_t nr_findings;
};

/* Counts of findings: per severity those that failed or warned, then by status. */
struct audit_summary {
	unsigned int failed[AUDIT_NR_SEVERITIES];
	unsigned int warned[AUDIT_NR_SEVERITIES];
	unsigned int passed;
	unsigned int skipped;
};

/**
 * audit_run - run every rule
 * @root: where to read
 * @topo: the loaded topology of @root
 * @rt_cpus: the CPUs reserved for real-time work, or NULL for isolated and
 *	     nohz_full; must be online CPUs
 * @report: receives the findings; release it with audit_report_release()
 *
 * Missing or malformed inputs never fail the run: the rules that need them
 * report a skip with the reason. Returns 0, -EINVAL when @rt_cpus names an
 * offline CPU, or -ENOMEM.
 */
int audit_run(struct sysroot *root, const struct topology *topo, const struct cpuset *rt_cpus,
	      struct audit_report *report);

/* Free the findings audit_run() allocated; the report can be run into again. */
void audit_report_release(struct audit_report *report);

/**
 * audit_report_find - the finding of a rule
 * @report: the findings
 * @id: a rule id ("irq.managed")
 *
 * Returns a pointer into @report, valid until audit_report_release(), or
 * NULL when no rule has that id.
 */
const struct audit_finding *audit_report_find(const struct audit_report *report, const char *id);

/**
 * audit_summarize - count the findings by status and severity
 * @report: the findings
 * @summary: receives the counts (a value the caller owns)
 */
void audit_summarize(const struct audit_report *report, struct audit_summary *summary);

/**
 * audit_fails_at - whether a finding failed at or above a severity
 * @report: the findings
 * @threshold: the lowest severity that counts (AUDIT_NR_SEVERITIES: none)
 */
bool audit_fails_at(const struct audit_report *report, enum audit_severity threshold);

/**
 * audit_report_json - the findings as the "check" part of a result document
 * @report: the findings
 *
 * Returns {"rt_cpus", "housekeeping_cpus", "rt_cpus_source", "findings",
 * "summary"} as a new reference the caller drops with json_decref(), or NULL.
 */
json_t *audit_report_json(const struct audit_report *report);

/* Number of rules, and the id of one in table order (a static string, NULL past the end). */
size_t audit_rule_count(void);
const char *audit_rule_id(size_t index);

/* "fatal".."info" and "fail".."skip": static strings */
const char *audit_severity_name(enum audit_severity severity);
const char *audit_status_name(enum audit_status status);

/**
 * audit_severity_parse - parse "fatal", "high", "medium", "low" or "info"
 * Returns 0 or -EINVAL.
 */
int audit_severity_parse(const char *text, enum audit_severity *severity);

#endif
