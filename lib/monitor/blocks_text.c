// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/blocks_text.h"
#include "latscope/decimal.h"

/* one block's text: "[bucket,count,...]" */
struct block_text {
	uint64_t serial; /* the block's when it was made; 0: none */
	char *text;
	size_t length, size;
};

struct blocks_text {
	struct block_text blocks[TIME_BLOCKS_MAX];
	unsigned int nr;
};

struct blocks_text *blocks_text_new(void)
{
	return calloc(1, sizeof(struct blocks_text));
}

void blocks_text_free(struct blocks_text *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < TIME_BLOCKS_MAX; i++)
		free(t->blocks[i].text);
	free(t);
}

/* @block into @to; 0 or -ENOMEM */
static int format_block(struct block_text *to, const struct time_block *block)
{
	/* 20 digits and a comma a number, two a entry, the brackets and decimal_put()'s slack */
	size_t need = (size_t)block->nr * 2 * 21 + 2 + DECIMAL_PUT_MAX;
	struct decimal_repeat bucket = { 0 }, count = { 0 };
	unsigned int e;
	char *p;

	if (need > to->size) {
		p = realloc(to->text, need);
		if (!p)
			return -ENOMEM;
		to->text = p;
		to->size = need;
	}
	p = to->text;
	*p++ = '[';
	/* the buckets follow each other: the index's way */
	for (e = 0; e < block->nr; e++) {
		p = decimal_put(p, &bucket, block->entries[e].bucket);
		p = decimal_put(p, &count, block->entries[e].count);
	}
	/* the last comma, if any, is the closing bracket */
	if (block->nr)
		p--;
	*p++ = ']';
	to->length = (size_t)(p - to->text);
	to->serial = block->serial;
	return 0;
}

int blocks_text_update(struct blocks_text *t, const struct time_blocks *tb)
{
	unsigned int i;
	int ret;

	for (i = 0; i < tb->nr; i++) {
		const struct time_block *block = &tb->blocks[i];

		if (block->serial && t->blocks[i].serial == block->serial)
			continue;
		ret = format_block(&t->blocks[i], block);
		if (ret) {
			t->nr = 0;
			for (i = 0; i < TIME_BLOCKS_MAX; i++)
				t->blocks[i].serial = 0;
			return ret;
		}
		/* a block with no serial has its text made every time */
		t->blocks[i].serial = block->serial;
	}
	t->nr = tb->nr;
	return 0;
}

void blocks_text_put(const struct blocks_text *t, FILE *f)
{
	unsigned int i;

	fputc_unlocked('[', f);
	for (i = 0; i < t->nr; i++) {
		if (i)
			fputc_unlocked(',', f);
		fwrite_unlocked(t->blocks[i].text, 1, t->blocks[i].length, f);
	}
	fputc_unlocked(']', f);
}
