// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JUnit writer and every command's builder: each document validates
 * against tests/data/junit/jenkins-junit.xsd (libxml2's schema API) and
 * is read back by junitparser (read-junit.py) with the counts and outcomes
 * the suite holds.
 */
#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_junit.h"
#include "cli.h"
#include "compare_junit.h"
#include "doctor_junit.h"
#include "irq_context.h"
#include "irq_fixture.h"
#include "irq_junit.h"
#include "junit_output.h"
#include "latscope/audit.h"
#include "latscope/import.h"
#include "latscope/result.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"
#include "measure_junit.h"
#include "json_load.h"
#include "unit.h"

#define SCHEMA FIXTURE("junit/jenkins-junit.xsd")
#define READER FIXTURE("junit/read-junit.py")

static xmlSchemaPtr schema;

static void load_schema(void)
{
	xmlSchemaParserCtxtPtr parser = xmlSchemaNewParserCtxt(SCHEMA);

	ck_assert_ptr_nonnull(parser);
	schema = xmlSchemaParse(parser);
	xmlSchemaFreeParserCtxt(parser);
	ck_assert_msg(schema != NULL, "cannot parse %s", SCHEMA);
}

/* 0 when @xml is well-formed and valid against the schema */
static int schema_check(const char *xml, size_t size)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)size, "junit.xml", NULL, XML_PARSE_NONET);
	xmlSchemaValidCtxtPtr valid;
	int ret;

	if (!doc)
		return -1;
	valid = xmlSchemaNewValidCtxt(schema);
	ck_assert_ptr_nonnull(valid);
	ret = xmlSchemaValidateDoc(valid, doc);
	xmlSchemaFreeValidCtxt(valid);
	xmlFreeDoc(doc);
	return ret;
}

static int schema_check_file(const char *path)
{
	char *xml = NULL;
	size_t size = 0;
	FILE *f = fopen(path, "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ne(getdelim(&xml, &size, '\0', f), -1);
	fclose(f);
	ret = schema_check(xml, strlen(xml));
	free(xml);
	return ret;
}

static char *write_suite(const struct junit_suite *suite, size_t *size)
{
	char *xml = NULL;
	FILE *out = open_memstream(&xml, size);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(junit_write(suite, out), 0);
	ck_assert_int_eq(fclose(out), 0);
	return xml;
}

/* What junitparser made of a file: read-junit.py's object. */
static json_t *junitparser_read(const char *path)
{
	char command[1024];
	json_error_t error;
	json_t *read;
	FILE *p;

	snprintf(command, sizeof(command), "'%s' '%s'", READER, path);
	p = popen(command, "r");
	ck_assert_ptr_nonnull(p);
	read = json_loadf(p, 0, &error);
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(read != NULL, "read-junit.py: %s", error.text);
	return read;
}

static const char *outcome_word(enum junit_outcome outcome)
{
	static const char *const words[] = { "passed", "failed", "skipped", "error" };

	return words[outcome];
}

/*
 * The suite written validates, and junitparser reads back its name, its
 * counts, each case's outcome, type and message, and its properties.
 * Returns junitparser's suite (the caller's, json_decref() it).
 */
static json_t *check_document(const struct junit_suite *suite)
{
	char path[] = "/tmp/latscope-junit-XXXXXX";
	size_t size, i;
	char *xml = write_suite(suite, &size);
	json_t *read, *rs, *cases;
	int fd;

	ck_assert_msg(schema_check(xml, size) == 0, "not valid:\n%s", xml);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, xml, size), (ssize_t)size);
	close(fd);
	read = junitparser_read(path);
	unlink(path);
	free(xml);

	ck_assert_int_eq(json_array_size(json_object_get(read, "suites")), 1);
	rs = json_incref(json_array_get(json_object_get(read, "suites"), 0));
	json_decref(read);
	ck_assert_str_eq(json_string_value(json_object_get(rs, "name")), suite->name);
	ck_assert_int_eq(json_integer_value(json_object_get(rs, "tests")), suite->nr_cases);
	ck_assert_int_eq(json_integer_value(json_object_get(rs, "failures")),
			 junit_suite_count(suite, JUNIT_FAILED));
	ck_assert_int_eq(json_integer_value(json_object_get(rs, "errors")),
			 junit_suite_count(suite, JUNIT_ERROR));
	ck_assert_int_eq(json_integer_value(json_object_get(rs, "skipped")),
			 junit_suite_count(suite, JUNIT_SKIPPED));
	cases = json_object_get(rs, "cases");
	ck_assert_int_eq(json_array_size(cases), suite->nr_cases);
	for (i = 0; i < suite->nr_cases; i++) {
		const struct junit_case *tc = &suite->cases[i];
		const json_t *rc = json_array_get(cases, i);

		ck_assert_str_eq(json_string_value(json_object_get(rc, "name")), tc->name);
		ck_assert_str_eq(json_string_value(json_object_get(rc, "outcome")),
				 outcome_word(tc->outcome));
		if (tc->outcome != JUNIT_PASSED)
			ck_assert_str_eq(json_string_value(json_object_get(rc, "message")),
					 tc->message);
		if (tc->outcome == JUNIT_FAILED && tc->type)
			ck_assert_str_eq(json_string_value(json_object_get(rc, "type")), tc->type);
	}
	for (i = 0; i < suite->nr_properties; i++) {
		const json_t *values = json_object_get(json_object_get(rs, "properties"),
						       suite->properties[i].name);

		ck_assert_msg(json_array_size(values) > 0, "property %s lost",
			      suite->properties[i].name);
	}
	return rs;
}

