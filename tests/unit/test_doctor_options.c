// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope doctor's option table, every entry in every spelling, its
 * defaults and the rules between its options; and what doctor asks of its
 * measuring parts, filled in their options structs, against the command
 * line that would ask the same of `latscope timer` and `latscope noise`.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_run.h"
#include "irq_context.h"
#include "option_exercise.h"

static const struct exercise_hint hints[] = {
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &doctor_command, .hints = hints };

	exercise_command(&x);
}
END_TEST

/* The options of @line, parsed; the caller releases them. */
static void parse_doctor(const char *line, struct doctor_options *o)
{
	char text[256], *argv[16], *word, *save = NULL;
	int argc = 0, status = -1;

	snprintf(text, sizeof(text), "doctor %s", line);
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	ck_assert_msg(option_parse(&doctor_command, argc, argv, o, NULL, &status),
		      "'%s' refused (exit %d)", line, status);
}

START_TEST(defaults)
{
	struct doctor_options o;

	parse_doctor("", &o);
	ck_assert_uint_eq(o.duration_ns, DOCTOR_DEFAULT_DURATION_NS);
	ck_assert_uint_eq(o.budget_ns, DOCTOR_DEFAULT_BUDGET_NS);
	ck_assert(!o.rt_given && cpuset_empty(&o.rt_cpus));
	ck_assert(!o.no_noise && !o.no_timer && !o.strict);
	ck_assert_ptr_null(o.report_path);
	ck_assert_ptr_null(o.json.path);
	ck_assert_ptr_null(o.junit.path);
	option_release(&doctor_command, &o);

	/* a bare --duration number is seconds, a bare --budget us */
	parse_doctor("-d 3 -b 250 -c 1-2", &o);
	ck_assert_uint_eq(o.duration_ns, 3 * NS_PER_SEC);
	ck_assert_uint_eq(o.budget_ns, 250 * NS_PER_US);
	ck_assert(o.rt_given && cpuset_count(&o.rt_cpus) == 2);
	option_release(&doctor_command, &o);
}
END_TEST

/* The ranges: two seconds at least (a second each part), a budget from 1 us to an hour. */
START_TEST(ranges)
{
	struct exercise x = { .command = &doctor_command, .hints = hints };

	exercise_accepts(&x, "--duration 2s");
	exercise_refuses(&x, "--duration 1999ms", "--duration");
	exercise_accepts(&x, "--duration 7d");
	exercise_refuses(&x, "--duration 8d", "--duration");
	exercise_accepts(&x, "--budget 1us");
	exercise_refuses(&x, "--budget 999ns", "--budget");
	exercise_accepts(&x, "--budget 1h");
	exercise_refuses(&x, "--budget 61m", "--budget");
}
END_TEST

/* What the options say together, before anything is measured. */
START_TEST(rules_between_options)
{
	struct exercise x = { .command = &doctor_command, .hints = hints };

	exercise_refuses(&x,
			 "--report /tmp/latscope-exercise.out --json /tmp/latscope-exercise.out",
			 "--report and --json name the same file");
	exercise_refuses(
		&x, "--report /tmp/latscope-exercise.out --json /tmp/../tmp/latscope-exercise.out",
		"--report and --json name the same file");
	exercise_refuses(&x,
			 "--report /tmp/latscope-exercise.out --junit /tmp/latscope-exercise.out",
			 "--report and --junit name the same file");
	exercise_refuses(&x, "--json /tmp/latscope-exercise.out --junit /tmp/latscope-exercise.out",
			 "--junit");
	exercise_refuses(&x, "--json-compact", "--json-compact");
	exercise_accepts(&x,
			 "--report /tmp/latscope-exercise.html --json /tmp/latscope-exercise.json "
			 "--junit /tmp/latscope-exercise.xml");
	/*
	 * Both parts left out is not a conflict: the audit and the IRQ plan
	 * still run, and the verdict says nothing was measured (exit 0, as
	 * latscope-doctor(1) says).
	 */
	exercise_accepts(&x, "--no-noise --no-timer");
	exercise_accepts(&x, "--no-timer --strict -d 2s");
}
END_TEST

/* A doctor run as cmd_doctor.c plans it, on RT CPUs 1-3 of 0-3. */
static struct doctor_run *planned(uint64_t budget_ns, bool pm_qos)
{
	struct doctor_run *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(cpuset_parse_list("1-3", &d->rt), 0);
	d->opts.budget_ns = budget_ns;
	d->pm_qos = pm_qos;
	d->step_ns[STEP_TIMER] = 2500 * NS_PER_MS;
	d->step_ns[STEP_NOISE] = 1500 * NS_PER_MS + 1;
	return d;
}

