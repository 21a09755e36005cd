// SPDX-License-Identifier: GPL-2.0-or-later
#include <time.h>

#include "audit_internal.h"

const struct counters_run *audit_sample(struct audit_context *ctx, struct audit_finding *f)
{
	struct timespec pause = { 0, (long)AUDIT_SAMPLE_NS };

	if (!sysroot_is_live(ctx->root)) {
		finding_skip(f,
			     "watching what the RT CPUs take needs the live machine, not a tree");
		return NULL;
	}
	if (!ctx->sampled) {
		ctx->sampled = true;
		ctx->sample = counters_begin(ctx->root, &ctx->rt);
		if (ctx->sample) {
			while (clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, &pause))
				;
			counters_end(ctx->sample);
		}
	}
	if (!ctx->sample)
		finding_skip(f, "the interrupt counters cannot be read");
	return ctx->sample;
}

void audit_sample_release(struct audit_context *ctx)
{
	counters_free(ctx->sample);
	ctx->sample = NULL;
	ctx->sampled = false;
}
