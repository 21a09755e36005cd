/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_RESULT_H
#define LATSCOPE_RESULT_H

#include <jansson.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/hist.h"
#include "latscope/period.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The versioned result document every command can write (--json):
 * { "schema": "latscope/1", "command", "version", "command_line",
 *   "start_time", "end_time", "host", "params", ...command's own fields }
 * Durations are integers in ns; times are ISO 8601 in UTC.
 */
#define RESULT_SCHEMA "latscope/1"

/**
 * result_new - start a result document
 * @command: the command's name ("noise")
 * @argc: number of words of the command's arguments
 * @argv: the command and its arguments as run ("noise", "--cpus", "1");
 *	  the command line recorded is "latscope" followed by them
 *
 * Sets schema, command, version, command_line and start_time (now).
 * Returns a new reference the caller drops with json_decref(), or NULL.
 */
json_t *result_new(const char *command, int argc, char **argv);

/* Set end_time to now. */
void result_set_end_time(json_t *doc);

/**
 * result_host_facts - what a reader needs to reproduce the run
 * @root: where to read
 * @topo: the loaded topology
 *
 * uname, cpu model, kernel command line, online/isolated/nohz_full CPUs,
 * clocksource and the virtualization the CPU reports (hypervisor flag).
 * Returns a new reference, or NULL.
 */
json_t *result_host_facts(struct sysroot *root, const struct topology *topo);

/* a cpu list as a JSON array of numbers (new reference) */
json_t *result_cpuset(const struct cpuset *set);

/* a percentiles object, hist_reported_percentiles as "p50" ... "p99.999", in ns */
json_t *result_percentiles(const struct hist *h);

/**
 * result_histogram - the non-empty buckets of a histogram
 * Returns {"unit": "ns", "buckets": [[low, high, count], ...],
 * "overflow": n, "overflow_above_ns": HIST_MAX_NS} (new reference).
 */
json_t *result_histogram(const struct hist *h);

/* periodic sources as a JSON list of {period_ns, phase_ns, duration_ns,
 * max_duration_ns, jitter_ns, seen, expected} (new reference) */
json_t *result_period_sources(const struct period_source *sources, int nr_sources);

/**
 * result_check_writable - fail early when a result could not be written
 * @path: where the document will go
 *
 * Creates and removes a temporary file beside @path. Returns 0 or a
 * negative errno code.
 */
int result_check_writable(const char *path);

/**
 * result_write - write a document atomically (temp file, fsync, rename)
 * Returns 0 or a negative errno code.
 */
int result_write(json_t *doc, const char *path);

#endif
