// SPDX-License-Identifier: GPL-2.0-or-later
/* Whether tracing is running now, in the top instance or any other. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "audit_internal.h"
#include "latscope/trace.h"

struct tracing_state {
	unsigned int tracers; /* instances with a tracer other than nop */
	unsigned int events_on; /* instances recording events */
	unsigned int events_off; /* instances with events enabled but tracing_on=0 */
	char where[256]; /* the instances found active */
	unsigned int unreadable; /* files there that did not read: no pass */
	char first_unreadable[320];
};

/* A file that is there but does not read says nothing: no tracer is not proven. */
static void note_unreadable(struct audit_finding *f, struct tracing_state *state, const char *dir,
			    const char *file, int err)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	finding_evidence(f, path, "unreadable: %s", strerror(-err));
	if (!state->unreadable++)
		snprintf(state->first_unreadable, sizeof(state->first_unreadable), "%s: %s", path,
			 strerror(-err));
}

static void check_instance(struct audit_context *ctx, struct audit_finding *f, const char *dir,
			   const char *name, struct tracing_state *state)
{
	char tracer[64], events[4096];
	long long on = 1;
	int ret;

	ret = audit_read(ctx, f, tracer, sizeof(tracer), "%s/current_tracer", dir);
	if (ret >= 0 && strcmp(tracer, "nop")) {
		state->tracers++;
		audit_list_append(state->where, sizeof(state->where), "%s: tracer %s", name,
				  tracer);
	} else if (ret < 0 && ret != -ENOENT) {
		note_unreadable(f, state, dir, "current_tracer", ret == -EFBIG ? -EINVAL : ret);
	}
	/* a long event list does not fit: it is certainly not empty */
	ret = audit_read(ctx, f, events, sizeof(events), "%s/set_event", dir);
	if (ret == -EFBIG)
		ret = 1;
	if (ret < 0 && ret != -ENOENT)
		note_unreadable(f, state, dir, "set_event", ret);
	if (ret <= 0)
		return;
	audit_read_integer(ctx, f, &on, "%s/tracing_on", dir);
	if (on)
		state->events_on++;
	else
		state->events_off++;
	audit_list_append(state->where, sizeof(state->where), "%s: events%s", name,
			  on ? "" : " (tracing_on=0)");
}

static void check_tracing_active(struct audit_context *ctx, struct audit_finding *f)
{
	static const char *const mounts[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct tracing_state state = { 0 };
	const char *top = NULL;
	struct dirent *entry;
	char instance[512], own[64];
	size_t i;
	DIR *dir;

	finding_expected(f, "current_tracer nop and no events enabled, in every instance");
	for (i = 0; i < ARRAY_SIZE(mounts) && !top; i++)
		if (sysroot_exists(ctx->root, "%s/current_tracer", mounts[i]))
			top = mounts[i];
	if (!top) {
		finding_skip(f, "tracefs is not mounted (neither /sys/kernel/tracing nor "
				"/sys/kernel/debug/tracing)");
		return;
	}
	check_instance(ctx, f, top, "top instance", &state);
	/*
	 * This process's own session is not the machine's configuration: the
	 * monitor auditing its drift while --explain traces would otherwise
	 * always find tracing active. Another latscope's session counts.
	 */
	snprintf(own, sizeof(own), TRACE_INSTANCE_PREFIX "%d", (int)getpid());
	dir = sysroot_opendir(ctx->root, "%s/instances", top);
	if (!dir && errno != ENOENT)
		note_unreadable(f, &state, top, "instances", -errno);
	while (dir && (entry = readdir(dir))) {
		if (entry->d_name[0] == '.' || !strcmp(entry->d_name, own))
			continue;
		snprintf(instance, sizeof(instance), "%s/instances/%s", top, entry->d_name);
		check_instance(ctx, f, instance, entry->d_name, &state);
	}
	if (dir)
		closedir(dir);
	if (!state.tracers && !state.events_on && !state.events_off && state.unreadable) {
		finding_skip(f, "no tracer or event found, but %u files did not read: %s",
			     state.unreadable, state.first_unreadable);
		return;
	}
	if (!state.tracers && !state.events_on && !state.events_off) {
		finding_pass(f, "no tracer and no event enabled");
		return;
	}
	if (!state.tracers)
		f->severity = AUDIT_MEDIUM;
	if (state.tracers || state.events_on)
		finding_fail(f, "tracing is active: %s", state.where);
	else
		finding_warn(f, "events are enabled but not recorded: %s", state.where);
	finding_fix(f,
		    "stop it: trace-cmd reset (or echo nop > %s/current_tracer; "
		    "echo > %s/set_event, and the same in each instance)",
		    top, top);
}

const struct audit_rule audit_tracing_rules[] = {
	{ "kernel.tracing_active", "Tracing running now", AUDIT_HIGH,
	  "A running tracer or enabled trace events add work to every traced call, "
	  "microseconds with function tracing.",
	  check_tracing_active },
};
const size_t audit_tracing_rule_count = ARRAY_SIZE(audit_tracing_rules);
