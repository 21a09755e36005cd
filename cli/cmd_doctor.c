// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope doctor: check, irq plan (a dry run), timer --explain and noise
 * --explain on the RT CPUs in one run; the verdict for a latency budget and
 * the fixes ranked by what they would have removed. The parts are
 * doctor_parts.c's, the joins and the verdict the library's (doctor.h),
 * the terminal doctor_report.c's and the page report.h's; this file holds
 * the command line, the choice of CPUs and the order of the outputs.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare_junit.h"
#include "doctor_baseline.h"
#include "doctor_junit.h"
#include "doctor_run.h"
#include "latscope/import.h"
#include "latscope/parse.h"
#include "latscope/report.h"
#include "latscope/result.h"
#include "latscope/rt.h"
#include "machine.h"
#include "option_table.h"
#include "output_path.h"
#include "validity_report.h"

#define DOCTOR(member) OPTION_FIELD(struct doctor_options, member)

/*
 * A second at least for each of the two measuring parts; a week at most,
 * as a checkup (a monitor measures for longer). A budget of a microsecond
 * at least: the verdict is for timer wake-ups, and none is faster.
 */
#define DOCTOR_MIN_DURATION_NS (2 * NS_PER_SEC)
#define DOCTOR_MAX_DURATION_NS (7 * NS_PER_DAY)
#define DOCTOR_MIN_BUDGET_NS NS_PER_US

static const struct option_spec doctor_option_specs[] = {
	OPTION_RT_CPUS(DOCTOR(rt_cpus), 'c', .given = DOCTOR(rt_given),
		       .default_text = "isolated and nohz_full; with none, every CPU but one"),
	OPTION_DURATION_ENTRY('d', DOCTOR_MIN_DURATION_NS, DOCTOR_MAX_DURATION_NS,
			      "time measured in all, 2 s to a week: the timer the first half, the "
			      "noise the second",
			      .where = DOCTOR(duration_ns)),
	OPTION_BUDGET_ENTRY('b', DOCTOR_MIN_BUDGET_NS,
			    "the latency the RT CPUs must keep to, 1 us at least: the verdict is "
			    "ready or not for it",
			    .where = DOCTOR(budget_ns)),
	{ .long_name = "report",
	  .short_name = 'o',
	  .kind = OPTION_OUTPUT_FILE,
	  .where = DOCTOR(report_path),
	  .value_name = "FILE.html",
	  .help = "write the HTML page: the verdict, the fixes and every part's plots" },
	OPTION_INCLUDE_AT(json_output_options, DOCTOR(json)),
	OPTION_STRICT(DOCTOR(strict)),
	OPTION_INCLUDE_AT(junit_output_options, DOCTOR(junit)),
	{ .long_name = "baseline",
	  .kind = OPTION_INPUT_FILE,
	  .where = DOCTOR(baseline_path),
	  .value_name = "FILE",
	  .help = "compare the timer with an earlier doctor or timer result, as compare does" },
	{ .long_name = "no-noise",
	  .kind = OPTION_FLAG,
	  .where = DOCTOR(no_noise),
	  .help = "do not measure the OS noise (the timer gets all of --duration)" },
	{ .long_name = "no-timer",
	  .kind = OPTION_FLAG,
	  .where = DOCTOR(no_timer),
	  .help = "do not measure the timer latency (the noise gets all of --duration)" },
	OPTION_TABLE_END,
};

static void doctor_defaults(void *options)
{
	struct doctor_options *o = options;

	o->duration_ns = DOCTOR_DEFAULT_DURATION_NS;
	o->budget_ns = DOCTOR_DEFAULT_BUDGET_NS;
}

/* Where a path to be written lands: its directory resolved, then its name. */
static bool resolve_output(const char *path, char *buf, size_t size)
{
	char *copy = strdup(path), *dir, *base, *real;
	bool ok = false;

	if (!copy)
		return false;
	base = strrchr(copy, '/');
	if (base) {
		*base++ = '\0';
		dir = *copy ? copy : "/";
	} else {
		base = copy;
		dir = ".";
	}
	real = realpath(dir, NULL);
	if (real)
		ok = snprintf(buf, size, "%s/%s", real, base) < (int)size;
	free(real);
	free(copy);
	return ok;
}

/* the same file, however it is spelled, made yet or not */
static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return resolve_output(a, ra, sizeof(ra)) && resolve_output(b, rb, sizeof(rb)) &&
	       !strcmp(ra, rb);
}