static void same_timer_options(const struct timer_options *a, const struct timer_options *b)
{
	unsigned int i;

	ck_assert_uint_eq(a->params.nr_threads, b->params.nr_threads);
	for (i = 0; i < a->params.nr_threads; i++) {
		ck_assert_int_eq(a->threads[i].cpu, b->threads[i].cpu);
		ck_assert_int_eq(a->threads[i].priority, b->threads[i].priority);
		ck_assert_uint_eq(a->threads[i].interval_ns, b->threads[i].interval_ns);
	}
	ck_assert_int_eq(a->params.policy, b->params.policy);
	ck_assert_int_eq(a->params.mode, b->params.mode);
	ck_assert_uint_eq(a->params.duration_ns, b->params.duration_ns);
	ck_assert_uint_eq(a->params.spike_threshold_ns, b->params.spike_threshold_ns);
	ck_assert_uint_eq(a->params.spike_capacity, b->params.spike_capacity);
	ck_assert_uint_eq(a->params.sample_ring, b->params.sample_ring);
	ck_assert_int_eq(a->explain, b->explain);
	ck_assert_uint_eq(a->explain_above_ns, b->explain_above_ns);
	ck_assert(a->mlockall == b->mlockall && a->pm_qos == b->pm_qos);
	ck_assert(a->quiet == b->quiet && a->pinned == b->pinned);
	ck_assert(cpuset_equal(&a->measured, &b->measured));
	ck_assert_int_eq(a->priority, b->priority);
	ck_assert_uint_eq(a->interval_us, b->interval_us);
}

/*
 * The timer doctor fills is the timer its recorded command line asks for:
 * renaming an option or changing what doctor asks fails here, not in a
 * part's document.
 */
static void timer_round_trip(uint64_t budget_ns, bool pm_qos)
{
	struct doctor_run *d = planned(budget_ns, pm_qos);
	struct timer_options filled, parsed;
	struct doctor_words w = { 0 };
	struct cpuset online;
	struct timer_machine machine = { &online, &online, &online };
	int status = -1;

	ck_assert_int_eq(cpuset_parse_list("0-3", &online), 0);
	timer_options_default(&filled);
	doctor_timer_options(d, &filled);
	ck_assert_int_eq(timer_options_finish(&filled, &machine), 0);
	doctor_timer_words(&filled, &w);
	ck_assert_str_eq(w.argv[0], "timer");
	ck_assert_msg(timer_options_parse(w.argc, w.argv, &machine, &parsed, &status),
		      "the timer's words were refused (exit %d)", status);
	same_timer_options(&filled, &parsed);
	ck_assert_uint_eq(filled.params.nr_threads, 3);
	ck_assert_int_eq(filled.params.policy, RT_POLICY_FIFO);
	ck_assert_int_eq(filled.threads[0].cpu, 1);
	ck_assert_int_eq(filled.threads[2].cpu, 3);
	ck_assert_int_eq(filled.priority, DOCTOR_TIMER_PRIORITY);
	ck_assert_uint_eq(filled.params.duration_ns, 2500 * NS_PER_MS);
	ck_assert(filled.mlockall && filled.quiet && filled.pm_qos == pm_qos);
	ck_assert_int_eq(filled.explain, EXPLAIN_WITH_TRACE);
	/* half the budget, within what --explain-above takes */
	ck_assert_uint_ge(filled.explain_above_ns, 1);
	ck_assert_uint_le(filled.explain_above_ns, TIMER_EXPLAIN_ABOVE_MAX_NS);
	if (budget_ns / 2 && budget_ns / 2 <= TIMER_EXPLAIN_ABOVE_MAX_NS)
		ck_assert_uint_eq(filled.explain_above_ns, budget_ns / 2);
	timer_options_release(&filled);
	timer_options_release(&parsed);
	free(d);
}

START_TEST(timer_part)
{
	timer_round_trip(DOCTOR_DEFAULT_BUDGET_NS, true);
	timer_round_trip(NS_PER_US, false);
	timer_round_trip(NS_PER_HOUR, true);
}
END_TEST

/* The words' value after @name, or NULL when the option is not among them. */
static const char *word_after(const struct doctor_words *w, const char *name)
{
	int i;

	for (i = 0; i + 1 < w->argc; i++)
		if (!strcmp(w->argv[i], name))
			return w->argv[i + 1];
	return NULL;
}

