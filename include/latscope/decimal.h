/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_DECIMAL_H
#define LATSCOPE_DECIMAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Columns of unsigned numbers as decimal text ("12,13,13,"), for the
 * monitor's state: at 256 CPUs and 35 days a checkpoint is 18 million
 * numbers, where printf's digit per division and a call per number took
 * most of its time. Inline: the callers' loops are the hot ones.
 */

/* the most bytes decimal_put() writes: 20 digits and a comma, in two words */
#define DECIMAL_PUT_MAX 24

/*
 * @value's decimal digits at @text (room for 20), their number returned.
 * Two digits per division, written in place.
 */
static inline size_t decimal_u64(char *text, uint64_t value)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	static const uint64_t powers[20] = { 1ULL,
					     10ULL,
					     100ULL,
					     1000ULL,
					     10000ULL,
					     100000ULL,
					     1000000ULL,
					     10000000ULL,
					     100000000ULL,
					     1000000000ULL,
					     10000000000ULL,
					     100000000000ULL,
					     1000000000000ULL,
					     10000000000000ULL,
					     100000000000000ULL,
					     1000000000000000ULL,
					     10000000000000000ULL,
					     100000000000000000ULL,
					     1000000000000000000ULL,
					     10000000000000000000ULL };
	/* the digits from the bits: log10(2) is about 1233 / 4096, one short at most */
	unsigned int bits = 64 - (unsigned int)__builtin_clzll(value | 1);
	size_t n = (bits * 1233) >> 12;
	char *p;

	n += value >= powers[n] || !n;
	p = text + n;
	while (value >= 100) {
		unsigned int two = (unsigned int)(value % 100) * 2;

		value /= 100;
		*--p = pairs[two + 1];
		*--p = pairs[two];
	}
	if (value >= 10) {
		*--p = pairs[value * 2 + 1];
		*--p = pairs[value * 2];
	} else {
		*--p = (char)('0' + value);
	}
	return n;
}

/*
 * The last number of a column and its digits: most of a column repeats the
 * number before it (a window's count, p99, missed) or adds one to it (the
 * index), and copying digits is cheaper than making them. Zeroed: none yet.
 */
struct decimal_repeat {
	uint64_t value;
	size_t nr_digits; /* 0: none yet */
	char digits[DECIMAL_PUT_MAX];
};

/*
 * @value and a comma at @p, which has room for DECIMAL_PUT_MAX bytes (the
 * bytes past the comma are overwritten by what follows); the end returned.
 */
static inline char *decimal_put(char *p, struct decimal_repeat *r, uint64_t value)
{
	if (!r->nr_digits || value != r->value) {
		if (r->nr_digits && value == r->value + 1 && r->digits[r->nr_digits - 1] != '9')
			r->digits[r->nr_digits - 1]++;
		else
			r->nr_digits = decimal_u64(r->digits, value);
		r->value = value;
	}
	/* a fixed length: a copy of two words */
	memcpy(p, r->digits, sizeof(r->digits));
	p += r->nr_digits;
	*p++ = ',';
	return p;
}

#endif
