/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_STATE_H
#define LATSCOPE_MONITOR_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/jsondoc.h"
#include "latscope/monitor_blocks.h"
#include "latscope/monitor_cpu.h"
#include "latscope/monitor_explain.h"
#include "latscope/result.h"
#include "latscope/window_ring.h"

/*
 * The monitor's state: a latscope JSON document (command "monitor") that is
 * both the checkpoint a restarted monitor continues from and an input of
 * report and compare. The header members come first (result_new()'s, then
 * host, params, state, audit); "cpus" comes last, one object per measured
 * CPU: its counts (classic and native buckets, a latscope-style
 * "histogram"), its window ring, its block maxima, its time blocks
 * (monitor_blocks.h; "time_blocks", which add up to "histogram") and what
 * --explain kept.
 *
 * A 256-CPU state with 35 days of windows is tens of MB of JSON: it is
 * written CPU by CPU through a buffer and read back CPU by CPU (jansson
 * parses one CPU's object at a time from a mapping of the file), so neither
 * ever holds the whole document as a JSON tree. Writing is atomic: a
 * temporary file, fsync, rename, fsync of the directory.
 */

/* One CPU's part, as views of what the engine holds. */
struct state_cpu {
	unsigned int cpu;
	const struct monitor_cpu_reading *reading;
	uint64_t window_ns;
	const struct window_ring *windows;
	/* the text of @windows at the last checkpoint, updated; NULL: made for this one */
	struct window_text *text;
	const struct monitor_explained *explained; /* NULL without --explain */
	const struct monitor_blocks *blocks; /* folded up to @reading; NULL: none */
	/* the text of @blocks at the last checkpoint, updated; NULL: made for this one */
	struct blocks_text *blocks_text;
};

struct state_writer;
struct window_text;
struct blocks_text;

/**
 * state_writer_open - begin writing a state, or a document with the same
 * members (monitor --json)
 * @writer: receives the writer, for state_writer_cpu() and
 *	    state_writer_close(), which frees it; NULL on failure
 * @path: the file (written at close, atomically)
 * @header: the members before "cpus", in order (not taken)
 * @layout: RESULT_LAYOUT_COMPACT for a state; a --json's layout, laid out
 *	    as result_write_as() would (indented on a terminal)
 *
 * Returns 0 or a negative errno code (not logged: the caller names the file).
 */
int state_writer_open(struct state_writer **writer, const char *path, json_t *header,
		      enum result_layout layout);

/* Append one CPU. Returns 0 or a negative errno code (the writer keeps it). */
int state_writer_cpu(struct state_writer *writer, const struct state_cpu *cpu);

/**
 * state_cpu_text - make @cpu's texts (its text and blocks_text, those it
 * has) as state_writer_cpu() would, writing nothing: ahead of a checkpoint
 * Returns 0 or -ENOMEM.
 */
int state_cpu_text(const struct state_cpu *cpu);

/**
 * state_writer_close - finish, fsync and rename over the file; on any
 * earlier or present error the old file stays and the temporary goes
 * Returns 0 or a negative errno code (not logged). Frees the writer.
 */
int state_writer_close(struct state_writer *writer);

/* Give up: the old file stays, the temporary goes; frees the writer. */
void state_writer_abandon(struct state_writer *writer);

/* How reading a state ended. */
enum state_outcome {
	STATE_ABSENT, /* no file: a new state begins */
	STATE_CONTINUED, /* read, and the measurement continues it */
	STATE_MISMATCH, /* another run's state (CPUs, interval, window) */
	STATE_CORRUPT, /* not a complete monitor state */
};

/*
 * Callbacks of state_read(): each returns 0 to go on, STATE_MISMATCH or
 * STATE_CORRUPT with a reason in @why. A CPU's object comes with its
 * document (@doc): its arrays of numbers are packed there, read them with
 * jsondoc_table() (state_cpu_parse() does).
 */
typedef int (*state_header_fn)(void *context, json_t *header, char *why, size_t size);
typedef int (*state_cpu_fn)(void *context, struct jsondoc *doc, json_t *cpu, char *why,
			    size_t size);

/**
 * state_read - read a state CPU by CPU
 * @path: the state file
 * @on_header: called once with the members before "cpus"
 * @on_cpu: called with each CPU's object
 * @context: passed to the callbacks
 * @why: receives the reason of a mismatch or corruption
 * @size: size of @why
 *
 * Returns an outcome (STATE_CONTINUED when every callback accepted), or a
 * negative errno code when the file exists but cannot be read (-EISDIR for
 * a directory, -EINVAL for what is not a regular file, never waited on).
 */
int state_read(const char *path, state_header_fn on_header, state_cpu_fn on_cpu, void *context,
	       char *why, size_t size);

