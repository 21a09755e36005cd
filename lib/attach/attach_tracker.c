// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/attach_tracker.h"

/*
 * sched_switch's prev_state: the task's state in its low byte (0: still
 * runnable), and a bit above it when it was preempted ("R+").
 */
#define SWITCH_STATE_MASK 0xffU

/* An expiry further than this from the trace's clock is of another clock. */
#define OTHER_CLOCK_NS (24ULL * 3600 * 1000000000ULL)

enum thread_state {
	AWAKE, /* running or runnable in user space or a system call */
	ASLEEP, /* switched out, not runnable */
	WOKEN, /* sched_waking seen, not yet switched in */
	SWITCHED_IN, /* back on a CPU, not yet in user space */
};

struct followed {
	int32_t tid; /* 0: a free slot */
	enum thread_state state;
	/* the latest timer the thread armed, and when */
	uint64_t timer_expiry_ns, timer_started_ns;
	bool timer_armed;
	/*
	 * an expiry that passed with no return to user space after it, when
	 * the thread armed its timer again (a periodic timerfd read late: the
	 * read re-arms it and returns at once): 0 when none
	 */
	uint64_t overdue_expiry_ns;
	/* the activation under way */
	uint64_t asleep_ns, sleep_expiry_ns, woken_ns, switch_in_ns;
	bool sleep_timed;
};

struct attach_tracker {
	attach_emit emit;
	void *context;
	struct followed *slots;
	unsigned int capacity, used; /* capacity: a power of two */
};

uint64_t attach_activation_latency(const struct attach_activation *a)
{
	uint64_t from = a->kind == ATTACH_WAKEUP_TIMER ? a->expiry_ns :
			a->woken_ns		       ? a->woken_ns :
							 a->switch_in_ns;

	return from && a->return_ns > from ? a->return_ns - from : 0;
}

