// SPDX-License-Identifier: GPL-2.0-or-later
/* A measurement's validity said to the user, and --strict's exit status. */
#include <jansson.h>
#include <unistd.h>

#include "cli.h"
#include "validity_report.h"

int validity_strict_check_root(bool strict)
{
	if (!strict || geteuid() == 0)
		return EXIT_OK;
	return runtime_error("--strict needs root: a real-time policy, /dev/cpu_dma_latency and "
			     "tracing (--explain) are root's, so without it the run cannot meet "
			     "its conditions");
}

int validity_say_explain(const struct validity *v, bool strict)
{
	if (!v->explain_wanted || v->explain_traced)
		return EXIT_OK;
	cli_say("validity: --explain could not trace (no tracefs or no events): the spikes "
		"will be explained with counters only");
	if (!strict)
		return EXIT_OK;
	return runtime_error("--strict: not measuring without the tracing --explain asked for");
}

int validity_say_lines(const json_t *lines, bool strict, int status)
{
	size_t i, n = json_array_size(lines);

	for (i = 0; i < n; i++)
		cli_say("validity: %s", json_string_value(json_array_get(lines, i)));
	if (!strict || !n)
		return status;
	cli_say("--strict: %zu condition%s of the measurement fell short: exit 1", n,
		n == 1 ? "" : "s");
	return EXIT_ERROR;
}

int validity_say(const struct validity *v, bool strict, int status)
{
	json_t *lines = validity_shortfalls(v);

	if (!lines)
		return runtime_error("out of memory");
	status = validity_say_lines(lines, strict, status);
	json_decref(lines);
	return status;
}
