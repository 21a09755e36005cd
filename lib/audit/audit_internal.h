/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_AUDIT_INTERNAL_H
#define LATSCOPE_AUDIT_INTERNAL_H

#ifndef LATSCOPE_INSIDE_AUDIT
#error "lib/audit/audit_internal.h is private to lib/audit/: outside it, use the headers of include/latscope/"
#endif

/*
 * What the audit rules share inside the library: the context they read
 * through, the rule table type and the helpers that record evidence.
 */
#include <stdbool.h>
#include <stddef.h>

#include "latscope/audit.h"
#include "latscope/counters.h"
#include "latscope/irq.h"
#include "latscope/kconfig.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Evidence lists are cut after this many entries per finding, with a count. */
#define AUDIT_MAX_LISTED 8

/* The one reason every rule about RT CPUs gives when there are none. */
#define AUDIT_NO_RT_CPUS "no RT CPUs (none isolated or nohz_full; use --rt-cpus)"

/* A task as the rules about affinity and daemons need it. */
struct audit_task {
	int pid;
	char comm[32];
	unsigned long flags; /* PF_* from /proc/PID/stat */
	/* false: /proc/PID/status is there but unreadable, or its Cpus_allowed_list garbled */
	bool allowed_known;
	int status_error; /* why not, a negative errno code (-EINVAL: garbled) */
	struct cpuset allowed; /* Cpus_allowed_list */
};

#define AUDIT_PF_KTHREAD 0x00200000UL
#define AUDIT_PF_NO_SETAFFINITY 0x04000000UL

struct audit_context {
	struct sysroot *root;
	const struct topology *topo;
	struct cpuset rt;
	struct cpuset housekeeping;
	bool rt_given;
	/* loaded once before the rules run */
	struct kconfig config;
	int config_ret;
	char cmdline[4096]; /* kernel part of /proc/cmdline, "" when unreadable */
	int cmdline_ret;
	/* loaded on first use, released by the file that loads it */
	bool tasks_loaded;
	int tasks_ret;
	struct audit_task *tasks;
	size_t nr_tasks;
	/*
	 * Tasks left out because their /proc/PID/stat is there but does not
	 * read or parse (one that exited meanwhile is simply gone): what they
	 * are is unknown. The first one's path and reason, for a skip.
	 */
	unsigned int nr_tasks_unreadable;
	char task_unreadable[128];
	bool irqs_loaded;
	int irqs_ret;
	struct irq_table irqs;
	/* what the RT CPUs take while watched (live only), taken on first use */
	bool sampled;
	struct counters_run *sample;
};

struct audit_rule {
	const char *id;
	const char *title;
	enum audit_severity severity;
	const char *why;
	void (*check)(struct audit_context *ctx, struct audit_finding *f);
};

/* The rule tables, one per area (audit_rules_<area>.c). */
#define AUDIT_RULE_TABLE(area)                                 \
	extern const struct audit_rule audit_##area##_rules[]; \
	extern const size_t audit_##area##_rule_count

AUDIT_RULE_TABLE(kernel);
AUDIT_RULE_TABLE(tracing);
AUDIT_RULE_TABLE(cpu);
AUDIT_RULE_TABLE(isolation);
AUDIT_RULE_TABLE(irq);
AUDIT_RULE_TABLE(sched);
AUDIT_RULE_TABLE(memory);
AUDIT_RULE_TABLE(platform);

/* --- verdicts (audit_finding.c) --- */

