// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/parse.h"

int parse_integer(const char *text, long long min, long long max, long long *value)
{
	char *end;
	long long v;

	if (!text || !*text || isspace((unsigned char)*text))
		return -EINVAL;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*value = v;
	return 0;
}

int parse_number(const char *text, double min, double max, double *value)
{
	const char *p = text;
	char *end;
	int digits = 0;
	double v;

	if (!text)
		return -EINVAL;
	/* strtod alone would take " 1", "1e3", "0x10", "inf" and "nan" */
	if (*p == '-' || *p == '+')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits || *p)
		return -EINVAL;
	errno = 0;
	v = strtod(text, &end);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*value = v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t ns;
};

static const struct unit duration_units[] = {
	{ "ns", NS_PER_NS }, { "us", NS_PER_US },  { "ms", NS_PER_MS }, { "s", NS_PER_SEC },
	{ "m", NS_PER_MIN }, { "h", NS_PER_HOUR }, { "d", NS_PER_DAY },
};

static int unit_ns(const char *suffix, uint64_t bare_unit_ns, uint64_t *ns)
{
	size_t i;

	if (!*suffix) {
		*ns = bare_unit_ns;
		return 0;
	}
	for (i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
		if (!strcmp(suffix, duration_units[i].suffix)) {
			*ns = duration_units[i].ns;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_duration(const char *text, uint64_t bare_unit_ns, uint64_t min_ns, uint64_t max_ns,
		   uint64_t *ns)
{
	uint64_t whole = 0, unit, frac_num = 0, frac_den = 1;
	const char *p = text;
	unsigned __int128 total;
	int digits = 0;

	if (!text)
		return -EINVAL;
	/* Only digits: no sign, no spaces, no exponent, no hex. */
	for (; isdigit((unsigned char)*p); p++, digits++) {
		uint64_t digit = (uint64_t)(*p - '0');

		if (whole > UINT64_MAX / 10 ||
		    (whole == UINT64_MAX / 10 && digit > UINT64_MAX % 10))
			return -ERANGE;
		whole = whole * 10 + digit;
	}
	if (*p == '.') {
		p++;
		for (; isdigit((unsigned char)*p); p++, digits++) {
			if (frac_den <= UINT64_MAX / 10) {
				frac_num = frac_num * 10 + (uint64_t)(*p - '0');
				frac_den *= 10;
			}
		}
	}
	if (!digits)
		return -EINVAL;
	if (unit_ns(p, bare_unit_ns, &unit))
		return -EINVAL;
	/*
	 * In integers: a long double holds 64 bits of mantissa, so that
	 * rounding a 64-bit count plus a half moved it by one ns. The
	 * fraction is rounded to the nearest ns, halves up.
	 */
	total = (unsigned __int128)whole * unit +
		((unsigned __int128)frac_num * unit * 2 + frac_den) /
			(2 * (unsigned __int128)frac_den);
	if (total > max_ns || total < min_ns)
		return -ERANGE;
	*ns = (uint64_t)total;
	return 0;
}
