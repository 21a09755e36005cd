// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latscope/array.h"
#include "latscope/explain.h"
#include "latscope/explain_analysis.h"

#define MAX_DEPTH 16
#define MAX_WINDOW_CAUSES 64

/* What runs above the thread: an NMI, an IRQ handler, a vector, a softirq. */
struct context {
	struct cause_key key;
	uint32_t name;
};

#define TASK_SLOTS 256
#define MAX_WOKEN 8

struct task {
	int32_t pid;
	int32_t prio; /* as it runs: boosted by priority inheritance, if so */
	int32_t own_prio; /* while boosted: its own priority; -1 otherwise */
	uint32_t comm;
	int32_t irq; /* an IRQ thread's IRQ, from its comm; -1 for other tasks */
	uint32_t irq_action; /* the action of the hardirq seen waking it */
};

/* The window being charged. */
struct open_window {
	struct explain_window window;
	bool fired; /* timer: the measuring thread's wake-up was issued */
	uint64_t woken_ns; /* when */
	bool incomplete;
	struct explain_contribution contributions[MAX_WINDOW_CAUSES];
	unsigned int nr_contributions;
	struct explain_segment *timeline;
	unsigned int nr_segments, segments_capacity;
};

struct explain_cpu {
	unsigned int cpu;
	enum explain_mode mode;
	const struct names *names;
	/* what runs now */
	struct context stack[MAX_DEPTH];
	unsigned int depth;
	int32_t pid, prio, own_prio; /* as in struct task */
	uint32_t comm;
	uint64_t last_ts;
	/*
	 * what last returned to task context with no switch since: a device
	 * IRQ (CAUSE_IRQ), a system vector (CAUSE_VECTOR), or nothing
	 * (CAUSE_KINDS); a softirq now may run on its way out, not in the task
	 * (never so when the kernel threads every softirq)
	 */
	uint8_t after_hardirq;
	bool threaded_softirqs;
	struct task tasks[TASK_SLOTS]; /* names and priorities seen */
	struct {
		int32_t pid, prio;
	} woken[MAX_WOKEN]; /* woken on this CPU since it went idle */
	unsigned int nr_woken;
	/* windows added, not yet closed: a ring in start order */
	struct explain_window *pending;
	unsigned int pending_head, nr_pending, pending_capacity;
	struct open_window open;
	bool is_open;
	/* causes: a table with a hash index on the key */
	struct explain_cause *causes;
	unsigned int nr_causes, causes_capacity;
	uint32_t *index; /* 0 empty, else cause + 1 */
	unsigned int index_size;
	/* the largest spikes, largest first */
	struct explain_spike *worst;
	unsigned int nr_worst, worst_kept;
	struct explain_totals totals;
	uint64_t kernel_lost; /* the kernel's exact count, when one was read */
	/* where the trace has holes, the first ones; later ones only counted */
	struct explain_lost_span lost_spans[EXPLAIN_LOST_SPANS_KEPT];
	unsigned int nr_lost_spans;
	uint64_t lost_spans_not_kept;
	int32_t tool_pid; /* the measuring tool's main thread */
	explain_window_hook window_hook;
	void *window_hook_context;
};

const char *explain_kind_name(enum cause_kind kind)
{
	static const char *const names[CAUSE_KINDS] = {
		[CAUSE_IRQ] = "irq",
		[CAUSE_VECTOR] = "vector",
		[CAUSE_SOFTIRQ] = "softirq",
		[CAUSE_THREAD] = "thread",
		[CAUSE_NMI] = "nmi",
		[CAUSE_THROTTLING] = "throttling",
		[CAUSE_UNEXPLAINED] = "unexplained",
		[CAUSE_TIMER_DELAY] = "timer_delay",
		[CAUSE_SCHEDULING] = "scheduling",
		[CAUSE_LOST] = "lost_events",
	};

	return kind < CAUSE_KINDS ? names[kind] : "unknown";
}

struct explain_cpu *explain_cpu_new(unsigned int cpu, enum explain_mode mode,
				    const struct names *names, unsigned int worst_kept)
{
	struct explain_cpu *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->cpu = cpu;
	e->mode = mode;
	e->names = names;
	e->worst_kept = worst_kept;
	e->pid = -1;
	e->prio = -1;
	e->own_prio = -1;
	e->after_hardirq = CAUSE_KINDS;
	for (unsigned int i = 0; i < TASK_SLOTS; i++)
		e->tasks[i].pid = -1;
	e->index_size = 64;
	e->index = calloc(e->index_size, sizeof(*e->index));
	e->worst = calloc(worst_kept ? worst_kept : 1, sizeof(*e->worst));
	if (!e->index || !e->worst) {
		explain_cpu_free(e);
		return NULL;
	}
	return e;
}

void explain_cpu_set_tool_pid(struct explain_cpu *e, int32_t pid)
{
	e->tool_pid = pid;
}

void explain_cpu_set_threaded_softirqs(struct explain_cpu *e, bool threaded)
{
	e->threaded_softirqs = threaded;
}

void explain_cpu_set_window_hook(struct explain_cpu *e, explain_window_hook hook, void *context)
{
	e->window_hook = hook;
	e->window_hook_context = context;
}

unsigned int explain_cpu_number(const struct explain_cpu *e)
{
	return e->cpu;
}