static int doctor_finish(void *options, void *context)
{
	const struct doctor_options *o = options;

	(void)context;
	if (o->report_path && o->json.path && same_file(o->report_path, o->json.path))
		return usage_error("--report and --json name the same file '%s'", o->json.path);
	if (o->report_path && o->junit.path && same_file(o->report_path, o->junit.path))
		return usage_error("--report and --junit name the same file '%s'", o->junit.path);
	return junit_output_finish(&o->junit, &o->json);
}

const struct option_command doctor_command = {
	.name = "doctor",
	.description =
		"The whole diagnosis in one run, on the RT CPUs: the audit (check), the IRQ\n"
		"plan (a dry run), timer --explain for half of --duration and noise --explain\n"
		"for the other half. Prints the verdict for --budget first, then the fixes\n"
		"ranked by the share of the measured time they account for, each joined to\n"
		"the finding and the measured cause it comes from. The machine is left as\n"
		"it was found.",
	.options = doctor_option_specs,
	.size = sizeof(struct doctor_options),
	.init = doctor_defaults,
	.finish = doctor_finish,
	.footer =
		"Durations take a unit: us, ms, s, m, h (a bare --duration is s, --budget us).\n"
		"exit status: 0 ready (or nothing asked to measure), 1 error, verdict unknown or\n"
		"a shortfall under --strict, 2 not ready for --budget, 129 usage error. See\n"
		"latscope-doctor(1).",
};

/*
 * The RT CPUs: isolated, nohz_full and --rt-cpus; with none, every online
 * CPU but the first, which stays for housekeeping (the kernel's own work
 * and the tool's main thread).
 */
static int choose_cpus(struct doctor_run *d)
{
	const struct topology *topo = &d->topo;
	struct cpuset offline;
	char list[256], online[256];
	int first;

	if (d->opts.rt_given) {
		cpuset_andnot(&offline, &d->opts.rt_cpus, &topo->online);
		if (!cpuset_empty(&offline))
			return usage_error(
				"cpu %s in --rt-cpus is not online (online: %s)",
				cpuset_format_list(&offline, list, sizeof(list)),
				cpuset_format_list(&topo->online, online, sizeof(online)));
	}
	cpuset_or(&d->rt, &topo->isolated, &topo->nohz_full);
	if (!cpuset_empty(&d->rt))
		snprintf(d->rt_source, sizeof(d->rt_source), "the isolated and nohz_full CPUs%s",
			 d->opts.rt_given ? " with --rt-cpus" : "");
	else
		snprintf(d->rt_source, sizeof(d->rt_source), "--rt-cpus");
	cpuset_or(&d->rt, &d->rt, &d->opts.rt_cpus);
	if (cpuset_empty(&d->rt) && cpuset_count(&topo->online) == 1) {
		d->rt = topo->online;
		snprintf(d->rt_source, sizeof(d->rt_source),
			 "the only online CPU: none is isolated or nohz_full, and none is left "
			 "for housekeeping");
	} else if (cpuset_empty(&d->rt)) {
		first = cpuset_next(&topo->online, -1);
		d->rt = topo->online;
		cpuset_remove(&d->rt, (unsigned int)first);
		snprintf(d->rt_source, sizeof(d->rt_source),
			 "none is isolated or nohz_full and --rt-cpus is not given: every CPU but "
			 "cpu %d, kept for housekeeping",
			 first);
	}
	cpuset_andnot(&d->housekeeping, &topo->online, &d->rt);
	cpuset_format_list(&d->rt, d->rt_list, sizeof(d->rt_list));
	cpuset_format_list(&d->housekeeping, d->housekeeping_list, sizeof(d->housekeeping_list));
	return 0;
}

/*
 * isolcpus= keeps the isolated CPUs out of every task's default affinity,
 * not out of its cpuset: the timer may pin there whatever the affinity.
 * Only where the cpuset could not be read does the affinity decide what the
 * timer may use: reach the RT CPUs then as taskset -c would. Where a cpuset
 * forbids them, the timer says so when it is prepared.
 */
static void reach_rt_cpus(struct doctor_run *d)
{
	struct cpuset allowed, wanted;

	if (machine_allowed_cpus(d->root, &d->topo.online, &allowed) ||
	    cpuset_subset(&d->rt, &allowed))
		return;
	cpuset_or(&wanted, &allowed, &d->rt);
	rt_place_main_thread(&d->topo.online, &d->rt, &wanted);
}

