/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_DOCTOR_RUN_H
#define LATSCOPE_CLI_DOCTOR_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/doctor.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"
#include "common_options.h"
#include "junit_output.h"
#include "noise_session.h"
#include "timer_session.h"

/*
 * One run of latscope doctor: its options (cmd_doctor.c), the parts it
 * runs (doctor_parts.c) and what it prints (doctor_report.c).
 */

struct doctor_options {
	struct cpuset rt_cpus; /* --rt-cpus */
	bool rt_given;
	uint64_t duration_ns;
	uint64_t budget_ns;
	const char *report_path;
	struct json_output json;
	struct junit_output junit;
	bool no_noise;
	bool no_timer;
	bool strict; /* a validity shortfall is exit 1 */
	const char *baseline_path; /* --baseline: an earlier doctor or timer result */
};

/* The four parts, in the order they run. */
enum doctor_step {
	STEP_CHECK,
	STEP_IRQ_PLAN,
	STEP_TIMER,
	STEP_NOISE,
	NR_STEPS,
};

/*
 * The words of a command line: what a part's document records as the
 * command that would run the part alone (never parsed by doctor).
 */
struct doctor_words {
	char *argv[24];
	int argc;
	char buf[1024];
	size_t used;
};

struct doctor_run {
	struct doctor_options opts;
	int argc; /* doctor's own command line, for the document */
	char **argv;
	struct sysroot *root;
	struct topology topo;
	struct cpuset rt; /* the CPUs measured */
	struct cpuset housekeeping; /* online minus rt */
	char rt_list[256], housekeeping_list[256];
	char rt_source[160]; /* how rt was chosen, in words */
	bool pm_qos; /* /dev/cpu_dma_latency can be held */
	char pm_qos_note[256]; /* why not */
	FILE *quiet; /* where the parts' own lines go: /dev/null */
	uint64_t step_ns[NR_STEPS]; /* the measuring steps' durations */

	struct timer_session timer;
	struct noise_session noise;
	struct doctor_words timer_words, noise_words; /* their command lines, for the record */
	/* what a read of the noise loop's clock cost before it ran; 0: not measured */
	uint64_t noise_read_cost_ns;
	bool noise_tsc; /* that clock is the TSC, else clock_gettime */
	char noise_note[256]; /* why the noise's threshold is not its default; "" when it is */
	bool asked[NR_STEPS];
	bool prepared[NR_STEPS]; /* timer and noise: checked before any work */
	/* each part's document, NULL when it did not run; and why not */
	json_t *doc[NR_STEPS];
	char missing[NR_STEPS][640]; /* room for a part_result's text and its prefix */
	const char *stopped_by; /* "SIGINT" when a signal ended the run */

	struct doctor_parts parts;
	struct doctor_fixes fixes;
	struct doctor_verdict verdict;
};

/* The names of the steps: "check", "irq plan", "timer --explain", "noise --explain". */
const char *doctor_step_name(enum doctor_step step);

/*
 * doctor_parts.c: before any work, the timer's and the noise's options
 * are filled in their structs and checked, with their sizes, as their
 * commands check them (a part that cannot run is noted with the reason its
 * session gives, not fatal); then each step runs in turn, leaving the
 * machine as it found it, and records its document or why it has none.
 */
void doctor_prepare_parts(struct doctor_run *d);

/*
 * What doctor asks of the timer and the noise, set in their options
 * structs (after timer_options_default() / noise_options_default()), and
 * the command line that would ask the same of `latscope timer` / `latscope
 * noise`: the parts' documents record it, and test_doctor_options parses
 * it back to the same options.
 */
void doctor_timer_options(const struct doctor_run *d, struct timer_options *o);
void doctor_timer_words(const struct timer_options *o, struct doctor_words *w);
void doctor_noise_options(const struct doctor_run *d, struct noise_options *o);
void doctor_noise_words(const struct noise_options *o, struct doctor_words *w);
void doctor_run_check(struct doctor_run *d);
void doctor_run_irq_plan(struct doctor_run *d);
void doctor_run_timer(struct doctor_run *d);
void doctor_run_noise(struct doctor_run *d);
void doctor_release_parts(struct doctor_run *d);

/* doctor_report.c: the verdict first, then the ranked fixes, on @out */
void doctor_print(FILE *out, const struct doctor_run *d);

#endif