int explain_cpu_forget_causes(struct explain_cpu *e)
{
	unsigned int i;

	if (e->is_open || e->nr_worst)
		return -EBUSY;
	for (i = 0; i < e->nr_causes; i++)
		free(e->causes[i].occurrences);
	e->nr_causes = 0;
	memset(e->index, 0, e->index_size * sizeof(*e->index));
	return 0;
}

static void free_spike(struct explain_spike *spike)
{
	free(spike->contributions);
	free(spike->timeline);
	memset(spike, 0, sizeof(*spike));
}

void explain_cpu_free(struct explain_cpu *e)
{
	unsigned int i;

	if (!e)
		return;
	for (i = 0; i < e->nr_causes; i++) {
		free(e->causes[i].occurrences);
		free(e->causes[i].occurrence_train);
		free(e->causes[i].trains);
	}
	for (i = 0; i < e->nr_worst; i++)
		free_spike(&e->worst[i]);
	free(e->open.timeline);
	free(e->causes);
	free(e->index);
	free(e->worst);
	free(e->pending);
	free(e);
}

static uint64_t key_hash(const struct cause_key *key)
{
	return ((uint64_t)key->id * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)key->kind << 56) ^
	       ((uint64_t)(uint32_t)key->thread * 0xC2B2AE3D27D4EB4FULL);
}

static int grow_index(struct explain_cpu *e)
{
	unsigned int size = e->index_size * 2, i;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (i = 0; i < e->nr_causes; i++) {
		uint64_t at = key_hash(&e->causes[i].key) & (size - 1);

		while (index[at])
			at = (at + 1) & (size - 1);
		index[at] = i + 1;
	}
	free(e->index);
	e->index = index;
	e->index_size = size;
	return 0;
}

static bool same_key(const struct cause_key *a, const struct cause_key *b)
{
	return a->kind == b->kind && a->id == b->id && a->thread == b->thread;
}

/* The cause for a key, created on first use; UINT32_MAX when out of memory. */
static uint32_t cause_of_key(struct explain_cpu *e, struct cause_key key, uint32_t name)
{
	uint64_t at = key_hash(&key) & (e->index_size - 1);
	struct explain_cause *cause, *bigger;
	uint32_t slot;

	while ((slot = e->index[at])) {
		cause = &e->causes[slot - 1];
		if (same_key(&cause->key, &key)) {
			if (name)
				cause->name = name;
			return slot - 1;
		}
		at = (at + 1) & (e->index_size - 1);
	}
	bigger = array_grow(e->causes, &e->causes_capacity, e->nr_causes + 1, sizeof(*bigger));
	if (!bigger)
		return UINT32_MAX;
	e->causes = bigger;
	cause = &e->causes[e->nr_causes];
	memset(cause, 0, sizeof(*cause));
	cause->key = key;
	cause->name = name;
	cause->prio = -1;
	cause->boosted_prio = -1;
	cause->irq_thread_of = -1;
	e->index[at] = e->nr_causes + 1;
	e->nr_causes++;
	if (e->nr_causes * 2 > e->index_size && grow_index(e))
		return UINT32_MAX;
	return e->nr_causes - 1;
}

static uint32_t cause_of(struct explain_cpu *e, uint8_t kind, int64_t id, uint32_t name)
{
	return cause_of_key(e, (struct cause_key){ .kind = kind, .id = id }, name);
}

/* A cause if it exists; NULL otherwise. */
static const struct explain_cause *find_cause(const struct explain_cpu *e, struct cause_key key)
{
	uint64_t at = key_hash(&key) & (e->index_size - 1);
	uint32_t slot;

	while ((slot = e->index[at])) {
		if (same_key(&e->causes[slot - 1].key, &key))
			return &e->causes[slot - 1];
		at = (at + 1) & (e->index_size - 1);
	}
	return NULL;
}

static struct task *task_of(struct explain_cpu *e, int32_t pid);

/* What is known of the task a thread or softirq cause names, for its label. */
static void describe_task(struct explain_cpu *e, uint32_t cause, int32_t pid)
{
	const struct task *t;

	if (cause == UINT32_MAX || pid <= 0)
		return;
	t = task_of(e, pid);
	e->causes[cause].irq_thread_of = t->irq;
	if (t->irq_action)
		e->causes[cause].irq_action = t->irq_action;
}

/*
 * A thread cause ran at @prio; @own_prio is its own while priority
 * inheritance boosts it (-1 otherwise): the label says both.
 */
static void thread_ran_at(struct explain_cause *cause, int32_t prio, int32_t own_prio)
{
	if (own_prio < 0) {
		cause->prio = prio;
		return;
	}
	cause->prio = own_prio;
	if (cause->boosted_prio < 0 || prio < cause->boosted_prio)
		cause->boosted_prio = prio;
}

