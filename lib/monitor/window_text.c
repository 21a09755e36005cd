// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/decimal.h"
#include "latscope/monitor_state.h"
#include "latscope/window_text.h"

/* a ring block holds at most this many windows (window_ring.c's BLOCK_WINDOWS) */
#define PIECE_WINDOWS 256

/* windows in a row whose column goes on as a run does (monitor_state.h) */
struct window_run {
	uint64_t value;
	uint64_t windows;
};

/*
 * One block of the ring as the state writes it: the numbers of the
 * columns written a number a window, comma separated, back to back in
 * @text, and the runs of the columns written as runs, back to back in
 * @runs. Column c is [begin[c], end[c]) of the one or the other.
 */
struct piece {
	uint64_t serial; /* the block's; 0: a block being filled, formatted each time */
	char *text;
	struct window_run *runs;
	unsigned int begin[STATE_WINDOW_COLUMNS], end[STATE_WINDOW_COLUMNS];
};

struct window_text {
	struct piece *pieces; /* the ring's blocks, oldest first */
	unsigned int nr, cap;
};

/* An update's working memory: a block's windows and their text, made once per update. */
struct scratch {
	struct monitor_window windows[PIECE_WINDOWS];
	/* every column's numbers: 20 digits and a comma each, and decimal_put()'s slack */
	char text[STATE_WINDOW_COLUMNS * PIECE_WINDOWS * 21 + DECIMAL_PUT_MAX];
	struct window_run runs[STATE_WINDOW_COLUMNS * PIECE_WINDOWS];
};

struct window_text *window_text_new(void)
{
	return calloc(1, sizeof(struct window_text));
}

static void drop_pieces(struct window_text *t, unsigned int from, unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		free(t->pieces[i].text);
		free(t->pieces[i].runs);
	}
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
		return win->max_ns;
	case STATE_WINDOW_P99:
		return monitor_window_p99_ns(win);
	case STATE_WINDOW_MISSED:
		return win->missed;
	default:
		return win->partial;
	}
}

/* @value the run's next window's, in @column: the run goes on */
static bool run_goes_on(const struct window_run *run, unsigned int column, uint64_t value)
{
	return value == run->value + state_window_column_step(column) * run->windows;
}

/* @column of @nr windows as runs at @runs; how many runs returned */
static unsigned int make_runs(const struct monitor_window *windows, unsigned int nr,
			      unsigned int column, struct window_run *runs)
{
	unsigned int n = 0, i;

	for (i = 0; i < nr; i++) {
		uint64_t value = window_value(&windows[i], column);

		if (n && run_goes_on(&runs[n - 1], column, value))
			runs[n - 1].windows++;
		else
			runs[n++] = (struct window_run){ value, 1 };
	}
	return n;
}

/* @column of @nr windows as numbers at @p, a comma after each; the end returned */
static char *make_numbers(const struct monitor_window *windows, unsigned int nr,
			  unsigned int column, char *p)
{
	struct decimal_repeat last = { 0 };
	unsigned int i;

	for (i = 0; i < nr; i++)
		p = decimal_put(p, &last, window_value(&windows[i], column));
	return p;
}

static void *copy_of(const void *from, size_t size)
{
	void *copy = malloc(size ? size : 1);

	if (copy)
		memcpy(copy, from, size);
	return copy;
}

/* Block @block of @ring into @piece, its text and runs new allocations; 0 or -ENOMEM. */
static int format_block(struct scratch *s, const struct window_ring *ring, size_t block,
			struct piece *piece)
{
	struct window_ring_block info = window_ring_block(ring, block);
	struct window_ring_cursor cursor;
	unsigned int nr = 0, column, nr_runs = 0;
	char *p = s->text;

	window_ring_begin_block(ring, block, &cursor);
	while (nr < info.nr && nr < PIECE_WINDOWS && window_ring_next(&cursor, &s->windows[nr]))
		nr++;
	piece->serial = info.full ? info.serial : 0;
	for (column = 0; column < STATE_WINDOW_COLUMNS; column++) {
		if (state_window_column_in_runs(column)) {
			piece->begin[column] = nr_runs;
			nr_runs += make_runs(s->windows, nr, column, s->runs + nr_runs);
			piece->end[column] = nr_runs;
		} else {
			piece->begin[column] = (unsigned int)(p - s->text);
			p = make_numbers(s->windows, nr, column, p);
			/* the last comma is not the column's: pieces are joined with one */
			if (p > s->text + piece->begin[column])
				p--;
			piece->end[column] = (unsigned int)(p - s->text);
		}
	}
	piece->text = copy_of(s->text, (size_t)(p - s->text));
	piece->runs = copy_of(s->runs, nr_runs * sizeof(*s->runs));
	if (!piece->text || !piece->runs) {
		free(piece->text);
		free(piece->runs);
		return -ENOMEM;
	}
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
		       (!t->pieces[old].serial || t->pieces[old].serial < info.serial)) {
			drop_pieces(t, old, old + 1);
			old++;
		}
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

/* The runs of @column, a block's runs joined to the one before when it goes on. */
static void put_runs(const struct window_text *t, unsigned int column, FILE *f)
{
	struct window_run run = { 0 };
	bool any = false;
	unsigned int i, r;

	for (i = 0; i < t->nr; i++) {
		const struct piece *piece = &t->pieces[i];

		for (r = piece->begin[column]; r < piece->end[column]; r++) {
			const struct window_run *next = &piece->runs[r];

			if (any && run_goes_on(&run, column, next->value)) {
				run.windows += next->windows;
				continue;
			}
			if (any)
				fprintf(f, "[%" PRIu64 ",%" PRIu64 "],", run.value, run.windows);
			run = *next;
			any = true;
		}
	}
	if (any)
		fprintf(f, "[%" PRIu64 ",%" PRIu64 "]", run.value, run.windows);
}

/* The numbers of @column, the blocks' texts joined with a comma. */
static void put_numbers(const struct window_text *t, unsigned int column, FILE *f)
{
	bool first = true;
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		const struct piece *piece = &t->pieces[i];

		if (piece->end[column] == piece->begin[column])
			continue;
		if (!first)
			fputc_unlocked(',', f);
		fwrite_unlocked(piece->text + piece->begin[column], 1,
				piece->end[column] - piece->begin[column], f);
		first = false;
	}
}

void window_text_put(const struct window_text *t, unsigned int column, FILE *f)
{
	fputc_unlocked('[', f);
	if (state_window_column_in_runs(column))
		put_runs(t, column, f);
	else
		put_numbers(t, column, f);
	fputc_unlocked(']', f);
}

size_t window_text_bytes(const struct window_text *t)
{
	size_t bytes = sizeof(*t) + t->cap * sizeof(*t->pieces), i;
	unsigned int c;

	for (i = 0; i < t->nr; i++)
		for (c = 0; c < STATE_WINDOW_COLUMNS; c++)
			bytes += state_window_column_in_runs(c) ?
					 (t->pieces[i].end[c] - t->pieces[i].begin[c]) *
						 sizeof(struct window_run) :
					 t->pieces[i].end[c] - t->pieces[i].begin[c];
	return bytes;
}
