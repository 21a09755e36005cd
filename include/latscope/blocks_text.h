/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_BLOCKS_TEXT_H
#define LATSCOPE_BLOCKS_TEXT_H

#include <stdio.h>

#include "latscope/time_blocks.h"

/*
 * A CPU's time blocks as the state writes their "histograms": a JSON array
 * per block of its bucket, count pairs ("[16,2,17,11]"). Of the 231 blocks
 * of a 35-day state only the last one changes from one checkpoint to the
 * next (all of them when the block length doubles), so a struct
 * blocks_text keeps each block's text while the block's serial is the same
 * (time_blocks.h) and formats again only the blocks that changed: 7
 * million numbers a checkpoint at 256 CPUs, 63 kB of text a CPU.
 */
struct blocks_text;

/* An empty text, to free with blocks_text_free(); NULL when out of memory. */
struct blocks_text *blocks_text_new(void);
void blocks_text_free(struct blocks_text *text);

/**
 * blocks_text_update - make @text the text of @tb's blocks
 * @text: the text of an earlier update (of any blocks)
 * @tb: the blocks, not changed during the call
 *
 * Returns 0, or -ENOMEM (@text then holds no blocks until an update
 * succeeds).
 */
int blocks_text_update(struct blocks_text *text, const struct time_blocks *tb);

/* The blocks of the last successful update as a JSON array of arrays, to @f. */
void blocks_text_put(const struct blocks_text *text, FILE *f);

#endif
