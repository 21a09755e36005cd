/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_DOCTOR_H
#define LATSCOPE_DOCTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/cpuset.h"

/*
 * latscope doctor's diagnosis, a pure function of the result documents of
 * its parts (check, irq plan, timer --explain, noise --explain): the
 * command and the tests share it, and a recorded run can be diagnosed
 * again from its JSON.
 *
 * doctor_join() takes every cause the explanations measured on the RT CPUs
 * to the change that removes it: an audit finding and its fix, the IRQ
 * plan's moves, an RT thread of the user's own (no configuration fix, its
 * affinity), or no known fix with what to look at next. The fixes are
 * ranked by the share of the measured time they account for.
 *
 * doctor_verdict() says whether the RT CPUs are ready for a latency budget:
 * per CPU the worst timer latency, its p99.99, the 1-hour return level from
 * the GEV fit of the timer's block maxima (tail_estimate.h) when there are
 * enough blocks, and the worst noise gap.
 */

/* The defaults of latscope doctor, and how it runs the timer. */
#define DOCTOR_DEFAULT_DURATION_NS (60ULL * 1000000000ULL) /* timer and noise together */
#define DOCTOR_DEFAULT_BUDGET_NS (100ULL * 1000ULL)
#define DOCTOR_TIMER_PRIORITY 95 /* SCHED_FIFO, below the kernel's own 99 */
#define DOCTOR_TIMER_INTERVAL_US 1000

/**
 * doctor_noise_threshold - the gap threshold doctor gives its noise part
 * @read_cost_ns: what one read of the noise loop's clock costs on this
 *		  machine (noise_read_cost_ns()); 0 when not measured
 *
 * The noise's default when the loop resolves it (noise_threshold_resolved()),
 * else the least threshold the noise advises for that cost
 * (noise_threshold_least()), which is above the default. A pure function
 * of @read_cost_ns; returns the threshold in ns.
 */
uint64_t doctor_noise_threshold(uint64_t read_cost_ns);

/* The parts that measure. */
enum doctor_part {
	DOCTOR_TIMER,
	DOCTOR_NOISE,
	DOCTOR_NR_PARTS,
};

/* The documents of the parts; NULL for a part that did not run. Borrowed. */
struct doctor_parts {
	const json_t *check; /* latscope check --json */
	const json_t *irq_plan; /* latscope irq plan --json */
	const json_t *timer; /* latscope timer --explain --json */
	const json_t *noise; /* latscope noise --explain --json */
	struct cpuset rt_cpus; /* the CPUs measured for real-time work */
	struct cpuset housekeeping; /* where what is moved off them goes */
	int timer_priority; /* the timer's SCHED_FIFO priority, 0 unknown */
};

/* What a fix is. */
enum doctor_fix_kind {
	DOCTOR_FIX_SETTING, /* an audit finding's fix: a boot parameter, a sysctl, a command */
	DOCTOR_FIX_IRQ_MOVE, /* the IRQ plan's moves: latscope irq apply */
	DOCTOR_FIX_OWN_THREAD, /* an RT thread of the user's own: no configuration fix */
	DOCTOR_FIX_UNKNOWN, /* no known fix: what to look at next */
};

/* One measured cause on one RT CPU, as a fix takes it. */
struct doctor_cause {
	enum doctor_part part;
	int cpu;
	char kind[16]; /* as the explanation writes it: "irq", "thread", ... */
	char label[128];
	uint64_t spikes; /* spikes (timer) or gaps (noise) it took part in */
	uint64_t total_ns;
	uint64_t max_ns; /* the most it took of one spike or gap */
	double share; /* of the part's explained time on the RT CPUs */
	uint64_t period_ns; /* its strongest period, 0 when it has none */
	char why[256]; /* how it leads to the fix */
};

struct doctor_fix {
	enum doctor_fix_kind kind;
	char key[96]; /* what makes two causes one fix */
	char title[128];
	/* the audit finding it comes from; finding_id empty for none */
	char finding_id[48];
	bool finding_read; /* the audit has it: status and severity are set */
	char finding_status[8];
	char finding_severity[8];
	char finding_detail[256];
	char action[1024]; /* the fix, or for DOCTOR_FIX_UNKNOWN what to look at next */
	char note[256]; /* "the audit did not run", ...; empty for none */
	double share[DOCTOR_NR_PARTS]; /* summed over its causes */
	double impact; /* the largest of the shares */
	uint64_t max_ns;
	struct doctor_cause *causes; /* largest share first */
	unsigned int nr_causes, cap_causes;
};

struct doctor_fixes {
	/* the known fixes by impact, then those without a known fix by impact */
	struct doctor_fix *fixes;
	unsigned int nr_fixes, cap_fixes;
	unsigned int nr_known;
	/* a part whose causes were not traced (no "causes" in its entries) */
	bool untraced[DOCTOR_NR_PARTS];
};

/**
 * doctor_join - join every measured cause to its fix and rank the fixes
 * @parts: the documents; check and irq_plan may be NULL (the joins then
 *	   say the audit or the plan did not run)
 * @fixes: receives the fixes; release with doctor_fixes_release()
 *
 * Causes of the timer's threads and the noise's CPUs outside
 * @parts->rt_cpus (when it is not empty) and causes that took no time are
 * left out. Returns 0 or -ENOMEM.
 */
