/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPLAIN_H
#define LATSCOPE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latscope/names.h"
#include "latscope/period.h"
#include "latscope/trace_record.h"

/*
 * The attribution engine: a pure function of one CPU's kernel events and
 * its spike windows. It follows what runs on the CPU as a nesting stack
 * (NMI > hard IRQ / vector > softirq > thread) and charges every instant of
 * every window to exactly one cause, nested time subtracted: a softirq
 * interrupted by an IRQ is charged only its own time. Across the run it
 * sums the causes and finds which recur with a period.
 *
 * Feed it in time order: every window starting before t must be added
 * before an event at t is fed. It keeps no event: memory is bounded by the
 * number of causes and the worst spikes it keeps.
 */
enum explain_mode {
	EXPLAIN_NOISE, /* windows are gaps of a busy loop */
	EXPLAIN_TIMER, /* windows run from a timer's expiry to the wake-up */
};

enum cause_kind {
	CAUSE_IRQ, /* a device interrupt handler, by number */
	CAUSE_VECTOR, /* a system vector (local_timer, reschedule, ...) */
	CAUSE_SOFTIRQ,
	CAUSE_THREAD, /* another task ran (noise), or blocked the wake-up (timer) */
	CAUSE_NMI,
	CAUSE_THROTTLING, /* RT throttling held the measuring thread off */
	CAUSE_UNEXPLAINED, /* no event covers it: firmware (SMI), hypervisor, entry code */
	CAUSE_TIMER_DELAY, /* timer mode: expiry to the wake-up being issued */
	CAUSE_SCHEDULING, /* timer mode: switch-in and return to user space */
	CAUSE_LOST, /* the trace lost events here: cause unknown */
	CAUSE_KINDS,
};

/*
 * The parts of a spike in rtla's words (latscope/explain_analysis.h), by
 * which the engine counts every spike's largest part.
 */
enum explain_part {
	PART_IRQ_HANDLER_DELAY, /* nothing traced ran: idle exit, interrupts off */
	PART_TIMER_IRQ, /* the handler that issued the wake-up */
	PART_NMI,
	PART_IRQ, /* device IRQs and system vectors, before or after the handler */
	PART_SOFTIRQ,
	PART_THREAD, /* the blocking thread and every other thread that ran */
	PART_SCHEDULING, /* switch-in and return to user space */
	PART_UNEXPLAINED, /* no event covers it: firmware, hypervisor */
	PART_LOST, /* the trace lost events here */
	PART_THROTTLING, /* RT throttling held the loop off */
	EXPLAIN_PARTS,
};

struct cause_key {
	uint8_t kind; /* enum cause_kind */
	int64_t id; /* irq number, vector, softirq number or pid; 0 otherwise */
	/*
	 * a softirq: the thread it ran in (ksoftirqd, ktimers or an IRQ
	 * thread, or any thread enabling bottom halves, as every softirq
	 * runs on PREEMPT_RT); 0 when it ran on an interrupt's way out
	 */
	int32_t thread;
};

struct explain_window {
	uint64_t start_ns, end_ns;
	int32_t own_pid; /* the measuring thread's tid */
	bool throttled; /* noise: the gap is RT throttling */
	uint64_t tag; /* the caller's: gap index, cycle number */
};

struct explain_contribution {
	uint32_t cause; /* index into the CPU's causes */
	uint64_t ns;
	uint64_t first_ns; /* when it first ran in the window */
};

/* A piece of a window's timeline: one cause from start to end. */
struct explain_segment {
	uint64_t start_ns, end_ns;
	uint32_t cause;
};

struct explain_spike {
	struct explain_window window;
	struct explain_contribution *contributions; /* largest first */
	unsigned int nr_contributions;
	struct explain_segment *timeline; /* in time order */
	unsigned int nr_segments;
	bool incomplete; /* events were lost during it */
	/* timer: when the measuring thread's wake-up was issued; 0 unseen */
	uint64_t woken_ns;
};

/* A cause's part in one window. */
struct explain_occurrence {
	uint64_t t_ns; /* when it first ran in the window */
	uint64_t ns; /* how long it ran there */
	uint64_t window; /* the window's tag */
};

