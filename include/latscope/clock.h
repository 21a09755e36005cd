/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_CLOCK_H
#define LATSCOPE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* A POSIX clock read as ns: cheap (vDSO), for loops and timestamps alike. */
static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ns as a struct timespec, for clock_nanosleep and timers. */
static inline struct timespec clock_timespec(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	return ts;
}

#endif
