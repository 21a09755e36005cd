// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <event-parse.h>
#include <kbuffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/trace.h"
#include "latscope/trace_mount.h"

#define MAX_EVENT_ID 65536

/* How each recorded event becomes a record. */
enum decoder {
	DECODE_NONE,
	DECODE_IRQ_ENTRY,
	DECODE_IRQ_EXIT,
	DECODE_SOFTIRQ_ENTRY,
	DECODE_SOFTIRQ_EXIT,
	DECODE_VECTOR_ENTRY,
	DECODE_VECTOR_EXIT,
	DECODE_NMI,
	DECODE_SWITCH,
	DECODE_WAKING,
	DECODE_HRTIMER_START,
	DECODE_HRTIMER_EXPIRE_ENTRY,
	DECODE_HRTIMER_EXPIRE_EXIT,
	DECODE_PI_SETPRIO,
	DECODE_SYS_EXIT,
	DECODE_FORK,
};

struct wanted_event {
	const char *system, *name;
	enum decoder decoder;
	enum trace_vector vector;
};

static const struct wanted_event wanted[] = {
	{ "irq", "irq_handler_entry", DECODE_IRQ_ENTRY, 0 },
	{ "irq", "irq_handler_exit", DECODE_IRQ_EXIT, 0 },
	{ "irq", "softirq_entry", DECODE_SOFTIRQ_ENTRY, 0 },
	{ "irq", "softirq_exit", DECODE_SOFTIRQ_EXIT, 0 },
	{ "irq_vectors", "local_timer_entry", DECODE_VECTOR_ENTRY, VECTOR_LOCAL_TIMER },
	{ "irq_vectors", "local_timer_exit", DECODE_VECTOR_EXIT, VECTOR_LOCAL_TIMER },
	{ "irq_vectors", "reschedule_entry", DECODE_VECTOR_ENTRY, VECTOR_RESCHEDULE },
	{ "irq_vectors", "reschedule_exit", DECODE_VECTOR_EXIT, VECTOR_RESCHEDULE },
	{ "irq_vectors", "call_function_entry", DECODE_VECTOR_ENTRY, VECTOR_CALL_FUNCTION },
	{ "irq_vectors", "call_function_exit", DECODE_VECTOR_EXIT, VECTOR_CALL_FUNCTION },
	{ "irq_vectors", "call_function_single_entry", DECODE_VECTOR_ENTRY,
	  VECTOR_CALL_FUNCTION_SINGLE },
	{ "irq_vectors", "call_function_single_exit", DECODE_VECTOR_EXIT,
	  VECTOR_CALL_FUNCTION_SINGLE },
	{ "irq_vectors", "irq_work_entry", DECODE_VECTOR_ENTRY, VECTOR_IRQ_WORK },
	{ "irq_vectors", "irq_work_exit", DECODE_VECTOR_EXIT, VECTOR_IRQ_WORK },
	{ "irq_vectors", "x86_platform_ipi_entry", DECODE_VECTOR_ENTRY, VECTOR_X86_PLATFORM_IPI },
	{ "irq_vectors", "x86_platform_ipi_exit", DECODE_VECTOR_EXIT, VECTOR_X86_PLATFORM_IPI },
	{ "irq_vectors", "thermal_apic_entry", DECODE_VECTOR_ENTRY, VECTOR_THERMAL_APIC },
	{ "irq_vectors", "thermal_apic_exit", DECODE_VECTOR_EXIT, VECTOR_THERMAL_APIC },
	{ "irq_vectors", "error_apic_entry", DECODE_VECTOR_ENTRY, VECTOR_ERROR_APIC },
	{ "irq_vectors", "error_apic_exit", DECODE_VECTOR_EXIT, VECTOR_ERROR_APIC },
	{ "irq_vectors", "spurious_apic_entry", DECODE_VECTOR_ENTRY, VECTOR_SPURIOUS_APIC },
	{ "irq_vectors", "spurious_apic_exit", DECODE_VECTOR_EXIT, VECTOR_SPURIOUS_APIC },
	{ "nmi", "nmi_handler", DECODE_NMI, 0 },
	{ "sched", "sched_switch", DECODE_SWITCH, 0 },
	{ "sched", "sched_waking", DECODE_WAKING, 0 },
	{ "sched", "sched_pi_setprio", DECODE_PI_SETPRIO, 0 },
	{ "timer", "hrtimer_start", DECODE_HRTIMER_START, 0 },
	{ "timer", "hrtimer_expire_entry", DECODE_HRTIMER_EXPIRE_ENTRY, 0 },
	{ "timer", "hrtimer_expire_exit", DECODE_HRTIMER_EXPIRE_EXIT, 0 },
	/* only when trace_options.syscall_exits_of asks: latscope attach's */
	{ "raw_syscalls", "sys_exit", DECODE_SYS_EXIT, 0 },
	{ "sched", "sched_process_fork", DECODE_FORK, 0 },
};