/* The cause of whatever runs now, in the window being charged. */
static uint32_t current_cause(struct explain_cpu *e, const struct open_window *w)
{
	const struct context *top;
	uint32_t cause;

	if (e->depth) {
		top = &e->stack[e->depth - 1];
		cause = cause_of_key(e, top->key, top->name);
		describe_task(e, cause, top->key.thread);
		return cause;
	}
	if (e->mode == EXPLAIN_NOISE) {
		if (w->window.throttled)
			return cause_of(e, CAUSE_THROTTLING, 0, 0);
		if (e->pid == w->window.own_pid)
			return cause_of(e, CAUSE_UNEXPLAINED, 0, 0);
	} else {
		if (!w->fired)
			return cause_of(e, CAUSE_TIMER_DELAY, 0, 0);
		/* woken: idle or the thread itself is the way through the scheduler */
		if (e->pid == w->window.own_pid || e->pid == 0)
			return cause_of(e, CAUSE_SCHEDULING, 0, 0);
	}
	if (e->pid < 0)
		return cause_of(e, CAUSE_UNEXPLAINED, 0, 0);
	cause = cause_of(e, CAUSE_THREAD, e->pid, e->comm);
	if (cause != UINT32_MAX)
		thread_ran_at(&e->causes[cause], e->prio, e->own_prio);
	describe_task(e, cause, e->pid);
	return cause;
}

static void add_segment(struct open_window *w, uint32_t cause, uint64_t from, uint64_t to)
{
	struct explain_segment *last = w->nr_segments ? &w->timeline[w->nr_segments - 1] : NULL;
	struct explain_segment *grown;

	if (last && last->cause == cause && last->end_ns == from) {
		last->end_ns = to;
		return;
	}
	grown = array_grow(w->timeline, &w->segments_capacity, w->nr_segments + 1, sizeof(*grown));
	if (!grown)
		return;
	w->timeline = grown;
	w->timeline[w->nr_segments++] = (struct explain_segment){ from, to, cause };
}

static void add_contribution(struct open_window *w, uint32_t cause, uint64_t from, uint64_t to)
{
	unsigned int i;

	if (cause == UINT32_MAX || to <= from)
		return;
	add_segment(w, cause, from, to);
	for (i = 0; i < w->nr_contributions; i++) {
		if (w->contributions[i].cause == cause) {
			w->contributions[i].ns += to - from;
			return;
		}
	}
	if (w->nr_contributions < MAX_WINDOW_CAUSES)
		w->contributions[w->nr_contributions++] =
			(struct explain_contribution){ cause, to - from, from };
}

static int compare_contributions(const void *x, const void *y)
{
	const struct explain_contribution *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : 0;
}

/*
 * Every occurrence is kept: at most one per cause and window, so they are
 * bounded by the windows the caller adds, not by a limit of their own.
 */
static void record_occurrence(struct explain_cause *cause, uint64_t t, uint64_t ns, uint64_t window)
{
	struct explain_occurrence *grown;

	grown = array_grow(cause->occurrences, &cause->occurrences_capacity,
			   cause->nr_occurrences + 1, sizeof(*grown));
	if (!grown) {
		cause->occurrences_incomplete = true;
		return;
	}
	cause->occurrences = grown;
	cause->occurrences[cause->nr_occurrences++] = (struct explain_occurrence){ t, ns, window };
}

/* Keep the spike when it is among the largest. */
static void keep_if_worst(struct explain_cpu *e, struct open_window *w)
{
	uint64_t length = w->window.end_ns - w->window.start_ns;
	struct explain_spike *spike;
	unsigned int at;

	if (!e->worst_kept)
		return;
	for (at = 0; at < e->nr_worst; at++)
		if (length > e->worst[at].window.end_ns - e->worst[at].window.start_ns)
			break;
	if (at >= e->worst_kept)
		return;
	if (e->nr_worst == e->worst_kept)
		free_spike(&e->worst[--e->nr_worst]);
	memmove(&e->worst[at + 1], &e->worst[at], (e->nr_worst - at) * sizeof(*e->worst));
	e->nr_worst++;
	spike = &e->worst[at];
	memset(spike, 0, sizeof(*spike));
	spike->window = w->window;
	spike->incomplete = w->incomplete;
	spike->woken_ns = w->woken_ns;
	spike->contributions = malloc(w->nr_contributions * sizeof(*spike->contributions) + 1);
	if (spike->contributions) {
		memcpy(spike->contributions, w->contributions,
		       w->nr_contributions * sizeof(*spike->contributions));
		spike->nr_contributions = w->nr_contributions;
	}
	/* the timeline buffer moves to the spike; the window gets a new one */
	spike->timeline = w->timeline;
	spike->nr_segments = w->nr_segments;
	w->timeline = NULL;
	w->segments_capacity = 0;
}

static void close_window(struct explain_cpu *e)
{
	struct open_window *w = &e->open;
	struct explain_spike view = {
		.window = w->window,
		.contributions = w->contributions,
		.nr_contributions = w->nr_contributions,
		.timeline = w->timeline,
		.nr_segments = w->nr_segments,
		.incomplete = w->incomplete,
		.woken_ns = w->woken_ns,
	};
	struct explain_analysis analysis;
	unsigned int i;

	qsort(w->contributions, w->nr_contributions, sizeof(*w->contributions),
	      compare_contributions);
	for (i = 0; i < w->nr_contributions; i++) {
		struct explain_contribution *c = &w->contributions[i];
		struct explain_cause *cause = &e->causes[c->cause];

		cause->spikes++;
		cause->total_ns += c->ns;
		if (c->ns > cause->max_ns)
			cause->max_ns = c->ns;
		record_occurrence(cause, c->first_ns, c->ns, w->window.tag);
	}
	e->totals.windows++;
	e->totals.window_ns += w->window.end_ns - w->window.start_ns;
	if (w->incomplete)
		e->totals.incomplete++;
	explain_analyse(e, &view, &analysis);
	e->totals.by_main_part[analysis.main]++;
	if (e->window_hook)
		e->window_hook(e->window_hook_context, e, &view);
	keep_if_worst(e, w);
	w->nr_contributions = 0;
	w->nr_segments = 0;
	e->is_open = false;
}

