// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An application that is not a benchmark, for `latscope attach`: two threads
 * pinned to CPU that wake up the two ways an application does, a timer and
 * another thread, and count their own activations, so a test can compare them
 * with what latscope counts from the kernel's events alone.
 *
 * "app-timer" reads a periodic timerfd (CLOCK_MONOTONIC, every PERIOD) in a
 * blocking loop: each read that returns is one activation ("reads"); a late
 * read may return more than one expiration, counted apart ("expirations").
 * After each read it hands off to "app-worker": a new sequence number in a
 * shared int and one FUTEX_WAKE on it (the raw system call, one wake per
 * hand-off). "app-worker" waits in FUTEX_WAIT on that int: each return that
 * sees a new number is one activation ("wakeups"); a FUTEX_WAIT that fails
 * with EAGAIN, the number having moved already, did not sleep ("no_sleep"); a
 * return that sees the same number is retried and not counted. For each thread
 * "slept" is how often it went to sleep while counting, its voluntary context
 * switches: a read or FUTEX_WAIT that returns without having slept (the timer
 * late by a period, hand-offs coalesced) is counted above but is not an
 * activation the kernel's events show. With PRIORITY, app-timer runs
 * SCHED_FIFO PRIORITY and app-worker SCHED_FIFO PRIORITY - 1 (SCHED_OTHER when
 * that is 0), and the memory is locked; without, both run SCHED_OTHER.
 *
 * As soon as both threads run, it prints "ready pid=P timer=T worker=W" on
 * stderr. Both threads then sleep 300 ms before app-timer first arms its
 * timerfd and app-worker first waits, so an attacher started on "ready"
 * follows them before their first counted sleep and can see every activation
 * they count (the end of that start delay is not one). DURATION after the
 * start delay, app-timer stops after its next read and marks that hand-off as
 * the last, on which app-worker stops too: nothing else wakes either thread.
 * Then one line of JSON on stdout:
 *
 *   {"pid": P, "start_ns": T0, "timer": {"tid": T, "reads": R, "expirations": E,
 *    "slept": S}, "worker": {"tid": W, "wakeups": K, "no_sleep": N, "slept": S}}
 *
 * T0 is the end of the start delay on CLOCK_MONOTONIC: the activations it
 * counts are those after it.
 *
 * usage: attach-app CPU PERIOD_US DURATION_MS [PRIORITY]
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define START_DELAY_NS 300000000LL
/* in the hand-off word, beside the sequence number: app-timer's last hand-off */
#define LAST 0x40000000

static atomic_int handoff; /* the futex word: the sequence number, LAST at the end */
static atomic_int gate; /* the futex word main opens once it said "ready" */
static atomic_int stop;
static atomic_int timer_tid, worker_tid;
static long long period_ns, start_ns;
static int timer_fd;
/* each written by its thread only, read by main after joining it */
static unsigned long long reads, expirations, timer_slept, wakeups, no_sleep, worker_slept;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long t)
{
	struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static long long number(const char *text, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end || errno || v < min || v > max) {
		fprintf(stderr, "attach-app: bad number '%s' (%lld to %lld)\n", text, min, max);
		exit(2);
	}
	return v;
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "attach-app: %s: %s\n", what, strerror(err));
	exit(1);
}

static long futex(atomic_int *word, int op, int value)
{
	return syscall(SYS_futex, word, op, value, NULL, NULL, 0);
}

/* Before "ready" and the attacher: no wake-up here is counted. */
static void wait_for_start(atomic_int *tid, const char *name)
{
	pthread_setname_np(pthread_self(), name);
	atomic_store(tid, gettid());
	while (!atomic_load(&gate))
		futex(&gate, FUTEX_WAIT, 0);
	sleep_until(start_ns);
}

/* The calling thread's voluntary context switches so far: its sleeps. */
static unsigned long long sleeps(void)
{
	struct rusage usage;

	if (getrusage(RUSAGE_THREAD, &usage))
		fail("getrusage", errno);
	return usage.ru_nvcsw;
}

static void arm(void)
{
	struct itimerspec spec = { 0 };

	spec.it_interval.tv_sec = period_ns / 1000000000LL;
	spec.it_interval.tv_nsec = period_ns % 1000000000LL;
	spec.it_value = spec.it_interval;
	if (timerfd_settime(timer_fd, 0, &spec, NULL))
		fail("timerfd_settime", errno);
}

