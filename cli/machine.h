/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_MACHINE_H
#define LATSCOPE_CLI_MACHINE_H

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

/*
 * The machine a command works on: its root (this machine, or a --root
 * tree) and its CPUs. What every command does first, once.
 */

/**
 * machine_open - the root and its topology
 * @root_dir: --root, or NULL for this machine
 * @root: receives the root; sysroot_free() it, also after a failure
 * @topo: receives the topology; topology_release() it, also after a failure
 *
 * Returns 0, or EXIT_ERROR after one line saying why.
 */
int machine_open(const char *root_dir, struct sysroot **root, struct topology *topo);

/**
 * machine_allowed_cpus - the online CPUs this process may run on
 * @online: the online CPUs
 * @allowed: receives those in the process's affinity
 *
 * Returns 0, or EXIT_ERROR after one line saying why.
 */
int machine_allowed_cpus(const struct cpuset *online, struct cpuset *allowed);

#endif
