/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_UTF8_H
#define LATSCOPE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/**
 * utf8_sequence - the length of the UTF-8 sequence at @s
 * @s: the bytes
 * @n: how many may be read
 * @code: receives the code point, may be NULL
 *
 * Returns 1 to 4, or 0 when the bytes are not valid UTF-8: a stray
 * continuation byte, a sequence cut short, an overlong form, a surrogate
 * (U+D800..U+DFFF) or a value beyond U+10FFFF.
 */
static inline size_t utf8_sequence(const unsigned char *s, size_t n, uint32_t *code)
{
	uint32_t c = s[0], value;
	size_t need, i;

	if (c < 0x80) {
		if (code)
			*code = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		value = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		value = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		value = c & 0x07;
	} else {
		return 0;
	}
	if (n < need + 1)
		return 0;
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		value = (value << 6) | (s[i] & 0x3f);
	}
	if ((need == 2 && value < 0x800) || (need == 3 && value < 0x10000) || value > 0x10ffff ||
	    (value >= 0xd800 && value <= 0xdfff))
		return 0;
	if (code)
		*code = value;
	return need + 1;
}

#endif