struct explain_cause {
	struct cause_key key;
	uint32_t name; /* irq action, task comm; 0 when none */
	int32_t prio; /* threads: kernel priority last seen, -1 unknown */
	/*
	 * threads: the highest priority it ran at while priority inheritance
	 * boosted it (it held a lock a higher one waited for; prio is then
	 * its own), -1 never seen boosted
	 */
	int32_t boosted_prio;
	/*
	 * a thread that runs an IRQ's handler (irq/NN-name, as every device
	 * handler runs on PREEMPT_RT): the IRQ, -1 for any other thread; its
	 * action, as the hardirq that woke the thread named it (the comm is
	 * cut at 15 characters), 0 when no wake-up was seen
	 */
	int32_t irq_thread_of;
	uint32_t irq_action;
	uint64_t spikes; /* windows it took part in */
	uint64_t total_ns;
	uint64_t max_ns; /* largest contribution to one window */
	bool periodic; /* it has at least one train */
	struct period_source period; /* its strongest train, when periodic */
	/* after explain_cpu_finish: every train its occurrences form, most
	 * occurrences first (several trains may share a period at distinct
	 * phases) */
	struct period_source *trains;
	unsigned int nr_trains;
	/* for explain_join: each occurrence in window order, and its train
	 * (an index into trains, or PERIOD_UNASSIGNED) */
	struct explain_occurrence *occurrences;
	uint8_t *occurrence_train;
	unsigned int nr_occurrences, occurrences_capacity;
	bool occurrences_incomplete; /* memory ran out: some were not kept */
};

struct explain_cpu;

/**
 * explain_cpu_new - an engine for one CPU
 * @cpu: the CPU
 * @mode: what the windows are
 * @names: the interned names the records use (not owned; must outlive it)
 * @worst_kept: how many of the largest spikes to keep in detail
 *
 * Returns an engine to free with explain_cpu_free(), or NULL.
 */
struct explain_cpu *explain_cpu_new(unsigned int cpu, enum explain_mode mode,
				    const struct names *names, unsigned int worst_kept);
void explain_cpu_free(struct explain_cpu *engine);

/* The measuring tool's own main thread, so its label says so (0: none). */
void explain_cpu_set_tool_pid(struct explain_cpu *engine, int32_t pid);

/*
 * The kernel runs every softirq in a thread (PREEMPT_RT): never on an
 * interrupt's way out, so a softirq is charged to the thread it ran in even
 * right after a hardirq. Without it the engine tells the two apart by what
 * came before the softirq.
 */
void explain_cpu_set_threaded_softirqs(struct explain_cpu *engine, bool threaded);

/*
 * The full name of the IRQ thread @cause is ("irq/31-virtio2-req.2"), from
 * its IRQ and the action the hardirq named; false when it is no IRQ thread
 * or the action is unknown (the comm then says what is known).
 */
bool explain_irq_thread_name(const struct explain_cpu *engine, const struct explain_cause *cause,
			     char *buf, size_t size);

/*
 * The exact number of events this CPU's trace lost so far, when the
 * records said only that some were (a full sub-buffer has no room for the
 * count): explain_cpu_totals() gives the larger of it and the count of the
 * records fed (which lags while records wait). The spikes the losses
 * touched are marked as the records are fed.
 */
void explain_cpu_count_lost(struct explain_cpu *engine, uint64_t lost);

/* Add a window; windows come in ascending start order and do not overlap. */
int explain_cpu_add_window(struct explain_cpu *engine, const struct explain_window *window);

/* Feed one event of this CPU; events come in ascending ts order. */
void explain_cpu_feed(struct explain_cpu *engine, const struct trace_record *record);

/*
 * Nothing happened before @now that was not fed: windows ending before it
 * are charged to what was running and closed.
 */
void explain_cpu_advance(struct explain_cpu *engine, uint64_t now);

/**
 * explain_cpu_finish - close every window and search each cause's
 * occurrences for every train they form
 * @engine: the engine
 * @end_ns: the end of the run on the events' timeline
 * @run_ns: the run's length, for the periodicity search
 *
 * Returns 0 or -ENOMEM.
 */
