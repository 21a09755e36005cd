/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_ARRAY_H
#define LATSCOPE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/**
 * array_grow - make room in an array that grows by doubling
 * @items: the array, NULL at first
 * @cap: its capacity in items; updated when it grows
 * @need: how many items it must hold
 * @size: the size of one item
 *
 * Returns the array, moved or not (the caller owns it and frees it with
 * free()), or NULL when memory ran out; @items and @cap are then unchanged.
 * Doubling keeps appending n items O(n) in all.
 */
static inline void *array_grow(void *items, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int bigger = *cap ? *cap : 16;
	void *grown;

	if (items && need <= *cap)
		return items;
	while (bigger < need) {
		if (bigger > UINT32_MAX / 2)
			return NULL;
		bigger *= 2;
	}
	if ((size_t)bigger > SIZE_MAX / size)
		return NULL;
	grown = realloc(items, (size_t)bigger * size);
	if (grown)
		*cap = bigger;
	return grown;
}

/* a qsort()/bsearch() comparison of two unsigned ints */
static inline int array_compare_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

#endif