static void *timer_thread(void *unused)
{
	uint64_t expired;
	ssize_t got;
	int last = 0, seq = 0;

	(void)unused;
	wait_for_start(&timer_tid, "app-timer");
	timer_slept = sleeps();
	arm();
	while (!last) {
		got = read(timer_fd, &expired, sizeof(expired));
		if (got < 0 && errno == EINTR)
			continue;
		if (got != sizeof(expired))
			fail("read timerfd", got < 0 ? errno : EIO);
		reads++;
		expirations += expired;
		last = atomic_load(&stop);
		seq = (seq + 1) % LAST;
		atomic_store(&handoff, last ? seq | LAST : seq);
		futex(&handoff, FUTEX_WAKE, 1);
	}
	timer_slept = sleeps() - timer_slept;
	return NULL;
}

static void *worker_thread(void *unused)
{
	int seen = 0, now, err;
	long ret;

	(void)unused;
	wait_for_start(&worker_tid, "app-worker");
	worker_slept = sleeps();
	while (!(seen & LAST)) {
		ret = futex(&handoff, FUTEX_WAIT, seen);
		err = ret ? errno : 0;
		if (err && err != EAGAIN && err != EINTR)
			fail("futex wait", err);
		now = atomic_load(&handoff);
		if (now == seen)
			continue;
		if (err == EAGAIN)
			no_sleep++;
		else
			wakeups++;
		seen = now;
	}
	worker_slept = sleeps() - worker_slept;
	return NULL;
}

/* Pinned and at its policy from its first instruction. */
static pthread_t start(void *(*body)(void *), int cpu, int priority, const char *name)
{
	struct sched_param param = { .sched_priority = priority };
	pthread_attr_t attr;
	pthread_t thread;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, priority > 0 ? SCHED_FIFO : SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &param);
	err = pthread_create(&thread, &attr, body, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, "attach-app: cannot start %s on CPU %d: %s\n", name, cpu,
			strerror(err));
		exit(1);
	}
	return thread;
}

static void wait_until_running(void)
{
	const struct timespec poll = { .tv_nsec = 1000000 };

	while (!atomic_load(&timer_tid) || !atomic_load(&worker_tid))
		nanosleep(&poll, NULL);
}

int main(int argc, char **argv)
{
	long long duration_ns;
	pthread_t timer, worker;
	int cpu, priority = 0;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: attach-app CPU PERIOD_US DURATION_MS [PRIORITY]\n");
		return 2;
	}
	cpu = (int)number(argv[1], 0, CPU_SETSIZE - 1);
	period_ns = number(argv[2], 1, 1000000000LL) * 1000;
	duration_ns = number(argv[3], 0, 1000000000LL) * 1000000;
	if (argc > 4)
		priority = (int)number(argv[4], 0, sched_get_priority_max(SCHED_FIFO));
	if (priority > 0)
		mlockall(MCL_CURRENT | MCL_FUTURE);
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (timer_fd < 0)
		fail("timerfd_create", errno);
	timer = start(timer_thread, cpu, priority, "app-timer");
	worker = start(worker_thread, cpu, priority > 1 ? priority - 1 : 0, "app-worker");
	wait_until_running();
	fprintf(stderr, "ready pid=%d timer=%d worker=%d\n", getpid(), atomic_load(&timer_tid),
		atomic_load(&worker_tid));
	fflush(stderr);
	start_ns = now_ns() + START_DELAY_NS;
	atomic_store(&gate, 1);
	futex(&gate, FUTEX_WAKE, INT_MAX);
	sleep_until(start_ns + duration_ns);
	atomic_store(&stop, 1);
	pthread_join(timer, NULL);
	pthread_join(worker, NULL);
	printf("{\"pid\": %d, \"start_ns\": %lld, \"timer\": {\"tid\": %d, \"reads\": %llu, "
	       "\"expirations\": %llu, \"slept\": %llu}, \"worker\": {\"tid\": %d, "
	       "\"wakeups\": %llu, \"no_sleep\": %llu, \"slept\": %llu}}\n",
	       getpid(), start_ns, atomic_load(&timer_tid), reads, expirations, timer_slept,
	       atomic_load(&worker_tid), wakeups, no_sleep, worker_slept);
	return fflush(stdout) ? 1 : 0;
}
