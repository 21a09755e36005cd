// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lab's guest under TCG: keep the static keys of the given tracepoints
 * on for the guest's life, invisibly to tracefs.
 *
 * Turning a tracepoint's key on or off patches kernel text through an
 * int3, and multi-threaded TCG can go on running a stale translation of
 * the patched code: every vCPU then loops in exc_int3 (doc/HACKING.md,
 * "The lab"). A perf event on a tracepoint registers a probe, so the key is
 * on from the first event opened to the last closed; a tool that enables
 * the same tracepoint in tracefs later adds its own probe and patches
 * nothing. Perf events leave tracefs as a fresh machine has it (no
 * instance, no event enabled), so what a command finds there is untouched.
 *
 * usage: hold-tracepoints ID...   (the ids of events/GROUP/EVENT/id)
 * Opens one counting event per id and online CPU, says how many on
 * stderr, and waits until it is killed.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_tracepoint(unsigned long long id, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
}

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int held = 0, failed = 0;
	int i, cpu;

	for (i = 1; i < argc; i++) {
		char *end;
		unsigned long long id = strtoull(argv[i], &end, 10);

		if (*end || end == argv[i]) {
			fprintf(stderr, "hold-tracepoints: bad id '%s'\n", argv[i]);
			return 2;
		}
		for (cpu = 0; cpu < cpus; cpu++) {
			if (open_tracepoint(id, cpu) >= 0)
				held++;
			else
				failed++;
		}
	}
	fprintf(stderr, "hold-tracepoints: %u events held on %ld cpus, %u refused (%s)\n", held,
		cpus, failed, failed ? strerror(errno) : "none");
	for (;;)
		pause();
}