#define NR_WANTED (sizeof(wanted) / sizeof(wanted[0]))

/* The fields a decoder reads, located once from the event's format. */
struct field {
	int offset, size;
	bool dynamic; /* __data_loc: a u32 holding (length << 16 | offset) */
};

struct event_decoder {
	enum decoder decoder;
	enum trace_vector vector;
	struct field f[7];
};

struct cpu_reader {
	unsigned int cpu;
	struct tracefs_cpu *tcpu;
	void *page;
	struct kbuffer *kbuf;
	uint64_t lost;
	bool loss_uncounted; /* a sub-buffer said "some": the kernel's count decides */
};

struct trace_session {
	struct tracefs_instance *instance;
	struct tep_handle *tep;
	struct names *names;
	const struct tsc_clock *tsc;
	struct trace_mount mount;
	unsigned int nr_events;
	struct event_decoder *decoders; /* indexed by event id */
	uint16_t *decoder_of; /* event id -> decoders index + 1 */
	unsigned int nr_decoders;
	struct cpu_reader *readers;
	unsigned int nr_readers;
	int page_size;
	struct field common_pid; /* the same in every event */
};

/* The event's format parsed into the session's tep; NULL when absent. */
static struct tep_event *load_format(struct trace_session *s, const struct wanted_event *w)
{
	char *format;
	int size;
	struct tep_event *event = NULL;

	format = tracefs_event_file_read(s->instance, w->system, w->name, "format", &size);
	if (!format)
		return NULL;
	if (tep_parse_event(s->tep, format, (unsigned long)size, w->system) == 0)
		event = tep_find_event_by_name(s->tep, w->system, w->name);
	free(format);
	return event;
}

static bool locate(struct tep_event *event, const char *name, struct field *field)
{
	struct tep_format_field *f = tep_find_any_field(event, name);

	if (!f)
		return false;
	field->offset = f->offset;
	field->size = f->size;
	field->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	return true;
}

/* The fields each decoder reads, in the order it reads them. */
static const char *const decoder_fields[][7] = {
	[DECODE_IRQ_ENTRY] = { "irq", "name" },
	[DECODE_IRQ_EXIT] = { "irq" },
	[DECODE_SOFTIRQ_ENTRY] = { "vec" },
	[DECODE_SOFTIRQ_EXIT] = { "vec" },
	[DECODE_NMI] = { "delta_ns" },
	[DECODE_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
			    "next_pid", "next_prio" },
	[DECODE_WAKING] = { "comm", "pid", "prio", "target_cpu" },
	[DECODE_HRTIMER_START] = { "hrtimer", "softexpires" },
	[DECODE_HRTIMER_EXPIRE_ENTRY] = { "hrtimer", "now" },
	[DECODE_HRTIMER_EXPIRE_EXIT] = { "hrtimer" },
	[DECODE_PI_SETPRIO] = { "comm", "pid", "oldprio", "newprio" },
	[DECODE_SYS_EXIT] = { "id", "ret" },
	[DECODE_FORK] = { "parent_pid", "child_comm", "child_pid" },
};

