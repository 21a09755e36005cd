/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_IMPORT_H
#define LATSCOPE_IMPORT_H

#include <stddef.h>

#include "latscope/run.h"

/*
 * Reading results into the result model (run.h), for report, compare and
 * doctor. The format is found from the content, never from the file name:
 *
 * - latscope JSON of every command (noise, timer, check, irq, monitor state,
 *   compare, doctor), schema latscope/1 (CPU sets as arrays of numbers) and
 *   latscope/2 (CPU sets as cpu-list strings); a later schema is refused;
 * - cyclictest --json and oslat --json of rt-tests 2.x (file_version 1);
 * - the text cyclictest prints with -h N (or -H N): one line per bucket and
 *   the "# Total:", "# Min/Avg/Max Latencies:", "# Histogram Overflows:" and
 *   "# Thread N:" lines (OSADL's "output" file).
 *
 * Extra fields are ignored, so newer writers of the same schema still read.
 *
 * Fields latscope's writers are adding (issues 11, 13, 15) are read in these
 * shapes, in any "cpus" or "threads" entry:
 * - "gaps": {"threshold_ns", "count", "not_stored", "lost_ns", "records":
 *   [[t_ns, ns], ...]} (objects {"t_ns", "ns"} are read too, but rows are
 *   what keeps a 6.4-million-gap result fast to read), t_ns from the start
 *   of the run;
 * - "block_maxima": {"block_ns", "max_ns": [...]} (a monitor state has
 *   none: its blocks are its complete windows' max_ns);
 * - "windows": [{"end" (ISO 8601) or "end_ns" (ns since the epoch),
 *   "max_ns", "p99_ns", "count", "missed"}, ...] or rows
 *   [[end_ns, max_ns, p99_ns, count, missed], ...], with "window_ns" in the
 *   entry, at the top or in "params"; or a monitor state's columns
 *   {"window_ns", "index", "count", ...}, each numbers or runs
 *   (monitor_state.h);
 * - a spike's "t_ns" (from the start of the run) beside "start_ns";
 * - a doctor result's parts as members "check", "irq_plan", "timer",
 *   "noise" (or any member object with a "command"), or a "parts" array.
 */

/*
 * The largest input read, refused before a byte of it is: above the
 * largest results (a 64-CPU noise run with 100,000 gaps per CPU is 136 MB,
 * a 256-CPU monitor state with 35 days of windows 103 MB, so 1024 CPUs
 * about 410 MB), and a bound on the memory a report or compare takes.
 */
#define IMPORT_MAX_BYTES (512ULL << 20)

/**
 * import_file - read one result file
 * @path: the file; it must be a regular file of at most IMPORT_MAX_BYTES
 * @run: receives the result, which the caller frees with run_free()
 *
 * On failure one line naming the file and the problem goes through the log
 * hook ("out.json: written by a newer latscope (schema latscope/3) ...";
 * "x.txt: not a result file: expected ...") and nothing is returned.
 * Returns 0 or a negative errno code (-EINVAL for content that is not a
 * result, -EFBIG, -ENOMEM, or the error of open/read).
 */
int import_file(const char *path, struct run **run);

/**
 * import_buffer - read a result held in memory
 * @name: what error lines call it (a file name)
 * @text: the content (need not be NUL-terminated)
 * @len: its length
 * @run: receives the result, freed with run_free()
 *
 * As import_file() after the file was read.
 */
int import_buffer(const char *name, const char *text, size_t len, struct run **run);

#endif
