// SPDX-License-Identifier: GPL-2.0-or-later
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
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
		"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "unknown";
}