/* Hold PM QoS as timer and noise do, or say why they will not. */
static void check_pm_qos(struct doctor_run *d)
{
	char path[4096];

	d->pm_qos = true;
	if (sysroot_path(d->root, path, sizeof(path), "/dev/cpu_dma_latency") ||
	    access(path, W_OK)) {
		d->pm_qos = false;
		snprintf(d->pm_qos_note, sizeof(d->pm_qos_note),
			 "PM QoS: /dev/cpu_dma_latency cannot be written (%s): measured with the "
			 "idle states the machine has",
			 strerror(errno));
	}
}

/* The halves of --duration; a part not asked for leaves its half to the other. */
static void plan_steps(struct doctor_run *d)
{
	uint64_t half = d->opts.duration_ns / 2;

	d->asked[STEP_CHECK] = true;
	d->asked[STEP_IRQ_PLAN] = true;
	d->asked[STEP_TIMER] = !d->opts.no_timer;
	d->asked[STEP_NOISE] = !d->opts.no_noise;
	d->step_ns[STEP_TIMER] = d->asked[STEP_NOISE] ? half : d->opts.duration_ns;
	d->step_ns[STEP_NOISE] =
		d->asked[STEP_TIMER] ? d->opts.duration_ns - half : d->opts.duration_ns;
}

/* The threshold doctor chose for the noise, and why when not its default. */
static void noise_threshold_json(const struct doctor_run *d, json_t *params)
{
	bool asked = d->asked[STEP_NOISE];

	json_object_set_new(params, "noise_threshold_ns",
			    asked ? json_integer((json_int_t)d->noise.opts.params.threshold_ns) :
				    json_null());
	json_object_set_new(params, "noise_read_cost_ns",
			    asked ? json_integer((json_int_t)d->noise_read_cost_ns) : json_null());
	json_object_set_new(params, "noise_threshold_note",
			    d->noise_note[0] ? json_string(d->noise_note) : json_null());
}

static json_t *params_json(const struct doctor_run *d)
{
	json_t *params = json_pack(
		"{s:o, s:s, s:o, s:I, s:I, s:I, s:I, s:b, s:b, s:i, s:i, s:b}", "rt_cpus",
		result_cpuset(&d->rt), "rt_cpus_source", d->rt_source, "housekeeping_cpus",
		result_cpuset(&d->housekeeping), "duration_ns", (json_int_t)d->opts.duration_ns,
		"timer_ns", (json_int_t)(d->asked[STEP_TIMER] ? d->step_ns[STEP_TIMER] : 0),
		"noise_ns", (json_int_t)(d->asked[STEP_NOISE] ? d->step_ns[STEP_NOISE] : 0),
		"budget_ns", (json_int_t)d->opts.budget_ns, "timer", d->asked[STEP_TIMER], "noise",
		d->asked[STEP_NOISE], "timer_priority", DOCTOR_TIMER_PRIORITY, "timer_interval_us",
		DOCTOR_TIMER_INTERVAL_US, "pm_qos", d->pm_qos);

	if (params)
		noise_threshold_json(d, params);
	return params;
}

static const char *const part_keys[NR_STEPS] = {
	[STEP_CHECK] = "check",
	[STEP_IRQ_PLAN] = "irq_plan",
	[STEP_TIMER] = "timer",
	[STEP_NOISE] = "noise",
};

/*
 * The measuring parts' shortfalls, each named by its part, and the
 * kernel's when the verdict claims READY: a new object for the document.
 */
static json_t *validity_document(const struct doctor_run *d)
{
	static const enum doctor_step measuring[] = { STEP_TIMER, STEP_NOISE };
	bool ready = d->verdict.readiness == DOCTOR_READY;
	int preempt_rt = validity_kernel_preempt_rt(d->root);
	json_t *lines = json_array();
	const char *kernel;
	size_t i, k;

	for (k = 0; k < sizeof(measuring) / sizeof(measuring[0]); k++) {
		const json_t *part = json_object_get(
			json_object_get(d->doc[measuring[k]], "validity"), "shortfalls");

		for (i = 0; i < json_array_size(part); i++)
			json_array_append_new(
				lines, json_sprintf("%s: %s", part_keys[measuring[k]],
						    json_string_value(json_array_get(part, i))));
	}
	kernel = validity_kernel_shortfall(ready, preempt_rt);
	if (kernel)
		json_array_append_new(lines, json_string(kernel));
	return json_pack("{s:b, s:o, s:o, s:b}", "ok", json_array_size(lines) == 0, "shortfalls",
			 lines, "preempt_rt",
			 preempt_rt < 0 ? json_null() : json_boolean(preempt_rt), "rt_verdict",
			 ready);
}