static bool open_next_window(struct explain_cpu *e)
{
	struct open_window *w = &e->open;

	if (!e->nr_pending)
		return false;
	w->window = e->pending[e->pending_head];
	e->pending_head = (e->pending_head + 1) % e->pending_capacity;
	e->nr_pending--;
	w->fired = false;
	w->woken_ns = 0;
	w->incomplete = false;
	w->nr_contributions = 0;
	w->nr_segments = 0;
	e->is_open = true;
	return true;
}

/*
 * Charge [from, to) to what runs now, in the windows it overlaps; close the
 * windows that end within it.
 */
static void charge(struct explain_cpu *e, uint64_t from, uint64_t to)
{
	while (from < to) {
		struct open_window *w = &e->open;
		uint64_t low, high;

		if (!e->is_open && !open_next_window(e))
			return;
		if (w->window.start_ns >= to)
			return;
		low = from > w->window.start_ns ? from : w->window.start_ns;
		high = to < w->window.end_ns ? to : w->window.end_ns;
		if (high > low)
			add_contribution(w, current_cause(e, w), low, high);
		/* a window the lost span touches cannot be attributed, even in part */
		if (e->depth && e->stack[e->depth - 1].key.kind == CAUSE_LOST)
			w->incomplete = true;
		if (w->window.end_ns > to)
			return;
		from = w->window.end_ns;
		close_window(e);
	}
}

int explain_cpu_add_window(struct explain_cpu *e, const struct explain_window *window)
{
	if (window->end_ns <= window->start_ns)
		return 0;
	if (e->nr_pending == e->pending_capacity) {
		unsigned int capacity = e->pending_capacity ? 2 * e->pending_capacity : 64, i;
		struct explain_window *ring = malloc(capacity * sizeof(*ring));

		if (!ring)
			return -ENOMEM;
		for (i = 0; i < e->nr_pending; i++)
			ring[i] = e->pending[(e->pending_head + i) % e->pending_capacity];
		free(e->pending);
		e->pending = ring;
		e->pending_head = 0;
		e->pending_capacity = capacity;
	}
	e->pending[(e->pending_head + e->nr_pending) % e->pending_capacity] = *window;
	e->nr_pending++;
	return 0;
}

static void push_key(struct explain_cpu *e, struct cause_key key, uint32_t name)
{
	if (e->depth < MAX_DEPTH)
		e->stack[e->depth++] = (struct context){ key, name };
}

static void push(struct explain_cpu *e, uint8_t kind, int64_t id, uint32_t name)
{
	push_key(e, (struct cause_key){ .kind = kind, .id = id }, name);
}

static void push_softirq(struct explain_cpu *e, uint32_t vec);

/*
 * Leave a context. The usual case is the top of the stack. An exit with no
 * matching entry means the trace began (or lost events) inside it: the
 * time since the last event was spent there.
 */
static void pop(struct explain_cpu *e, uint8_t kind, int64_t id, uint64_t ts)
{
	unsigned int i;

	for (i = e->depth; i-- > 0;) {
		if (e->stack[i].key.kind == kind && e->stack[i].key.id == id) {
			charge(e, e->last_ts, ts);
			e->depth = i;
			return;
		}
	}
	/* not entered as far as we know: it ran since the last event */
	if (kind == CAUSE_SOFTIRQ)
		push_softirq(e, (uint32_t)id);
	else
		push(e, kind, id, 0);
	charge(e, e->last_ts, ts);
	e->depth--;
}

/*
 * The hole [from, to) in the trace, kept so that a reader can tell which
 * spikes a loss touched; one right after the last is the same hole.
 */
static void remember_lost_span(struct explain_cpu *e, uint64_t from, uint64_t to, uint64_t count)
{
	struct explain_lost_span *last =
		e->nr_lost_spans ? &e->lost_spans[e->nr_lost_spans - 1] : NULL;

	if (last && !e->lost_spans_not_kept && last->end_ns == from) {
		last->end_ns = to;
		last->events += count;
		return;
	}
	if (e->nr_lost_spans == EXPLAIN_LOST_SPANS_KEPT) {
		e->lost_spans_not_kept++;
		return;
	}
	e->lost_spans[e->nr_lost_spans++] = (struct explain_lost_span){ from, to, count };
}

static void lose_events(struct explain_cpu *e, const struct trace_record *r, uint64_t ts)
{
	e->totals.lost_events += r->lost.count ? r->lost.count : 1;
	remember_lost_span(e, e->last_ts, ts, r->lost.count);
	/* what ran meanwhile is unknown: charge it as such, restart the stack */
	e->depth = 0;
	push(e, CAUSE_LOST, 0, 0);
	charge(e, e->last_ts, ts);
	e->depth = 0;
	/*
	 * charge() marked the windows the hole overlaps. A hole of no length
	 * (the events around it share a time) breaks the window around it.
	 * A window starting after the hole is whole: the events from its end
	 * on were read, and whether it was added before this record came or
	 * after must not change that.
	 */
	if (e->is_open && e->open.window.start_ns < ts)
		e->open.incomplete = true;
}

