/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_RESULT_H
#define LATSCOPE_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/hist.h"
#include "latscope/period.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The versioned result document every command can write (--json):
 * { "schema": "latscope/3", "command", "version", "command_line",
 *   "start_time", "end_time", "host", "params", ...command's own fields }
 * Durations are integers in ns; times are ISO 8601 in UTC; CPU sets are
 * the kernel's cpu-list strings ("0-3,8-11", "" for none).
 *
 * latscope/3 adds the time blocks of every measured series (time_blocks.h);
 * latscope/2 has none. latscope/1 also differs in its CPU sets: arrays of
 * numbers. A set of 1024 CPUs was 1024 numbers (and as many lines,
 * pretty-printed); as a list it is "0-1023". Readers accept all three
 * (result_read_cpuset()).
 */
#define RESULT_SCHEMA "latscope/3"
#define RESULT_SCHEMA_V2 "latscope/2"
#define RESULT_SCHEMA_V1 "latscope/1"

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

/**
 * result_cpuset - a CPU set as it goes into a document
 * @set: the set
 *
 * The one writer of CPU sets: the kernel's cpu-list text ("0-3,8-11"; ""
 * for an empty set), never truncated. Returns a new reference, or NULL.
 */
json_t *result_cpuset(const struct cpuset *set);
/* The same text as a value of a document written as it is made. */
struct json_writer;
void result_write_cpuset(struct json_writer *w, const struct cpuset *set);

/**
 * result_read_cpuset - a CPU set from a document of either schema
 * @value: a cpu-list string (latscope/2 on) or an array of CPU numbers
 *	   (latscope/1)
 * @set: receives the set
 *
 * Returns 0, -EINVAL when @value is neither (or holds a bad number or
 * list), -ERANGE for a CPU beyond CPUSET_MAX_CPUS.
 */
int result_read_cpuset(const json_t *value, struct cpuset *set);

/**
 * result_schema_readable - whether a document is one this version reads
 * @doc: a parsed document
 *
 * True for "latscope/3", "latscope/2" and "latscope/1".
 */
bool result_schema_readable(const json_t *doc);

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

/*
 * Where a document goes: as any output file, through an atomic_file
 * (atomic_file.h). A regular file (new or existing) is replaced
 * atomically: the document goes into a temporary file in the same
 * directory (cut to fit NAME_MAX), is fsynced and renamed over the target,
 * so a failure at any point (ENOSPC, EIO) leaves the old file or none,
 * never a partial one. A symbolic link is written through: the link stays
 * and the file it points to is replaced in that file's directory. A pipe,
 * a terminal, a device, or a file reached through /proc/PID/fd
 * (/dev/stdout) is written in place, appending. atomic_file_check()
 * answers before any work whether the write can happen.
 */

/* How a document is laid out. */
enum result_layout {
	RESULT_LAYOUT_AUTO, /* pretty on a terminal, compact otherwise */
	RESULT_LAYOUT_COMPACT, /* one line, whatever the destination (--json-compact) */
	RESULT_LAYOUT_PRETTY, /* indented by two, whatever the destination */
};

/**
 * result_write_as - write a document to a path
 * @doc: the document (not consumed)
 * @path: where it goes (see above)
 * @layout: how it is laid out
 *
 * Serializes through a 64 KiB buffer: one write(2) per 64 KiB, not one
 * per token. Returns 0 or a negative errno code; on failure no partial
 * file is left.
 */
int result_write_as(json_t *doc, const char *path, enum result_layout layout);

/* result_write_as() with RESULT_LAYOUT_AUTO */
int result_write(json_t *doc, const char *path);

struct json_writer;

/**
 * result_write_with - write a document made as it is written
 * @path: where it goes, as for result_write_as()
 * @layout: how it is laid out
 * @write: writes the whole document, one value, to the writer it gets
 * @arg: for @write
 *
 * For a document too large to build as a tree first (an IRQ plan of a
 * 1024-CPU machine): the values go out as @write makes them, laid out as
 * result_write_as() lays out the same tree. Returns 0 or a negative errno
 * code; on failure no partial file is left.
 */
int result_write_with(const char *path, enum result_layout layout,
		      void (*write)(struct json_writer *w, void *arg), void *arg);

#endif