static int enable_events(struct trace_session *s, const struct trace_options *options)
{
	char missing[2048] = "";
	size_t used = 0, i;
	unsigned int k;

	s->decoders = calloc(NR_WANTED, sizeof(*s->decoders));
	s->decoder_of = calloc(MAX_EVENT_ID, sizeof(*s->decoder_of));
	if (!s->decoders || !s->decoder_of)
		return -ENOMEM;
	for (i = 0; i < NR_WANTED; i++) {
		const struct wanted_event *w = &wanted[i];
		struct event_decoder *d = &s->decoders[s->nr_decoders];
		struct tep_event *event;
		bool ok;

		if ((w->decoder == DECODE_SYS_EXIT || w->decoder == DECODE_FORK) &&
		    !options->syscall_exits_of)
			continue;
		event = load_format(s, w);
		ok = event && event->id >= 0 && event->id < MAX_EVENT_ID;

		d->decoder = w->decoder;
		d->vector = w->vector;
		for (k = 0; ok && k < 7 && decoder_fields[w->decoder][k]; k++)
			ok = locate(event, decoder_fields[w->decoder][k], &d->f[k]);
		if (ok && !s->common_pid.size)
			ok = locate(event, "common_pid", &s->common_pid);
		/* before the event is on: no record of another task gets in */
		if (ok && w->decoder == DECODE_SYS_EXIT)
			ok = !trace_session_filter_syscall_exits(s, options->syscall_exits_of);
		if (ok)
			ok = !tracefs_event_enable(s->instance, w->system, w->name);
		/* who asked for the returns to user space cannot do without them */
		if (!ok && w->decoder == DECODE_SYS_EXIT) {
			log_error("this kernel lacks raw_syscalls:sys_exit (or it cannot be "
				  "filtered): the returns to user space cannot be traced");
			return -ENOENT;
		}
		if (!ok) {
			used += (size_t)snprintf(
				missing + used, used < sizeof(missing) ? sizeof(missing) - used : 0,
				"%s%s:%s", used ? ", " : "", w->system, w->name);
			continue;
		}
		s->decoder_of[event->id] = (uint16_t)(s->nr_decoders + 1);
		s->nr_decoders++;
	}
	s->nr_events = s->nr_decoders;
	if (*missing)
		log_warning("this kernel lacks %s; explaining with the other events", missing);
	if (!s->nr_decoders) {
		log_error("no tracepoint latscope needs is available");
		return -ENOENT;
	}
	return 0;
}

static int open_readers(struct trace_session *s, const struct cpuset *cpus)
{
	int cpu;

	s->readers = calloc(cpuset_count(cpus), sizeof(*s->readers));
	if (!s->readers)
		return -ENOMEM;
	cpuset_for_each(cpu, cpus) {
		struct cpu_reader *r = &s->readers[s->nr_readers];

		r->cpu = (unsigned int)cpu;
		r->tcpu = tracefs_cpu_open(s->instance, cpu, true);
		if (!r->tcpu) {
			int err = errno;

			log_error("cannot open the trace buffer of cpu %d: %s", cpu, strerror(err));
			return -err;
		}
		s->page_size = tracefs_cpu_read_size(r->tcpu);
		r->page = malloc((size_t)s->page_size);
		r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
		if (!r->page || !r->kbuf)
			return -ENOMEM;
		s->nr_readers++;
	}
	return 0;
}

static int configure(struct trace_session *s, const struct trace_options *options)
{
	char list[1024], mask[2200];
	int cpu, last = 0;

	if (tracefs_instance_file_write(s->instance, "trace_clock", options->clock) < 0) {
		log_error("cannot set trace_clock %s in the tracing instance", options->clock);
		return -EINVAL;
	}
	cpuset_for_each(cpu, &options->cpus)
		last = cpu;
	cpuset_format_mask(&options->cpus, (unsigned int)last + 1, mask, sizeof(mask));
	if (tracefs_instance_file_write(s->instance, "tracing_cpumask", mask) < 0) {
		log_error("cannot limit the tracing instance to cpus %s",
			  cpuset_format_list(&options->cpus, list, sizeof(list)));
		return -EINVAL;
	}
	cpuset_for_each(cpu, &options->cpus)
		if (tracefs_instance_set_buffer_size(s->instance, options->buffer_kb, cpu))
			log_warning("cannot set a %zu KiB trace buffer on cpu %d",
				    options->buffer_kb, cpu);
	return 0;
}

