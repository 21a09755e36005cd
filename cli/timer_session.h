/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_TIMER_SESSION_H
#define LATSCOPE_CLI_TIMER_SESSION_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/timer.h"
#include "latscope/topology.h"
#include "latscope/validity.h"
#include "machine.h"
#include "part_result.h"
#include "timer_explain.h"
#include "timer_options.h"

/* One run of latscope timer: what it was asked, what it holds, what it shows. */
struct timer_session {
	struct timer_options opts;
	struct sysroot *root;
	struct topology topo;
	struct cpuset allowed; /* what -a LIST may name: the cpuset's */
	struct cpuset affinity; /* where it runs: what names no CPU takes */
	struct timer_run *run;
	struct machine_hold hold; /* while measuring: locked memory (-m), PM QoS */
	json_t *doc;
	/* the live screen */
	bool live;
	bool drawn;
	uint64_t *shown_max;
	/* -v */
	uint64_t *next_sample;
	FILE *out;
	struct timer_explain explain;
	struct validity validity; /* the conditions of the run */
	struct part_result result; /* why it did not run */
};

/**
 * timer_session_prepare - read the machine and the options, check the outputs
 * @s: zeroed; release with timer_session_free() whatever the outcome
 * @argc: the command's words, its name first
 * @argv: the words
 * @status: receives the exit status when false is returned
 *
 * Returns true when the run should start; false after --help (0) or an
 * error, already printed.
 */
bool timer_session_prepare(struct timer_session *s, int argc, char **argv, int *status);

/**
 * timer_session_open - read the machine; the options get their defaults
 * @s: zeroed; release with timer_session_free() whatever the outcome
 *
 * For a caller that runs the timer as a part of its own (doctor): it fills
 * s->opts as the words would (timer_options.h), then calls
 * timer_session_configure(). Returns false with s->result saying why.
 */
bool timer_session_open(struct timer_session *s);

/**
 * timer_session_configure - check the options the caller filled, as the
 * command checks its words, and size the run
 * @s: opened, s->opts filled
 * @argc: the command line the document records
 * @argv: its words
 *
 * Returns true when the run can start; false with s->result saying why
 * (a line was printed, or the library printed one).
 */
bool timer_session_configure(struct timer_session *s, int argc, char **argv);

/* Lock memory, hold PM QoS, start the threads and move the main thread. */
int timer_session_start(struct timer_session *s);

/**
 * timer_session_run - measure until the end, a signal or a break
 * @s: a prepared session; signals_catch() was called
 *
 * Starts the threads (timer_session_start()), follows them, stops them and
 * gives back what the machine had before (the kernel state first), then
 * ends the explanation. Returns EXIT_OK, or EXIT_ERROR after one line
 * saying why, kept in s->result; s->run is NULL when nothing was measured.
 */
int timer_session_run(struct timer_session *s);

/* Restore, then free everything the session holds; safe on a zeroed one. */
void timer_session_free(struct timer_session *s);

/* timer_live.c: what is shown while the threads run */

/* Measure until the threads end, a signal comes or a thread breaks. */
void timer_live_follow(struct timer_session *s, const sigset_t *wait_mask);
/* cyclictest's status lines, one per thread */
void timer_live_print_lines(struct timer_session *s);
/* the terminal screen, redrawn in place; @final draws it whatever -M says */
void timer_live_draw(struct timer_session *s, bool final);
/* -v: print the samples taken since the last call */
void timer_live_drain_samples(struct timer_session *s);

/*
 * timer_report.c: everything printed on s->out after the run (cyclictest's
 * lines, its histogram or --histfile, the summary, the explanation) and
 * --trace-dir; EXIT_OK or EXIT_ERROR
 */
int timer_session_report(struct timer_session *s);

/* timer_json.c: the result document of the run with its exit status (s->doc, borrowed) */
json_t *timer_json_document(struct timer_session *s, int status);

#endif
