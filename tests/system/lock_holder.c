// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A priority inversion that priority inheritance resolves, for system and
 * lab tests: a SCHED_OTHER thread "lab-holder" on HOLDER_CPU takes a PI
 * mutex every PERIOD and holds it for HOLD, spinning; a SCHED_FIFO thread
 * "lab-waiter" on WAITER_CPU then asks for the same mutex and blocks. The
 * kernel boosts the holder to the waiter's priority until it unlocks, so a
 * thread of lower real-time priority on HOLDER_CPU waits for a SCHED_OTHER
 * thread: latscope must name it as boosted.
 *
 * usage: lock-holder HOLDER_CPU WAITER_CPU PERIOD_US HOLD_US PRIORITY DURATION_MS
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock;
static atomic_int held;
static long long period_ns, hold_ns, stop_ns, start_ns;
static int holder_cpu, waiter_cpu, waiter_priority;

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

static long long number(const char *text)
{
	char *end;
	long long v = strtoll(text, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "lock-holder: bad number '%s'\n", text);
		exit(2);
	}
	return v;
}

static int pin(pthread_t thread, int cpu, const char *name)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setname_np(thread, name);
	return pthread_setaffinity_np(thread, sizeof(set), &set);
}

static void *holder(void *unused)
{
	long long next, until;

	(void)unused;
	for (next = start_ns; next < stop_ns; next += period_ns) {
		sleep_until(next);
		pthread_mutex_lock(&lock);
		atomic_store(&held, 1);
		until = now_ns() + hold_ns;
		while (now_ns() < until)
			;
		atomic_store(&held, 0);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *waiter(void *unused)
{
	long long next, give_up;

	(void)unused;
	for (next = start_ns; next < stop_ns; next += period_ns) {
		sleep_until(next);
		/* ask once the holder has it: it is boosted until it lets go */
		give_up = now_ns() + hold_ns;
		while (!atomic_load(&held) && now_ns() < give_up)
			;
		pthread_mutex_lock(&lock);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sched_param param = { 0 };
	pthread_mutexattr_t attr;
	pthread_attr_t fifo;
	pthread_t h, w;
	int err;

	if (argc != 7) {
		fprintf(stderr, "usage: lock-holder HOLDER_CPU WAITER_CPU PERIOD_US HOLD_US "
				"PRIORITY DURATION_MS\n");
		return 2;
	}
	holder_cpu = (int)number(argv[1]);
	waiter_cpu = (int)number(argv[2]);
	period_ns = number(argv[3]) * 1000;
	hold_ns = number(argv[4]) * 1000;
	waiter_priority = (int)number(argv[5]);
	start_ns = now_ns() + period_ns;
	stop_ns = now_ns() + number(argv[6]) * 1000000;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&lock, &attr);
	pthread_attr_init(&fifo);
	pthread_attr_setinheritsched(&fifo, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&fifo, SCHED_FIFO);
	param.sched_priority = waiter_priority;
	pthread_attr_setschedparam(&fifo, &param);
	err = pthread_create(&h, NULL, holder, NULL);
	if (!err)
		err = pin(h, holder_cpu, "lab-holder");
	if (!err)
		err = pthread_create(&w, &fifo, waiter, NULL);
	if (!err)
		err = pin(w, waiter_cpu, "lab-waiter");
	if (err) {
		fprintf(stderr, "lock-holder: %s\n", strerror(err));
		return 1;
	}
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	return 0;
}