struct trace_session *trace_session_create(const struct trace_options *options, struct names *names)
{
	struct trace_session *s = calloc(1, sizeof(*s));
	char name[64];

	if (!s)
		return NULL;
	s->names = names;
	s->tsc = options->tsc;
	/* stale instances and mounts of runs that did not end are cleaned here */
	if (trace_mount_ensure(&s->mount))
		goto fail;
	snprintf(name, sizeof(name), TRACE_INSTANCE_PREFIX "%d", (int)getpid());
	s->instance = tracefs_instance_create(name);
	if (!s->instance) {
		log_error("cannot create the tracing instance %s: %s", name, strerror(errno));
		goto fail;
	}
	s->tep = tep_alloc();
	if (!s->tep || configure(s, options) || enable_events(s, options) ||
	    open_readers(s, &options->cpus))
		goto fail;
	if (tracefs_trace_on(s->instance)) {
		log_error("cannot start tracing in the instance %s", name);
		goto fail;
	}
	return s;
fail:
	trace_session_destroy(s);
	return NULL;
}

int trace_session_filter_syscall_exits(struct trace_session *s, const char *filter)
{
	size_t len = strlen(filter);

	if (tracefs_event_file_write(s->instance, "raw_syscalls", "sys_exit", "filter", filter) !=
	    (int)len) {
		log_error("cannot filter raw_syscalls:sys_exit with '%s': %s", filter,
			  strerror(errno));
		return -EINVAL;
	}
	return 0;
}

unsigned int trace_session_nr_events(const struct trace_session *s)
{
	return s->nr_events;
}