static bool has_property(const json_t *rs, const char *name)
{
	return json_array_size(json_object_get(json_object_get(rs, "properties"), name)) > 0;
}

START_TEST(test_writer_outcomes)
{
	struct junit_suite suite;
	struct junit_case *tc;
	json_t *rs, *cases;

	junit_suite_init(&suite, "latscope unit");
	junit_suite_property(&suite, "kernel", "6.12.0-rt5 #1 SMP PREEMPT_RT");
	junit_suite_property(&suite, "absent", NULL);
	junit_suite_case(&suite, "latscope.unit", "passes");
	tc = junit_suite_case(&suite, "latscope.unit", "fails <&> \"quoted\"");
	junit_case_set(&suite, tc, JUNIT_FAILED, "fail-above", "max %d us > %s", 21,
		       "<limit & co>");
	junit_case_text(&suite, tc, "line one\nline two ]]> done");
	tc = junit_suite_case(&suite, "latscope.unit", "skipped");
	junit_case_set(&suite, tc, JUNIT_SKIPPED, "ignored", "warning: %s", "a 'maybe'");
	tc = junit_suite_case(&suite, "latscope.unit", "error");
	/* a comm from /proc: a control character and a byte that is not UTF-8 */
	junit_case_set(&suite, tc, JUNIT_ERROR, "unknown", "thread bad\x01name\xff:42");
	junit_case_output(&suite, tc, "first");
	junit_case_output(&suite, tc, "second");
	ck_assert_int_eq(suite.error, 0);
	ck_assert_int_eq(suite.nr_properties, 1);
	ck_assert_str_eq(suite.cases[3].message, "thread bad\xef\xbf\xbdname\xef\xbf\xbd:42");
	ck_assert_str_eq(suite.cases[3].output, "first\nsecond");

	rs = check_document(&suite);
	cases = json_object_get(rs, "cases");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cases, 1), "message")),
			 "max 21 us > <limit & co>");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cases, 3), "output")),
			 "first\nsecond");
	ck_assert(has_property(rs, "kernel"));
	json_decref(rs);
	junit_suite_release(&suite);
	junit_suite_release(&suite);
}
END_TEST