void explain_cpu_count_lost(struct explain_cpu *e, uint64_t lost)
{
	if (lost > e->kernel_lost)
		e->kernel_lost = lost;
}

static uint32_t task_slot(int32_t pid)
{
	return ((uint32_t)pid * 2654435761U) & (TASK_SLOTS - 1);
}

/* What is known of a task: its name and priority, from switches and wake-ups. */
static struct task *task_of(struct explain_cpu *e, int32_t pid)
{
	uint32_t at = task_slot(pid);

	/* a small cache: a colliding task replaces the older one */
	if (e->tasks[at].pid != pid) {
		e->tasks[at].pid = pid;
		e->tasks[at].comm = 0;
		e->tasks[at].prio = -1;
		e->tasks[at].own_prio = -1;
		e->tasks[at].irq = -1;
		e->tasks[at].irq_action = 0;
	}
	return &e->tasks[at];
}

/*
 * The IRQ a thread named "irq/NN-..." handles: the kernel names a
 * threaded handler so ("irq/NN-s-..." for a secondary one); -1 otherwise.
 */
static int32_t irq_of_thread_name(const char *comm)
{
	long irq = 0;
	const char *p;

	if (strncmp(comm, "irq/", 4))
		return -1;
	for (p = comm + 4; *p >= '0' && *p <= '9' && irq < 100000000; p++)
		irq = irq * 10 + (*p - '0');
	return p > comm + 4 && *p == '-' ? (int32_t)irq : -1;
}

static void learn_task(struct explain_cpu *e, int32_t pid, uint32_t comm, int32_t prio)
{
	struct task *t = task_of(e, pid);

	if (comm && comm != t->comm) {
		t->comm = comm;
		t->irq = irq_of_thread_name(names_get(e->names, comm));
		t->irq_action = 0;
	}
	if (prio >= 0)
		t->prio = prio;
}

/*
 * Priority inheritance changed a task's priority. A boost is often issued
 * on the waiter's CPU, out of this one's trace; its end is issued here, by
 * the holder releasing the lock: then the time the running holder was
 * charged in the open window is known to have run boosted.
 */
static void change_priority(struct explain_cpu *e, const struct trace_record *r)
{
	struct task *t;
	int32_t own;
	unsigned int i;

	learn_task(e, r->pi.pid, r->pi.comm, -1);
	t = task_of(e, r->pi.pid);
	own = t->own_prio >= 0 ? t->own_prio : r->pi.oldprio;
	if (r->pi.newprio < own) {
		t->own_prio = own;
		t->prio = r->pi.newprio;
	} else {
		if (t->own_prio < 0 && r->pi.oldprio < r->pi.newprio && r->pi.pid == e->pid &&
		    e->is_open)
			for (i = 0; i < e->open.nr_contributions; i++) {
				struct explain_cause *c =
					&e->causes[e->open.contributions[i].cause];

				if (c->key.kind == CAUSE_THREAD && c->key.id == r->pi.pid)
					thread_ran_at(c, r->pi.oldprio, r->pi.newprio);
			}
		t->own_prio = -1;
		t->prio = r->pi.newprio;
	}
	if (r->pi.pid == e->pid) {
		e->prio = t->prio;
		e->own_prio = t->own_prio;
	}
}

static void make_current(struct explain_cpu *e, int32_t pid)
{
	struct task *t = task_of(e, pid);

	e->pid = pid;
	e->comm = t->comm;
	e->prio = t->prio;
	e->own_prio = t->own_prio;
}

/*
 * Every event names the task current when it fired (common_pid; in an
 * interrupt, the task interrupted). Some kernels emit no sched_switch when
 * a CPU leaves idle: a task seen running that we did not see switched in
 * is taken as current from here on, and the tasks woken while idle are
 * then settled. An event that still finds the CPU idle proves only that
 * the guess of leave_idle_for_woken() came early (a second interrupt
 * before the switch): the tasks woken still wait, and are kept.
 */
static void notice_current(struct explain_cpu *e, const struct trace_record *r)
{
	if (r->pid < 0 || r->pid == e->pid || r->kind == TRACE_LOST)
		return;
	make_current(e, r->pid);
	if (r->pid != 0)
		e->nr_woken = 0;
}

/*
 * Back in task context on an idle CPU after interrupts woke tasks here:
 * the CPU leaves idle for the most urgent of them (the switch out of idle
 * may not be traced). They are kept until a task is seen running: the
 * CPU may still turn out idle, and then the choice is made again among
 * them and the tasks woken since.
 */
static void leave_idle_for_woken(struct explain_cpu *e)
{
	unsigned int i, best = 0;

	if (e->depth || e->pid != 0 || !e->nr_woken)
		return;
	for (i = 1; i < e->nr_woken; i++)
		if (e->woken[i].prio < e->woken[best].prio)
			best = i;
	make_current(e, e->woken[best].pid);
}

/*
 * A hardirq waking its handler's thread (PREEMPT_RT, threadirqs): the
 * thread is that IRQ's, and the hardirq's action names the device the
 * thread's comm was cut short of.
 */
