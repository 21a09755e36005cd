// SPDX-License-Identifier: GPL-2.0-or-later
#include "check_junit.h"

/* what was read, as the evidence lines of check -v */
static void evidence(struct junit_suite *suite, struct junit_case *tc,
		     const struct audit_finding *f)
{
	size_t i;

	for (i = 0; i < f->nr_evidence; i++)
		junit_case_output(suite, tc, "%s: %s", f->evidence[i].path, f->evidence[i].value);
}

void check_junit_cases(struct junit_suite *suite, const struct audit_report *report)
{
	size_t i;

	for (i = 0; i < report->nr_findings; i++) {
		const struct audit_finding *f = &report->findings[i];
		const char *severity = audit_severity_name(f->severity);
		const char *detail = f->detail ?: "";
		const char *expected = f->expected ?: "?";
		struct junit_case *tc = junit_suite_case(suite, "latscope.check", f->id);

		switch (f->status) {
		case AUDIT_FAIL:
			junit_case_set(suite, tc, JUNIT_FAILED, severity, "%s: %s; expected %s",
				       f->title, detail, expected);
			if (f->fix)
				junit_case_output(suite, tc, "fix: %s", f->fix);
			junit_case_output(suite, tc, "why: %s", f->why);
			break;
		case AUDIT_WARN:
			junit_case_set(suite, tc, JUNIT_SKIPPED, NULL,
				       "warning (%s): %s: %s; expected %s", severity, f->title,
				       detail, expected);
			if (f->fix)
				junit_case_output(suite, tc, "fix: %s", f->fix);
			break;
		case AUDIT_SKIP:
			junit_case_set(suite, tc, JUNIT_SKIPPED, NULL, "not checked: %s: %s",
				       f->title, detail);
			break;
		default:
			junit_case_output(suite, tc, "%s: %s", f->title, detail);
			break;
		}
		evidence(suite, tc, f);
	}
}
