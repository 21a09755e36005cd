/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_ATTACH_TRACKER_H
#define LATSCOPE_ATTACH_TRACKER_H

#include <stdint.h>

#include "latscope/trace_record.h"

/*
 * The activations of someone else's threads, from the kernel's events
 * alone: a pure function of the records, fed in time order across CPUs.
 *
 * An activation is a thread's way from sleeping back to user space: it
 * goes to sleep (switched out, not runnable), is woken (sched_waking), is
 * switched in, and returns from the system call it slept in
 * (raw_syscalls:sys_exit). The timer it armed before sleeping
 * (timer:hrtimer_start by the thread itself: clock_nanosleep, a timerfd
 * re-armed in read(), the timeout of a futex or epoll wait) says what it
 * asked for:
 *
 * - woken at or after that timer's expiry: a timer wake-up, whose latency
 *   is what the application itself measures, from the requested expiry to
 *   the return to user space (cyclictest's number for cyclictest);
 * - woken before it, or with no timer armed: another wake-up (futex,
 *   epoll, I/O, a signal), measured from the wake-up to the return, with
 *   the switch-in between;
 * - back in user space without having slept, after the expiry of a timer
 *   it armed: a timer wake-up that needed no sleep (clock_nanosleep to an
 *   expiry already past, a late read of a periodic timerfd), from the
 *   expiry; woken_ns and switch_in_ns are 0. The first return after the
 *   expiry is taken, whatever the system call (a thread that arms a timer
 *   it never waits for is counted at its next return after the expiry).
 *
 * A wake-up issued on a CPU that is not traced is not seen: the switch-in
 * then stands for it (woken_ns is 0). A timer of another clock than
 * CLOCK_MONOTONIC (its expiry far from the trace's clock) is no timer here.
 */
enum attach_wakeup {
	ATTACH_WAKEUP_TIMER,
	ATTACH_WAKEUP_OTHER,
	/*
	 * another wake-up of which neither the wake-up nor the switch-in was
	 * traced (a kernel may leave out the switch out of idle, and the
	 * interrupt's events with it): counted, its latency unknown (0)
	 */
	ATTACH_WAKEUP_UNSEEN,
};

struct attach_activation {
	int32_t tid;
	enum attach_wakeup kind;
	uint32_t cpu; /* where it returned to user space */
	uint64_t expiry_ns; /* timer: the expiry it asked for; 0 otherwise */
	uint64_t woken_ns; /* the wake-up; 0 when issued where nothing was traced */
	uint64_t switch_in_ns;
	uint64_t return_ns;
};

/* The latency of an activation: from the expiry (timer) or the wake-up; 0 unseen. */
uint64_t attach_activation_latency(const struct attach_activation *a);

typedef void (*attach_emit)(const struct attach_activation *activation, void *context);

struct attach_tracker;

/* A tracker calling @emit for each activation completed; NULL without memory. */
struct attach_tracker *attach_tracker_new(attach_emit emit, void *context);
void attach_tracker_free(struct attach_tracker *tracker);

/*
 * Follow @tid from now on (a thread of the target, or one it created).
 * The tasks a followed one makes (sched_process_fork) are followed from
 * the moment they are made: a caller that wants only some of them (the
 * threads of one process) tells them apart by the activations' tids.
 */
int attach_tracker_follow(struct attach_tracker *tracker, int32_t tid);

/* One record; records of every CPU come in ascending time order. */
void attach_tracker_feed(struct attach_tracker *tracker, const struct trace_record *record);

#endif