static void join_irq_thread(struct explain_cpu *e, const struct trace_record *r)
{
	const struct context *top = e->depth ? &e->stack[e->depth - 1] : NULL;
	struct task *t;

	if (!top || top->key.kind != CAUSE_IRQ || !top->name)
		return;
	t = task_of(e, r->waking.pid);
	if (t->irq == top->key.id)
		t->irq_action = top->name;
}

static void remember_woken(struct explain_cpu *e, const struct trace_record *r)
{
	learn_task(e, r->waking.pid, r->waking.comm, r->waking.prio);
	join_irq_thread(e, r);
	if (r->waking.target_cpu != (int32_t)e->cpu || e->nr_woken == MAX_WOKEN)
		return;
	e->woken[e->nr_woken].pid = r->waking.pid;
	e->woken[e->nr_woken].prio = r->waking.prio;
	e->nr_woken++;
}

/*
 * Where a softirq entering now runs: in the current thread (ksoftirqd,
 * ktimers, an IRQ thread, a thread enabling bottom halves again), or on
 * an interrupt's way out, which no thread chose (0).
 */
static int32_t softirq_thread(const struct explain_cpu *e, uint32_t vec)
{
	const struct task *t;

	if (e->pid <= 0 || e->depth)
		return 0;
	if (e->threaded_softirqs)
		return e->pid;
	/* ksoftirqd is interrupted too, and goes on with its softirqs */
	t = &e->tasks[task_slot(e->pid)];
	if (t->pid == e->pid && t->comm && !strncmp(names_get(e->names, t->comm), "ksoftirqd/", 10))
		return e->pid;
	if (e->after_hardirq == CAUSE_IRQ)
		return 0;
	/*
	 * A tick or an IPI raises no device work: NET_TX, NET_RX, BLOCK or
	 * IRQ_POLL pending then was raised with bottom halves off (loopback
	 * traffic, a block submission), which kept the vector's way out from
	 * running it, and runs where the thread turns them on again.
	 */
	if (e->after_hardirq == CAUSE_VECTOR && (vec < 2 || vec > 5))
		return 0;
	return e->pid;
}

static void push_softirq(struct explain_cpu *e, uint32_t vec)
{
	struct cause_key key = { .kind = CAUSE_SOFTIRQ, .id = vec };

	key.thread = softirq_thread(e, vec);
	push_key(e, key, key.thread ? e->comm : 0);
}

void explain_cpu_feed(struct explain_cpu *e, const struct trace_record *r)
{
	uint64_t ts = r->ts;

	e->totals.events++;
	if (ts < e->last_ts)
		ts = e->last_ts; /* clocks of different CPUs may disagree a little */
	/* the time since the last event goes to what ran then */
	switch (r->kind) {
	case TRACE_IRQ_EXIT:
		pop(e, CAUSE_IRQ, r->irq.irq, ts);
		break;
	case TRACE_SOFTIRQ_EXIT:
		pop(e, CAUSE_SOFTIRQ, r->softirq.vec, ts);
		break;
	case TRACE_VECTOR_EXIT:
		pop(e, CAUSE_VECTOR, r->vector.vector, ts);
		break;
	case TRACE_NMI: {
		uint64_t begin =
			r->nmi.duration_ns < ts - e->last_ts ? ts - r->nmi.duration_ns : e->last_ts;

		charge(e, e->last_ts, begin);
		push(e, CAUSE_NMI, 0, 0);
		charge(e, begin, ts);
		e->depth--;
		break;
	}
	case TRACE_LOST:
		lose_events(e, r, ts);
		break;
	default:
		charge(e, e->last_ts, ts);
		break;
	}
	notice_current(e, r);
	/* then the event changes what runs */
	switch (r->kind) {
	case TRACE_IRQ_ENTRY:
		push(e, CAUSE_IRQ, r->irq.irq, r->irq.name);
		break;
	case TRACE_SOFTIRQ_ENTRY:
		push_softirq(e, r->softirq.vec);
		break;
	case TRACE_VECTOR_ENTRY:
		push(e, CAUSE_VECTOR, r->vector.vector, 0);
		break;
	case TRACE_IRQ_EXIT:
	case TRACE_VECTOR_EXIT:
		if (!e->depth)
			e->after_hardirq = r->kind == TRACE_IRQ_EXIT ? CAUSE_IRQ : CAUSE_VECTOR;
		leave_idle_for_woken(e);
		break;
	case TRACE_SOFTIRQ_EXIT:
		leave_idle_for_woken(e);
		break;
	case TRACE_SWITCH:
		learn_task(e, r->sched_switch.prev_pid, r->sched_switch.prev_comm,
			   r->sched_switch.prev_prio);
		learn_task(e, r->sched_switch.next_pid, r->sched_switch.next_comm,
			   r->sched_switch.next_prio);
		make_current(e, r->sched_switch.next_pid);
		e->nr_woken = 0;
		/* a switch happens in thread context: nothing can be nested */
		e->depth = 0;
		e->after_hardirq = CAUSE_KINDS;
		break;
	case TRACE_PI_SETPRIO:
		change_priority(e, r);
		break;
	case TRACE_WAKING:
		remember_woken(e, r);
		if (e->is_open && r->waking.pid == e->open.window.own_pid &&
		    ts >= e->open.window.start_ns && !e->open.fired) {
			e->open.fired = true;
			e->open.woken_ns = ts;
		}
		break;
	default:
		break;
	}
	e->last_ts = ts;
}

