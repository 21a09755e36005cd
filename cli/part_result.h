/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_PART_RESULT_H
#define LATSCOPE_CLI_PART_RESULT_H

/*
 * Why a part did not run, kept by the part itself: a measuring session
 * (timer's, noise's), the IRQ plan (irq_context_plan()), ab's rounds. A
 * command that runs it as a part (doctor, ab) reads the reason from the
 * part, never from the last line printed.
 */

/* What kept a part from measuring. */
enum part_reason {
	PART_OK,
	PART_REFUSED, /* what it was asked does not fit this machine (a usage error) */
	PART_NO_MACHINE, /* the machine's CPUs or files could not be read */
	PART_NO_MEMORY,
	PART_NOT_HELD, /* locked memory or PM QoS could not be held */
	PART_NOT_STARTED, /* the measuring threads or the tracing did not start */
	PART_STOPPED, /* a stop signal came before the first sample */
	PART_STRICT, /* --strict refused a run without the tracing asked for */
	PART_FAILED, /* it ran and failed: ab's setup command or measurement */
};

/* The reason and its words; zeroed it is PART_OK with no text. */
struct part_result {
	enum part_reason reason;
	int status; /* the exit status the command itself returns */
	char text[512]; /* one line, without "latscope <command>: " */
};

/**
 * part_refuse - say why the part cannot run and keep it in @r
 * @r: the session's result
 * @reason: what kept it
 * @status: EXIT_USAGE or EXIT_ERROR, returned
 * @fmt: the line, as usage_error() takes it
 *
 * Prints the line as usage_error() and runtime_error() do (whole, however
 * long); @r keeps its first 511 bytes. Returns @status.
 */
int part_refuse(struct part_result *r, enum part_reason reason, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * part_record - keep in @r why the part cannot run, without saying it
 * @r: the session's result
 * @reason: what kept it
 * @status: returned
 * @fmt: the words, for what the library already said in its own line
 *
 * Returns @status.
 */
int part_record(struct part_result *r, enum part_reason reason, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
