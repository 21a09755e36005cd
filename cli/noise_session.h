/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_NOISE_SESSION_H
#define LATSCOPE_CLI_NOISE_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "explain_run.h"
#include "latscope/noise.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"
#include "latscope/validity.h"
#include "common_options.h"
#include "junit_output.h"
#include "machine.h"
#include "noise_explain.h"
#include "part_result.h"

/* Everything `latscope noise` was asked to do (its table is cmd_noise.c's). */
struct noise_options {
	struct noise_params params;
	bool cpus_given, priority_given, policy_given;
	struct json_output json;
	struct junit_output junit;
	const char *histogram_path;
	const char *gaps_path;
	enum explain_choice explain;
	const char *trace_dir;
	bool quiet, force, no_dma_latency;
	bool strict; /* a validity shortfall is exit 1 */
	uint64_t fail_above_ns; /* 0: none */
	int verbose;
};

/* One run of latscope noise: the machine, what is held while measuring, the results. */
struct noise_session {
	struct noise_options opts;
	struct sysroot *root;
	struct topology topo;
	json_t *doc;
	struct noise_run run;
	struct noise_explain explain;
	struct rt_throttling limit; /* read before a FIFO/RR run */
	struct machine_hold hold; /* while measuring: locked memory, PM QoS */
	struct validity validity; /* the conditions of the run */
	struct part_result result; /* why it did not run */
};

/**
 * noise_session_prepare - read the options and the machine, check them
 * @s: zeroed; release with noise_session_free() whatever the outcome
 * @argc: the command's words, its name first
 * @argv: the words
 * @status: receives the exit status when false is returned
 *
 * Returns true when the run should start; false after --help (0) or an
 * error, already said.
 */
bool noise_session_prepare(struct noise_session *s, int argc, char **argv, int *status);

/*
 * For a caller that runs noise as a part of its own (doctor): the defaults
 * the parser starts from (noise_options_default(), into s->opts), the
 * fields the words would set filled by the caller, then
 * noise_session_configure(): the rules between options, and everything
 * noise_session_prepare() checks of the machine. Returns true when the run
 * can start; false with s->result saying why (a line was printed, or the
 * library printed one). @argc and @argv are the command line the document
 * records.
 */
void noise_options_default(struct noise_options *o);
bool noise_session_configure(struct noise_session *s, int argc, char **argv);

/**
 * noise_session_run - measure until the end or a signal, then explain
 * @s: a prepared session; signals_catch() was called
 * @out: where the header line goes (the live view goes to a terminal stdout)
 *
 * Holds PM QoS and locked memory while measuring and gives them back
 * before anything else; classifies RT throttling and finds the periods.
 * Returns EXIT_OK, or EXIT_ERROR when nothing could be measured (said, and
 * kept in s->result).
 */
int noise_session_run(struct noise_session *s, FILE *out);

/* The summary and the explanation, per CPU. */
void noise_session_report(struct noise_session *s, FILE *out);

/* The result document of the run (s->doc, borrowed), end time set. */
json_t *noise_session_document(struct noise_session *s);

/* Give back the kernel state, then free everything; safe on a zeroed session. */
void noise_session_free(struct noise_session *s);

#endif