void explain_cpu_advance(struct explain_cpu *e, uint64_t now)
{
	if (now <= e->last_ts)
		return;
	charge(e, e->last_ts, now);
	e->last_ts = now;
}

/*
 * The whole search on each cause's own occurrences, so halves and harmonics
 * are merged; every train it finds is kept, with which occurrence belongs
 * to which.
 */
static int find_trains(struct explain_cause *cause, uint64_t run_ns)
{
	struct period_params params = { .run_ns = run_ns };
	struct period_source found[PERIOD_MAX_SOURCES];
	size_t n = cause->nr_occurrences, i;
	struct period_event *events;
	int nr;

	if (n < 2)
		return 0;
	events = malloc(n * sizeof(*events));
	cause->occurrence_train = malloc(n);
	if (!events || !cause->occurrence_train) {
		free(events);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		events[i] = (struct period_event){ .t_ns = cause->occurrences[i].t_ns,
						   .duration_ns = cause->occurrences[i].ns };
	nr = period_detect(events, n, &params, found, PERIOD_MAX_SOURCES, cause->occurrence_train);
	free(events);
	if (nr <= 0)
		return nr;
	cause->trains = malloc((size_t)nr * sizeof(*cause->trains));
	if (!cause->trains)
		return -ENOMEM;
	memcpy(cause->trains, found, (size_t)nr * sizeof(*found));
	cause->nr_trains = (unsigned int)nr;
	cause->periodic = true;
	cause->period = found[0];
	return 0;
}

static int find_periods(struct explain_cpu *e, uint64_t run_ns)
{
	unsigned int i;
	int ret;

	for (i = 0; i < e->nr_causes; i++) {
		ret = find_trains(&e->causes[i], run_ns);
		if (ret)
			return ret;
	}
	return 0;
}

static void rebuild_index(struct explain_cpu *e)
{
	unsigned int i;

	memset(e->index, 0, e->index_size * sizeof(*e->index));
	for (i = 0; i < e->nr_causes; i++) {
		uint64_t at = key_hash(&e->causes[i].key) & (e->index_size - 1);

		while (e->index[at])
			at = (at + 1) & (e->index_size - 1);
		e->index[at] = i + 1;
	}
}

/*
 * Order the causes by total time, largest first. The kept spikes refer to
 * causes by index, so they are renumbered too.
 */
static int sort_causes(struct explain_cpu *e)
{
	unsigned int n = e->nr_causes, i, j, s;
	struct explain_cause *sorted = malloc((n + 1) * sizeof(*sorted));
	uint32_t *order = malloc((n + 1) * sizeof(*order)), *rank = malloc((n + 1) * sizeof(*rank));

	if (!sorted || !order || !rank) {
		free(sorted);
		free(order);
		free(rank);
		return -ENOMEM;
	}
	/* causes are few: an insertion sort of indices is plenty */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && e->causes[order[j - 1]].total_ns < e->causes[i].total_ns; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < n; i++) {
		sorted[i] = e->causes[order[i]];
		rank[order[i]] = i;
	}
	memcpy(e->causes, sorted, n * sizeof(*sorted));
	for (s = 0; s < e->nr_worst; s++) {
		struct explain_spike *spike = &e->worst[s];

		for (i = 0; i < spike->nr_contributions; i++)
			spike->contributions[i].cause = rank[spike->contributions[i].cause];
		for (i = 0; i < spike->nr_segments; i++)
			spike->timeline[i].cause = rank[spike->timeline[i].cause];
	}
	free(sorted);
	free(order);
	free(rank);
	rebuild_index(e);
	return 0;
}

int explain_cpu_finish(struct explain_cpu *e, uint64_t end_ns, uint64_t run_ns)
{
	const struct explain_window *last;
	uint64_t until = end_ns;

	/* close every window, also those ending after the last event */
	if (e->nr_pending) {
		last = &e->pending[(e->pending_head + e->nr_pending - 1) % e->pending_capacity];
		if (last->end_ns > until)
			until = last->end_ns;
	} else if (e->is_open && e->open.window.end_ns > until) {
		until = e->open.window.end_ns;
	}
	explain_cpu_advance(e, until);
	if (find_periods(e, run_ns))
		return -ENOMEM;
	return sort_causes(e);
}

const struct explain_cause *explain_cpu_causes(const struct explain_cpu *e, unsigned int *nr_causes)
{
	*nr_causes = e->nr_causes;
	return e->causes;
}

void explain_cpu_window_causes(const struct explain_cpu *e, uint64_t *causes, size_t nr_windows)
{
	unsigned int c, i;

	memset(causes, 0, nr_windows * sizeof(*causes));
	for (c = 0; c < e->nr_causes; c++)
		for (i = 0; i < e->causes[c].nr_occurrences; i++)
			if (e->causes[c].occurrences[i].window < nr_windows)
				causes[e->causes[c].occurrences[i].window] |= 1ULL << (c % 64);
}

const struct explain_spike *explain_cpu_worst(const struct explain_cpu *e, unsigned int *nr_spikes)
{
	*nr_spikes = e->nr_worst;
	return e->worst;
}

