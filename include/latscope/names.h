/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_NAMES_H
#define LATSCOPE_NAMES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Interned strings: event streams carry task and interrupt names as small
 * ids, so a record stays fixed-size and names compare as integers. Id 0 is
 * the empty string.
 */
struct names;

/* Returns a new table to free with names_free(), or NULL. */
struct names *names_new(void);
void names_free(struct names *names);

/**
 * names_intern - the id of a string, adding it when new
 * @names: the table
 * @text: the string (copied)
 * @len: its length; the string need not be NUL-terminated
 *
 * Returns the id, or 0 when out of memory (the empty string).
 */
uint32_t names_intern(struct names *names, const char *text, size_t len);

/* The string of an id; "" for an unknown id. Valid until names_free(). */
const char *names_get(const struct names *names, uint32_t id);

#endif
