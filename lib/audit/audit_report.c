// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "audit_internal.h"
#include "latscope/result.h"

static const char *const severity_names[AUDIT_NR_SEVERITIES] = {
	[AUDIT_FATAL] = "fatal", [AUDIT_HIGH] = "high", [AUDIT_MEDIUM] = "medium",
	[AUDIT_LOW] = "low",	 [AUDIT_INFO] = "info",
};

static const char *const status_names[AUDIT_NR_STATUSES] = {
	[AUDIT_FAIL] = "fail",
	[AUDIT_WARN] = "warn",
	[AUDIT_PASS] = "pass",
	[AUDIT_SKIP] = "skip",
};

const char *audit_severity_name(enum audit_severity severity)
{
	return severity < AUDIT_NR_SEVERITIES ? severity_names[severity] : "?";
}

const char *audit_status_name(enum audit_status status)
{
	return status < AUDIT_NR_STATUSES ? status_names[status] : "?";
}

int audit_severity_parse(const char *text, enum audit_severity *severity)
{
	unsigned int i;

	for (i = 0; i < AUDIT_NR_SEVERITIES; i++) {
		if (!strcmp(text, severity_names[i])) {
			*severity = (enum audit_severity)i;
			return 0;
		}
	}
	return -EINVAL;
}

const struct audit_finding *audit_report_find(const struct audit_report *report, const char *id)
{
	size_t i;

	for (i = 0; i < report->nr_findings; i++)
		if (!strcmp(report->findings[i].id, id))
			return &report->findings[i];
	return NULL;
}

void audit_summarize(const struct audit_report *report, struct audit_summary *summary)
{
	size_t i;

	memset(summary, 0, sizeof(*summary));
	for (i = 0; i < report->nr_findings; i++) {
		const struct audit_finding *f = &report->findings[i];

		switch (f->status) {
		case AUDIT_FAIL:
			summary->failed[f->severity]++;
			break;
		case AUDIT_WARN:
			summary->warned[f->severity]++;
			break;
		case AUDIT_PASS:
			summary->passed++;
			break;
		default:
			summary->skipped++;
			break;
		}
	}
}

bool audit_fails_at(const struct audit_report *report, enum audit_severity threshold)
{
	size_t i;

	if (threshold >= AUDIT_NR_SEVERITIES)
		return false;
	for (i = 0; i < report->nr_findings; i++)
		if (report->findings[i].status == AUDIT_FAIL &&
		    report->findings[i].severity <= threshold)
			return true;
	return false;
}

static json_t *string_or_null(const char *text)
{
	return text ? json_string(text) : json_null();
}

static json_t *finding_json(const struct audit_finding *f)
{
	json_t *evidence = json_array();
	size_t i;

	for (i = 0; i < f->nr_evidence; i++)
		json_array_append_new(evidence, json_pack("{s:s, s:s}", "path", f->evidence[i].path,
							  "value", f->evidence[i].value));
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:o}", "id", f->id, "title",
			 f->title, "severity", audit_severity_name(f->severity), "status",
			 audit_status_name(f->status), "detail", string_or_null(f->detail),
			 "evidence", evidence, "expected", string_or_null(f->expected), "why",
			 f->why, "fix", string_or_null(f->fix));
}

static json_t *summary_json(const struct audit_report *report)
{
	struct audit_summary s;
	json_t *failed = json_object(), *warned = json_object();
	unsigned int i;

	audit_summarize(report, &s);
	for (i = 0; i < AUDIT_NR_SEVERITIES; i++) {
		json_object_set_new(failed, severity_names[i], json_integer(s.failed[i]));
		json_object_set_new(warned, severity_names[i], json_integer(s.warned[i]));
	}
	return json_pack("{s:o, s:o, s:i, s:i, s:i}", "failed", failed, "warned", warned, "passed",
			 s.passed, "skipped", s.skipped, "rules", (int)report->nr_findings);
}

json_t *audit_report_json(const struct audit_report *report)
{
	json_t *findings = json_array();
	size_t i;

	for (i = 0; i < report->nr_findings; i++)
		json_array_append_new(findings, finding_json(&report->findings[i]));
	return json_pack("{s:o, s:o, s:s, s:o, s:o}", "rt_cpus", result_cpuset(&report->rt_cpus),
			 "housekeeping_cpus", result_cpuset(&report->housekeeping),
			 "rt_cpus_source",
			 report->rt_cpus_given ? "--rt-cpus" : "isolated and nohz_full", "findings",
			 findings, "summary", summary_json(report));
}