/**
 * state_cpu_parse - one CPU's object back into counts, windows and causes
 * @doc: the document @object belongs to (as state_read() hands it on)
 * @object: the CPU's object
 * @reading: receives the counts; reading->counts must hold NATIVE_SLOTS
 * @windows: receives the windows, appended (an empty ring)
 * @window_ns: the window length the windows must have
 * @explained: receives what --explain kept (zeroed when absent)
 * @blocks: receives the time blocks (monitor_blocks_parse(): a state
 *	    written before them has none, and its history counted as lost);
 *	    release it whatever the outcome
 * @why: receives what is wrong
 * @size: size of @why
 *
 * Returns 0, or STATE_CORRUPT with a reason.
 */
int state_cpu_parse(struct jsondoc *doc, json_t *object, struct monitor_cpu_reading *reading,
		    struct window_ring *windows, uint64_t window_ns,
		    struct monitor_explained *explained, struct monitor_blocks *blocks, char *why,
		    size_t size);

/* The columns of a state's "windows", window i's values at row i. */
enum state_window_column {
	STATE_WINDOW_INDEX, /* window i spans [index, index + 1) * window_ns */
	STATE_WINDOW_COUNT,
	STATE_WINDOW_MAX, /* "max_ns" */
	STATE_WINDOW_P99, /* "p99_ns" */
	STATE_WINDOW_MISSED,
	STATE_WINDOW_PARTIAL, /* 1: the monitor ran for part of the window */
	STATE_WINDOW_COLUMNS,
};

/*
 * A column is written in one of two forms, and read in either: a number a
 * window ([7, 7, 9]), or runs of windows, [value, windows] each ([[7, 2],
 * [9, 1]]). Within a run the index counts up by one a window and the other
 * columns repeat their value. The state writes as runs the columns whose
 * values seldom change (index, count, missed, partial): at 35 days of
 * 5-minute windows they were 60% of a CPU's windows as numbers, and are a
 * few hundred bytes as runs.
 */
bool state_window_column_in_runs(enum state_window_column column);

/* what a run adds to the column's value from one window to the next */
unsigned int state_window_column_step(enum state_window_column column);

/* the most windows runs may stand for: the ring's 35 days of the shortest window, 1 s */
#define STATE_MAX_RUN_WINDOWS (35ULL * 24 * 3600)

/* What a column of the windows is. */
enum state_column_status {
	STATE_COLUMN_OK,
	STATE_COLUMN_ABSENT, /* no such member */
	STATE_COLUMN_NOT_ARRAY,
	/* an array, but neither a flat list of integers nor runs [value, windows >= 1] */
	STATE_COLUMN_NOT_NUMBERS,
	STATE_COLUMN_LENGTH, /* not as many rows as the index, or runs of too many */
};

/* A state's windows as views of its document's tables (state_windows_view()). */
struct state_windows {
	size_t rows; /* the index's rows; 0 unless the index is OK */
	/* the document's, or a column's runs laid out; NULL unless OK */
	const int64_t *values[STATE_WINDOW_COLUMNS];
	enum state_column_status status[STATE_WINDOW_COLUMNS];
	int64_t *laid_out[STATE_WINDOW_COLUMNS]; /* the view's, freed by state_windows_release() */
};

/* A column's name in the state ("index", "count", "max_ns", ...). */
const char *state_window_column_name(enum state_window_column column);

/**
 * state_windows_view - the columns of a state's "windows" member, the one
 * reading of them: the monitor restores its ring from it (which needs every
 * column, none negative), import takes what is there
 * @doc: the document @windows belongs to
 * @windows: the "windows" object (anything else: every column absent)
 * @view: receives each column's status and values, a number a window
 *	  whatever the column's form; release it with state_windows_release()
 *
 * Returns 0, or -ENOMEM (@view then needs no release).
 */
int state_windows_view(struct jsondoc *doc, const json_t *windows, struct state_windows *view);
void state_windows_release(struct state_windows *view);

/**
 * state_time - a CLOCK_REALTIME time in ns as the state writes times
 * ("2026-01-31T12:00:00.123456Z", UTC, microseconds)
 * Returns a new JSON string.
 */
json_t *state_time(uint64_t realtime_ns);

/**
 * state_keep_aside - rename @path to @path.@suffix.TIME, TIME the UTC time
 * of the rename ("state.json.old.20260131T120000Z"), never over an earlier
 * one: every state set aside is kept, so no restart loses a history
 * @path: the state
 * @suffix: "old" (another run's) or "corrupt"
 * @aside: receives the new name
 * @size: size of @aside
 *
 * Returns 0 or a negative errno code (logged).
 */
int state_keep_aside(const char *path, const char *suffix, char *aside, size_t size);

/**
 * state_time_valid - whether @text is a time as states hold them
 * ("2026-01-31T12:00:00Z", with or without a fraction of a second)
 */
bool state_time_valid(const char *text);

/**
 * state_check_writable - fail early when the state could never be written
 * @path: the state file
 * @make_directory: create its directory (one level) when missing, as for
 *		    the default /var/lib/latscope/monitor.json
 *
 * Returns 0 or a negative errno code (a missing directory, no permission,
 * -EISDIR for a directory, -EINVAL for something else that is not a
 * regular file: a FIFO, a device).
 */
int state_check_writable(const char *path, bool make_directory);

#endif
