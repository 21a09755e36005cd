// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one checked parser of integers and durations every option goes
 * through: a value it accepts lies in the range asked for.
 */
#include "fuzz.h"
#include "latscope/parse.h"

static const uint64_t bare_units[] = { NS_PER_NS, NS_PER_US, NS_PER_MS, NS_PER_SEC };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	long long value;
	uint64_t ns;
	size_t i;

	if (!parse_integer(text, INT64_MIN, INT64_MAX, &value) &&
	    parse_integer(text, value, value, &value))
		abort();
	if (!parse_integer(text, -5, 1000, &value) && (value < -5 || value > 1000))
		abort();
	for (i = 0; i < sizeof(bare_units) / sizeof(bare_units[0]); i++) {
		if (!parse_duration(text, bare_units[i], 0, UINT64_MAX, &ns) &&
		    parse_duration(text, bare_units[i], ns, ns, &ns))
			abort();
		if (!parse_duration(text, bare_units[i], 10, 365 * NS_PER_DAY, &ns) &&
		    (ns < 10 || ns > 365 * NS_PER_DAY))
			abort();
	}
	free(text);
	return 0;
}