const struct explain_lost_span *explain_cpu_lost_spans(const struct explain_cpu *e,
						       unsigned int *nr_spans, uint64_t *not_kept)
{
	*nr_spans = e->nr_lost_spans;
	*not_kept = e->lost_spans_not_kept;
	return e->lost_spans;
}

void explain_cpu_totals(const struct explain_cpu *e, struct explain_totals *totals)
{
	*totals = e->totals;
	/* the records fed may lag the kernel's count: records still waiting */
	if (e->kernel_lost > totals->lost_events)
		totals->lost_events = e->kernel_lost;
}

/* A kernel priority as users say it: "rt 90", "nice 5"; "" for nice 0. */
static void priority_words(int32_t prio, char *buf, size_t size)
{
	if (prio >= 0 && prio < 100)
		snprintf(buf, size, "rt %d", 99 - prio);
	else if (prio >= 100 && prio != 120)
		snprintf(buf, size, "nice %d", prio - 120);
	else
		buf[0] = '\0';
}

/* " (rt 90)", " (nice 5, boosted to rt 90)", " (boosted to rt 90)" or "" */
static void priority_label(const struct explain_cause *cause, char *buf, size_t size)
{
	char own[16], boosted[16];

	priority_words(cause->prio, own, sizeof(own));
	priority_words(cause->boosted_prio, boosted, sizeof(boosted));
	if (cause->boosted_prio >= 0)
		snprintf(buf, size, " (%s%sboosted to %s)", own, *own ? ", " : "", boosted);
	else if (*own)
		snprintf(buf, size, " (%s)", own);
	else
		buf[0] = '\0';
}

bool explain_irq_thread_name(const struct explain_cpu *e, const struct explain_cause *cause,
			     char *buf, size_t size)
{
	const struct explain_cause *irq;
	const char *action, *comm = names_get(e->names, cause->name);
	uint32_t known = cause->irq_action;

	if (cause->irq_thread_of < 0)
		return false;
	/* not seen waking it: the hardirq seen on this CPU names the device */
	if (!known) {
		irq = find_cause(
			e, (struct cause_key){ .kind = CAUSE_IRQ, .id = cause->irq_thread_of });
		known = irq ? irq->name : 0;
	}
	action = names_get(e->names, known);
	if (!*action)
		return false;
	snprintf(buf, size, "irq/%d-%s", cause->irq_thread_of, action);
	/* a secondary thread ("irq/NN-s-...") or a stranger's name: as it is */
	if (strncmp(buf, comm, strlen(comm)))
		snprintf(buf, size, "%s", comm);
	return true;
}

/* The thread a thread or softirq cause names, in full when it is an IRQ's. */
static const char *thread_name(const struct explain_cpu *e, const struct explain_cause *cause,
			       char *buf, size_t size)
{
	const char *comm = names_get(e->names, cause->name);

	if (explain_irq_thread_name(e, cause, buf, size))
		return buf;
	snprintf(buf, size, "%s", *comm ? comm : "task");
	return buf;
}

char *explain_cause_label(const struct explain_cpu *e, const struct explain_cause *cause, char *buf,
			  size_t size)
{
	char priority[48], thread[64], handles[32] = "";

	switch (cause->key.kind) {
	case CAUSE_IRQ: {
		const char *name = names_get(e->names, cause->name);

		snprintf(buf, size, "irq %lld%s%s", (long long)cause->key.id, *name ? " " : "",
			 name);
		break;
	}
	case CAUSE_VECTOR:
		snprintf(buf, size, "%s", trace_vector_name((enum trace_vector)cause->key.id));
		break;
	case CAUSE_SOFTIRQ:
		/* by name alone: the monitor's series must outlive a pid */
		if (cause->key.thread)
			snprintf(buf, size, "%s softirq in %s",
				 trace_softirq_name((uint32_t)cause->key.id),
				 thread_name(e, cause, thread, sizeof(thread)));
		else
			snprintf(buf, size, "%s softirq",
				 trace_softirq_name((uint32_t)cause->key.id));
		break;
	case CAUSE_THREAD:
		priority_label(cause, priority, sizeof(priority));
		if (cause->irq_thread_of >= 0)
			snprintf(handles, sizeof(handles), ", thread of irq %d",
				 cause->irq_thread_of);
		if (cause->key.id == 0)
			snprintf(buf, size, "idle");
		else
			snprintf(buf, size, "%s:%lld%s%s%s",
				 thread_name(e, cause, thread, sizeof(thread)),
				 (long long)cause->key.id, priority, handles,
				 e->tool_pid && cause->key.id == e->tool_pid ?
					 " (this run's main thread)" :
					 "");
		break;
	case CAUSE_UNEXPLAINED:
		snprintf(buf, size, "unexplained (firmware, hypervisor)");
		break;
	case CAUSE_TIMER_DELAY:
		snprintf(buf, size, "timer irq delay");
		break;
	case CAUSE_SCHEDULING:
		snprintf(buf, size, "scheduling (switch-in, return to user)");
		break;
	case CAUSE_THROTTLING:
		snprintf(buf, size, "RT throttling");
		break;
	case CAUSE_LOST:
		snprintf(buf, size, "unknown (trace events lost)");
		break;
	default:
		snprintf(buf, size, "%s", explain_kind_name((enum cause_kind)cause->key.kind));
		break;
	}
	return buf;
}
