// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "cli.h"
#include "machine.h"

int machine_open(const char *root_dir, struct sysroot **root, struct topology *topo)
{
	memset(topo, 0, sizeof(*topo));
	*root = sysroot_new(root_dir);
	if (!*root)
		return runtime_error("out of memory");
	/* the library said why */
	return topology_load(*root, topo) ? EXIT_ERROR : 0;
}

int machine_allowed_cpus(const struct cpuset *online, struct cpuset *allowed)
{
	cpu_set_t mask;
	int cpu;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return runtime_error("cannot read this process's cpu affinity: %s",
				     strerror(errno));
	cpuset_clear(allowed);
	cpuset_for_each(cpu, online)
		if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask))
			cpuset_add(allowed, (unsigned int)cpu);
	return 0;
}
