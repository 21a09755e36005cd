// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "doctor_junit.h"
#include "latscope/plot.h"
#include "measure_junit.h"

/* "timer max 2.252 ms (most time: timer irq delay, 79% ...)" appended to @buf */
static size_t over(char *buf, size_t size, size_t used, const char *what, uint64_t ns,
		   const json_t *part, int cpu)
{
	char value[32], cause[192];

	if (used >= size)
		return used;
	return used + (size_t)snprintf(buf + used, size - used, "%s%s %s (%s)", used ? ", " : "",
				       what, format_duration(ns, value, sizeof(value)),
				       measure_cause_words(measure_entry_of_cpu(part, cpu), cause,
							   sizeof(cause)));
}

static void cpu_case(struct junit_suite *suite, const struct doctor_run *d,
		     const struct doctor_cpu_verdict *c)
{
	const struct doctor_return_level *rl = &c->return_level;
	uint64_t budget = d->verdict.budget_ns;
	char name[32], numbers[1024] = "", limit[32], value[32];
	struct junit_case *tc;
	size_t used = 0;

	snprintf(name, sizeof(name), "cpu %d", c->cpu);
	tc = junit_suite_case(suite, "latscope.doctor.verdict", name);
	format_duration(budget, limit, sizeof(limit));
	if (c->timer && c->timer_max_ns > budget)
		used = over(numbers, sizeof(numbers), used, "timer max", c->timer_max_ns,
			    d->doc[STEP_TIMER], c->cpu);
	if (c->timer && rl->available && rl->reliable && rl->value_ns > (double)budget)
		used = over(numbers, sizeof(numbers), used, "timer 1-hour return level",
			    (uint64_t)rl->value_ns, d->doc[STEP_TIMER], c->cpu);
	if (c->noise && c->noise_max_ns > budget)
		used = over(numbers, sizeof(numbers), used, "noise max gap", c->noise_max_ns,
			    d->doc[STEP_NOISE], c->cpu);
	if (c->over_budget)
		junit_case_set(suite, tc, JUNIT_FAILED, "budget", "%s above --budget %s", numbers,
			       limit);
	else if (d->verdict.readiness == DOCTOR_UNKNOWN)
		junit_case_set(suite, tc, JUNIT_ERROR, "unknown", "%s", d->verdict.says);
	if (c->timer)
		junit_case_output(suite, tc, "timer: max %s over %llu wake-ups",
				  format_duration(c->timer_max_ns, value, sizeof(value)),
				  (unsigned long long)c->timer_wakeups);
	if (c->noise)
		junit_case_output(suite, tc, "noise: max gap %s, %llu gaps",
				  format_duration(c->noise_max_ns, value, sizeof(value)),
				  (unsigned long long)c->noise_gaps);
	junit_case_output(suite, tc, "budget: %s", limit);
}

/* ranked as the document ranks them: the known fixes, then the causes without one */
static void fix_case(struct junit_suite *suite, const struct doctor_fix *fix, unsigned int rank)
{
	bool known = fix->kind != DOCTOR_FIX_UNKNOWN;
	char name[160], share[16];
	struct junit_case *tc;

	snprintf(name, sizeof(name), "#%u %s", rank, fix->title);
	tc = junit_suite_case(suite, known ? "latscope.doctor.fixes" : "latscope.doctor.unfixed",
			      name);
	junit_case_output(suite, tc, "impact: %s of the measured time",
			  plot_format_share(fix->impact, share, sizeof(share)));
	if (fix->finding_id[0])
		junit_case_output(suite, tc, "finding: %s", fix->finding_id);
	junit_case_output(suite, tc, "%s: %s", known ? "fix" : "look at", fix->action);
	if (fix->note[0])
		junit_case_output(suite, tc, "note: %s", fix->note);
}

void doctor_junit_cases(struct junit_suite *suite, const struct doctor_run *d)
{
	unsigned int i, known = 0, unknown = 0;

	for (i = 0; i < d->verdict.nr_cpus; i++)
		cpu_case(suite, d, &d->verdict.cpus[i]);
	for (i = 0; i < d->fixes.nr_fixes; i++) {
		const struct doctor_fix *fix = &d->fixes.fixes[i];

		fix_case(suite, fix, fix->kind != DOCTOR_FIX_UNKNOWN ? ++known : ++unknown);
	}
}
