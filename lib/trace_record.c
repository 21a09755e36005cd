// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <stdio.h>

#include "latscope/trace_record.h"

const char *trace_vector_name(enum trace_vector vector)
{
	static const char *const names[TRACE_VECTORS] = {
		[VECTOR_LOCAL_TIMER] = "local_timer",
		[VECTOR_RESCHEDULE] = "reschedule",
		[VECTOR_CALL_FUNCTION] = "call_function",
		[VECTOR_CALL_FUNCTION_SINGLE] = "call_function_single",
		[VECTOR_IRQ_WORK] = "irq_work",
		[VECTOR_X86_PLATFORM_IPI] = "x86_platform_ipi",
		[VECTOR_THERMAL_APIC] = "thermal_apic",
		[VECTOR_ERROR_APIC] = "error_apic",
		[VECTOR_SPURIOUS_APIC] = "spurious_apic",
		[VECTOR_OTHER] = "other_vector",
	};

	return vector < TRACE_VECTORS ? names[vector] : "other_vector";
}

const char *trace_softirq_name(uint32_t vec)
{
	/* include/linux/interrupt.h, stable since 2.6 */
	static const char *const names[] = {
		"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
		"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
	};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "unknown";
}

char *trace_record_format(const struct trace_record *r, const struct names *names, char *buf,
			  size_t size)
{
	switch (r->kind) {
	case TRACE_IRQ_ENTRY:
		snprintf(buf, size, "irq_handler_entry irq=%d name=%s", r->irq.irq,
			 names_get(names, r->irq.name));
		break;
	case TRACE_IRQ_EXIT:
		snprintf(buf, size, "irq_handler_exit irq=%d", r->irq.irq);
		break;
	case TRACE_SOFTIRQ_ENTRY:
	case TRACE_SOFTIRQ_EXIT:
		snprintf(buf, size, "softirq_%s vec=%u [action=%s]",
			 r->kind == TRACE_SOFTIRQ_ENTRY ? "entry" : "exit", r->softirq.vec,
			 trace_softirq_name(r->softirq.vec));
		break;
	case TRACE_VECTOR_ENTRY:
	case TRACE_VECTOR_EXIT:
		snprintf(buf, size, "%s_%s", trace_vector_name((enum trace_vector)r->vector.vector),
			 r->kind == TRACE_VECTOR_ENTRY ? "entry" : "exit");
		break;
	case TRACE_NMI:
		snprintf(buf, size, "nmi_handler delta_ns=%" PRIu64, r->nmi.duration_ns);
		break;
	case TRACE_SWITCH:
		snprintf(buf, size,
			 "sched_switch prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%" PRId64
			 " ==> next_comm=%s next_pid=%d next_prio=%d",
			 names_get(names, r->sched_switch.prev_comm), r->sched_switch.prev_pid,
			 r->sched_switch.prev_prio, r->sched_switch.prev_state,
			 names_get(names, r->sched_switch.next_comm), r->sched_switch.next_pid,
			 r->sched_switch.next_prio);
		break;
	case TRACE_WAKING:
		snprintf(buf, size, "sched_waking comm=%s pid=%d prio=%d target_cpu=%03d",
			 names_get(names, r->waking.comm), r->waking.pid, r->waking.prio,
			 r->waking.target_cpu);
		break;
	case TRACE_HRTIMER_START:
		snprintf(buf, size, "hrtimer_start hrtimer=%#" PRIx64 " expires=%" PRIu64,
			 r->hrtimer.timer, r->hrtimer.expires_ns);
		break;
	case TRACE_HRTIMER_EXPIRE_ENTRY:
		snprintf(buf, size, "hrtimer_expire_entry hrtimer=%#" PRIx64 " now=%" PRIu64,
			 r->hrtimer.timer, r->hrtimer.expires_ns);
		break;
	case TRACE_HRTIMER_EXPIRE_EXIT:
		snprintf(buf, size, "hrtimer_expire_exit hrtimer=%#" PRIx64, r->hrtimer.timer);
		break;
	case TRACE_LOST:
		snprintf(buf, size, "LOST %" PRIu64 " EVENTS", r->lost.count);
		break;
	case TRACE_SYS_EXIT:
		snprintf(buf, size, "sys_exit NR %" PRId64 " = %" PRId64, r->sys_exit.id,
			 r->sys_exit.ret);
		break;
	case TRACE_FORK:
		snprintf(buf, size, "sched_process_fork parent_pid=%d child_comm=%s child_pid=%d",
			 r->fork.parent_pid, names_get(names, r->fork.child_comm),
			 r->fork.child_pid);
		break;
	case TRACE_PI_SETPRIO:
		snprintf(buf, size, "sched_pi_setprio comm=%s pid=%d oldprio=%d newprio=%d",
			 names_get(names, r->pi.comm), r->pi.pid, r->pi.oldprio, r->pi.newprio);
		break;
	default:
		snprintf(buf, size, "unknown event %u", r->kind);
		break;
	}
	return buf;
}