struct attach_tracker *attach_tracker_new(attach_emit emit, void *context)
{
	struct attach_tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->emit = emit;
	t->context = context;
	t->capacity = 16;
	t->slots = calloc(t->capacity, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void attach_tracker_free(struct attach_tracker *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static unsigned int slot_of(const struct attach_tracker *t, int32_t tid)
{
	return ((uint32_t)tid * 2654435761U) & (t->capacity - 1);
}

static struct followed *find(struct attach_tracker *t, int32_t tid)
{
	unsigned int at = slot_of(t, tid);

	if (tid <= 0)
		return NULL;
	while (t->slots[at].tid) {
		if (t->slots[at].tid == tid)
			return &t->slots[at];
		at = (at + 1) & (t->capacity - 1);
	}
	return NULL;
}

static void insert(struct attach_tracker *t, const struct followed *f)
{
	unsigned int at = slot_of(t, f->tid);

	while (t->slots[at].tid)
		at = (at + 1) & (t->capacity - 1);
	t->slots[at] = *f;
	t->used++;
}

int attach_tracker_follow(struct attach_tracker *t, int32_t tid)
{
	struct followed fresh = { .tid = tid, .state = AWAKE };

	if (tid <= 0)
		return -EINVAL;
	if (find(t, tid))
		return 0;
	if (2 * (t->used + 1) > t->capacity) {
		struct followed *old = t->slots;
		unsigned int old_capacity = t->capacity, i;

		t->slots = calloc(2 * old_capacity, sizeof(*t->slots));
		if (!t->slots) {
			t->slots = old;
			return -ENOMEM;
		}
		t->capacity = 2 * old_capacity;
		t->used = 0;
		for (i = 0; i < old_capacity; i++)
			if (old[i].tid)
				insert(t, &old[i]);
		free(old);
	}
	insert(t, &fresh);
	return 0;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The thread armed a timer: what its next sleep asks for. */
static void timer_started(struct followed *f, const struct trace_record *r)
{
	if (distance(r->hrtimer.expires_ns, r->ts) > OTHER_CLOCK_NS)
		return;
	if (f->timer_armed && f->timer_expiry_ns <= r->ts && f->state == AWAKE &&
	    !f->overdue_expiry_ns)
		f->overdue_expiry_ns = f->timer_expiry_ns;
	f->timer_expiry_ns = r->hrtimer.expires_ns;
	f->timer_started_ns = r->ts;
	f->timer_armed = true;
}

static void went_to_sleep(struct followed *f, uint64_t ts)
{
	f->state = ASLEEP;
	f->asleep_ns = ts;
	f->sleep_timed = f->timer_armed;
	f->sleep_expiry_ns = f->timer_expiry_ns;
	f->woken_ns = 0;
	f->switch_in_ns = 0;
}

/*
 * Back in user space without having slept: an activation only when a timer
 * it armed expired before (cyclictest's clock_nanosleep to an expiry
 * already past returns at once; so does a late read of a periodic
 * timerfd). Its latency runs from that expiry; nothing woke it.
 */
static void returned_awake(struct attach_tracker *t, struct followed *f,
			   const struct trace_record *r)
{
	struct attach_activation a = {
		.tid = f->tid,
		.kind = ATTACH_WAKEUP_TIMER,
		.cpu = r->cpu,
		.return_ns = r->ts,
	};

	if (f->overdue_expiry_ns) {
		a.expiry_ns = f->overdue_expiry_ns;
		f->overdue_expiry_ns = 0;
	} else if (f->timer_armed && f->timer_expiry_ns <= r->ts) {
		a.expiry_ns = f->timer_expiry_ns;
		f->timer_armed = false;
	} else {
		return;
	}
	t->emit(&a, t->context);
}

/* Back in user space after a sleep: the activation is complete. */
static void returned(struct attach_tracker *t, struct followed *f, const struct trace_record *r)
{
	struct attach_activation a = {
		.tid = f->tid,
		.cpu = r->cpu,
		.woken_ns = f->woken_ns,
		.switch_in_ns = f->switch_in_ns,
		.return_ns = r->ts,
	};
	uint64_t woken = f->woken_ns ? f->woken_ns : f->switch_in_ns;

	/* neither seen (some kernels trace no switch out of idle): it ran by its return */
	if (!woken)
		woken = r->ts;
	a.kind = f->sleep_timed && woken >= f->sleep_expiry_ns ? ATTACH_WAKEUP_TIMER :
		 f->woken_ns || f->switch_in_ns		       ? ATTACH_WAKEUP_OTHER :
								 ATTACH_WAKEUP_UNSEEN;
	if (a.kind == ATTACH_WAKEUP_TIMER)
		a.expiry_ns = f->sleep_expiry_ns;
	/*
	 * The timer it slept on is spent, unless the thread armed it again
	 * on its way out (a periodic timerfd is re-armed in read()): then it
	 * is what the next sleep asks for.
	 */
	if (f->timer_started_ns <= f->asleep_ns)
		f->timer_armed = false;
	f->overdue_expiry_ns = 0;
	f->state = AWAKE;
	t->emit(&a, t->context);
}

void attach_tracker_feed(struct attach_tracker *t, const struct trace_record *r)
{
	struct followed *f;

	switch (r->kind) {
	case TRACE_HRTIMER_START:
		f = find(t, r->pid);
		if (f)
			timer_started(f, r);
		break;
	case TRACE_SWITCH:
		f = find(t, r->sched_switch.prev_pid);
		/* a thread preempted stays runnable: no sleep begins */
		if (f && (r->sched_switch.prev_state & SWITCH_STATE_MASK))
			went_to_sleep(f, r->ts);
		f = find(t, r->sched_switch.next_pid);
		if (f && (f->state == ASLEEP || f->state == WOKEN)) {
			f->state = SWITCHED_IN;
			f->switch_in_ns = r->ts;
		}
		break;
	case TRACE_WAKING:
		f = find(t, r->waking.pid);
		if (f && f->state == ASLEEP) {
			f->state = WOKEN;
			f->woken_ns = r->ts;
		}
		break;
	case TRACE_SYS_EXIT:
		f = find(t, r->pid);
		/*
		 * back in user space after a sleep, whether or not its wake-up
		 * and switch-in were seen: a kernel may leave out the switch out
		 * of idle and the events of the interrupt that woke it
		 */
		if (f && f->state != AWAKE)
			returned(t, f, r);
		else if (f)
			returned_awake(t, f, r);
		break;
	case TRACE_FORK:
		/* from its first activation on: the caller may leave it later */
		if (find(t, r->fork.parent_pid))
			attach_tracker_follow(t, r->fork.child_pid);
		break;
	default:
		break;
	}
}
