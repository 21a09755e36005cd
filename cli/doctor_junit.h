/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_DOCTOR_JUNIT_H
#define LATSCOPE_CLI_DOCTOR_JUNIT_H

#include "doctor_run.h"
#include "latscope/junit.h"

/**
 * doctor_junit_cases - the verdict of each RT CPU, then each ranked fix
 * @suite: the suite to add to
 * @d: a diagnosed run (its verdict, fixes and parts' documents)
 *
 * A CPU over --budget fails, naming each number above it and the cause
 * that took most of that part's time on the CPU; a CPU whose verdict is
 * unknown (a part asked for did not measure, the run was stopped) is an
 * <error> with the verdict's reason. The fixes are advice, not verdicts:
 * each passes, the fix in its <system-out>, so that the failures are the
 * CPUs over budget and match exit status 2.
 */
void doctor_junit_cases(struct junit_suite *suite, const struct doctor_run *d);

#endif
