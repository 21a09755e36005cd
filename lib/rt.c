// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/rt.h"

int rt_policy_parse(const char *name, enum rt_policy *policy)
{
	if (!strcmp(name, "other") || !strcmp(name, "normal"))
		*policy = RT_POLICY_OTHER;
	else if (!strcmp(name, "fifo"))
		*policy = RT_POLICY_FIFO;
	else if (!strcmp(name, "rr"))
		*policy = RT_POLICY_RR;
	else if (!strcmp(name, "batch"))
		*policy = RT_POLICY_BATCH;
	else if (!strcmp(name, "idle"))
		*policy = RT_POLICY_IDLE;
	else
		return -EINVAL;
	return 0;
}

const char *rt_policy_name(enum rt_policy policy)
{
	switch (policy) {
	case RT_POLICY_FIFO:
		return "fifo";
	case RT_POLICY_RR:
		return "rr";
	case RT_POLICY_BATCH:
		return "batch";
	case RT_POLICY_IDLE:
		return "idle";
	default:
		return "other";
	}
}

int rt_pin_self(unsigned int cpu)
{
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret) {
		log_error("cannot run on cpu %u: %s", cpu, strerror(ret));
		return -ret;
	}
	return 0;
}

int rt_place_main_thread(const struct cpuset *online, const struct cpuset *measured,
			 const struct cpuset *chosen)
{
	struct cpuset target;
	cpu_set_t set;
	char list[256];
	int cpu, ret;

	if (chosen)
		target = *chosen;
	else
		cpuset_andnot(&target, online, measured);
	if (cpuset_empty(&target)) {
		log_info("no housekeeping cpu: the main thread shares the measured cpus");
		return 0;
	}
	CPU_ZERO(&set);
	cpuset_for_each(cpu, &target)
		if (cpu < CPU_SETSIZE)
			CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret) {
		log_error("cannot move the main thread to cpus %s: %s",
			  cpuset_format_list(&target, list, sizeof(list)), strerror(ret));
		return -ret;
	}
	log_info("main thread on cpus %s", cpuset_format_list(&target, list, sizeof(list)));
	return 0;
}

int rt_start_housekeeping_thread(pthread_t *thread, const struct cpuset *cpus, void *(*run)(void *),
				 void *arg)
{
	pthread_attr_t attr;
	sigset_t all, old;
	cpu_set_t set;
	int cpu, ret;

	pthread_attr_init(&attr);
	/*
	 * Under mlockall(MCL_FUTURE) a thread's whole stack is locked: glibc's
	 * 8 MiB default made four helpers 32 MiB of a monitor's RSS, where the
	 * audit, the trace reader and the checkpoints touch 16-32 KiB.
	 */
	pthread_attr_setstacksize(&attr, RT_HOUSEKEEPING_STACK_BYTES);
	if (cpus && !cpuset_empty(cpus)) {
		CPU_ZERO(&set);
		cpuset_for_each(cpu, cpus)
			if (cpu < CPU_SETSIZE)
				CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	/* the new thread inherits the mask: signals stay with the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(thread, &attr, run, arg);
	if (ret == EINVAL && cpus && !cpuset_empty(cpus)) {
		/* CPUs this process may not use (a cgroup): run where it may */
		log_warning("cannot place a housekeeping thread on its cpus: it runs anywhere");
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, RT_HOUSEKEEPING_STACK_BYTES);
		ret = pthread_create(thread, &attr, run, arg);
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		log_error("cannot start a housekeeping thread: %s", strerror(ret));
		return -ret;
	}
	return 0;
}

int rt_set_self_policy(enum rt_policy policy, int priority)
{
	struct sched_param param = { 0 };
	int kernel_policy = SCHED_OTHER, ret;

	if (policy == RT_POLICY_FIFO)
		kernel_policy = SCHED_FIFO;
	else if (policy == RT_POLICY_RR)
		kernel_policy = SCHED_RR;
	else if (policy == RT_POLICY_BATCH)
		kernel_policy = SCHED_BATCH;
	else if (policy == RT_POLICY_IDLE)
		kernel_policy = SCHED_IDLE;
	if (rt_policy_is_realtime(policy))
		param.sched_priority = priority;
	ret = pthread_setschedparam(pthread_self(), kernel_policy, &param);
	if (ret) {
		log_error("cannot set policy %s priority %d: %s%s", rt_policy_name(policy),
			  param.sched_priority, strerror(ret),
			  ret == EPERM ? " (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)" : "");
		return -ret;
	}
	return 0;
}

int rt_lock_memory(bool required, const char *fault_shows_as)
{
	const char *hint;
	int err;

	if (!mlockall(MCL_CURRENT | MCL_FUTURE))
		return 0;
	err = errno;
	hint = err == ENOMEM || err == EPERM ? " (raise RLIMIT_MEMLOCK or run as root)" : "";
	if (required)
		log_error("cannot lock memory: %s%s", strerror(err), hint);
	else
		log_warning("cannot lock memory: %s%s: measuring with unlocked memory, page "
			    "faults may show as %s",
			    strerror(err), hint, fault_shows_as);
	return -err;
}

