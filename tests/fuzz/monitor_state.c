// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The monitor's state file, as a restarted monitor reads it back: the
 * header, then CPU by CPU (state_read() parses one CPU's object at a time)
 * into counts, windows and what --explain kept (state_cpu_parse()). A
 * state is a file an operator may edit, truncate or restore from a backup.
 */
#include "fuzz.h"
#include "latscope/monitor_state.h"

struct reader {
	uint64_t window_ns;
	uint64_t *counts;
	unsigned int cpus;
};

static int on_header(void *context, json_t *header, char *why, size_t size)
{
	struct reader *r = context;
	json_int_t window =
		json_integer_value(json_object_get(json_object_get(header, "params"), "window_ns"));

	(void)why;
	(void)size;
	/* the monitor refuses another window length; any length is read here */
	r->window_ns = window > 0 ? (uint64_t)window : 1000000000ULL;
	return 0;
}

static int on_cpu(void *context, struct jsondoc *doc, json_t *cpu, char *why, size_t size)
{
	struct reader *r = context;
	struct monitor_cpu_reading reading = { .counts = r->counts };
	struct monitor_explained explained;
	struct monitor_blocks blocks;
	struct window_ring *windows = window_ring_new(64);
	struct window_ring_cursor cursor;
	struct monitor_window window;
	int ret;

	if (!windows)
		abort();
	ret = state_cpu_parse(doc, cpu, &reading, windows, r->window_ns, &explained, &blocks, why,
			      size);
	if (ret && ret != STATE_CORRUPT)
		abort();
	/* blocks taken are whole: they add up to the counts, or say some were lost */
	if (!ret && !blocks.store.lost && !monitor_blocks_add_up(&blocks, &reading))
		abort();
	monitor_blocks_release(&blocks);
	if (ret && !why[0])
		abort(); /* a corrupt state says why */
	for (window_ring_begin(windows, &cursor); window_ring_next(&cursor, &window);)
		monitor_window_p99_ns(&window);
	window_ring_free(windows);
	r->cpus++;
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { .counts = calloc(NATIVE_SLOTS, sizeof(uint64_t)) };
	char path[512], why[512] = "";
	int outcome;

	if (!r.counts)
		abort();
	fuzz_put("var/lib/latscope/monitor.json", data, size);
	snprintf(path, sizeof(path), "%s/var/lib/latscope/monitor.json", fuzz_tree());
	outcome = state_read(path, on_header, on_cpu, &r, why, sizeof(why));
	if (outcome != STATE_CONTINUED && outcome != STATE_CORRUPT && outcome != STATE_MISMATCH &&
	    outcome >= 0)
		abort();
	if ((outcome == STATE_CORRUPT || outcome == STATE_MISMATCH) && !why[0])
		abort();
	free(r.counts);
	return 0;
}
