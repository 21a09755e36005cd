// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"
#include "common_options.h"
#include "explain_run.h"
#include "latscope/rt.h"

int option_parse_rt_policy(const struct option_value *value)
{
	if (rt_policy_parse(value->text, value->field))
		return usage_error("invalid policy '%s' for %s (other, fifo, rr, batch or idle)",
				   value->text, value->spelled);
	return 0;
}

const struct option_choice explain_choices[] = {
	{ "trace", EXPLAIN_WITH_TRACE },
	{ "counters", EXPLAIN_WITH_COUNTERS },
	{ NULL, 0 },
};