/* The schema can fail: what the format forbids is refused. */
START_TEST(test_schema_refuses)
{
	static const char *const bad[] = {
		/* a case both skipped and failed */
		"<testsuites><testsuite name=\"s\" tests=\"1\"><testcase name=\"c\">"
		"<skipped/><failure message=\"m\"/></testcase></testsuite></testsuites>",
		/* a suite without its count */
		"<testsuites><testsuite name=\"s\"><testcase name=\"c\"/></testsuite></testsuites>",
		/* a negative time */
		"<testsuites><testsuite name=\"s\" tests=\"1\"><testcase name=\"c\" time=\"-1\"/>"
		"</testsuite></testsuites>",
		/* a timestamp with a zone */
		"<testsuites><testsuite name=\"s\" tests=\"0\" timestamp=\"2026-01-01T00:00:00Z\"/>"
		"</testsuites>",
		/* properties after the cases */
		"<testsuites><testsuite name=\"s\" tests=\"1\"><testcase name=\"c\"/><properties>"
		"<property name=\"a\" value=\"b\"/></properties></testsuite></testsuites>",
	};
	const char *good = "<testsuites><testsuite name=\"s\" tests=\"1\"><testcase name=\"c\"/>"
			   "</testsuite></testsuites>";
	size_t i;

	ck_assert_int_eq(schema_check(good, strlen(good)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(schema_check(bad[i], strlen(bad[i])) != 0, "accepted: %s", bad[i]);
}
END_TEST

/* A writer that cannot allocate says so instead of writing half a suite. */
START_TEST(test_writer_reports_allocation_failure)
{
	struct junit_suite suite;
	FILE *out = fopen("/dev/null", "w");

	junit_suite_init(&suite, "s");
	suite.error = -ENOMEM;
	ck_assert_int_eq(junit_write(&suite, out), -ENOMEM);
	fclose(out);
	junit_suite_release(&suite);
}
END_TEST

START_TEST(test_check_document)
{
	struct sysroot *root = sysroot_new(FIXTURE("check-vm"));
	struct audit_report report = { 0 };
	struct audit_summary sum;
	struct topology topo = { 0 };
	struct junit_suite suite;
	unsigned int failed = 0, warned = 0, i;
	json_t *rs;

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(topology_load(root, &topo), 0);
	ck_assert_int_eq(audit_run(root, &topo, NULL, &report), 0);
	audit_summarize(&report, &sum);
	for (i = 0; i < AUDIT_NR_SEVERITIES; i++) {
		failed += sum.failed[i];
		warned += sum.warned[i];
	}
	junit_output_start(&suite, "check", NULL, "/tmp/check.json");
	check_junit_cases(&suite, &report);
	ck_assert_int_eq(suite.nr_cases, report.nr_findings);
	ck_assert_uint_gt(failed, 0);
	ck_assert_int_eq(junit_suite_count(&suite, JUNIT_FAILED), failed);
	ck_assert_int_eq(junit_suite_count(&suite, JUNIT_SKIPPED), warned + sum.skipped);
	for (i = 0; i < suite.nr_cases; i++)
		if (report.findings[i].status == AUDIT_FAIL)
			ck_assert_str_eq(suite.cases[i].type,
					 audit_severity_name(report.findings[i].severity));
	rs = check_document(&suite);
	ck_assert(has_property(rs, "latscope_version"));
	ck_assert(has_property(rs, "result_file"));
	json_decref(rs);
	junit_suite_release(&suite);
	audit_report_release(&report);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

/* timer's threads and noise's CPUs: an impossible limit fails each, naming its cause */
static void measure_document(const char *path, const char *samples)
{
	json_t *doc = unit_load_json(path), *rs, *entry;
	struct junit_suite suite;
	size_t i;

	/* the machine measured, not the one writing (--root, a result read later) */
	json_object_set_new(json_object_get(json_object_get(doc, "host"), "uname"), "nodename",
			    json_string("measured-box"));
	junit_output_start(&suite, "measure", doc, NULL);
	ck_assert_str_eq(suite.hostname, "measured-box");
	measure_junit_cases(&suite, doc, 1);
	ck_assert_uint_gt(suite.nr_cases, 0);
	for (i = 0; i < suite.nr_cases; i++) {
		entry = json_array_get(json_object_get(doc, samples), i);
		ck_assert_int_eq(suite.cases[i].outcome, JUNIT_FAILED);
		ck_assert_ptr_nonnull(strstr(suite.cases[i].message, "above --budget 1 ns"));
		if (json_array_size(json_object_get(entry, "causes")))
			ck_assert_ptr_nonnull(strstr(suite.cases[i].message, "most time: "));
	}
	rs = check_document(&suite);
	ck_assert(has_property(rs, "kernel"));
	ck_assert(has_property(rs, "cmdline"));
	ck_assert(has_property(rs, "cpu_model"));
	json_decref(rs);
	junit_suite_release(&suite);

	/* a limit nothing reaches passes every one; no limit judges nothing */
	junit_output_start(&suite, "measure", doc, NULL);
	measure_junit_cases(&suite, doc, 3600ULL * 1000000000ULL);
	measure_junit_cases(&suite, doc, 0);
	ck_assert_int_eq(junit_suite_count(&suite, JUNIT_PASSED), suite.nr_cases);
	json_decref(check_document(&suite));
	junit_suite_release(&suite);
	json_decref(doc);
}

/* the conditions of the measurement: passed, skipped, or failed under --strict */
START_TEST(test_validity_case)
{
	json_t *doc = unit_load_json(FIXTURE("report/timer-explain-v2.json"));
	struct junit_suite suite;
	unsigned int strict;

	junit_output_start(&suite, "timer", doc, NULL);
	measure_junit_validity(&suite, doc, true);
	ck_assert_uint_eq(suite.nr_cases, 0); /* a document without validity: nothing judged */
	junit_suite_release(&suite);

	json_object_set_new(doc, "validity", json_pack("{s:b, s:[]}", "ok", 1, "shortfalls"));
	junit_output_start(&suite, "timer", doc, NULL);
	measure_junit_validity(&suite, doc, true);
	ck_assert_uint_eq(suite.nr_cases, 1);
	ck_assert_int_eq(suite.cases[0].outcome, JUNIT_PASSED);
	ck_assert_str_eq(suite.cases[0].name, "validity");
	junit_suite_release(&suite);

	json_object_set_new(doc, "validity",
			    json_pack("{s:b, s:[s, s]}", "ok", 0, "shortfalls",
				      "cpu 1 is neither isolated nor nohz_full",
				      "sched_rt_runtime_us is 950000 of 1000000"));
	for (strict = 0; strict < 2; strict++) {
		json_t *rs;

		junit_output_start(&suite, "timer", doc, NULL);
		measure_junit_validity(&suite, doc, strict);
		ck_assert_uint_eq(suite.nr_cases, 1);
		ck_assert_int_eq(suite.cases[0].outcome, strict ? JUNIT_FAILED : JUNIT_SKIPPED);
		ck_assert_msg(strstr(suite.cases[0].message, "2 conditions fell short") &&
				      strstr(suite.cases[0].message, "isolated nor nohz_full; "
								     "sched_rt_runtime_us"),
			      "%s", suite.cases[0].message);
		rs = check_document(&suite);
		json_decref(rs);
		junit_suite_release(&suite);
	}
	json_decref(doc);
}
END_TEST

START_TEST(test_timer_document)
{
	measure_document(FIXTURE("report/timer-explain-v2.json"), "threads");
}
END_TEST

START_TEST(test_noise_document)
{
	measure_document(FIXTURE("report/noise-explain-v2.json"), "cpus");
}
END_TEST

/* doctor's recorded run diagnosed again at a budget: each RT CPU one case */
static void doctor_at(const json_t *recorded, uint64_t budget_ns, enum junit_outcome expected)
{
	const json_t *parts = json_object_get(recorded, "parts");
	struct doctor_verdict_options vo = { .budget_ns = budget_ns,
					     .timer_asked = true,
					     .noise_asked = true };
	struct doctor_run *d = calloc(1, sizeof(*d));
	struct junit_suite suite;
	unsigned int i;

	ck_assert_ptr_nonnull(d);
	d->doc[STEP_CHECK] = json_object_get(parts, "check");
	d->doc[STEP_IRQ_PLAN] = json_object_get(parts, "irq_plan");
	d->doc[STEP_TIMER] = json_object_get(parts, "timer");
	d->doc[STEP_NOISE] = json_object_get(parts, "noise");
	d->parts.check = d->doc[STEP_CHECK];
	d->parts.irq_plan = d->doc[STEP_IRQ_PLAN];
	d->parts.timer = d->doc[STEP_TIMER];
	d->parts.noise = d->doc[STEP_NOISE];
	ck_assert_int_eq(
		result_read_cpuset(json_object_get(json_object_get(recorded, "params"), "rt_cpus"),
				   &d->parts.rt_cpus),
		0);
	ck_assert_int_eq(doctor_join(&d->parts, &d->fixes), 0);
	ck_assert_int_eq(doctor_verdict(&d->parts, &d->fixes, &vo, &d->verdict), 0);

	junit_output_start(&suite, "doctor", recorded, NULL);
	doctor_junit_cases(&suite, d);
	ck_assert_uint_gt(d->verdict.nr_cpus, 0);
	ck_assert_int_eq(suite.nr_cases, d->verdict.nr_cpus + d->fixes.nr_fixes);
	for (i = 0; i < d->verdict.nr_cpus; i++) {
		ck_assert_str_eq(suite.cases[i].classname, "latscope.doctor.verdict");
		ck_assert_int_eq(suite.cases[i].outcome, expected);
		if (expected == JUNIT_FAILED)
			ck_assert_ptr_nonnull(strstr(suite.cases[i].message, "above --budget"));
	}
	for (; i < suite.nr_cases; i++)
		ck_assert_int_eq(suite.cases[i].outcome, JUNIT_PASSED);
	ck_assert_uint_gt(suite.timestamp ? strlen(suite.timestamp) : 0, 0);
	json_decref(check_document(&suite));
	junit_suite_release(&suite);
	doctor_verdict_release(&d->verdict);
	doctor_fixes_release(&d->fixes);
	free(d);
}

START_TEST(test_doctor_document)
{
	json_t *recorded = unit_load_json(FIXTURE("doctor/doctor-vm.json"));

	doctor_at(recorded, 1, JUNIT_FAILED);
	doctor_at(recorded, 3600ULL * 1000000000ULL, JUNIT_PASSED);
	json_decref(recorded);
}
END_TEST

/*
 * compare with replicates (each file three times a side: no variation
 * between runs, so B's longer tail is worse): under --fail-worse each worse
 * statistic fails, with the values and the threshold.
 */
static void compare_with(bool fail_worse)
{
	const char *paths[] = { FIXTURE("compare/before.json"), FIXTURE("compare/before.json"),
				FIXTURE("compare/before.json"), FIXTURE("compare/after.json"),
				FIXTURE("compare/after.json"),	FIXTURE("compare/after.json") };
	const unsigned int group_of[] = { 0, 0, 0, 1, 1, 1 };
	struct compare_statistics_options o;
	struct comparison c = { 0 };
	struct junit_suite suite;
	unsigned int i, k, n = 0, worse = 0;

	compare_statistics_defaults(&o);
	o.fail_worse = fail_worse;
	c.names = paths;
	c.runs = calloc(6, sizeof(*c.runs));
	ck_assert_ptr_nonnull(c.runs);
	for (c.nr_runs = 0; c.nr_runs < 6; c.nr_runs++)
		ck_assert_int_eq(import_file(paths[c.nr_runs], &c.runs[c.nr_runs]), 0);
	ck_assert_int_eq(comparison_compute(&c, group_of, false, &o), EXIT_OK);
	comparison_junit(&suite, &c, "compare", &o, NULL);
	for (i = 0; i < c.result.nr_pairs; i++)
		for (k = 0; k < c.result.pairs[i].nr_stats; k++, n++) {
			const struct compare_stat *st = &c.result.pairs[i].stats[k];

			if (st->verdict != COMPARE_WORSE)
				continue;
			worse++;
			ck_assert_int_eq(suite.cases[n].outcome,
					 fail_worse ? JUNIT_FAILED : JUNIT_PASSED);
			if (fail_worse)
				ck_assert_ptr_nonnull(strstr(suite.cases[n].message,
							     "beyond the practical threshold"));
		}
	ck_assert_int_eq(suite.nr_cases, n);
	ck_assert_uint_gt(worse, 0);
	ck_assert_int_eq(junit_suite_count(&suite, JUNIT_FAILED), fail_worse ? worse : 0);
	json_decref(check_document(&suite));
	junit_suite_release(&suite);
	comparison_release(&c);
}

START_TEST(test_compare_document)
{
	compare_with(true);
	compare_with(false);
}
END_TEST

/* irq plan on a fixture whose managed IRQs are delivered to CPUs 4 and 12 */
START_TEST(test_irq_plan_document)
{
	char path[] = "/tmp/latscope-junit-XXXXXX";
	struct irq_context ctx = { 0 };
	struct irq_options options;
	struct fixture_copy copy;
	struct irqplan plan = { 0 };
	struct part_result why = { 0 };
	json_t *read, *cases;
	size_t i, failed = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	fixture_copy(&copy, FIXTURE("irq-numa2"));
	memset(&options, 0, sizeof(options));
	irq_options_default(&options);
	options.subcommand = IRQ_PLAN;
	options.root_dir = copy.dir;
	options.junit.path = path;
	ck_assert_int_eq(cpuset_parse_list("4-7,12-15", &options.rt_cpus), 0);
	ck_assert_int_eq(irq_context_open(&ctx, &options), 0);
	ck_assert_int_eq(irq_context_plan(&ctx, &options, &plan, &why), EXIT_OK);
	ck_assert_int_eq(irq_plan_junit(&ctx, &options, &plan), EXIT_OK);

	ck_assert_int_eq(schema_check_file(path), 0);
	read = junitparser_read(path);
	cases = json_object_get(json_array_get(json_object_get(read, "suites"), 0), "cases");
	for (i = 0; i < json_array_size(cases); i++) {
		const json_t *rc = json_array_get(cases, i);

		if (strcmp(json_string_value(json_object_get(rc, "outcome")), "failed"))
			continue;
		failed++;
		ck_assert_str_eq(json_string_value(json_object_get(rc, "type")), "unmovable");
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(rc, "message")),
					     "cannot be moved"));
	}
	for (i = 0, fd = 0; i < plan.nr_unmovable; i++)
		fd += plan.unmovable[i].reaches_rt;
	ck_assert_uint_gt(failed, 0);
	ck_assert_int_eq(failed, fd);
	json_decref(read);
	irqplan_release(&plan);
	irq_context_close(&ctx);
	fixture_remove(&copy);
	unlink(path);
}
END_TEST