int explain_cpu_finish(struct explain_cpu *engine, uint64_t end_ns, uint64_t run_ns);

/* The causes, largest total first after explain_cpu_finish(). */
const struct explain_cause *explain_cpu_causes(const struct explain_cpu *engine,
					       unsigned int *nr_causes);

/**
 * explain_cpu_window_causes - what took part in each window
 * @engine: a finished engine (explain_cpu_finish())
 * @causes: receives, for each window tag below @nr_windows, the causes of
 *	    its occurrences as struct period_event wants them: bit (c % 64)
 *	    for cause c of explain_cpu_causes(); 0 for a window without one
 * @nr_windows: entries in @causes (the caller's)
 *
 * The periodicity search of the spike list tells nested sources apart by
 * them. Windows whose occurrences were not kept get 0.
 */
void explain_cpu_window_causes(const struct explain_cpu *engine, uint64_t *causes,
			       size_t nr_windows);

/* The largest spikes, largest first. */
const struct explain_spike *explain_cpu_worst(const struct explain_cpu *engine,
					      unsigned int *nr_spikes);

struct explain_totals {
	uint64_t windows; /* spikes explained */
	uint64_t window_ns; /* their total length */
	uint64_t lost_events; /* events the ring buffer dropped */
	uint64_t incomplete; /* windows that overlapped a loss */
	uint64_t events; /* events fed */
	/* spikes by their largest part (latscope/explain_analysis.h) */
	uint64_t by_main_part[EXPLAIN_PARTS];
};

void explain_cpu_totals(const struct explain_cpu *engine, struct explain_totals *totals);

/*
 * A hole in the trace: the ring buffer dropped the events between the last
 * one read before it (start_ns) and the first one after it (end_ns). A
 * spike is incomplete exactly when its window overlaps one.
 */
struct explain_lost_span {
	uint64_t start_ns, end_ns;
	uint64_t events; /* as the trace counted them; 0: some, count unknown */
};

#define EXPLAIN_LOST_SPANS_KEPT 64

/**
 * explain_cpu_lost_spans - where the trace of the engine's CPU has holes
 * @engine: the engine, which owns the returned array
 * @nr_spans: receives how many are kept: the first EXPLAIN_LOST_SPANS_KEPT,
 *	      in time order, adjacent ones joined
 * @not_kept: receives how many later ones were only counted
 *
 * Returns the spans, valid as long as the engine.
 */
const struct explain_lost_span *explain_cpu_lost_spans(const struct explain_cpu *engine,
						       unsigned int *nr_spans, uint64_t *not_kept);

/*
 * For a consumer that runs for weeks (latscope monitor): a hook called as
 * each window closes, with its contributions (largest first, causes by
 * index into explain_cpu_causes()) and timeline, valid during the call.
 */
typedef void (*explain_window_hook)(void *context, const struct explain_cpu *engine,
				    const struct explain_spike *spike);
void explain_cpu_set_window_hook(struct explain_cpu *engine, explain_window_hook hook,
				 void *context);

/* The CPU an engine follows. */
unsigned int explain_cpu_number(const struct explain_cpu *engine);

/**
 * explain_cpu_forget_causes - drop the cause table and its occurrences, so
 * that an engine fed for weeks stays in bounded memory (its periodicity
 * search then covers only what came since)
 * @engine: an engine keeping no worst spikes (worst_kept 0)
 *
 * Returns 0, or -EBUSY while a window is open or spikes are kept: they
 * refer to causes by index.
 */
int explain_cpu_forget_causes(struct explain_cpu *engine);

/* "irq", "vector", ... for a kind */
const char *explain_kind_name(enum cause_kind kind);

/**
 * explain_cause_label - a cause in words: "irq 36 virtio1-req.0",
 * "local_timer", "TIMER softirq", "TIMER softirq in ktimers/2",
 * "stress:4242 (rt 50)", "irq/36-virtio1-req.0:120 (rt 50), thread of irq 36",
 * "holder:77 (boosted to rt 90)",
 * "unexplained"
 * Returns @buf.
 */
char *explain_cause_label(const struct explain_cpu *engine, const struct explain_cause *cause,
			  char *buf, size_t size);

#endif
