// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "latscope/metrics.h"

const uint64_t metrics_classic_bound_ns[METRICS_CLASSIC_BOUNDS] = {
	1000,	2000,	 5000,	  10000,   20000,    50000,    100000,	 200000,
	500000, 1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000,
};

/* Go's shortest formatting of the bounds in seconds, which Prometheus uses
 * for le when it reads them from the protobuf format: all formats agree. */
const char *const metrics_classic_le[METRICS_CLASSIC_BOUNDS] = {
	"1e-06",  "2e-06", "5e-06", "1e-05", "2e-05", "5e-05", "0.0001", "0.0002",
	"0.0005", "0.001", "0.002", "0.005", "0.01",  "0.02",  "0.05",	 "0.1",
};

struct metrics *metrics_new(unsigned int nr_cpus)
{
	struct metrics *metrics = calloc(1, sizeof(*metrics));

	if (!metrics)
		return NULL;
	metrics->nr_cpus = nr_cpus;
	metrics->cpus = calloc(nr_cpus ? nr_cpus : 1, sizeof(*metrics->cpus));
	if (!metrics->cpus) {
		free(metrics);
		return NULL;
	}
	return metrics;
}

bool metrics_any_explained(const struct metrics *metrics)
{
	unsigned int i;

	for (i = 0; i < metrics->nr_cpus; i++)
		if (metrics->cpus[i].explained)
			return true;
	return false;
}

void metrics_free(struct metrics *metrics)
{
	unsigned int i;

	if (!metrics)
		return;
	for (i = 0; i < metrics->nr_cpus; i++) {
		free(metrics->cpus[i].native.counts);
		free(metrics->cpus[i].causes);
		free(metrics->cpus[i].interrupts);
	}
	free(metrics->cpus);
	free(metrics->failed);
	free(metrics);
}

/* Length of the UTF-8 character at @s (1-4), or 0 when it is not one. */
static size_t utf8_length(const unsigned char *s)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void metrics_copy_label(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t used = 0, n;

	if (!size)
		return;
	while (*s) {
		n = utf8_length(s);
		if (!n) {
			if (used + 1 >= size)
				break;
			dst[used++] = '?';
			s++;
			continue;
		}
		if (used + n >= size)
			break;
		memcpy(dst + used, s, n);
		used += n;
		s += n;
	}
	dst[used] = '\0';
}