void finding_verdict(struct audit_finding *f, enum audit_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define finding_pass(f, ...) finding_verdict((f), AUDIT_PASS, __VA_ARGS__)
#define finding_warn(f, ...) finding_verdict((f), AUDIT_WARN, __VA_ARGS__)
#define finding_fail(f, ...) finding_verdict((f), AUDIT_FAIL, __VA_ARGS__)
#define finding_skip(f, ...) finding_verdict((f), AUDIT_SKIP, __VA_ARGS__)

void finding_evidence(struct audit_finding *f, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void finding_expected(struct audit_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void finding_fix(struct audit_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* skip because a file could not be read or parsed; @err a negative errno */
void finding_skip_unreadable(struct audit_finding *f, const char *path, int err);
void finding_release(struct audit_finding *f);

/* --- reading with evidence (audit_read.c) --- */

/*
 * Read a small file; on success the path and text become evidence. Returns
 * the length or a negative errno code; the caller decides what a missing
 * file means.
 */
int audit_read(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Read a decimal integer; garbage gives -EINVAL with the text as evidence. */
int audit_read_integer(struct audit_context *ctx, struct audit_finding *f, long long *value,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Read a cpu list; garbage gives -EINVAL with the text as evidence. */
int audit_read_cpulist(struct audit_context *ctx, struct audit_finding *f, struct cpuset *set,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * The same for a rule that cannot judge without the file: on failure the
 * finding is skipped with the reason and false returned.
 */
bool audit_need_read(struct audit_context *ctx, struct audit_finding *f, char *buf, size_t size,
		     const char *path);
bool audit_need_integer(struct audit_context *ctx, struct audit_finding *f, long long *value,
			const char *path);
/*
 * For a file whose absence is an answer (the feature is not built in): 0
 * with @value, -ENOENT with "absent" as evidence, or another error with the
 * finding skipped.
 */
int audit_read_optional_integer(struct audit_context *ctx, struct audit_finding *f,
				long long *value, const char *path);
/* The selected word of a sysfs choice list ("always [madvise] never"), "" if none. */
const char *audit_selected_word(const char *text, char *buf, size_t size);

/*
 * The kernel configuration. audit_need_config() marks the finding skipped
 * with the reason and returns false when there is none. audit_config()
 * returns an option's value (NULL when not set) and records it as evidence.
 */
bool audit_need_config(struct audit_context *ctx, struct audit_finding *f);
const char *audit_config(struct audit_context *ctx, struct audit_finding *f, const char *name);
bool audit_config_enabled(struct audit_context *ctx, struct audit_finding *f, const char *name);

/*
 * A kernel boot parameter: true when present, with its value (after '=',
 * "" for a bare flag) in @value; presence or absence becomes evidence.
 */
bool audit_cmdline(struct audit_context *ctx, struct audit_finding *f, const char *name,
		   char *value, size_t size);

/* false, with the finding skipped for want of RT CPUs, when there are none */
bool audit_need_rt(struct audit_context *ctx, struct audit_finding *f);

/*
 * Evidence for one item of a list that may be long (one per CPU or IRQ):
 * kept for the first AUDIT_MAX_LISTED items; audit_evidence_rest() then
 * records how many more there were.
 */
void audit_evidence_listed(struct audit_finding *f, unsigned int *listed, const char *path,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void audit_evidence_rest(struct audit_finding *f, unsigned int listed, const char *path,
			 const char *what);

/*
 * Append an item to a comma-separated list in a fixed buffer; an item that
 * does not fit whole is left out, so the list never ends in a cut word.
 */
void audit_list_append(char *list, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* true when @list (as built by audit_list_append) holds @item */
bool audit_list_has(const char *list, const char *item);

/* the CPUs a rule about where RT work runs looks at: the RT CPUs, or all online */
const struct cpuset *audit_rt_or_online(const struct audit_context *ctx);

/* --- watching the RT CPUs (audit_sample.c) --- */

/* how long the live machine is watched: short, the audit must stay fast */
#define AUDIT_SAMPLE_NS 20000000ULL

/*
 * The interrupts, softirqs and SMIs of the RT CPUs during AUDIT_SAMPLE_NS,
 * watched once for every rule that asks. NULL, with the finding skipped,
 * on a tree that is not the live machine or when the counters cannot be
 * read.
 */
const struct counters_run *audit_sample(struct audit_context *ctx, struct audit_finding *f);
void audit_sample_release(struct audit_context *ctx);

/* --- cpu lists as text (audit_read.c) --- */

struct cpus_text {
	char text[256];
};
/* "0-3,8", or "none" for an empty set */
const char *cpus_text(const struct cpuset *set, struct cpus_text *buf);
/* the set as the kernel's hexadecimal mask, sized to the possible CPUs */
const char *cpus_mask_text(const struct audit_context *ctx, const struct cpuset *set,
			   struct cpus_text *buf);
/* the RT CPUs to put in a fix: the RT CPUs, or all online but the first when none */
const char *rt_cpus_for_fix(const struct audit_context *ctx, struct cpus_text *buf);

/* --- the interrupt table, loaded on first use (audit_rules_irq.c) --- */

/* Free the table the IRQ rules loaded; safe when none did. */
void audit_irqs_release(struct audit_context *ctx);

/* --- tasks (audit_task.c) --- */

/* Load /proc/PID/{stat,status} of every process once; 0 or a negative errno. */
int audit_tasks(struct audit_context *ctx);
/* Free what audit_tasks() loaded; safe when it never ran. */
void audit_tasks_release(struct audit_context *ctx);
/* false, with the finding skipped, when there are no RT CPUs or no task list */
bool audit_need_tasks(struct audit_context *ctx, struct audit_finding *f);
/* true for a kernel thread the scheduler keeps per CPU (cannot be moved) */
bool audit_task_is_per_cpu(const struct audit_task *task);
/*
 * A task whose CPUs are unknown (allowed_known false) as evidence and in
 * @unknown, the count a rule keeps of what it could not judge; @first
 * receives the first one's path and reason for the rule's skip.
 */
void audit_task_note_unknown(struct audit_finding *f, const struct audit_task *task,
			     unsigned int *unknown, char *first, size_t size);
/*
 * The tasks left out of the list (nr_tasks_unreadable) as evidence, added
 * to @unknown; @first receives the reason when it is still empty.
 */
void audit_tasks_note_unreadable(struct audit_context *ctx, struct audit_finding *f,
				 unsigned int *unknown, char *first, size_t size);

#endif
