/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_MEASURE_JUNIT_H
#define LATSCOPE_CLI_MEASURE_JUNIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/junit.h"

/*
 * The JUnit cases of a measurement (timer's threads, noise's CPUs) read
 * from its result document, so that timer, noise and doctor judge the same
 * numbers the JSON holds.
 */

/**
 * measure_top_cause - the cause that took most of a series' time, in words
 * @entry: one thread or CPU of a timer or noise document
 * @buf: receives "timer irq delay, 79% of the spikes' time"
 * @size: room in @buf
 *
 * Returns @buf, or NULL when the series has no causes (no --explain).
 */
const char *measure_top_cause(const json_t *entry, char *buf, size_t size);

/* "most time: <measure_top_cause()>", or that the cause is not known; returns @buf or a static string */
const char *measure_cause_words(const json_t *entry, char *buf, size_t size);

/**
 * measure_entry_of_cpu - the thread or CPU of a document measured on @cpu
 * @doc: a timer ("threads") or noise ("cpus") document, or NULL
 * @cpu: the CPU
 *
 * Returns a borrowed entry, or NULL.
 */
const json_t *measure_entry_of_cpu(const json_t *doc, int cpu);

/**
 * measure_junit_cases - a case per thread (timer) or CPU (noise)
 * @suite: the suite to add to
 * @doc: the result document
 * @budget_ns: --budget, 0 when not given (every case then passes)
 *
 * A series over the limit fails with its maximum, the limit and its top
 * cause; one without samples is skipped.
 */
void measure_junit_cases(struct junit_suite *suite, const json_t *doc, uint64_t budget_ns);

/**
 * measure_junit_validity - a case for the conditions of the measurement
 * @suite: the suite to add to
 * @doc: the result document; one without "validity" adds nothing
 * @strict: --strict was given
 *
 * It passes when every condition held. A shortfall fails it under
 * --strict, as the exit status does, and skips it otherwise (the result was
 * not judged on it, as check's warnings), with the shortfalls as its
 * message: a pipeline that reads only the JUnit still sees them.
 */
void measure_junit_validity(struct junit_suite *suite, const json_t *doc, bool strict);

#endif