/* the writer's file: whole or nothing, and a directory refused */
START_TEST(test_write_file)
{
	char dir[] = "/tmp/latscope-junit-XXXXXX", path[64];
	struct junit_suite suite;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	junit_suite_init(&suite, "s");
	junit_suite_case(&suite, "c", "n");
	ck_assert_int_eq(junit_write_file(&suite, dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/out.xml", dir);
	ck_assert_int_eq(junit_write_file(&suite, path), 0);
	ck_assert_int_eq(unit_count_entries(dir), 1);
	ck_assert_int_eq(access(path, R_OK), 0);
	junit_suite_release(&suite);
	unit_remove_tree(dir);
}
END_TEST

static Suite *junit_suite(void)
{
	Suite *s = suite_create("junit");
	TCase *tc = tcase_create("junit");

	tcase_add_unchecked_fixture(tc, load_schema, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_writer_outcomes);
	tcase_add_test(tc, test_schema_refuses);
	tcase_add_test(tc, test_writer_reports_allocation_failure);
	tcase_add_test(tc, test_check_document);
	tcase_add_test(tc, test_timer_document);
	tcase_add_test(tc, test_validity_case);
	tcase_add_test(tc, test_noise_document);
	tcase_add_test(tc, test_doctor_document);
	tcase_add_test(tc, test_compare_document);
	tcase_add_test(tc, test_irq_plan_document);
	tcase_add_test(tc, test_write_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(junit_suite());
}
