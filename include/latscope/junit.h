/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_JUNIT_H
#define LATSCOPE_JUNIT_H

#include <stdarg.h>
#include <stdio.h>

/*
 * A verdict as CI systems read it: one JUnit XML test suite (the Jenkins
 * format that GitLab, LAVA's result parsers and most CI dashboards accept).
 * A command builds the suite (junit_suite.c): the machine as properties,
 * one test case per thing it judged, each passed, failed or skipped with a
 * message; junit_write.c writes it with libxml2's xmlTextWriter, which
 * escapes. Every text is made valid XML 1.0 when it is stored: bytes that
 * are not UTF-8 and the control characters XML cannot carry become U+FFFD,
 * so a thread's comm or a path from /proc cannot break the document.
 */

enum junit_outcome {
	JUNIT_PASSED,
	JUNIT_FAILED, /* <failure>: the verdict went against the limit */
	JUNIT_SKIPPED, /* <skipped>: not judged (or, for check, a warning: see its page) */
	JUNIT_ERROR, /* <error>: could not be judged because something went wrong */
};

struct junit_property {
	char *name;
	char *value;
};

struct junit_case {
	char *classname; /* "latscope.timer" */
	char *name; /* "thread 0 (cpu 1)" */
	double seconds; /* time it took, 0 when not its own */
	enum junit_outcome outcome;
	char *type; /* of a failure or error: "fail-above", "high"; may be NULL */
	char *message; /* one line: the number, the limit, the cause; NULL when passed */
	char *text; /* the body of the failure, skipped or error element, or NULL */
	char *output; /* <system-out>: what a reader wants beside the verdict, or NULL */
};

struct junit_suite {
	char *name; /* "latscope doctor" */
	char *timestamp; /* ISO 8601 without a zone (the format's own), or NULL */
	char *hostname; /* or NULL */
	double seconds;
	struct junit_property *properties;
	unsigned int nr_properties, cap_properties;
	struct junit_case *cases;
	unsigned int nr_cases, cap_cases;
	int error; /* the first allocation failure (-ENOMEM), reported by the writer */
};

/**
 * junit_suite_init - start an empty suite
 * @suite: the suite (the caller's); release with junit_suite_release()
 * @name: its name
 *
 * The timestamp and hostname are taken now, from the clock and uname(2).
 * An allocation failure is kept in @suite->error: building goes on without
 * checks, and junit_write() returns the error.
 */
void junit_suite_init(struct junit_suite *suite, const char *name);

/**
 * junit_suite_hostname - name the machine that was judged
 * @suite: the suite
 * @hostname: its name (a result's, which --root reads from the sysroot);
 *	NULL keeps uname(2)'s
 */
void junit_suite_hostname(struct junit_suite *suite, const char *hostname);

/* Free what the suite holds; safe on a zeroed suite and to repeat. */
void junit_suite_release(struct junit_suite *suite);

/**
 * junit_suite_property - add a property of the whole suite
 * @suite: the suite
 * @name: its name
 * @value: its value; NULL adds nothing (a fact the command does not know)
 */
void junit_suite_property(struct junit_suite *suite, const char *name, const char *value);

/**
 * junit_suite_case - add a test case that passed
 * @suite: the suite
 * @classname: what it belongs to ("latscope.check")
 * @name: what was judged
 *
 * Returns the case, owned by @suite and valid until the next case is
 * added, or NULL when memory ran out (kept in @suite->error; the
 * junit_case_*() functions accept NULL).
 */
struct junit_case *junit_suite_case(struct junit_suite *suite, const char *classname,
				    const char *name);

/**
 * junit_case_set - give a case its outcome and message
 * @suite: the suite that holds it (for its error)
 * @tc: the case, or NULL
 * @outcome: what became of it
 * @type: a failure's or error's type, or NULL
 * @fmt: the message, printf style
 */
__attribute__((format(printf, 5, 6))) void junit_case_set(struct junit_suite *suite,
							  struct junit_case *tc,
							  enum junit_outcome outcome,
							  const char *type, const char *fmt, ...);

/* Set the body of the case's failure, skipped or error element (replacing it). */
void junit_case_text(struct junit_suite *suite, struct junit_case *tc, const char *text);

/* Append a line to the case's <system-out>. */
__attribute__((format(printf, 3, 4))) void
junit_case_output(struct junit_suite *suite, struct junit_case *tc, const char *fmt, ...);

/* How many cases have @outcome. */
unsigned int junit_suite_count(const struct junit_suite *suite, enum junit_outcome outcome);

/**
 * junit_write - write the suite as a JUnit XML document
 * @suite: the suite
 * @out: where (the caller's stream: written into, not flushed nor closed;
 *	 a full disk shows at the caller's flush or commit)
 *
 * One <testsuites> holding the one <testsuite>, with the counts of both.
 * Returns 0, the suite's allocation error, -ENOMEM, or the stream's error
 * when it refused the bytes.
 */
int junit_write(const struct junit_suite *suite, FILE *out);

/**
 * junit_write_file - write the suite to a file, whole or not at all
 * @suite: the suite
 * @path: the file (through struct atomic_file: a temporary file renamed)
 *
 * Returns 0 or a negative errno code; the file is then as it was.
 */
int junit_write_file(const struct junit_suite *suite, const char *path);

#endif
