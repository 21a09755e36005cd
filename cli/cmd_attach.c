// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latscope attach: the user's own program, unmodified, measured from the
 * kernel's events: every activation of each of its threads, the latency
 * of a timer wake-up as the program itself would measure it and of any
 * other wake-up from the wake-up on. The run is attach_session.c's, the
 * lines and the document attach_report.c's; this is the order they come
 * in and the exit status.
 */
#include <errno.h>
#include <string.h>

#include "attach_session.h"
#include "cli.h"
#include "latscope/parse.h"
#include "option_table.h"
#include "output_path.h"

#define ATTACH(member) OPTION_FIELD(struct attach_options, member)

static const struct option_spec attach_option_specs[] = {
	{ .long_name = "pid",
	  .kind = OPTION_TEXT,
	  .where = ATTACH(pid),
	  .value_name = "PID",
	  .help = "every thread of process PID, and those it starts" },
	{ .long_name = "tid",
	  .kind = OPTION_TEXT,
	  .where = ATTACH(tid),
	  .value_name = "TID",
	  .help = "that one thread" },
	{ .long_name = "comm",
	  .kind = OPTION_TEXT,
	  .where = ATTACH(comm),
	  .value_name = "NAME",
	  .help = "every thread named NAME, in any process, and those started later" },
	{ .long_name = "cgroup",
	  .kind = OPTION_TEXT,
	  .where = ATTACH(cgroup),
	  .value_name = "CGROUP",
	  .help = "every thread of a cgroup v2, and those started later" },
	OPTION_RUN_DURATION(ATTACH(duration_ns), .default_text = "until the target ends"),
	OPTION_INCLUDE_AT(json_output_options, ATTACH(json)),
	{ .long_name = "activations",
	  .kind = OPTION_OUTPUT_FILE,
	  .where = ATTACH(activations_path),
	  .help = "write every activation: tid, kind, cpu, expiry, wake-up, switch-in, return, "
		  "latency" },
	{ .long_name = "quiet",
	  .short_name = 'q',
	  .kind = OPTION_FLAG,
	  .where = ATTACH(quiet),
	  .help = "no live view (on a terminal the T: lines are redrawn as they change)" },
	OPTION_INCLUDE_AT(verbose_options, ATTACH(verbose)),
	OPTION_TABLE_END,
};

/* Exactly one target. */
static int attach_finish(void *options, void *context)
{
	static const char *const names[] = { "pid", "tid", "comm", "cgroup" };
	struct attach_options *o = options;
	const char *given[] = { o->pid, o->tid, o->comm, o->cgroup };
	unsigned int i, nr = 0;

	(void)context;
	for (i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i]) {
			if (!*given[i])
				return usage_error("--%s needs a value", names[i]);
			o->target.by = (enum attach_by)i;
			o->target.value = given[i];
			nr++;
		}
	if (nr != 1)
		return usage_error("name one target: --pid, --tid, --comm or --cgroup");
	return json_output_finish(&o->json);
}

const struct option_command attach_command = {
	.name = "attach",
	.description = "Measure a running program's own threads, unmodified: each activation's\n"
		       "latency from the kernel's events, a timer wake-up from the expiry it\n"
		       "asked for, any other from the wake-up, as the program would see it.",
	.options = attach_option_specs,
	.size = sizeof(struct attach_options),
	.finish = attach_finish,
	.footer = "Durations take a unit: ns, us, ms, s, m, h. Exit status: 0 ok, 1 error (no\n"
		  "such target, no tracing), 129 usage error. See latscope-attach(1).",
};

/* --activations, through the one rule: whole or not at all */
static int write_activations(const struct attach_session *s)
{
	struct atomic_file file;
	int status = output_text_open(&file, "--activations", s->opts.activations_path);

	if (status)
		return status;
	attach_session_activations(file.stream, s);
	return output_text_commit(&file, "--activations", s->opts.activations_path);
}

int cmd_attach(int argc, char **argv)
{
	struct attach_session s = { 0 };
	json_t *doc;
	int status;

	if (!attach_session_prepare(&s, argc, argv, &status))
		goto out;
	if (signals_catch()) {
		status = runtime_error("cannot catch signals: %s", strerror(errno));
		goto out;
	}
	status = attach_session_run(&s);
	if (!s.origin_ns)
		goto out; /* nothing was measured: no result to show */
	if (s.end == ATTACH_END_TARGET)
		cli_say("the target ended after %.1f s; its results follow",
			(double)(s.end_ns - s.origin_ns) / 1e9);
	attach_session_report(stdout, &s);
	if (s.opts.activations_path && write_activations(&s))
		status = EXIT_ERROR;
	if (s.opts.json.path) {
		doc = attach_session_document(&s, status);
		if (output_json_write(&s.opts.json, doc))
			status = EXIT_ERROR;
	}
out:
	attach_session_free(&s);
	return status;
}
