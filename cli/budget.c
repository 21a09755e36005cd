// SPDX-License-Identifier: GPL-2.0-or-later
#include "budget.h"
#include "cli.h"
#include "latscope/parse.h"

bool budget_missed(uint64_t budget_ns, uint64_t max_ns)
{
	return budget_ns && max_ns > budget_ns;
}

void budget_check_lane(struct budget_check *check, unsigned int id, uint64_t max_ns)
{
	char max[32], limit[32];

	if (!budget_missed(check->budget_ns, max_ns))
		return;
	cli_say("%s %u: max %s us is above --budget %s", check->lane, id,
		format_us(max_ns, max, sizeof(max)),
		format_duration(check->budget_ns, limit, sizeof(limit)));
	check->status = EXIT_BUDGET;
}
