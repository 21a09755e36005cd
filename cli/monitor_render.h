/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_MONITOR_RENDER_H
#define LATSCOPE_CLI_MONITOR_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latscope/monitor.h"
#include "latscope/monitor_state.h"
#include "monitor_options.h"

/*
 * What latscope monitor prints: a header once it measures, a line per CPU
 * redrawn every second on a terminal, and a summary at the end (this run's
 * wake-ups beside the state's, since it began). Nothing else is printed
 * while it runs: under systemd, stdout is the journal.
 */

/* What the header says besides the options. */
struct monitor_setup {
	enum state_outcome outcome;
	const char *listen; /* as given, or the default */
	unsigned int port; /* the port bound (the one chosen for port 0) */
	bool tls, basic_auth;
	bool dma_latency_held;
	bool memory_locked;
};

void monitor_render_header(FILE *out, const struct monitor_options *o, const struct monitor *m,
			   const struct monitor_setup *setup);

/* The live lines; @first: nothing drawn yet, else they are drawn over. */
void monitor_render_live(FILE *out, struct monitor *m, bool first);
/* Clear the live lines so the summary takes their place. */
void monitor_render_live_clear(FILE *out, const struct monitor *m);

/* How the run ended, for the summary and the JSON. */
enum monitor_end {
	MONITOR_END_STOPPED, /* a signal */
	MONITOR_END_COMPLETE, /* --duration */
	MONITOR_END_FAILED, /* a measuring thread failed */
};

const char *monitor_end_name(enum monitor_end end);

void monitor_render_summary(FILE *out, struct monitor *m, enum monitor_end end, int signo,
			    uint64_t elapsed_ns);

#endif
