/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_CHECK_JUNIT_H
#define LATSCOPE_CLI_CHECK_JUNIT_H

#include "latscope/audit.h"
#include "latscope/junit.h"

/**
 * check_junit_cases - a case per audit rule, in the rules' order
 * @suite: the suite to add to
 * @report: the findings
 *
 * A failed rule is a <failure> of its severity, whatever --fail-on says
 * (the exit status keeps --fail-on); a warning is <skipped> with
 * "warning: " and its message, a rule that did not apply <skipped> with
 * "not checked: " and why (latscope-check(1) says why warnings are
 * skipped cases).
 */
void check_junit_cases(struct junit_suite *suite, const struct audit_report *report);

#endif