/* The whole document: the verdict, the fixes and every part's own result. */
static json_t *document(const struct doctor_run *d, json_t *doc)
{
	json_t *parts = json_object(), *skipped = json_array();
	unsigned int i;

	json_object_set_new(doc, "host", result_host_facts(d->root, &d->topo));
	json_object_set_new(doc, "params", params_json(d));
	json_object_set_new(doc, "end", json_string(d->stopped_by ? "stopped" : "complete"));
	json_object_set_new(doc, "signal",
			    d->stopped_by ? json_string(d->stopped_by) : json_null());
	json_object_set_new(doc, "verdict", doctor_verdict_json(&d->verdict, &d->fixes));
	json_object_set_new(doc, "fixes", doctor_fixes_json(&d->fixes, true));
	json_object_set_new(doc, "unfixed", doctor_fixes_json(&d->fixes, false));
	json_object_set_new(doc, "validity", validity_document(d));
	for (i = 0; i < NR_STEPS; i++) {
		if (d->doc[i])
			json_object_set(parts, part_keys[i], d->doc[i]);
		else if (d->asked[i])
			json_array_append_new(skipped, json_pack("{s:s, s:s}", "part", part_keys[i],
								 "reason", d->missing[i]));
	}
	json_object_set_new(doc, "parts", parts);
	json_object_set_new(doc, "skipped", skipped);
	result_set_end_time(doc);
	return doc;
}

/*
 * A measuring part the page cannot draw (stopped before two samples) is
 * left out of it; the verdict on the page says what is missing.
 */
static bool drawable(const json_t *part, const char *entries, const char *samples)
{
	const json_t *list = json_object_get(part, entries);
	size_t i;

	if (!json_array_size(list))
		return false;
	for (i = 0; i < json_array_size(list); i++)
		if (json_integer_value(json_object_get(json_array_get(list, i), samples)) < 2)
			return false;
	return true;
}

static int write_report(const struct doctor_run *d, const json_t *doc)
{
	struct report_options page = { .title = "latscope doctor", .budget_ns = d->opts.budget_ns };
	const char *const labels[] = { "doctor" };
	json_t *copy = json_deep_copy(doc), *parts = json_object_get(copy, "parts");
	struct report *report = NULL;
	struct run *run = NULL;
	char *text = NULL;
	int ret, status = EXIT_ERROR;

	if (!copy)
		return runtime_error("out of memory");
	if (!drawable(json_object_get(parts, "timer"), "threads", "cycles"))
		json_object_del(parts, "timer");
	if (!drawable(json_object_get(parts, "noise"), "cpus", "loops"))
		json_object_del(parts, "noise");
	text = json_dumps(copy, JSON_COMPACT);
	if (!text) {
		status = runtime_error("out of memory");
		goto out;
	}
	/* the page reads the document as `latscope report` reads the file */
	if (import_buffer(d->opts.report_path, text, strlen(text), &run))
		goto out;
	report = report_new(&run, labels, 1, &page);
	if (!report)
		goto out;
	ret = report_write_html(report, d->opts.report_path);
	if (ret) {
		status = runtime_error("cannot write --report '%s': %s", d->opts.report_path,
				       strerror(-ret));
		goto out;
	}
	status = EXIT_OK;
out:
	report_free(report);
	run_free(run);
	free(text);
	json_decref(copy);
	return status;
}

static int write_junit(const struct doctor_run *d, const struct doctor_baseline *baseline,
		       const json_t *doc)
{
	struct junit_suite suite;
	int status;

	junit_output_start(&suite, "doctor", doc, d->opts.json.path);
	doctor_junit_cases(&suite, d);
	/* since the baseline: compare's cases, none failed (doctor judges the budget) */
	if (baseline->compared)
		comparison_junit_cases(&suite, &baseline->comparison, "latscope.doctor.baseline",
				       &baseline->statistics);
	status = output_junit_write(&d->opts.junit, &suite);
	junit_suite_release(&suite);
	return status;
}

static int exit_status(enum doctor_readiness readiness)
{
	switch (readiness) {
	case DOCTOR_READY:
	case DOCTOR_NOT_MEASURED:
		return EXIT_OK;
	case DOCTOR_NOT_READY:
		return EXIT_BUDGET;
	default:
		return EXIT_ERROR;
	}
}

