/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_WINDOW_TEXT_H
#define LATSCOPE_WINDOW_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "latscope/window_ring.h"

/*
 * A CPU's windows as the state writes them: a column per field (the
 * state's index, count, max_ns, p99_ns, missed, partial, in enum
 * state_window_column's order), each in its form (monitor_state.h: a
 * number a window, or runs).
 *
 * Most of a checkpoint at 256 CPUs and 35 days was making these 18
 * million numbers again, though a full block of the ring never changes
 * (window_ring.h). A struct window_text keeps the text and runs of each
 * full block from one checkpoint to the next (about 11 bytes a window:
 * 28 MB at 256 CPUs and 35 days), drops them with the block, and makes
 * again only those of the block still being filled.
 */

struct window_text;

/* An empty text, to free with window_text_free(); NULL when out of memory. */
struct window_text *window_text_new(void);
void window_text_free(struct window_text *text);

/**
 * window_text_update - make @text the text of @ring's windows
 * @text: the text of an earlier update, of this ring or a copy of it (or
 *	  of any other ring: then nothing of it is kept)
 * @ring: the windows, not changed during the call
 *
 * A full block whose text @text holds is not formatted again; the text of
 * blocks @ring no longer has is freed.
 * Returns 0, or -ENOMEM (@text then holds no windows until an update
 * succeeds).
 */
int window_text_update(struct window_text *text, const struct window_ring *ring);

/**
 * window_text_put - a column, as a JSON array ("[1,2,3]", or runs
 * "[[5,2],[9,1]]"), to @f
 * @text: the text of the last successful update
 * @column: an enum state_window_column
 * @f: the stream (its errors are its own)
 */
void window_text_put(const struct window_text *text, unsigned int column, FILE *f);

/* Bytes the text takes, for the memory figures. */
size_t window_text_bytes(const struct window_text *text);

#endif
