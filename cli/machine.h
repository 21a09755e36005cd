/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLI_MACHINE_H
#define LATSCOPE_CLI_MACHINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/rt.h"
#include "latscope/sysroot.h"
#include "latscope/topology.h"

struct validity;

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
 * machine_affinity_cpus - the online CPUs this process runs on now
 * @online: the online CPUs
 * @affinity: receives those of its affinity: the shell's choice (taskset,
 *	      or the housekeeping CPUs under isolcpus=), which a command
 *	      takes where the user names no CPU, as cyclictest does
 *
 * Returns 0, or EXIT_ERROR after one line saying why.
 */
int machine_affinity_cpus(const struct cpuset *online, struct cpuset *affinity);

/**
 * machine_allowed_cpus - the online CPUs this process may be placed on
 * @root: where its cgroups are read (machine_open()'s)
 * @online: the online CPUs
 * @allowed: receives those its cpuset allows: isolcpus= starts a process
 *	     on the housekeeping CPUs, yet it may move onto the isolated
 *	     ones (allowed_cpus_read(), which says when it can only go by the
 *	     affinity)
 *
 * Returns 0, or EXIT_ERROR after one line saying why.
 */
int machine_allowed_cpus(struct sysroot *root, const struct cpuset *online, struct cpuset *allowed);

/**
 * machine_cpus_refused - whether the machine cannot give a user's CPUs
 * @option: the option as the user gave it, for the message ("--cpus",
 *	    "-a '2,3'")
 * @set: the CPUs asked
 * @online: the online CPUs
 * @allowed: those this process may be placed on (machine_allowed_cpus())
 * @why: receives the one line that says which CPUs and why, when refused
 * @size: its size
 *
 * The one rule for a CPU list a command measures on: online, and allowed
 * by the process's cpuset. Checked before any work.
 */
bool machine_cpus_refused(const char *option, const struct cpuset *set, const struct cpuset *online,
			  const struct cpuset *allowed, char *why, size_t size);

/*
 * What a measurement holds of the machine while it runs (timer, noise,
 * monitor): locked memory, a PM QoS request on /dev/cpu_dma_latency, and
 * the main thread kept off the measured CPUs. Taken by machine_hold(),
 * given back by machine_release() on every way out; a signal only sets the
 * stop flag, so the run's own end releases it, and were the process killed
 * the kernel would drop both with it.
 */

/* Whether memory is locked, and what a failure to lock means. */
enum machine_lock {
	MACHINE_LOCK_NONE, /* not asked (timer without -m) */
	MACHINE_LOCK_TRY, /* tried; a failure is a warning and the run goes on */
	MACHINE_LOCK_REQUIRED, /* a failure is an error (timer -m) */
};

/* What a command asks of the machine. */
struct machine_wants {
	enum machine_lock lock;
	const char *fault_shows_as; /* what an unlocked page fault looks like: "gaps", "latency" */
	bool pm_qos; /* hold /dev/cpu_dma_latency */
	int32_t pm_qos_us; /* at this exit latency (0: stay out of idle states) */
};

/* What is held; zeroed: nothing. */
struct machine_hold {
	bool memory_locked;
	bool pm_qos_held;
	struct rt_dma_latency pm_qos;
	int32_t pm_qos_us;
	char failed[128]; /* after a failure: what could not be held and why, in words */
};

/**
 * machine_hold - lock memory and hold PM QoS as @wants says
 * @hold: zeroed, receives what is held; machine_release() it, also after a failure
 * @root: where /dev/cpu_dma_latency is
 * @wants: what the command asks
 *
 * Returns 0, or EXIT_ERROR when a required lock or the PM QoS request
 * fails: the library said why in its line, and @hold->failed keeps it in
 * words ("cannot lock memory: ...") for a caller that reports it again
 * (doctor's parts).
 */
int machine_hold(struct machine_hold *hold, struct sysroot *root,
		 const struct machine_wants *wants);

/**
 * machine_place_main - keep the calling (main) thread off the measured CPUs
 * @online: the online CPUs
 * @measured: the CPUs the measuring threads run on
 * @chosen: the user's choice (timer's --mainaffinity), or NULL
 *
 * After the measuring threads exist when they inherit the main thread's
 * CPUs (timer's unpinned threads). A failure costs accuracy, not the run.
 */
void machine_place_main(const struct cpuset *online, const struct cpuset *measured,
			const struct cpuset *chosen);

/* Give back what @hold holds; safe to repeat, and on a zeroed hold. */
void machine_release(struct machine_hold *hold);

/* Record in @v whether the PM QoS request was held, and at what value. */
void machine_hold_validity(const struct machine_hold *hold, struct validity *v);

/**
 * machine_block_stop_signals - block SIGINT, SIGTERM and SIGHUP outside a wait
 * @outside: receives the mask to wait with (and to restore at the end)
 *
 * A stop signal that comes between a check of the flag and the wait is
 * then not missed: it is taken when the wait unblocks it.
 */
void machine_block_stop_signals(sigset_t *outside);

#endif
