// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "cli.h"
#include "latscope/textbuf.h"
#include "measure_junit.h"

static uint64_t number_at(const json_t *object, const char *key)
{
	json_int_t value = json_integer_value(json_object_get(object, key));

	return value > 0 ? (uint64_t)value : 0;
}

const char *measure_top_cause(const json_t *entry, char *buf, size_t size)
{
	const json_t *causes = json_object_get(entry, "causes"), *cause, *top = NULL;
	size_t i;

	/* by the time taken, whatever order the document keeps */
	json_array_foreach(causes, i, cause) if (!top || number_at(cause, "total_ns") >
								 number_at(top, "total_ns")) top =
		cause;
	if (!top || !number_at(top, "total_ns"))
		return NULL;
	snprintf(buf, size, "%s, %.0f%% of the spikes' time",
		 json_string_value(json_object_get(top, "label")) ?: "?",
		 100 * json_number_value(json_object_get(top, "share")));
	return buf;
}

const char *measure_cause_words(const json_t *entry, char *buf, size_t size)
{
	char top[160];

	if (!measure_top_cause(entry, top, sizeof(top)))
		return "the cause is not known (measured without --explain)";
	snprintf(buf, size, "most time: %s", top);
	return buf;
}

/* timer's documents list threads, noise's CPUs */
static const json_t *entries(const json_t *doc, bool *threads)
{
	const json_t *list = json_object_get(doc, "threads");

	*threads = list != NULL;
	return list ? list : json_object_get(doc, "cpus");
}

const json_t *measure_entry_of_cpu(const json_t *doc, int cpu)
{
	const json_t *entry;
	bool threads;
	size_t i;

	json_array_foreach(entries(doc, &threads), i,
			   entry) if (json_integer_value(json_object_get(entry, "cpu")) ==
				      cpu) return entry;
	return NULL;
}

static void judge(struct junit_suite *suite, struct junit_case *tc, const json_t *entry,
		  const char *samples, uint64_t budget_ns)
{
	char max[32], limit[32], cause[192];
	uint64_t max_ns = number_at(entry, "max_ns");

	if (!number_at(entry, samples)) {
		junit_case_set(suite, tc, JUNIT_SKIPPED, NULL, "no samples: the run ended first");
		return;
	}
	format_duration(max_ns, max, sizeof(max));
	if (!budget_ns) {
		junit_case_output(suite, tc, "max %s; no --budget to judge it by", max);
		return;
	}
	format_duration(budget_ns, limit, sizeof(limit));
	if (!budget_missed(budget_ns, max_ns)) {
		junit_case_output(suite, tc, "max %s, within --budget %s", max, limit);
		return;
	}
	junit_case_set(suite, tc, JUNIT_FAILED, "budget", "max %s is above --budget %s; %s", max,
		       limit, measure_cause_words(entry, cause, sizeof(cause)));
}

void measure_junit_cases(struct junit_suite *suite, const json_t *doc, uint64_t budget_ns)
{
	const char *command = json_string_value(json_object_get(doc, "command")) ?: "measure";
	const json_t *list, *entry;
	char classname[64], name[64];
	struct junit_case *tc;
	bool threads;
	size_t i;

	snprintf(classname, sizeof(classname), "latscope.%s", command);
	list = entries(doc, &threads);
	json_array_foreach(list, i, entry)
	{
		long long cpu = json_integer_value(json_object_get(entry, "cpu"));

		if (threads)
			snprintf(name, sizeof(name), "thread %lld (cpu %lld)",
				 json_integer_value(json_object_get(entry, "thread")), cpu);
		else
			snprintf(name, sizeof(name), "cpu %lld", cpu);
		tc = junit_suite_case(suite, classname, name);
		judge(suite, tc, entry, threads ? "cycles" : "loops", budget_ns);
	}
}

void measure_junit_validity(struct junit_suite *suite, const json_t *doc, bool strict)
{
	const json_t *validity = json_object_get(doc, "validity"), *line;
	const json_t *shortfalls = json_object_get(validity, "shortfalls");
	const char *command = json_string_value(json_object_get(doc, "command")) ?: "measure";
	const char *words;
	char classname[64];
	struct junit_case *tc;
	struct textbuf all;
	size_t i, n = json_array_size(shortfalls);

	if (!validity)
		return;
	snprintf(classname, sizeof(classname), "latscope.%s", command);
	tc = junit_suite_case(suite, classname, "validity");
	if (!n) {
		junit_case_output(suite, tc, "every condition of the measurement held");
		return;
	}
	textbuf_init(&all);
	json_array_foreach(shortfalls, i, line)
		textbuf_printf(&all, "%s%s", i ? "; " : "", json_string_value(line) ?: "?");
	words = all.error ? "out of memory" : textbuf_text(&all);
	if (strict)
		junit_case_set(suite, tc, JUNIT_FAILED, "validity",
			       "%zu condition%s fell short: %s", n, n == 1 ? "" : "s", words);
	else
		junit_case_set(suite, tc, JUNIT_SKIPPED, NULL,
			       "%zu condition%s fell short (judged only under --strict): %s", n,
			       n == 1 ? "" : "s", words);
	textbuf_release(&all);
}
