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

const struct option_choice rt_policy_words[] = {
	{ "other", RT_POLICY_OTHER }, { "fifo", RT_POLICY_FIFO }, { "rr", RT_POLICY_RR },
	{ "batch", RT_POLICY_BATCH }, { "idle", RT_POLICY_IDLE }, { NULL, 0 },
};

const struct option_choice explain_choices[] = {
	{ "trace", EXPLAIN_WITH_TRACE },
	{ "counters", EXPLAIN_WITH_COUNTERS },
	{ NULL, 0 },
};

#define JSON_OUTPUT(member) OPTION_FIELD(struct json_output, member)

const struct option_spec json_output_options[] = {
	{ .long_name = "json",
	  .short_name = 'j',
	  .kind = OPTION_OUTPUT_FILE,
	  .where = JSON_OUTPUT(path),
	  .help = "write the result document (latscope/3 JSON) to FILE" },
	{ .long_name = "json-compact",
	  .kind = OPTION_FLAG,
	  .where = JSON_OUTPUT(compact),
	  .help = "the document on one line, on a terminal too" },
	OPTION_TABLE_END,
};

int json_output_finish(const struct json_output *json)
{
	if (json->compact && !json->path)
		return usage_error("--json-compact needs --json FILE");
	return 0;
}

const struct option_spec verbose_options[] = {
	{ .long_name = "verbose",
	  .short_name = 'v',
	  .kind = OPTION_COUNTER,
	  .where = { 0, sizeof(int) },
	  .help = "say what is done and read (twice: debug)" },
	OPTION_TABLE_END,
};
