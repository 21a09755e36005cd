// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The parts of latscope doctor, run as their commands run them: check,
 * irq plan (a dry run), timer --explain and noise --explain. A part that
 * cannot run is recorded with the reason and the others still run; each
 * gives back what it held before the next starts.
 */
#include <signal.h>
#include <stdarg.h>
#include <string.h>

#include "check_report.h"
#include "cli.h"
#include "doctor_run.h"
#include "irq_context.h"
#include "irq_report.h"
#include "latscope/audit.h"
#include "latscope/noise.h"
#include "latscope/result.h"
#include "latscope/tsc.h"

const char *doctor_step_name(enum doctor_step step)
{
	static const char *const names[] = {
		[STEP_CHECK] = "check",
		[STEP_IRQ_PLAN] = "irq plan",
		[STEP_TIMER] = "timer --explain",
		[STEP_NOISE] = "noise --explain",
	};

	return step < NR_STEPS ? names[step] : "?";
}

static void add_word(struct doctor_words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The words never outgrow their room: doctor builds them from a fixed set. */
static void add_word(struct doctor_words *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->argc + 1 >= (int)(sizeof(w->argv) / sizeof(w->argv[0])) || w->used >= sizeof(w->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->used, sizeof(w->buf) - w->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(w->buf) - w->used)
		return;
	w->argv[w->argc++] = w->buf + w->used;
	w->argv[w->argc] = NULL;
	w->used += (size_t)n + 1;
}

/* A duration as the words say it: "2000ms", or in ns when ms would round it. */
static void add_duration(struct doctor_words *w, uint64_t ns)
{
	if (ns % 1000000)
		add_word(w, "%lluns", (unsigned long long)ns);
	else
		add_word(w, "%llums", (unsigned long long)(ns / 1000000));
}

/* The step number among those asked for: "[3/4]". */
static void progress(const struct doctor_run *d, enum doctor_step step, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void progress(const struct doctor_run *d, enum doctor_step step, const char *fmt, ...)
{
	unsigned int i, at = 0, of = 0;
	va_list ap;

	for (i = 0; i < NR_STEPS; i++) {
		of += d->asked[i];
		at += d->asked[i] && i <= step;
	}
	fprintf(stderr, "[%u/%u] %s: ", at, of, doctor_step_name(step));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A part that did not run: why, for the verdict and the document. */
static void missing(struct doctor_run *d, enum doctor_step step, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void missing(struct doctor_run *d, enum doctor_step step, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->missing[step], sizeof(d->missing[step]), fmt, ap);
	va_end(ap);
	progress(d, step, "not run: %s", d->missing[step]);
}

static bool stopped(struct doctor_run *d, enum doctor_step step)
{
	if (!stop_requested)
		return false;
	missing(d, step, "the run was stopped by SIG%s", sigabbrev_np(stop_requested));
	return true;
}

static const char *seconds(uint64_t ns, char *buf, size_t size)
{
	return format_duration(ns, buf, size);
}

void doctor_timer_options(const struct doctor_run *d, struct timer_options *o)
{
	o->mlockall = true;
	o->quiet = true;
	o->words.affinity_given = true;
	o->words.affinity = d->rt;
	o->words.threads_given = true;
	o->words.nr_threads = cpuset_count(&d->rt);
	o->words.priority_given = true;
	o->priority = DOCTOR_TIMER_PRIORITY;
	o->interval_us = DOCTOR_TIMER_INTERVAL_US;
	o->words.duration_ns = d->step_ns[STEP_TIMER];
	o->explain = EXPLAIN_WITH_TRACE;
	/*
	 * What comes near the budget is what the fixes must remove; a budget
	 * of an hour (--budget takes up to one) would ask for a threshold the
	 * timer refuses, and the timer would not run.
	 */
	o->explain_above_ns = d->opts.budget_ns / 2 ?: 1;
	if (o->explain_above_ns > TIMER_EXPLAIN_ABOVE_MAX_NS)
		o->explain_above_ns = TIMER_EXPLAIN_ABOVE_MAX_NS;
	o->words.default_system = !d->pm_qos;
}

void doctor_timer_words(const struct timer_options *o, struct doctor_words *w)
{
	char list[256];

	add_word(w, "timer");
	if (o->mlockall)
		add_word(w, "-m");
	if (o->quiet)
		add_word(w, "-q");
	add_word(w, "-a");
	add_word(w, "%s", cpuset_format_list(&o->words.affinity, list, sizeof(list)));
	add_word(w, "-t");
	add_word(w, "%u", o->words.nr_threads);
	add_word(w, "-p");
	add_word(w, "%d", o->priority);
	add_word(w, "-i");
	add_word(w, "%u", o->interval_us);
	add_word(w, "-D");
	add_duration(w, o->words.duration_ns);
	if (o->explain == EXPLAIN_WITH_TRACE)
		add_word(w, "--explain");
	if (o->explain_above_ns) {
		add_word(w, "--explain-above");
		add_word(w, "%lluns", (unsigned long long)o->explain_above_ns);
	}
	if (o->words.default_system)
		add_word(w, "--default-system");
}

void doctor_noise_options(const struct doctor_run *d, struct noise_options *o)
{
	o->params.cpus = d->rt;
	o->cpus_given = true;
	o->params.duration_ns = d->step_ns[STEP_NOISE];
	o->params.threshold_ns = doctor_noise_threshold(d->noise_read_cost_ns);
	o->explain = EXPLAIN_WITH_TRACE;
	o->quiet = true;
	o->no_dma_latency = !d->pm_qos;
}

void doctor_noise_words(const struct noise_options *o, struct doctor_words *w)
{
	struct noise_params defaults;
	char list[256];

	noise_params_default(&defaults);
	add_word(w, "noise");
	add_word(w, "--cpus");
	add_word(w, "%s", cpuset_format_list(&o->params.cpus, list, sizeof(list)));
	add_word(w, "--duration");
	add_duration(w, o->params.duration_ns);
	/* the value chosen, in ns: rounded for the eye it could fall below the rule */
	if (o->params.threshold_ns != defaults.threshold_ns) {
		add_word(w, "--threshold");
		add_word(w, "%lluns", (unsigned long long)o->params.threshold_ns);
	}
	if (o->explain == EXPLAIN_WITH_TRACE)
		add_word(w, "--explain");
	if (o->quiet)
		add_word(w, "--quiet");
	if (o->no_dma_latency)
		add_word(w, "--no-dma-latency");
}

static void prepare_timer(struct doctor_run *d)
{
	struct timer_session *t = &d->timer;

	cli_set_command_name("doctor timer");
	d->prepared[STEP_TIMER] = timer_session_open(t);
	if (d->prepared[STEP_TIMER]) {
		doctor_timer_options(d, &t->opts);
		doctor_timer_words(&t->opts, &d->timer_words);
		d->prepared[STEP_TIMER] =
			timer_session_configure(t, d->timer_words.argc, d->timer_words.argv);
	}
	if (d->prepared[STEP_TIMER])
		t->out = d->quiet;
	else
		snprintf(d->missing[STEP_TIMER], sizeof(d->missing[STEP_TIMER]), "cannot run: %s",
			 t->result.text);
}

/*
 * What a read of the clock the noise loop will read costs (the clock its
 * session picks: the TSC only where tsc_usable()), measured as its own
 * check measures it: doctor picks the threshold, so it must pick one the
 * loop resolves, and say so when that is not the noise's default.
 */
static void measure_noise_clock(struct doctor_run *d, const struct noise_options *o)
{
	const char *why;

	d->noise_tsc = o->params.use_tsc && tsc_usable(d->root, &why);
	d->noise_read_cost_ns = noise_read_cost_ns(d->noise_tsc);
}

static void say_noise_threshold(struct doctor_run *d, const struct noise_options *o)
{
	struct noise_params defaults;
	char a[32], b[32], c[32];

	noise_params_default(&defaults);
	if (o->params.threshold_ns == defaults.threshold_ns)
		return;
	snprintf(d->noise_note, sizeof(d->noise_note),
		 "noise threshold raised to %s from %s: a read costs %s on this machine (%s)",
		 format_duration(o->params.threshold_ns, a, sizeof(a)),
		 format_duration(defaults.threshold_ns, b, sizeof(b)),
		 format_duration(d->noise_read_cost_ns, c, sizeof(c)),
		 d->noise_tsc ? "the TSC" : "clock_gettime: no constant, nonstop TSC");
	fprintf(stderr, "latscope doctor: %s\n", d->noise_note);
}

static void prepare_noise(struct doctor_run *d)
{
	struct noise_session *n = &d->noise;

	cli_set_command_name("doctor noise");
	noise_options_default(&n->opts);
	measure_noise_clock(d, &n->opts);
	doctor_noise_options(d, &n->opts);
	doctor_noise_words(&n->opts, &d->noise_words);
	d->prepared[STEP_NOISE] =
		noise_session_configure(n, d->noise_words.argc, d->noise_words.argv);
	say_noise_threshold(d, &n->opts);
	if (!d->prepared[STEP_NOISE])
		snprintf(d->missing[STEP_NOISE], sizeof(d->missing[STEP_NOISE]), "cannot run: %s",
			 n->result.text);
}

void doctor_prepare_parts(struct doctor_run *d)
{
	if (d->asked[STEP_TIMER])
		prepare_timer(d);
	if (d->asked[STEP_NOISE])
		prepare_noise(d);
	cli_set_command_name("doctor");
}

void doctor_run_check(struct doctor_run *d)
{
	struct audit_report report = { 0 };
	struct doctor_words w = { 0 };
	struct audit_summary s;
	json_t *params;
	int ret;

	if (!d->asked[STEP_CHECK] || stopped(d, STEP_CHECK))
		return;
	cli_set_command_name("doctor check");
	ret = audit_run(d->root, &d->topo, &d->rt, &report);
	if (ret) {
		missing(d, STEP_CHECK, "the audit could not run: %s", strerror(-ret));
		goto out;
	}
	add_word(&w, "check");
	add_word(&w, "--rt-cpus");
	add_word(&w, "%s", d->rt_list);
	params = json_pack("{s:s, s:s, s:s}", "rt_cpus", d->rt_list, "root", "/", "fail_on",
			   "never");
	d->doc[STEP_CHECK] = check_document(d->root, &d->topo, &report, params, w.argc, w.argv);
	if (!d->doc[STEP_CHECK]) {
		missing(d, STEP_CHECK, "out of memory");
		goto out;
	}
	result_set_end_time(d->doc[STEP_CHECK]);
	audit_summarize(&report, &s);
	progress(d, STEP_CHECK, "%zu rules: %u failed, %u warned, %u passed, %u skipped",
		 report.nr_findings,
		 s.failed[AUDIT_FATAL] + s.failed[AUDIT_HIGH] + s.failed[AUDIT_MEDIUM] +
			 s.failed[AUDIT_LOW] + s.failed[AUDIT_INFO],
		 s.warned[AUDIT_FATAL] + s.warned[AUDIT_HIGH] + s.warned[AUDIT_MEDIUM] +
			 s.warned[AUDIT_LOW] + s.warned[AUDIT_INFO],
		 s.passed, s.skipped);
out:
	audit_report_release(&report);
	cli_set_command_name("doctor");
}

void doctor_run_irq_plan(struct doctor_run *d)
{
	struct irq_options o = { 0 };
	struct irq_context ctx = { 0 };
	struct irqplan plan = { 0 };
	struct part_result why = { 0 };
	struct doctor_words w = { 0 };
	const json_t *doc;
	int ret;

	if (!d->asked[STEP_IRQ_PLAN] || stopped(d, STEP_IRQ_PLAN))
		return;
	cli_set_command_name("doctor irq plan");
	add_word(&w, "irq");
	add_word(&w, "plan");
	add_word(&w, "--rt-cpus");
	add_word(&w, "%s", d->rt_list);
	irq_options_default(&o);
	o.subcommand = IRQ_PLAN;
	o.name = "plan";
	o.rt_cpus = d->rt;
	o.argc = w.argc;
	o.argv = w.argv;
	ret = irq_context_open(&ctx, &o);
	if (ret) {
		missing(d, STEP_IRQ_PLAN, "cannot read the IRQs: %s", strerror(-ret));
		goto out;
	}
	if (irq_context_plan(&ctx, &o, &plan, &why)) {
		if (!stopped(d, STEP_IRQ_PLAN))
			missing(d, STEP_IRQ_PLAN, "%s", why.text);
		goto out;
	}
	d->doc[STEP_IRQ_PLAN] = irq_plan_document(&ctx, &o, &plan);
	if (!d->doc[STEP_IRQ_PLAN]) {
		missing(d, STEP_IRQ_PLAN, "out of memory");
		goto out;
	}
	result_set_end_time(d->doc[STEP_IRQ_PLAN]);
	doc = d->doc[STEP_IRQ_PLAN];
	progress(d, STEP_IRQ_PLAN,
		 "a dry run, nothing changed: %zu IRQ%s would move, %zu cannot be moved%s",
		 json_array_size(json_object_get(doc, "moves")),
		 json_array_size(json_object_get(doc, "moves")) == 1 ? "" : "s",
		 json_array_size(json_object_get(doc, "unmovable")),
		 json_array_size(json_object_get(doc, "unreadable")) ?
			 " (some affinity files did not read: see the plan in the JSON)" :
			 "");
out:
	irqplan_release(&plan);
	irq_context_close(&ctx);
	cli_set_command_name("doctor");
}

/* The worst of a part's entries, for the line that says it is done. */
static void say_done(const struct doctor_run *d, enum doctor_step step, const json_t *entries)
{
	uint64_t worst = 0;
	long long cpu = -1;
	char a[32];
	size_t i;

	for (i = 0; i < json_array_size(entries); i++) {
		const json_t *e = json_array_get(entries, i);
		json_int_t max = json_integer_value(json_object_get(e, "max_ns"));

		if (max > 0 && (uint64_t)max >= worst) {
			worst = (uint64_t)max;
			cpu = json_integer_value(json_object_get(e, "cpu"));
		}
	}
	progress(d, step, "done: %s %s on cpu %lld",
		 step == STEP_TIMER ? "worst latency" : "largest gap",
		 format_duration(worst, a, sizeof(a)), cpu);
}

void doctor_run_timer(struct doctor_run *d)
{
	char a[32];
	int status;

	if (!d->asked[STEP_TIMER])
		return;
	if (!d->prepared[STEP_TIMER]) {
		progress(d, STEP_TIMER, "not run: %s", d->missing[STEP_TIMER]);
		return;
	}
	if (stopped(d, STEP_TIMER))
		return;
	progress(d, STEP_TIMER, "cpu %s, SCHED_FIFO %d every %d us, for %s", d->rt_list,
		 DOCTOR_TIMER_PRIORITY, DOCTOR_TIMER_INTERVAL_US,
		 seconds(d->step_ns[STEP_TIMER], a, sizeof(a)));
	cli_set_command_name("doctor timer");
	status = timer_session_run(&d->timer);
	cli_set_command_name("doctor");
	if (!d->timer.run) {
		missing(d, STEP_TIMER, "cannot run: %s", d->timer.result.text);
		return;
	}
	d->doc[STEP_TIMER] = json_incref(timer_json_document(&d->timer, status));
	say_done(d, STEP_TIMER, json_object_get(d->doc[STEP_TIMER], "threads"));
}

void doctor_run_noise(struct doctor_run *d)
{
	char a[32];

	if (!d->asked[STEP_NOISE])
		return;
	if (!d->prepared[STEP_NOISE]) {
		progress(d, STEP_NOISE, "not run: %s", d->missing[STEP_NOISE]);
		return;
	}
	if (stopped(d, STEP_NOISE))
		return;
	progress(d, STEP_NOISE, "cpu %s, a busy loop at SCHED_OTHER, for %s", d->rt_list,
		 seconds(d->step_ns[STEP_NOISE], a, sizeof(a)));
	cli_set_command_name("doctor noise");
	if (noise_session_run(&d->noise, d->quiet)) {
		cli_set_command_name("doctor");
		missing(d, STEP_NOISE, "cannot run: %s", d->noise.result.text);
		return;
	}
	cli_set_command_name("doctor");
	d->doc[STEP_NOISE] = json_incref(noise_session_document(&d->noise));
	say_done(d, STEP_NOISE, json_object_get(d->doc[STEP_NOISE], "cpus"));
}

void doctor_release_parts(struct doctor_run *d)
{
	unsigned int i;

	timer_session_free(&d->timer);
	noise_session_free(&d->noise);
	for (i = 0; i < NR_STEPS; i++) {
		json_decref(d->doc[i]);
		d->doc[i] = NULL;
	}
}
