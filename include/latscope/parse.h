/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_PARSE_H
#define LATSCOPE_PARSE_H

#include <stdint.h>

/*
 * The one checked parser for numbers given by users. Every function rejects
 * empty strings, signs where none belong, trailing junk and overflow, and
 * returns 0 or a negative errno code: -EINVAL for a malformed value, -ERANGE
 * for a value outside [min, max].
 */

/**
 * parse_integer - parse a decimal integer within a range
 * @text: the text, e.g. "90"
 * @min: smallest accepted value
 * @max: largest accepted value
 * @value: receives the value on success
 */
int parse_integer(const char *text, long long min, long long max, long long *value);

/**
 * parse_number - parse a decimal number (a fraction allowed) within a range
 * @text: the text, e.g. "0.95", "25", "-3.5"; no exponent, no hex, no
 *	  "inf" or "nan", no surrounding space
 * @min: smallest accepted value
 * @max: largest accepted value
 * @value: receives the value on success
 */
int parse_number(const char *text, double min, double max, double *value);

/* Units a bare number (no suffix) stands for, per option. */
#define NS_PER_NS 1ULL
#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_SEC 1000000000ULL
#define NS_PER_MIN (60ULL * NS_PER_SEC)
#define NS_PER_HOUR (60ULL * NS_PER_MIN)
#define NS_PER_DAY (24ULL * NS_PER_HOUR)

/**
 * parse_duration - parse a duration into nanoseconds
 * @text: a number with an optional unit: ns, us, ms, s, m, h or d
 *	  ("500ns", "20us", "1.5ms", "5s", "2m", "1h", "1d"); decimals allowed
 * @bare_unit_ns: what a number without a unit means, e.g. NS_PER_SEC
 * @min_ns: smallest accepted duration
 * @max_ns: largest accepted duration
 * @ns: receives the duration in nanoseconds
 */
int parse_duration(const char *text, uint64_t bare_unit_ns, uint64_t min_ns, uint64_t max_ns,
		   uint64_t *ns);

#endif