static int diagnose(struct doctor_run *d)
{
	struct doctor_verdict_options vo = { 0 };
	int ret;

	d->parts.check = d->doc[STEP_CHECK];
	d->parts.irq_plan = d->doc[STEP_IRQ_PLAN];
	d->parts.timer = d->doc[STEP_TIMER];
	d->parts.noise = d->doc[STEP_NOISE];
	d->parts.rt_cpus = d->rt;
	d->parts.housekeeping = d->housekeeping;
	d->parts.timer_priority = DOCTOR_TIMER_PRIORITY;
	ret = doctor_join(&d->parts, &d->fixes);
	vo.budget_ns = d->opts.budget_ns;
	vo.timer_asked = d->asked[STEP_TIMER];
	vo.noise_asked = d->asked[STEP_NOISE];
	vo.timer_missing = d->missing[STEP_TIMER][0] ? d->missing[STEP_TIMER] : NULL;
	vo.noise_missing = d->missing[STEP_NOISE][0] ? d->missing[STEP_NOISE] : NULL;
	vo.stopped_by = d->stopped_by;
	if (!ret)
		ret = doctor_verdict(&d->parts, &d->fixes, &vo, &d->verdict);
	return ret ? runtime_error("out of memory") : EXIT_OK;
}

int cmd_doctor(int argc, char **argv)
{
	static char signal_name[16];
	struct doctor_run *d = calloc(1, sizeof(*d));
	struct doctor_baseline baseline = { 0 };
	json_t *doc = NULL;
	int status, verdict_status, strict_status;

	if (!d)
		return runtime_error("out of memory");
	d->argc = argc;
	d->argv = argv;
	if (!option_parse(&doctor_command, argc, argv, &d->opts, NULL, &status))
		goto out;
	status = validity_strict_check_root(d->opts.strict);
	/* a baseline that cannot be compared is refused before anything is measured */
	baseline.path = d->opts.baseline_path;
	if (!status && baseline.path)
		status = doctor_baseline_load(&baseline);
	if (!status)
		status = machine_open(NULL, &d->root, &d->topo);
	if (!status)
		status = choose_cpus(d);
	if (status)
		goto out;
	d->quiet = fopen("/dev/null", "w");
	doc = result_new("doctor", argc, argv);
	if (!d->quiet || !doc) {
		status = runtime_error("cannot start: %s", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	plan_steps(d);
	check_pm_qos(d);
	reach_rt_cpus(d);
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	fprintf(stderr, "latscope doctor: RT CPUs %s (%s)\n", d->rt_list, d->rt_source);
	if (!d->pm_qos)
		fprintf(stderr, "latscope doctor: %s\n", d->pm_qos_note);
	/* every check a part makes of its options, before any part runs */
	doctor_prepare_parts(d);
	doctor_run_check(d);
	doctor_run_irq_plan(d);
	doctor_run_timer(d);
	doctor_run_noise(d);
	if (stop_requested) {
		snprintf(signal_name, sizeof(signal_name), "SIG%s", sigabbrev_np(stop_requested));
		d->stopped_by = signal_name;
	}
	status = diagnose(d);
	if (status)
		goto out;
	fputc('\n', stderr);
	doctor_print(stdout, d);
	document(d, doc);
	if (baseline.timer)
		status = doctor_baseline_compare(&baseline, d->doc[STEP_TIMER], stdout, doc, argc,
						 argv);
	fflush(stdout);
	if (status)
		goto out;
	/* the shortfalls said with the verdict, before the files are written */
	strict_status =
		validity_say_lines(json_object_get(json_object_get(doc, "validity"), "shortfalls"),
				   d->opts.strict, EXIT_OK);
	if (d->opts.json.path)
		status = output_json_write(&d->opts.json, doc);
	if (!status && d->opts.report_path)
		status = write_report(d, doc);
	if (!status && d->opts.junit.path)
		status = write_junit(d, &baseline, doc);
	if (!status && (d->opts.json.path || d->opts.report_path))
		printf("\n");
	if (!status && d->opts.json.path)
		printf("JSON:   %s\n", d->opts.json.path);
	if (!status && d->opts.report_path)
		printf("report: %s\n", d->opts.report_path);
	verdict_status = exit_status(d->verdict.readiness);
	if (!status)
		status = strict_status ? strict_status : verdict_status;
out:
	json_decref(doc);
	doctor_baseline_release(&baseline);
	doctor_verdict_release(&d->verdict);
	doctor_fixes_release(&d->fixes);
	doctor_release_parts(d);
	if (d->quiet)
		fclose(d->quiet);
	topology_release(&d->topo);
	sysroot_free(d->root);
	option_release(&doctor_command, &d->opts);
	free(d);
	return status;
}
