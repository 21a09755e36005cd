/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TRACE_RECORD_H
#define LATSCOPE_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "latscope/names.h"

/*
 * One kernel event as the attribution engine needs it: fixed size, names as
 * interned ids (names.h), times in ns on the run's timeline. The tracing
 * session turns raw tracefs records into these; tests write them by hand.
 */
enum trace_kind {
	TRACE_IRQ_ENTRY, /* irq:irq_handler_entry */
	TRACE_IRQ_EXIT, /* irq:irq_handler_exit */
	TRACE_SOFTIRQ_ENTRY, /* irq:softirq_entry */
	TRACE_SOFTIRQ_EXIT,
	TRACE_VECTOR_ENTRY, /* irq_vectors:*_entry (local_timer, reschedule, ...) */
	TRACE_VECTOR_EXIT,
	TRACE_NMI, /* nmi:nmi_handler: a handler that ran delta_ns up to ts */
	TRACE_SWITCH, /* sched:sched_switch */
	TRACE_WAKING, /* sched:sched_waking */
	TRACE_HRTIMER_START, /* timer:hrtimer_start */
	TRACE_HRTIMER_EXPIRE_ENTRY, /* timer:hrtimer_expire_entry */
	TRACE_HRTIMER_EXPIRE_EXIT,
	TRACE_LOST, /* the ring buffer dropped events before ts */
	/* sched:sched_pi_setprio: priority inheritance boosted a lock holder
	 * or ended its boost (after TRACE_LOST: recordings keep their numbers) */
	TRACE_PI_SETPRIO,
	TRACE_SYS_EXIT, /* raw_syscalls:sys_exit: the current task returns to user space */
	TRACE_FORK, /* sched:sched_process_fork: a task made a thread or a process */
	TRACE_KINDS,
};

/* The x86 system vectors with entry/exit events. */
enum trace_vector {
	VECTOR_LOCAL_TIMER,
	VECTOR_RESCHEDULE,
	VECTOR_CALL_FUNCTION,
	VECTOR_CALL_FUNCTION_SINGLE,
	VECTOR_IRQ_WORK,
	VECTOR_X86_PLATFORM_IPI,
	VECTOR_THERMAL_APIC,
	VECTOR_ERROR_APIC,
	VECTOR_SPURIOUS_APIC,
	VECTOR_OTHER,
	TRACE_VECTORS,
};

struct trace_record {
	uint64_t ts;
	uint32_t cpu;
	/* the task current on the CPU when the event fired (common_pid); in
	 * an interrupt, the task it interrupted; -1 when unknown */
	int32_t pid;
	uint8_t kind; /* enum trace_kind */
	union {
		struct {
			int32_t irq;
			uint32_t name; /* action name, on entry */
		} irq;
		struct {
			uint32_t vec; /* softirq number: TIMER is 1, NET_RX 3, RCU 9 */
		} softirq;
		struct {
			uint32_t vector; /* enum trace_vector */
		} vector;
		struct {
			uint64_t duration_ns;
		} nmi;
		struct {
			int32_t prev_pid, next_pid;
			int32_t prev_prio, next_prio; /* kernel prio: < 100 real-time */
			uint32_t prev_comm, next_comm;
			int64_t prev_state;
		} sched_switch;
		struct {
			int32_t pid, prio, target_cpu;
			uint32_t comm;
		} waking;
		struct {
			uint64_t timer; /* the hrtimer's address: identifies it */
			/*
			 * start: the expiry asked for (softexpires: a timer's
			 * slack lets it fire later, never earlier); expire
			 * entry: the time it ran (now); CLOCK_MONOTONIC for
			 * the timers latscope follows
			 */
			uint64_t expires_ns;
		} hrtimer;
		struct {
			uint64_t count; /* how many were lost; 0 when unknown */
		} lost;
		struct {
			int32_t pid, oldprio, newprio; /* kernel prio */
			uint32_t comm;
		} pi;
		struct {
			int64_t id, ret; /* the system call's number and result */
		} sys_exit;
		struct {
			int32_t parent_pid, child_pid;
			uint32_t child_comm;
		} fork;
	};
};

/* "local_timer", ..., for a vector */
const char *trace_vector_name(enum trace_vector vector);
/* "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
 * "HRTIMER", "RCU" for a softirq number; "unknown" beyond */
const char *trace_softirq_name(uint32_t vec);

/**
 * trace_record_format - one line of text for a record, as a trace shows it:
 * "irq_handler_entry irq=36 name=virtio1-req.0"
 * Returns @buf.
 */
char *trace_record_format(const struct trace_record *record, const struct names *names, char *buf,
			  size_t size);

#endif
