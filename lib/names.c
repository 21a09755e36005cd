// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/names.h"

/* Open addressing on a power-of-two table of ids; strings in one array. */
struct names {
	char **strings;
	uint32_t nr_strings, strings_capacity;
	uint32_t *slots; /* 0 = empty, else id */
	uint32_t nr_slots;
};

static uint64_t hash(const char *text, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	while (len--) {
		h ^= (unsigned char)*text++;
		h *= 1099511628211ULL;
	}
	return h;
}

struct names *names_new(void)
{
	struct names *names = calloc(1, sizeof(*names));

	if (!names)
		return NULL;
	names->strings_capacity = 64;
	names->nr_slots = 256;
	names->strings = calloc(names->strings_capacity, sizeof(*names->strings));
	names->slots = calloc(names->nr_slots, sizeof(*names->slots));
	if (!names->strings || !names->slots) {
		names_free(names);
		return NULL;
	}
	names->strings[0] = strdup("");
	names->nr_strings = 1;
	return names;
}

void names_free(struct names *names)
{
	uint32_t i;

	if (!names)
		return;
	for (i = 0; names->strings && i < names->nr_strings; i++)
		free(names->strings[i]);
	free(names->strings);
	free(names->slots);
	free(names);
}

static int grow_slots(struct names *names)
{
	uint32_t nr_slots = names->nr_slots * 2, i, id;
	uint32_t *slots = calloc(nr_slots, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < names->nr_slots; i++) {
		uint64_t at;

		id = names->slots[i];
		if (!id)
			continue;
		at = hash(names->strings[id], strlen(names->strings[id])) & (nr_slots - 1);
		while (slots[at])
			at = (at + 1) & (nr_slots - 1);
		slots[at] = id;
	}
	free(names->slots);
	names->slots = slots;
	names->nr_slots = nr_slots;
	return 0;
}

uint32_t names_intern(struct names *names, const char *text, size_t len)
{
	uint64_t at;
	char *copy, **strings;
	uint32_t id;

	if (!len)
		return 0;
	at = hash(text, len) & (names->nr_slots - 1);
	while ((id = names->slots[at])) {
		if (!strncmp(names->strings[id], text, len) && !names->strings[id][len])
			return id;
		at = (at + 1) & (names->nr_slots - 1);
	}
	strings = array_grow(names->strings, &names->strings_capacity, names->nr_strings + 1,
			     sizeof(*strings));
	if (!strings)
		return 0;
	names->strings = strings;
	copy = strndup(text, len);
	if (!copy)
		return 0;
	id = names->nr_strings++;
	names->strings[id] = copy;
	names->slots[at] = id;
	if (names->nr_strings * 2 > names->nr_slots)
		grow_slots(names);
	return id;
}

const char *names_get(const struct names *names, uint32_t id)
{
	return id < names->nr_strings ? names->strings[id] : "";
}