/* The value of "NAME: N" in a per-CPU stats file, 0 when absent. */
static uint64_t stats_value(const char *stats, const char *name)
{
	size_t len = strlen(name);
	const char *p = stats;

	while (p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/*
 * What the kernel counted as lost on one CPU since the instance was made:
 * events overwritten before they were read (overrun, the instance's
 * overwrite mode), dropped when a write could not be committed (commit
 * overrun) or when the buffer was full (dropped_events, without
 * overwrite). A sub-buffer that was full when read has no room for the
 * count of the events missed before it (kbuffer says -1), so this is the
 * exact figure the reader's own count is raised to.
 */
static uint64_t kernel_lost(const struct trace_session *s, unsigned int cpu)
{
	char path[64], *stats;
	uint64_t lost;

	snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", cpu);
	stats = tracefs_instance_file_read(s->instance, path, NULL);
	if (!stats)
		return 0;
	lost = stats_value(stats, "overrun") + stats_value(stats, "commit overrun") +
	       stats_value(stats, "dropped_events");
	free(stats);
	return lost;
}

uint64_t trace_session_lost_on(const struct trace_session *s, unsigned int cpu)
{
	unsigned int i;
	uint64_t kernel;

	for (i = 0; i < s->nr_readers; i++) {
		if (s->readers[i].cpu != cpu)
			continue;
		/* a file read only where a loss went uncounted */
		kernel = s->instance && s->readers[i].loss_uncounted ? kernel_lost(s, cpu) : 0;
		return kernel > s->readers[i].lost ? kernel : s->readers[i].lost;
	}
	return 0;
}

uint64_t trace_session_lost(const struct trace_session *s)
{
	uint64_t lost = 0;
	unsigned int i;

	for (i = 0; i < s->nr_readers; i++)
		lost += trace_session_lost_on(s, s->readers[i].cpu);
	return lost;
}

/*
 * Ring buffer records are 4-byte aligned: an 8-byte field may not be, so
 * every field is copied out rather than loaded through a cast pointer.
 */
static int64_t read_signed(const void *data, const struct field *f)
{
	const char *p = (const char *)data + f->offset;
	int8_t v8;
	int16_t v16;
	int32_t v32;
	int64_t v64;

	switch (f->size) {
	case 1:
		memcpy(&v8, p, sizeof(v8));
		return v8;
	case 2:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	case 4:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	default:
		memcpy(&v64, p, sizeof(v64));
		return v64;
	}
}

static uint32_t read_name(struct trace_session *s, const void *data, const struct field *f)
{
	const char *text = (const char *)data + f->offset;
	size_t max = (size_t)f->size;

	if (f->dynamic) {
		uint32_t loc;

		memcpy(&loc, text, sizeof(loc));

		text = (const char *)data + (loc & 0xffff);
		max = loc >> 16;
	}
	return names_intern(s->names, text, strnlen(text, max));
}

static uint64_t timeline_ns(const struct trace_session *s, uint64_t ts)
{
	return s->tsc ? tsc_to_ns_since_start(s->tsc, ts) : ts;
}

static void decode(struct trace_session *s, unsigned int cpu, uint64_t ts, const void *data,
		   trace_emit emit, void *context)
{
	uint16_t type = *(const uint16_t *)data, index = s->decoder_of[type];
	const struct event_decoder *d;
	struct trace_record r;

	if (!index)
		return;
	d = &s->decoders[index - 1];
	memset(&r, 0, sizeof(r));
	r.ts = timeline_ns(s, ts);
	r.cpu = cpu;
	r.pid = (int32_t)read_signed(data, &s->common_pid);
	switch (d->decoder) {
	case DECODE_IRQ_ENTRY:
		r.kind = TRACE_IRQ_ENTRY;
		r.irq.irq = (int32_t)read_signed(data, &d->f[0]);
		r.irq.name = read_name(s, data, &d->f[1]);
		break;
	case DECODE_IRQ_EXIT:
		r.kind = TRACE_IRQ_EXIT;
		r.irq.irq = (int32_t)read_signed(data, &d->f[0]);
		break;
	case DECODE_SOFTIRQ_ENTRY:
	case DECODE_SOFTIRQ_EXIT:
		r.kind = d->decoder == DECODE_SOFTIRQ_ENTRY ? TRACE_SOFTIRQ_ENTRY :
							      TRACE_SOFTIRQ_EXIT;
		r.softirq.vec = (uint32_t)read_signed(data, &d->f[0]);
		break;
	case DECODE_VECTOR_ENTRY:
	case DECODE_VECTOR_EXIT:
		r.kind = d->decoder == DECODE_VECTOR_ENTRY ? TRACE_VECTOR_ENTRY : TRACE_VECTOR_EXIT;
		r.vector.vector = d->vector;
		break;
	case DECODE_NMI:
		r.kind = TRACE_NMI;
		r.nmi.duration_ns = (uint64_t)read_signed(data, &d->f[0]);
		break;
	case DECODE_SWITCH:
		r.kind = TRACE_SWITCH;
		r.sched_switch.prev_comm = read_name(s, data, &d->f[0]);
		r.sched_switch.prev_pid = (int32_t)read_signed(data, &d->f[1]);
		r.sched_switch.prev_prio = (int32_t)read_signed(data, &d->f[2]);
		r.sched_switch.prev_state = read_signed(data, &d->f[3]);
		r.sched_switch.next_comm = read_name(s, data, &d->f[4]);
		r.sched_switch.next_pid = (int32_t)read_signed(data, &d->f[5]);
		r.sched_switch.next_prio = (int32_t)read_signed(data, &d->f[6]);
		break;
	case DECODE_WAKING:
		r.kind = TRACE_WAKING;
		r.waking.comm = read_name(s, data, &d->f[0]);
		r.waking.pid = (int32_t)read_signed(data, &d->f[1]);
		r.waking.prio = (int32_t)read_signed(data, &d->f[2]);
		r.waking.target_cpu = (int32_t)read_signed(data, &d->f[3]);
		break;
	case DECODE_HRTIMER_START:
		r.kind = TRACE_HRTIMER_START;
		r.hrtimer.timer = (uint64_t)read_signed(data, &d->f[0]);
		r.hrtimer.expires_ns = (uint64_t)read_signed(data, &d->f[1]);
		break;
	case DECODE_HRTIMER_EXPIRE_ENTRY:
		r.kind = TRACE_HRTIMER_EXPIRE_ENTRY;
		r.hrtimer.timer = (uint64_t)read_signed(data, &d->f[0]);
		r.hrtimer.expires_ns = (uint64_t)read_signed(data, &d->f[1]);
		break;
	case DECODE_HRTIMER_EXPIRE_EXIT:
		r.kind = TRACE_HRTIMER_EXPIRE_EXIT;
		r.hrtimer.timer = (uint64_t)read_signed(data, &d->f[0]);
		break;
	case DECODE_PI_SETPRIO:
		r.kind = TRACE_PI_SETPRIO;
		r.pi.comm = read_name(s, data, &d->f[0]);
		r.pi.pid = (int32_t)read_signed(data, &d->f[1]);
		r.pi.oldprio = (int32_t)read_signed(data, &d->f[2]);
		r.pi.newprio = (int32_t)read_signed(data, &d->f[3]);
		break;
	case DECODE_SYS_EXIT:
		r.kind = TRACE_SYS_EXIT;
		r.sys_exit.id = read_signed(data, &d->f[0]);
		r.sys_exit.ret = read_signed(data, &d->f[1]);
		break;
	case DECODE_FORK:
		r.kind = TRACE_FORK;
		r.fork.parent_pid = (int32_t)read_signed(data, &d->f[0]);
		r.fork.child_comm = read_name(s, data, &d->f[1]);
		r.fork.child_pid = (int32_t)read_signed(data, &d->f[2]);
		break;
	default:
		return;
	}
	emit(&r, context);
}

/* Decode one sub-buffer; returns the number of records. */
static long decode_page(struct trace_session *s, struct cpu_reader *r, trace_emit emit,
			void *context)
{
	unsigned long long ts;
	long n = 0;
	void *data;
	int missed;

	if (kbuffer_load_subbuffer(r->kbuf, r->page) < 0)
		return 0;
	missed = kbuffer_missed_events(r->kbuf);
	if (missed) {
		struct trace_record lost = { .kind = TRACE_LOST, .cpu = r->cpu, .pid = -1 };

		/* the loss happened before this page's first event */
		lost.ts = timeline_ns(s, kbuffer_subbuf_timestamp(r->kbuf, r->page));
		lost.lost.count = missed > 0 ? (uint64_t)missed : 0;
		r->lost += missed > 0 ? (uint64_t)missed : 1;
		if (missed < 0)
			r->loss_uncounted = true;
		emit(&lost, context);
	}
	for (data = kbuffer_read_event(r->kbuf, &ts); data;
	     data = kbuffer_next_event(r->kbuf, &ts)) {
		decode(s, r->cpu, ts, data, emit, context);
		n++;
	}
	return n;
}

long trace_session_drain(struct trace_session *s, trace_emit emit, void *context)
{
	long total = 0;
	unsigned int i;
	int n;

	for (i = 0; i < s->nr_readers; i++) {
		struct cpu_reader *r = &s->readers[i];

		for (;;) {
			n = tracefs_cpu_read(r->tcpu, r->page, true);
			if (n <= 0)
				break;
			total += decode_page(s, r, emit, context);
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			int err = errno;

			log_error("cannot read the trace buffer of cpu %u: %s", r->cpu,
				  strerror(err));
			return -err;
		}
	}
	return total;
}

void trace_session_destroy(struct trace_session *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->instance)
		tracefs_trace_off(s->instance);
	for (i = 0; i < s->nr_readers; i++) {
		tracefs_cpu_close(s->readers[i].tcpu);
		kbuffer_free(s->readers[i].kbuf);
		free(s->readers[i].page);
	}
	free(s->readers);
	if (s->instance) {
		/* the marker fd keeps the directory busy: close it first */
		tracefs_print_close(s->instance);
		if (tracefs_instance_destroy(s->instance))
			log_warning("cannot remove the tracing instance %s: %s",
				    tracefs_instance_get_name(s->instance), strerror(errno));
		tracefs_instance_free(s->instance);
	}
	if (s->tep)
		tep_free(s->tep);
	free(s->decoders);
	free(s->decoder_of);
	trace_mount_release(&s->mount);
	free(s);
}
