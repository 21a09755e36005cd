// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A known disturbance for system tests: a SCHED_FIFO thread pinned to one
 * CPU that wakes every PERIOD and spins for SPIN, under a distinctive name,
 * for DURATION. latscope must find it, measure it and name it. With EVERY
 * and LONG, every EVERY-th wake-up spins LONG instead: a slower source in
 * phase with the faster one (the first long spin is at the EVERY-th wake-up).
 *
 * usage: disturb CPU PERIOD_US SPIN_US PRIORITY DURATION_MS [NAME [EVERY LONG_US]]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long number(const char *text)
{
	char *end;
	long long v = strtoll(text, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "disturb: bad number '%s'\n", text);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct sched_param param;
	long long period, spin, stop, next, until, every = 0, long_spin = 0, wake_ups = 0;
	struct timespec wake;
	cpu_set_t set;

	if (argc < 6 || argc == 8) {
		fprintf(stderr, "usage: disturb CPU PERIOD_US SPIN_US PRIORITY DURATION_MS "
				"[NAME [EVERY LONG_US]]\n");
		return 2;
	}
	if (argc > 7) {
		every = number(argv[7]);
		long_spin = number(argv[8]) * 1000;
	}
	CPU_ZERO(&set);
	CPU_SET((int)number(argv[1]), &set);
	period = number(argv[2]) * 1000;
	spin = number(argv[3]) * 1000;
	param.sched_priority = (int)number(argv[4]);
	stop = now_ns() + number(argv[5]) * 1000000;
	prctl(PR_SET_NAME, argc > 6 ? argv[6] : "disturb", 0, 0, 0);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, param.sched_priority ? SCHED_FIFO : SCHED_OTHER, &param)) {
		fprintf(stderr, "disturb: %s\n", strerror(errno));
		return 1;
	}
	for (next = now_ns() + period; next < stop; next += period) {
		wake.tv_sec = next / 1000000000LL;
		wake.tv_nsec = next % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR)
			;
		wake_ups++;
		until = now_ns() + (every && wake_ups % every == 0 ? long_spin : spin);
		while (now_ns() < until)
			;
	}
	return 0;
}
