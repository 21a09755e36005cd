// SPDX-License-Identifier: GPL-2.0-or-later
/* Another balancer at work: two would undo each other's moves. */
#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "irq_internal.h"

bool irq_balancer_on_this_machine(struct sysroot *root, unsigned long pid)
{
	struct stat proc, interrupts;

	/* when it cannot be told (it exited, a fixture tree), assume it is */
	if (sysroot_stat(root, &proc, "/proc/%lu/root/proc", pid) ||
	    sysroot_stat(root, &interrupts, "/proc/%lu/root/proc/interrupts", pid))
		return true;
	return interrupts.st_dev == proc.st_dev;
}

int irq_balancer_pid(struct sysroot *root)
{
	struct dirent *entry;
	unsigned long pid;
	char comm[64];
	int found = 0;
	DIR *dir;

	dir = sysroot_opendir(root, "/proc");
	if (!dir)
		return 0;
	while (!found && (entry = readdir(dir))) {
		if (!irq_parse_number(entry->d_name, &pid) || pid > INT32_MAX)
			continue;
		/* a process may exit while we look: not an error */
		if (sysroot_read(root, comm, sizeof(comm), "/proc/%lu/comm", pid) > 0 &&
		    !strcmp(comm, "irqbalance") && irq_balancer_on_this_machine(root, pid))
			found = (int)pid;
	}
	closedir(dir);
	return found;
}
