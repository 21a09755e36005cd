// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/decimal.h"
#include "latscope/monitor_state.h"
#include "latscope/window_text.h"

_Static_assert(WINDOW_TEXT_BLOCK_MAX == STATE_WINDOW_COLUMNS,
	       "the block maxima follow the state's window columns");

/* a ring block holds at most this many windows (window_ring.c's BLOCK_WINDOWS) */
#define PIECE_WINDOWS 256

/*
 * The text of one block of the ring: each column's numbers, comma
 * separated, back to back in @text. A block whose windows are all complete
 * has the max_ns column as its block maxima, not kept twice.
 */
struct piece {
	uint64_t serial; /* the block's; 0: a block being filled, formatted each time */
	char *text;
	unsigned int end[WINDOW_TEXT_COLUMNS]; /* column c is [end[c - 1], end[c]) */
	bool maxima_are_max;
};

struct window_text {
	struct piece *pieces; /* the ring's blocks, oldest first */
	unsigned int nr, cap;
};

/* An update's working memory: a block's windows and their text, made once per update. */
struct scratch {
	struct monitor_window windows[PIECE_WINDOWS];
	/* every column's numbers: 20 digits and a comma each, and decimal_put()'s slack */
	char text[WINDOW_TEXT_COLUMNS * PIECE_WINDOWS * 21 + DECIMAL_PUT_MAX];
};

struct window_text *window_text_new(void)
{
	return calloc(1, sizeof(struct window_text));
}

static void drop_pieces(struct window_text *t, unsigned int from, unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++)
		free(t->pieces[i].text);
}

void window_text_free(struct window_text *t)
{
	if (!t)
		return;
	drop_pieces(t, 0, t->nr);
	free(t->pieces);
	free(t);
}

static uint64_t window_value(const struct monitor_window *win, unsigned int column)
{
	switch (column) {
	case STATE_WINDOW_INDEX:
		return win->index;
	case STATE_WINDOW_COUNT:
		return win->count;
	case STATE_WINDOW_MAX:
	case WINDOW_TEXT_BLOCK_MAX:
		return win->max_ns;
	case STATE_WINDOW_P99:
		return monitor_window_p99_ns(win);
	case STATE_WINDOW_MISSED:
		return win->missed;
	default:
		return win->partial;
	}
}

/* Block @block of @ring into @piece, its text a new allocation; 0 or -ENOMEM. */
static int format_block(struct scratch *s, const struct window_ring *ring, size_t block,
			struct piece *piece)
{
	struct window_ring_block info = window_ring_block(ring, block);
	struct window_ring_cursor cursor;
	unsigned int nr = 0, column, i;
	char *p = s->text;

	window_ring_begin_block(ring, block, &cursor);
	while (nr < info.nr && nr < PIECE_WINDOWS && window_ring_next(&cursor, &s->windows[nr]))
		nr++;
	piece->serial = info.full ? info.serial : 0;
	piece->maxima_are_max = true;
	for (i = 0; i < nr; i++)
		if (s->windows[i].partial || !s->windows[i].count)
			piece->maxima_are_max = false;
	for (column = 0; column < WINDOW_TEXT_COLUMNS; column++) {
		struct decimal_repeat last = { 0 };
		char *begin = p;

		if (column != WINDOW_TEXT_BLOCK_MAX || !piece->maxima_are_max) {
			for (i = 0; i < nr; i++) {
				const struct monitor_window *w = &s->windows[i];

				if (column == WINDOW_TEXT_BLOCK_MAX && (w->partial || !w->count))
					continue;
				p = decimal_put(p, &last, window_value(w, column));
			}
		}
		/* the last comma is not the column's: pieces are joined with one */
		if (p > begin)
			p--;
		piece->end[column] = (unsigned int)(p - s->text);
	}
	piece->text = malloc(p > s->text ? (size_t)(p - s->text) : 1);
	if (!piece->text)
		return -ENOMEM;
	memcpy(piece->text, s->text, (size_t)(p - s->text));
	return 0;
}

int window_text_update(struct window_text *t, const struct window_ring *ring)
{
	size_t nr = window_ring_blocks(ring), block;
	struct piece *pieces = NULL;
	struct scratch *scratch = NULL;
	unsigned int cap = 0, kept = 0, old = 0;
	int ret = 0;

	if (nr && !(pieces = array_grow(NULL, &cap, (unsigned int)nr, sizeof(*pieces))))
		ret = -ENOMEM;
	/* both lists ascend by serial: a full block of the ring is the next kept, or new */
	for (block = 0; block < nr && !ret; block++) {
		struct window_ring_block info = window_ring_block(ring, block);

		while (info.full && old < t->nr &&
		       (!t->pieces[old].serial || t->pieces[old].serial < info.serial))
			free(t->pieces[old++].text);
		if (info.full && old < t->nr && t->pieces[old].serial == info.serial) {
			pieces[kept++] = t->pieces[old++];
			continue;
		}
		if (!scratch && !(scratch = malloc(sizeof(*scratch))))
			ret = -ENOMEM;
		else if (!(ret = format_block(scratch, ring, block, &pieces[kept])))
			kept++;
	}
	free(scratch);
	drop_pieces(t, old, t->nr);
	free(t->pieces);
	t->pieces = pieces;
	t->cap = cap;
	t->nr = kept;
	if (ret) {
		drop_pieces(t, 0, t->nr);
		t->nr = 0;
	}
	return ret;
}

void window_text_put(const struct window_text *t, unsigned int column, FILE *f)
{
	bool first = true;
	unsigned int i;

	fputc_unlocked('[', f);
	for (i = 0; i < t->nr; i++) {
		const struct piece *piece = &t->pieces[i];
		unsigned int c = column == WINDOW_TEXT_BLOCK_MAX && piece->maxima_are_max ?
					 STATE_WINDOW_MAX :
					 column;
		unsigned int begin = c ? piece->end[c - 1] : 0;

		if (piece->end[c] == begin)
			continue;
		if (!first)
			fputc_unlocked(',', f);
		fwrite_unlocked(piece->text + begin, 1, piece->end[c] - begin, f);
		first = false;
	}
	fputc_unlocked(']', f);
}

size_t window_text_bytes(const struct window_text *t)
{
	size_t bytes = sizeof(*t) + t->cap * sizeof(*t->pieces), i;

	for (i = 0; i < t->nr; i++)
		bytes += t->pieces[i].end[WINDOW_TEXT_COLUMNS - 1];
	return bytes;
}
