/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_RT_H
#define LATSCOPE_RT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/cpuset.h"
#include "latscope/sysroot.h"

/*
 * What a measurement thread needs to run undisturbed: pinning, a scheduling
 * policy, locked and prefaulted memory on its own NUMA node, and a PM QoS
 * request that keeps CPUs out of deep idle states. Kernel state changed here
 * (the PM QoS request) is undone by the matching release function, which the
 * commands call on every exit path.
 */
enum rt_policy {
	RT_POLICY_OTHER,
	RT_POLICY_FIFO,
	RT_POLICY_RR,
	RT_POLICY_BATCH, /* fair class, treated as CPU-bound (cyclictest --policy batch) */
	RT_POLICY_IDLE, /* runs only when nothing else wants the CPU */
};

/* "other" (or "normal"), "fifo", "rr", "batch", "idle"; returns 0 or -EINVAL */
int rt_policy_parse(const char *name, enum rt_policy *policy);
const char *rt_policy_name(enum rt_policy policy);
/* true for the policies that take a priority 1-99 (FIFO and RR) */
static inline bool rt_policy_is_realtime(enum rt_policy policy)
{
	return policy == RT_POLICY_FIFO || policy == RT_POLICY_RR;
}

/**
 * rt_pin_self - run the calling thread on one CPU only
 * Returns 0 or a negative errno code (logged).
 */
int rt_pin_self(unsigned int cpu);

/**
 * rt_place_main_thread - keep the calling (main) thread off the measured CPUs
 * @online: the online CPUs
 * @measured: the CPUs measurement threads run on
 * @chosen: an explicit set (e.g. --mainaffinity), or NULL
 *
 * Without @chosen, runs on online minus measured when that is not empty, and
 * says so at info level; otherwise stays where it is. Returns 0 or -errno.
 */
int rt_place_main_thread(const struct cpuset *online, const struct cpuset *measured,
			 const struct cpuset *chosen);

/* A helper thread's stack: 16-32 KiB used, locked in full under mlockall. */
#define RT_HOUSEKEEPING_STACK_BYTES (512 * 1024)

/**
 * rt_start_housekeeping_thread - start a helper thread away from the
 * measured CPUs (a server, a trace reader, a periodic audit)
 * @thread: receives the thread, to join with pthread_join()
 * @cpus: where it may run; NULL or empty: where the caller may
 * @run: the thread's function
 * @arg: passed to @run
 *
 * The thread blocks every signal (they go to the main thread), runs
 * SCHED_OTHER and has a stack of RT_HOUSEKEEPING_STACK_BYTES. Returns 0 or
 * a negative errno code (logged).
 */
int rt_start_housekeeping_thread(pthread_t *thread, const struct cpuset *cpus, void *(*run)(void *),
				 void *arg);

/**
 * rt_set_self_policy - set the calling thread's policy and priority
 * @policy: the policy
 * @priority: 1-99 for FIFO/RR, ignored for the others
 *
 * Returns 0, or a negative errno code (logged, with a hint when it is a
 * permission problem).
 */
int rt_set_self_policy(enum rt_policy policy, int priority);

/**
 * rt_lock_memory - lock current and future memory (mlockall)
 * @required: a failure is an error (logged as one); else a warning saying
 *	      that page faults may show as @fault_shows_as ("gaps", "latency")
 * @fault_shows_as: what an unlocked page fault looks like in the result
 * Returns 0 or a negative errno code (logged once, with a hint when the
 * limit or the right is missing). Undo with rt_unlock_memory().
 */
int rt_lock_memory(bool required, const char *fault_shows_as);
void rt_unlock_memory(void);

/* Touch @bytes of the calling thread's stack so no page fault happens later. */
void rt_prefault_stack(size_t bytes);

/**
 * rt_set_stop_flag - the program's signal-stop flag, set by its SIGINT,
 * SIGTERM and SIGHUP handler; long preparations give up when it is set
 * @flag: the flag (static storage), or NULL
 */
void rt_set_stop_flag(const volatile sig_atomic_t *flag);

/* true when the stop flag is set or a stop signal is pending, blocked */
bool rt_stop_requested(void);

/**
 * rt_alloc_local - allocate zeroed, prefaulted memory on the calling thread's
 * NUMA node (call after rt_pin_self)
 *
 * Gives up, with NULL and errno EINTR, when a stop is requested meanwhile.
 * Returns memory to free with rt_free_local(ptr, size), or NULL.
 */
void *rt_alloc_local(size_t size);
void rt_free_local(void *ptr, size_t size);

/**
 * rt_memory_limit - the most memory one run may take
 * @locked: the run locks its memory (mlockall)
 * @bytes: receives the limit
 *
 * Half of the RAM, or, for a run that locks its memory without root,
 * RLIMIT_MEMLOCK when that is lower. Returns a static description of where
 * the limit comes from ("half of the RAM", "RLIMIT_MEMLOCK").
 */
const char *rt_memory_limit(bool locked, uint64_t *bytes);

/* A held request on /dev/cpu_dma_latency: the kernel drops it on close. */
struct rt_dma_latency {
	int fd;
	int32_t value_us;
};

/**
 * rt_dma_latency_hold - ask that CPUs wake from idle within @value_us
 * @root: where /dev/cpu_dma_latency is
 * @value_us: the exit latency bound in us (0: stay out of idle states)
 * @hold: receives the open request; release with rt_dma_latency_release()
 *
 * Returns 0 or a negative errno code (logged).
 */
int rt_dma_latency_hold(struct sysroot *root, int32_t value_us, struct rt_dma_latency *hold);
void rt_dma_latency_release(struct rt_dma_latency *hold);

/* The kernel's real-time bandwidth limit: a spinning FIFO task loses
 * (period - runtime) of every period. runtime_us is -1 when unlimited. */
struct rt_throttling {
	long long runtime_us;
	long long period_us;
};

/**
 * rt_read_throttling - read sched_rt_runtime_us and sched_rt_period_us
 * Returns 0 or a negative errno code.
 */
int rt_read_throttling(struct sysroot *root, struct rt_throttling *limit);

/* true when a FIFO/RR task that never sleeps is throttled */
bool rt_throttling_active(const struct rt_throttling *limit);

#endif