/*
 * @read_cost_ns: what a read of the noise's clock cost before the run, as
 * prepare_noise() measures it (0: not measured)
 */
static void noise_round_trip(bool pm_qos, uint64_t read_cost_ns, const char *threshold)
{
	struct doctor_run *d = planned(DOCTOR_DEFAULT_BUDGET_NS, pm_qos);
	struct noise_options filled, parsed;
	struct doctor_words w = { 0 };
	int status = -1;

	d->noise_read_cost_ns = read_cost_ns;
	noise_options_default(&filled);
	doctor_noise_options(d, &filled);
	ck_assert_int_eq(noise_command.finish(&filled, NULL), 0);
	doctor_noise_words(&filled, &w);
	ck_assert_str_eq(w.argv[0], "noise");
	ck_assert_msg(option_parse(&noise_command, w.argc, w.argv, &parsed, NULL, &status),
		      "the noise's words were refused (exit %d)", status);
	ck_assert_mem_eq(&filled.params, &parsed.params, sizeof(filled.params));
	ck_assert(filled.cpus_given && parsed.cpus_given);
	ck_assert_int_eq(filled.explain, parsed.explain);
	ck_assert(filled.quiet == parsed.quiet && filled.no_dma_latency == parsed.no_dma_latency);
	ck_assert(filled.no_dma_latency == !pm_qos);
	ck_assert_int_eq(filled.explain, EXPLAIN_WITH_TRACE);
	ck_assert_uint_eq(filled.params.duration_ns, 1500 * NS_PER_MS + 1);
	ck_assert(cpuset_equal(&filled.params.cpus, &d->rt));
	ck_assert_int_eq(filled.params.policy, RT_POLICY_OTHER);
	/* the threshold doctor chose is on the line only when it is not the default */
	ck_assert_uint_eq(filled.params.threshold_ns, doctor_noise_threshold(read_cost_ns));
	if (threshold)
		ck_assert_str_eq(word_after(&w, "--threshold"), threshold);
	else
		ck_assert_ptr_null(word_after(&w, "--threshold"));
	option_release(&noise_command, &filled);
	option_release(&noise_command, &parsed);
	free(d);
}

START_TEST(noise_part)
{
	noise_round_trip(true, 0, NULL);
	noise_round_trip(false, 0, NULL);
	/* a TSC read: the default stays, and the line is as it always was */
	noise_round_trip(true, 15, NULL);
	/* clock_gettime without a constant TSC (QEMU TCG): raised, and said */
	noise_round_trip(true, 600, "1800ns");
	noise_round_trip(false, 500, "1500ns");
}
END_TEST

/* The irq plan part keeps why it made no plan, whatever was printed last. */
static void plan_refused(const char *root, const char *rt, enum part_reason reason, int status,
			 const char *words)
{
	struct irq_context ctx = { 0 };
	struct irq_options o = { 0 };
	struct irqplan plan = { 0 };
	struct part_result why = { 0 };

	irq_options_default(&o);
	o.subcommand = IRQ_PLAN;
	o.root_dir = root;
	if (rt)
		ck_assert_int_eq(cpuset_parse_list(rt, &o.rt_cpus), 0);
	ck_assert_int_eq(irq_context_open(&ctx, &o), 0);
	ck_assert_int_eq(irq_context_plan(&ctx, &o, &plan, &why), status);
	ck_assert_int_eq(why.reason, reason);
	ck_assert_int_eq(why.status, status);
	ck_assert_msg(strstr(why.text, words), "'%s' without '%s'", why.text, words);
	irqplan_release(&plan);
	irq_context_close(&ctx);
}

START_TEST(irq_plan_part)
{
	char empty[] = "/tmp/latscope-doctor-XXXXXX";

	plan_refused(FIXTURE("irq-numa2"), "0-255", PART_REFUSED, EXIT_USAGE,
		     "--rt-cpus '0-255' covers every online cpu");
	ck_assert_ptr_nonnull(mkdtemp(empty));
	plan_refused(empty, NULL, PART_NO_MACHINE, EXIT_ERROR, "cannot read the IRQs: ");
	rmdir(empty);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("doctor_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, every_option_in_every_spelling);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, rules_between_options);
	tcase_add_test(tc, timer_part);
	tcase_add_test(tc, noise_part);
	tcase_add_test(tc, irq_plan_part);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
