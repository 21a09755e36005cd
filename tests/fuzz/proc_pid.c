// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/PID/stat and /proc/PID/status of a task in a --root tree, as the
 * audit reads them (command, flags, allowed CPUs) and as the search for a
 * running irqbalance does. The input is the stat text, a NUL byte, and the
 * status text.
 */
#include "fuzz.h"
#include "latscope/audit.h"
#include "latscope/irq.h"
#include "latscope/topology.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* two CPUs, the second one isolated: the task rules have work to do */
	fuzz_put("sys/devices/system/cpu/online", "0-1\n", 4);
	fuzz_put("sys/devices/system/cpu/possible", "0-1\n", 4);
	fuzz_put("sys/devices/system/cpu/isolated", "1\n", 2);
	fuzz_put("proc/cmdline", "isolcpus=1\n", 11);
	fuzz_put("proc/4242/comm", "irqbalance\n", 11);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *split = memchr(data, '\0', size);
	size_t stat_size = split ? (size_t)(split - data) : size;
	struct audit_report report;
	struct topology topo;
	struct sysroot *root;

	fuzz_put("proc/4242/stat", data, stat_size);
	if (split)
		fuzz_put("proc/4242/status", split + 1, size - stat_size - 1);
	else
		fuzz_put("proc/4242/status", data, size);
	root = sysroot_new(fuzz_tree());
	if (!root)
		abort();
	if (!topology_load(root, &topo)) {
		if (!audit_run(root, &topo, NULL, &report))
			audit_report_release(&report);
		topology_release(&topo);
	}
	irq_balancer_pid(root);
	sysroot_free(root);
	return 0;
}