int doctor_join(const struct doctor_parts *parts, struct doctor_fixes *fixes);

void doctor_fixes_release(struct doctor_fixes *fixes);

/**
 * doctor_fixes_json - the fixes as two lists of the doctor document
 * @fixes: the ranked fixes
 * @known: true for "fixes" (those with a fix), false for "unfixed"
 *
 * Returns a new reference: [{rank, kind, title, finding, fix, next, note,
 * share: {timer, noise}, impact, max_ns, causes: [{part, cpu, kind, label,
 * spikes, total_ns, max_ns, share, period_ns, why}]}], or NULL.
 */
json_t *doctor_fixes_json(const struct doctor_fixes *fixes, bool known);

/* "setting", "irq_move", "own_thread", "unknown" */
const char *doctor_fix_kind_name(enum doctor_fix_kind kind);
/* "timer", "noise" */
const char *doctor_part_name(enum doctor_part part);

/* A cause among the largest of the run, with the fix it is joined to. */
struct doctor_top_cause {
	const struct doctor_cause *cause; /* points into the fixes */
	unsigned int fix; /* its index in fixes->fixes */
};

/**
 * doctor_top_causes - the causes with the largest share of either part
 * @fixes: the ranked fixes
 * @top: receives up to @max causes, largest share first
 * @max: room in @top
 *
 * Returns how many were written.
 */
unsigned int doctor_top_causes(const struct doctor_fixes *fixes, struct doctor_top_cause *top,
			       unsigned int max);

/* ----- the verdict ----- */

enum doctor_readiness {
	DOCTOR_READY, /* every asked part measured, nothing above the budget */
	DOCTOR_NOT_READY, /* something measured above the budget */
	DOCTOR_UNKNOWN, /* a part asked for did not measure, or the run was stopped */
	DOCTOR_NOT_MEASURED, /* no measuring part was asked for */
};

/* The 1-hour return level of one CPU's timer latency. */
struct doctor_return_level {
	bool available; /* value_ns is set */
	unsigned int blocks; /* block maxima the fit had */
	unsigned int needed; /* TAIL_MIN_BLOCKS */
	double value_ns;
	bool has_ci;
	double ci_ns[2];
	double confidence;
	bool reliable; /* the fit's checks passed; only then does it weigh in the verdict */
	char says[256]; /* "not enough blocks (12 of 30)", the failed check, ... */
};

struct doctor_cpu_verdict {
	int cpu;
	bool timer; /* the timer measured this CPU */
	uint64_t timer_max_ns;
	uint64_t timer_p9999_ns; /* UINT64_MAX when the result has none */
	uint64_t timer_wakeups;
	struct doctor_return_level return_level;
	bool noise; /* the noise measured this CPU */
	uint64_t noise_max_ns;
	uint64_t noise_gaps;
	double noise_lost_fraction; /* of the time measured */
	bool over_budget; /* worst timer latency, noise gap or reliable 1-hour level */
};

/* What the verdict knows besides the documents. */
struct doctor_verdict_options {
	uint64_t budget_ns;
	bool timer_asked, noise_asked;
	/* why a part asked for has no document ("cannot use SCHED_FIFO: ..."), or NULL */
	const char *timer_missing, *noise_missing;
	const char *stopped_by; /* "SIGINT" when a signal ended the run, else NULL */
};

struct doctor_verdict {
	enum doctor_readiness readiness;
	uint64_t budget_ns;
	struct doctor_cpu_verdict *cpus; /* ascending */
	unsigned int nr_cpus;
	char says[512]; /* one sentence: the readiness and why */
	char *not_seen[8]; /* what the verdict could not see, one line each */
	unsigned int nr_not_seen;
};

/**
 * doctor_verdict - ready or not for a budget, per CPU
 * @parts: the documents (timer and noise are read, the others not)
 * @fixes: the joined fixes, for the parts whose causes were not traced
 * @options: the budget and what was asked
 * @verdict: receives it; release with doctor_verdict_release()
 *
 * Never READY from a part that was asked for and did not measure, from a
 * stopped run or from a result without samples. Returns 0, -EINVAL (a
 * budget of 0) or -ENOMEM.
 */
int doctor_verdict(const struct doctor_parts *parts, const struct doctor_fixes *fixes,
		   const struct doctor_verdict_options *options, struct doctor_verdict *verdict);

void doctor_verdict_release(struct doctor_verdict *verdict);

/**
 * doctor_verdict_json - the verdict as the doctor document's "verdict"
 * @verdict: the verdict
 * @fixes: the fixes its top causes come from, or NULL for none
 *
 * Returns a new reference: {readiness, ready, budget_ns, says, cpus: [{cpu,
 * timer: {max_ns, p99_99_ns, wakeups, return_level_1h: {available, blocks,
 * needed, value_ns, ci_ns, confidence, reliable, says}}, noise: {max_ns,
 * gaps, lost_fraction}, over_budget}], top_causes: [{label, cpu, kind,
 * part, share, spikes, fix, fix_list, fix_rank}], not_seen: [...]}, or NULL.
 */
json_t *doctor_verdict_json(const struct doctor_verdict *verdict, const struct doctor_fixes *fixes);

/* "ready", "not ready", "unknown", "not measured" */
const char *doctor_readiness_name(enum doctor_readiness readiness);

#endif