void rt_unlock_memory(void)
{
	munlockall();
}

void rt_prefault_stack(size_t bytes)
{
	volatile unsigned char *stack = alloca(bytes);
	size_t i;

	for (i = 0; i < bytes; i += 4096)
		stack[i] = 0;
}

/*
 * The program's signal-stop flag, the one global of the library: long
 * preparations (prefaulting gigabytes of buffers) look at it so that a
 * SIGTERM does not wait for them.
 */
static const volatile sig_atomic_t *stop_flag;

void rt_set_stop_flag(const volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

bool rt_stop_requested(void)
{
	sigset_t pending;

	if (stop_flag && *stop_flag)
		return true;
	/* a caller that blocks its stop signals while it starts threads has them pending */
	return !sigpending(&pending) &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
		sigismember(&pending, SIGHUP) == 1);
}

/* prefaulted this much at a time, a stop request checked in between */
#define PREFAULT_CHUNK (2UL << 20)

void *rt_alloc_local(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char *ptr;
	size_t done, chunk, i;

	if (!size)
		return NULL;
	if (page <= 0)
		page = 4096;
	/*
	 * Reserved inaccessible, then made writable and faulted in a chunk at
	 * a time: under mlockall(MCL_FUTURE) a writable mapping is populated
	 * whole by mmap itself, gigabytes that no signal could interrupt.
	 */
	ptr = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ptr == MAP_FAILED) {
		log_error("cannot allocate %zu bytes: %s", size, strerror(errno));
		return NULL;
	}
	/* on this CPU's node, as numa_alloc_local() places it */
	if (numa_available() >= 0)
		numa_setlocal_memory((void *)ptr, size);
	for (done = 0; done < size; done += chunk) {
		chunk = size - done < PREFAULT_CHUNK ? size - done : PREFAULT_CHUNK;
		if (rt_stop_requested()) {
			log_debug("stopped while preparing %zu bytes", size);
			munmap((void *)ptr, size);
			errno = EINTR;
			return NULL;
		}
		if (mprotect((void *)(ptr + done), chunk, PROT_READ | PROT_WRITE)) {
			log_error("cannot allocate %zu bytes: %s", size, strerror(errno));
			munmap((void *)ptr, size);
			return NULL;
		}
		/* the kernel hands out zeroed pages: one write per page faults it in */
		for (i = 0; i < chunk; i += (size_t)page)
			ptr[done + i] = 0;
	}
	return (void *)ptr;
}

void rt_free_local(void *ptr, size_t size)
{
	if (ptr)
		munmap(ptr, size);
}

const char *rt_memory_limit(bool locked, uint64_t *bytes)
{
	long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
	struct rlimit limit;

	/* half: the run shares the machine with what it measures */
	*bytes =
		pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size / 2 : UINT64_MAX;
	if (locked && geteuid() && !getrlimit(RLIMIT_MEMLOCK, &limit) &&
	    limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < *bytes) {
		*bytes = limit.rlim_cur;
		return "RLIMIT_MEMLOCK";
	}
	return "half of the RAM";
}

int rt_dma_latency_hold(struct sysroot *root, int32_t value_us, struct rt_dma_latency *hold)
{
	ssize_t n;
	int fd;

	hold->fd = -1;
	hold->value_us = value_us;
	fd = sysroot_open(root, O_WRONLY, "/dev/cpu_dma_latency");
	if (fd < 0) {
		log_error("cannot open /dev/cpu_dma_latency: %s (use --no-dma-latency to measure "
			  "without a PM QoS request)",
			  strerror(-fd));
		return fd;
	}
	/* The binary s32 form; the request lives as long as the descriptor. */
	n = write(fd, &value_us, sizeof(value_us));
	if (n != (ssize_t)sizeof(value_us)) {
		int err = n < 0 ? errno : EIO;

		close(fd);
		log_error("cannot write /dev/cpu_dma_latency: %s", strerror(err));
		return -err;
	}
	hold->fd = fd;
	return 0;
}

void rt_dma_latency_release(struct rt_dma_latency *hold)
{
	if (hold->fd >= 0)
		close(hold->fd);
	hold->fd = -1;
}

int rt_read_throttling(struct sysroot *root, struct rt_throttling *limit)
{
	int ret;

	ret = sysroot_read_integer(root, &limit->runtime_us,
				   "/proc/sys/kernel/sched_rt_runtime_us");
	if (!ret)
		ret = sysroot_read_integer(root, &limit->period_us,
					   "/proc/sys/kernel/sched_rt_period_us");
	return ret;
}

bool rt_throttling_active(const struct rt_throttling *limit)
{
	return limit->runtime_us >= 0 && limit->runtime_us < limit->period_us;
}
