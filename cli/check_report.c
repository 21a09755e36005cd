// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "check_report.h"
#include "latscope/result.h"

static const char *paint(const struct check_print *how, enum audit_status status)
{
	static const char *const colors[AUDIT_NR_STATUSES] = {
		[AUDIT_FAIL] = "\033[1;31m",
		[AUDIT_WARN] = "\033[33m",
		[AUDIT_PASS] = "\033[32m",
		[AUDIT_SKIP] = "\033[2m",
	};

	return how->color ? colors[status] : "";
}

static const char *unpaint(const struct check_print *how)
{
	return how->color ? "\033[0m" : "";
}

static void print_finding(FILE *out, const struct check_print *how, const struct audit_finding *f)
{
	size_t i;

	fprintf(out, "  %s%-4s%s %s  %s: %s\n", paint(how, f->status), audit_status_name(f->status),
		unpaint(how), f->id, f->title, f->detail ? f->detail : "");
	if (f->fix && (f->status == AUDIT_FAIL || f->status == AUDIT_WARN))
		fprintf(out, "       fix: %s\n", f->fix);
	if (how->verbose)
		for (i = 0; i < f->nr_evidence; i++)
			fprintf(out, "       seen: %s = %s\n", f->evidence[i].path,
				f->evidence[i].value);
}

static void print_group(FILE *out, const struct check_print *how, const struct audit_report *report,
			enum audit_status status, const char *heading)
{
	bool printed = false;
	size_t i;

	for (i = 0; i < report->nr_findings; i++) {
		if (report->findings[i].status != status)
			continue;
		if (!printed)
			fprintf(out, "\n%s\n", heading);
		printed = true;
		print_finding(out, how, &report->findings[i]);
	}
}

void check_print_report(FILE *out, const struct check_print *how, const struct audit_report *report)
{
	struct audit_summary s;
	char rt[256], hk[256];
	unsigned int sev;
	size_t i;

	cpuset_format_list(&report->rt_cpus, rt, sizeof(rt));
	cpuset_format_list(&report->housekeeping, hk, sizeof(hk));
	if (cpuset_empty(&report->rt_cpus))
		fprintf(out,
			"RT CPUs: none (none isolated or nohz_full; use --rt-cpus); "
			"housekeeping CPUs: %s\n",
			hk);
	else
		fprintf(out, "RT CPUs: %s (%s); housekeeping CPUs: %s\n", rt,
			report->rt_cpus_given ? "--rt-cpus" : "isolated and nohz_full",
			hk[0] ? hk : "none");
	/* failures and warnings first, most severe first, one heading per severity */
	for (sev = 0; sev < AUDIT_NR_SEVERITIES; sev++) {
		bool printed = false;

		for (i = 0; i < report->nr_findings; i++) {
			const struct audit_finding *f = &report->findings[i];

			if (f->severity != sev ||
			    (f->status != AUDIT_FAIL && f->status != AUDIT_WARN))
				continue;
			if (!printed) {
				const char *name = audit_severity_name(f->severity);

				fprintf(out, "\n%c%s\n", name[0] - 'a' + 'A', name + 1);
				printed = true;
			}
			print_finding(out, how, f);
		}
	}
	audit_summarize(report, &s);
	if (how->all) {
		print_group(out, how, report, AUDIT_PASS, "Passed");
		print_group(out, how, report, AUDIT_SKIP, "Skipped");
	} else if (s.passed || s.skipped) {
		fprintf(out, "\n%u passed, %u skipped (--all lists them)\n", s.passed, s.skipped);
	}
	fprintf(out, "\n%u fatal, %u high, %u medium, %u low; %u passed, %u skipped\n",
		s.failed[AUDIT_FATAL] + s.warned[AUDIT_FATAL],
		s.failed[AUDIT_HIGH] + s.warned[AUDIT_HIGH],
		s.failed[AUDIT_MEDIUM] + s.warned[AUDIT_MEDIUM],
		s.failed[AUDIT_LOW] + s.warned[AUDIT_LOW], s.passed, s.skipped);
}

json_t *check_document(struct sysroot *root, const struct topology *topo,
		       const struct audit_report *report, json_t *params, int argc, char **argv)
{
	json_t *doc = result_new("check", argc, argv), *audit;

	if (!doc || !params) {
		json_decref(doc);
		json_decref(params);
		return NULL;
	}
	json_object_set_new(doc, "host", result_host_facts(root, topo));
	json_object_set_new(doc, "params", params);
	audit = audit_report_json(report);
	json_object_update(doc, audit);
	json_decref(audit);
	return doc;
}
