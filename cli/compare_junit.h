/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_COMPARE_JUNIT_H
#define LATSCOPE_CLI_COMPARE_JUNIT_H

#include <stdbool.h>

#include "comparison.h"
#include "latscope/junit.h"

/**
 * comparison_junit - the JUnit suite of a computed comparison
 * @suite: receives it (junit_output_start() done here); release it
 * @c: the comparison (compare's or ab's)
 * @command: "compare" or "ab"
 * @o: the statistics asked for (--fail-worse, the practical threshold)
 * @result_path: --json, or NULL
 *
 * A case per pair and statistic: worse fails under --fail-worse (the
 * values, the change with its interval, the practical threshold and the
 * cause that took most of B's time when B was explained); inconclusive
 * and n/a are skipped with their reason, since nothing was judged; better,
 * same, and worse without --fail-worse pass with the verdict in
 * <system-out>. The machine's properties are B's, the one the verdict is
 * about.
 */
void comparison_junit(struct junit_suite *suite, const struct comparison *c, const char *command,
		      const struct compare_statistics_options *o, const char *result_path);

/**
 * comparison_junit_cases - the cases of comparison_junit(), added to a suite
 * @suite: a started suite (another command's: doctor's --baseline)
 * @c: the comparison
 * @classname: the cases' classname ("latscope.doctor.baseline")
 * @o: the statistics asked for
 */
void comparison_junit_cases(struct junit_suite *suite, const struct comparison *c,
			    const char *classname, const struct compare_statistics_options *o);

#endif
