// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "latscope-config.h"
#include "latscope/atomic_file.h"
#include "latscope/clock.h"
#include "latscope/exporter.h"
#include "latscope/file_lock.h"
#include "latscope/irq.h"
#include "latscope/log.h"
#include "latscope/monitor.h"
#include "latscope/monitor_blocks.h"
#include "monitor_audit.h"
#include "latscope/monitor_explain.h"
#include "latscope/result.h"
#include "latscope/timer.h"
#include "latscope/window_ring.h"

#define TICK_MS 250
#define THRESHOLD_EVERY_NS (1ULL * 1000000000ULL)
#define INTERRUPTS_EVERY_NS (5ULL * 1000000000ULL)
#define CLOCK_OFFSET_EVERY_NS (60ULL * 1000000000ULL)
/*
 * A measuring thread's stack: clock_nanosleep, the accounting and, rarely,
 * a log line. Locked under mlockall, so 256 threads hold 16 MiB, not 128.
 */
#define MEASURING_STACK_BYTES (64 * 1024)

struct lane {
	unsigned int cpu;
	struct monitor_cpu *state; /* on the CPU's NUMA node */
	size_t state_size;
	struct window_ring *windows;
	struct monitor_blocks *blocks; /* under state_lock */
	struct monitor_explained kept; /* from the state, until explain starts */
	bool restored;
	/* interrupts of this CPU since boot, 64-bit: under irq_lock */
	struct metrics_interrupt *interrupts;
	unsigned int nr_interrupts;
};

struct monitor {
	struct monitor_params params;
	char *state_path, *textfile_dir;
	struct topology topo; /* online CPUs and nodes, copied */
	struct cpuset cpus, housekeeping;
	bool cpus_given;
	unsigned int nr_lanes;
	struct lane *lanes;
	struct monitor_cpu **states; /* lane -> state, for explain */
	double start_time; /* Unix time this run began */
	json_t *run_doc; /* result_new() of this run: its start_time and command line */
	json_t *began; /* the state's first begin time, kept across restarts */
	/* the audit's last word, kept when its thread ends */
	json_t *final_audit;
	struct metrics_rule *final_failed;
	unsigned int nr_final_failed;
	uint64_t restarts;
	json_t *host;
	struct file_lock *state_owner; /* this process alone writes the state */
	/* running parts */
	struct timer_run *run;
	struct timer_thread_params *threads;
	struct monitor_explain *explain;
	struct monitor_audit *audit;
	pthread_t housekeeper;
	bool housekeeping_started;
	pthread_mutex_t state_lock; /* the window rings and the state file */
	pthread_mutex_t lock; /* stop flag and its condition */
	pthread_cond_t wake;
	bool stop;
	bool stopped;
	int error;
	uint64_t next_blocks; /* CLOCK_REALTIME of the next block's end: read then */
	/* interrupt counts: the table and the last 32-bit reading */
	pthread_mutex_t irq_lock;
	struct irq_table irqs;
	struct irq_counts last_counts;
	bool irqs_loaded;
	uint64_t checkpoint_error_logged;
};

void monitor_params_default(struct monitor_params *p)
{
	memset(p, 0, sizeof(*p));
	p->interval_ns = MONITOR_DEFAULT_INTERVAL_NS;
	p->policy = MONITOR_DEFAULT_POLICY;
	p->priority = MONITOR_DEFAULT_PRIORITY;
	p->window_ns = MONITOR_DEFAULT_WINDOW_NS;
	p->audit_every_ns = MONITOR_DEFAULT_AUDIT_EVERY_NS;
	p->checkpoint_ns = MONITOR_DEFAULT_CHECKPOINT_NS;
	p->textfile_every_ns = MONITOR_TEXTFILE_EVERY_NS;
}

bool monitor_default_cpus(const struct topology *topo, struct cpuset *cpus)
{
	cpuset_or(cpus, &topo->isolated, &topo->nohz_full);
	cpuset_and(cpus, cpus, &topo->online);
	if (!cpuset_empty(cpus))
		return true;
	*cpus = topo->online;
	return false;
}

static int64_t realtime_offset(void)
{
	return (int64_t)clock_ns(CLOCK_REALTIME) - (int64_t)clock_ns(CLOCK_MONOTONIC);
}

/* A CPU's state on its own node: its thread writes it on every sample. */
static struct monitor_cpu *alloc_state(const struct topology *topo, unsigned int cpu, size_t *size)
{
	struct monitor_cpu *c;

	*size = sizeof(*c);
	if (numa_available() >= 0)
		c = numa_alloc_onnode(*size, topology_cpu_node(topo, cpu));
	else
		c = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		c = NULL;
	if (c)
		memset(c, 0, *size);
	return c;
}

static void free_state(struct monitor_cpu *c, size_t size)
{
	if (!c)
		return;
	if (numa_available() >= 0)
		numa_free(c, size);
	else
		munmap(c, size);
}

static size_t ring_capacity(uint64_t window_ns)
{
	return (size_t)((MONITOR_HISTORY_NS + window_ns - 1) / window_ns);
}

/* Every CPU back to nothing measured: a new state. */
static int reset_lanes(struct monitor *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_lanes; i++) {
		struct lane *l = &m->lanes[i];

		memset(l->state, 0, l->state_size);
		monitor_cpu_init(l->state, l->cpu, m->params.window_ns);
		window_ring_free(l->windows);
		l->windows = window_ring_new(ring_capacity(m->params.window_ns));
		monitor_blocks_release(l->blocks);
		memset(&l->kept, 0, sizeof(l->kept));
		l->restored = false;
		if (!l->windows)
			return -ENOMEM;
	}
	return 0;
}

static int check_params(const struct monitor_params *p, const struct topology *topo)
{
	struct cpuset outside;
	char list[256];

	cpuset_andnot(&outside, &p->cpus, &topo->online);
	if (!cpuset_empty(&outside)) {
		log_error("cpu %d is not online (online: %s)", cpuset_next(&outside, -1),
			  cpuset_format_list(&topo->online, list, sizeof(list)));
		return -EINVAL;
	}
	if (!p->interval_ns || !p->window_ns || p->window_ns < p->interval_ns) {
		log_error("the window must be at least one interval");
		return -EINVAL;
	}
	if (p->window_ns / p->interval_ns > MONITOR_MAX_SAMPLES_PER_WINDOW) {
		log_error("a window of %" PRIu64 " intervals is too long: at most %llu",
			  p->window_ns / p->interval_ns, MONITOR_MAX_SAMPLES_PER_WINDOW);
		return -EINVAL;
	}
	if (rt_policy_is_realtime(p->policy) && (p->priority < 1 || p->priority > 99)) {
		log_error("priority %d is not 1-99", p->priority);
		return -EINVAL;
	}
	if (!p->root) {
		log_error("the monitor needs a system root");
		return -EINVAL;
	}
	return 0;
}

static void copy_topology(struct topology *to, const struct topology *from)
{
	*to = *from;
	/* only the sets and the CPUs' nodes are used: no pointer is kept */
	to->node_cpus = NULL;
	to->cpus = NULL;
}

struct monitor *monitor_new(const struct monitor_params *params, const struct topology *topo)
{
	struct monitor *m = calloc(1, sizeof(*m));
	unsigned int i = 0;
	int cpu;

	if (!m)
		return NULL;
	m->params = *params;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->irq_lock, NULL);
	pthread_mutex_init(&m->state_lock, NULL);
	pthread_cond_init(&m->wake, NULL);
	m->cpus_given = !cpuset_empty(&m->params.cpus);
	if (!m->cpus_given)
		monitor_default_cpus(topo, &m->params.cpus);
	if (check_params(&m->params, topo))
		goto fail;
	m->cpus = m->params.cpus;
	cpuset_andnot(&m->housekeeping, &topo->online, &m->cpus);
	copy_topology(&m->topo, topo);
	m->state_path = params->state_path ? strdup(params->state_path) : NULL;
	m->textfile_dir = params->textfile_dir ? strdup(params->textfile_dir) : NULL;
	m->nr_lanes = cpuset_count(&m->cpus);
	m->lanes = calloc(m->nr_lanes, sizeof(*m->lanes));
	m->states = calloc(m->nr_lanes, sizeof(*m->states));
	m->threads = calloc(m->nr_lanes, sizeof(*m->threads));
	if (!m->lanes || !m->states || !m->threads || (params->state_path && !m->state_path) ||
	    (params->textfile_dir && !m->textfile_dir))
		goto fail_memory;
	cpuset_for_each(cpu, &m->cpus) {
		struct lane *l = &m->lanes[i];

		l->cpu = (unsigned int)cpu;
		l->state = alloc_state(topo, l->cpu, &l->state_size);
		l->blocks = malloc(sizeof(*l->blocks));
		if (!l->state || !l->blocks)
			goto fail_memory;
		monitor_blocks_init(l->blocks);
		m->states[i] = l->state;
		m->threads[i] = (struct timer_thread_params){ cpu, m->params.priority,
							      m->params.interval_ns };
		i++;
	}
	if (reset_lanes(m))
		goto fail_memory;
	m->host = result_host_facts(m->params.root, topo);
	m->start_time = (double)clock_ns(CLOCK_REALTIME) / 1e9;
	m->run_doc = result_new("monitor", m->params.argc, m->params.argv);
	if (!m->run_doc)
		goto fail_memory;
	return m;
fail_memory:
	log_error("out of memory for %u cpus", m->nr_lanes);
fail:
	monitor_free(m);
	return NULL;
}

/* ---- the state file ---- */

struct load_context {
	struct monitor *m;
	uint64_t *scratch;
};

/* a state of either schema: latscope/2's cpu-list string, latscope/1's array */
static bool cpus_of(json_t *value, struct cpuset *set)
{
	return !result_read_cpuset(value, set);
}

static int check_header(void *context, json_t *header, char *why, size_t size)
{
	struct monitor *m = ((struct load_context *)context)->m;
	json_t *params = json_object_get(header, "params"), *state, *began, *restarts;
	struct cpuset cpus;
	char had[256], now[256];
	json_int_t interval, window;

	if (!json_is_object(params) ||
	    strcmp(json_string_value(json_object_get(header, "command")) ?: "", "monitor")) {
		snprintf(why, size, "not a monitor state");
		return STATE_CORRUPT;
	}
	interval = json_integer_value(json_object_get(params, "interval_ns"));
	window = json_integer_value(json_object_get(params, "window_ns"));
	if (!cpus_of(json_object_get(params, "cpus"), &cpus)) {
		snprintf(why, size, "its cpus are unreadable");
		return STATE_CORRUPT;
	}
	if (!cpuset_equal(&cpus, &m->cpus)) {
		snprintf(why, size, "it measured cpus %s, this run measures %s",
			 cpuset_format_list(&cpus, had, sizeof(had)),
			 cpuset_format_list(&m->cpus, now, sizeof(now)));
		return STATE_MISMATCH;
	}
	if ((uint64_t)interval != m->params.interval_ns) {
		snprintf(why, size, "its interval is %lld ns, this run's %" PRIu64 " ns",
			 (long long)interval, m->params.interval_ns);
		return STATE_MISMATCH;
	}
	if ((uint64_t)window != m->params.window_ns) {
		snprintf(why, size, "its window is %lld ns, this run's %" PRIu64 " ns",
			 (long long)window, m->params.window_ns);
		return STATE_MISMATCH;
	}
	/* a state this version wrote has both; one that has them wrong is not taken */
	state = json_object_get(header, "state");
	if (state) {
		began = json_object_get(state, "began");
		restarts = json_object_get(state, "restarts");
		if (!state_time_valid(json_string_value(began)) || !json_is_integer(restarts) ||
		    json_integer_value(restarts) < 0) {
			snprintf(why, size, "its began or restarts is malformed");
			return STATE_CORRUPT;
		}
		json_decref(m->began);
		m->began = json_incref(began);
		/* saturated: the state holds an int64 */
		m->restarts = (uint64_t)json_integer_value(restarts);
		if (m->restarts < MONITOR_COUNTER_MAX)
			m->restarts++;
	}
	return 0;
}

static int restore_cpu(void *context, struct jsondoc *doc, json_t *object, char *why, size_t size)
{
	struct load_context *load = context;
	struct monitor *m = load->m;
	struct monitor_cpu_reading reading = { .counts = load->scratch };
	json_t *cpu = json_object_get(object, "cpu");
	unsigned int lane;
	int ret;

	for (lane = 0; lane < m->nr_lanes; lane++)
		if (json_is_integer(cpu) && json_integer_value(cpu) == m->lanes[lane].cpu)
			break;
	if (lane == m->nr_lanes || m->lanes[lane].restored) {
		snprintf(why, size, "cpu %lld is not measured or comes twice",
			 (long long)json_integer_value(cpu));
		return STATE_CORRUPT;
	}
	ret = state_cpu_parse(doc, object, &reading, m->lanes[lane].windows, m->params.window_ns,
			      &m->lanes[lane].kept, m->lanes[lane].blocks, why, size);
	if (ret)
		return ret;
	monitor_cpu_restore(m->lanes[lane].state, &reading);
	m->lanes[lane].restored = true;
	return 0;
}

/*
 * One monitor per state: a second one would write over the first's
 * checkpoints, and the last writer's history would be all that is left.
 * Held until monitor_free(). Temporary files of a writer that died are
 * removed once the state is this monitor's.
 */
static int own_state(struct monitor *m)
{
	static const struct file_lock_words words = {
		"state", "another latscope monitor; give each its own --state"
	};
	int ret;

	if (m->state_owner)
		return 0;
	ret = file_lock_take(m->state_path, false, 0, &words, &m->state_owner);
	if (ret)
		return ret;
	atomic_file_remove_stale(m->state_path);
	if (m->textfile_dir)
		exporter_remove_stale_textfile(m->textfile_dir);
	return 0;
}

int monitor_load_state(struct monitor *m, enum state_outcome *outcome)
{
	struct load_context load = { .m = m };
	unsigned int lane;
	char why[512], aside[4200];
	int ret;

	*outcome = STATE_ABSENT;
	if (!m->state_path)
		return 0;
	ret = own_state(m);
	if (ret)
		return ret;
	load.scratch = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	if (!load.scratch)
		return -ENOMEM;
	ret = state_read(m->state_path, check_header, restore_cpu, &load, why, sizeof(why));
	free(load.scratch);
	if (ret == STATE_CONTINUED) {
		for (lane = 0; lane < m->nr_lanes; lane++) {
			if (!m->lanes[lane].restored) {
				snprintf(why, sizeof(why), "cpu %u is missing", m->lanes[lane].cpu);
				ret = STATE_CORRUPT;
				break;
			}
		}
	}
	if (ret < 0) {
		log_error("cannot read the state %s: %s", m->state_path, strerror(-ret));
		return ret;
	}
	*outcome = (enum state_outcome)ret;
	if (ret == STATE_ABSENT || ret == STATE_CONTINUED)
		return 0;
	/* whatever was read of it goes: a new state begins */
	ret = reset_lanes(m);
	json_decref(m->began);
	m->began = NULL;
	m->restarts = 0;
	if (ret)
		return ret;
	ret = state_keep_aside(m->state_path, *outcome == STATE_MISMATCH ? "old" : "corrupt", aside,
			       sizeof(aside));
	if (ret)
		return ret;
	if (*outcome == STATE_MISMATCH)
		log_warning("state %s: %s: kept as %s, a new state begins", m->state_path, why,
			    aside);
	else
		log_warning("state %s is corrupt (%s): kept as %s, a new state begins",
			    m->state_path, why, aside);
	return 0;
}

static json_t *params_json(const struct monitor *m)
{
	const struct monitor_params *p = &m->params;

	return json_pack("{sosIsIsssisbsIsIsIsi}", "cpus", result_cpuset(&m->cpus), "interval_ns",
			 (json_int_t)p->interval_ns, "window_ns", (json_int_t)p->window_ns,
			 "policy", rt_policy_name(p->policy), "priority", p->priority, "explain",
			 p->explain, "explain_above_ns", (json_int_t)p->explain_above_ns,
			 "audit_every_ns", (json_int_t)p->audit_every_ns, "checkpoint_ns",
			 (json_int_t)p->checkpoint_ns, "native_schema", NATIVE_SCHEMA);
}

static json_t *state_header(struct monitor *m)
{
	json_t *doc = json_deep_copy(m->run_doc), *state;

	if (!doc)
		return NULL;
	/* a new state begins with this run */
	if (!m->began)
		m->began = json_incref(json_object_get(doc, "start_time"));
	state = json_pack("{sOsosI}", "began", m->began, "checkpoint_time",
			  state_time(clock_ns(CLOCK_REALTIME)), "restarts",
			  (json_int_t)m->restarts);
	json_object_set(doc, "host", m->host ? m->host : json_null());
	json_object_set_new(doc, "params", params_json(m));
	json_object_set_new(doc, "state", state);
	json_object_set_new(doc, "audit",
			    m->audit	   ? monitor_audit_json(m->audit) :
			    m->final_audit ? json_incref(m->final_audit) :
					     json_null());
	return doc;
}

/* The state document to @path, with @extra's members after the header's; not logged. */
static int write_document(struct monitor *m, const char *path, json_t *extra,
			  enum result_layout layout)
{
	struct monitor_cpu_reading reading;
	struct state_writer *writer = NULL;
	uint64_t now = clock_ns(CLOCK_REALTIME);
	struct monitor_explained *kept;
	json_t *header;
	unsigned int lane;
	int ret = 0;

	header = state_header(m);
	if (header && extra && json_object_update(header, extra)) {
		json_decref(header);
		header = NULL;
	}
	reading.counts = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	kept = malloc(sizeof(*kept));
	ret = header && reading.counts && kept ? state_writer_open(&writer, path, header, layout) :
						 -ENOMEM;
	json_decref(header);
	if (ret) {
		free(reading.counts);
		free(kept);
		return ret;
	}
	for (lane = 0; lane < m->nr_lanes && !ret; lane++) {
		struct lane *l = &m->lanes[lane];
		struct state_cpu cpu = { .cpu = l->cpu,
					 .reading = &reading,
					 .window_ns = m->params.window_ns,
					 .windows = l->windows,
					 .blocks = l->blocks };

		monitor_cpu_read(l->state, &reading);
		/* the blocks up to this very reading: they add up to what is written */
		if (l->blocks->from_ns && monitor_blocks_fold(l->blocks, &reading, now))
			log_warning("cpu %u: out of memory for its time blocks", l->cpu);
		if (m->explain) {
			monitor_explain_read(m->explain, lane, kept);
			cpu.explained = kept;
		} else if (m->params.explain) {
			cpu.explained = &l->kept;
		}
		ret = state_writer_cpu(writer, &cpu);
	}
	ret = state_writer_close(writer) ?: ret;
	free(reading.counts);
	free(kept);
	return ret;
}

int monitor_checkpoint(struct monitor *m)
{
	int ret;

	if (!m->state_path)
		return 0;
	/* one writer of the file at a time, and the rings hold still meanwhile */
	pthread_mutex_lock(&m->state_lock);
	ret = write_document(m, m->state_path, NULL, RESULT_LAYOUT_COMPACT);
	pthread_mutex_unlock(&m->state_lock);
	if (ret)
		log_error("cannot write the state %s: %s", m->state_path, strerror(-ret));
	return ret;
}

int monitor_write_result(struct monitor *m, const char *path, json_t *extra,
			 enum result_layout layout)
{
	int ret;

	pthread_mutex_lock(&m->state_lock);
	ret = write_document(m, path, extra, layout);
	pthread_mutex_unlock(&m->state_lock);
	return ret;
}

/* ---- interrupts that reach the measured CPUs ---- */

static void load_interrupts(struct monitor *m)
{
	if (irq_table_load(m->params.root, &m->irqs)) {
		log_warning("cannot read /proc/interrupts: no interrupt counts");
		return;
	}
	if (irq_counts_init(&m->last_counts, &m->irqs)) {
		irq_table_release(&m->irqs);
		return;
	}
	m->irqs_loaded = true;
}

/* The since-boot counts, extended past the kernel's 32-bit wrap. */
static void read_interrupts(struct monitor *m)
{
	struct irq_counts now, delta = { 0 }, previous;
	unsigned int lane, row, column, rows, i, n;
	const uint16_t *columns;
	const uint32_t *values;
	int *lane_of = NULL;
	int ret;

	if (!m->irqs_loaded || irq_counts_init(&now, &m->irqs))
		return;
	ret = irq_counts_read(m->params.root, &m->irqs, &now);
	if (ret == -ESTALE) {
		/* IRQs came or went: a new table, counted from their since-boot values */
		irq_counts_release(&now);
		pthread_mutex_lock(&m->irq_lock);
		irq_counts_release(&m->last_counts);
		irq_table_release(&m->irqs);
		m->irqs_loaded = false;
		for (lane = 0; lane < m->nr_lanes; lane++)
			m->lanes[lane].nr_interrupts = 0;
		load_interrupts(m);
		pthread_mutex_unlock(&m->irq_lock);
		return;
	}
	rows = irq_table_rows(&m->irqs);
	/* the lane of each column that has had its first reading, -1 for the others */
	if (!ret)
		lane_of = malloc((m->irqs.nr_columns + 1) * sizeof(*lane_of));
	if (!lane_of || irq_counts_init(&delta, &m->irqs) ||
	    irq_counts_delta(&m->last_counts, &now, &delta)) {
		free(lane_of);
		irq_counts_release(&delta);
		irq_counts_release(&now);
		return;
	}
	for (column = 0; column < m->irqs.nr_columns; column++)
		lane_of[column] = -1;
	pthread_mutex_lock(&m->irq_lock);
	for (lane = 0; lane < m->nr_lanes; lane++) {
		struct lane *l = &m->lanes[lane];

		for (column = 0; column < m->irqs.nr_columns; column++)
			if (m->irqs.column_cpu[column] == l->cpu)
				break;
		if (column == m->irqs.nr_columns)
			continue;
		if (!l->interrupts) {
			l->interrupts = calloc(rows + 1, sizeof(*l->interrupts));
			if (!l->interrupts)
				continue;
		}
		if (l->nr_interrupts) {
			lane_of[column] = (int)lane;
			continue;
		}
		/* the first reading: one entry per row, the since-boot count */
		for (row = 0; row < rows; row++) {
			struct metrics_interrupt *e = &l->interrupts[row];

			if (row < m->irqs.nr_irqs) {
				snprintf(e->irq, sizeof(e->irq), "%u", m->irqs.irqs[row].number);
				metrics_copy_label(e->name, sizeof(e->name),
						   m->irqs.irqs[row].name);
			} else {
				const struct irq_vector *v =
					&m->irqs.vectors[row - m->irqs.nr_irqs];

				snprintf(e->irq, sizeof(e->irq), "%s", v->name);
				metrics_copy_label(e->name, sizeof(e->name), v->description);
			}
			e->count = irq_count(&now, row, column);
		}
		l->nr_interrupts = rows;
	}
	/* what came since the last reading, cell by cell: no walk of the zeros */
	for (row = 0; row < rows; row++) {
		n = irq_counts_row(&delta, row, &columns, &values);
		for (i = 0; i < n; i++) {
			int at = lane_of[columns[i]];

			if (at >= 0 && row < m->lanes[at].nr_interrupts)
				m->lanes[at].interrupts[row].count += values[i];
		}
	}
	irq_counts_release(&delta);
	/* now is the next reading's last */
	previous = m->last_counts;
	m->last_counts = now;
	pthread_mutex_unlock(&m->irq_lock);
	free(lane_of);
	irq_counts_release(&previous);
}

/* ---- the housekeeping thread ---- */

/*
 * Each CPU's counts since the last reading into its time blocks, at the
 * end of a block (@now_ns, CLOCK_REALTIME); @begin: the run's first reading.
 */
static void read_blocks(struct monitor *m, uint64_t now_ns, bool begin)
{
	struct monitor_cpu_reading reading = { .counts = malloc(NATIVE_SLOTS * sizeof(uint64_t)) };
	unsigned int lane;
	uint64_t end;

	if (!reading.counts) {
		log_warning("out of memory reading the time blocks");
		return;
	}
	pthread_mutex_lock(&m->state_lock);
	m->next_blocks = UINT64_MAX;
	for (lane = 0; lane < m->nr_lanes; lane++) {
		struct lane *l = &m->lanes[lane];

		monitor_cpu_read(l->state, &reading);
		if (begin)
			monitor_blocks_begin(l->blocks, &reading, now_ns);
		else if (monitor_blocks_fold(l->blocks, &reading, now_ns))
			log_warning("cpu %u: out of memory for its time blocks", l->cpu);
		end = monitor_blocks_next_end(l->blocks, now_ns);
		if (end < m->next_blocks)
			m->next_blocks = end;
	}
	pthread_mutex_unlock(&m->state_lock);
	free(reading.counts);
}

static void take_windows(struct monitor *m)
{
	struct monitor_window w;
	unsigned int lane;

	pthread_mutex_lock(&m->state_lock);
	for (lane = 0; lane < m->nr_lanes; lane++)
		while (monitor_cpu_take_window(m->lanes[lane].state, &w))
			if (window_ring_append(m->lanes[lane].windows, &w))
				log_warning("cpu %u: out of memory for its windows",
					    m->lanes[lane].cpu);
	pthread_mutex_unlock(&m->state_lock);
}

static void pump_explain(struct monitor *m, bool final)
{
	uint64_t *horizons = calloc(m->nr_lanes + 1, sizeof(*horizons));
	pid_t *tids = calloc(m->nr_lanes + 1, sizeof(*tids));
	struct timer_live live;
	unsigned int lane;

	if (!horizons || !tids)
		goto out;
	for (lane = 0; lane < m->nr_lanes; lane++) {
		/* the horizon before the spikes: every spike before it is published */
		timer_read_live(m->run, lane, &live, &tids[lane]);
		horizons[lane] = final ? UINT64_MAX : live.horizon_ns;
	}
	if (monitor_explain_pump(m->explain, m->states, tids, horizons, realtime_offset()))
		log_warning("cannot read the trace");
out:
	free(horizons);
	free(tids);
}

static void set_clock_offsets(struct monitor *m)
{
	int64_t offset = realtime_offset();
	unsigned int lane;

	for (lane = 0; lane < m->nr_lanes; lane++)
		__atomic_store_n(&m->lanes[lane].state->realtime_offset_ns, offset,
				 __ATOMIC_RELAXED);
}

/* Returns 0 or a negative errno code (logged). */
static int write_textfile(struct monitor *m)
{
	struct metrics *metrics = monitor_collect(m);
	int ret = metrics ? exporter_write_textfile(metrics, m->textfile_dir) : -ENOMEM;

	if (!metrics)
		log_error("cannot write the textfile: out of memory");
	metrics_free(metrics);
	return ret;
}

static void *housekeeping(void *arg)
{
	struct monitor *m = arg;
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	uint64_t next_threshold = now, next_interrupts = now,
		 next_offset = now + CLOCK_OFFSET_EVERY_NS;
	uint64_t next_textfile = now + m->params.textfile_every_ns;
	uint64_t next_checkpoint = now + m->params.checkpoint_ns, realtime, wait;
	struct timespec until;

	pthread_mutex_lock(&m->lock);
	while (!m->stop) {
		pthread_mutex_unlock(&m->lock);
		now = clock_ns(CLOCK_MONOTONIC);
		realtime = clock_ns(CLOCK_REALTIME);
		if (realtime >= m->next_blocks)
			read_blocks(m, realtime, false);
		take_windows(m);
		if (m->explain) {
			if (now >= next_threshold) {
				monitor_explain_set_thresholds(m->explain, m->states);
				next_threshold = now + THRESHOLD_EVERY_NS;
			}
			pump_explain(m, false);
		}
		if (now >= next_interrupts) {
			read_interrupts(m);
			next_interrupts = now + INTERRUPTS_EVERY_NS;
		}
		if (now >= next_offset) {
			set_clock_offsets(m);
			next_offset = now + CLOCK_OFFSET_EVERY_NS;
		}
		if (m->textfile_dir && now >= next_textfile) {
			write_textfile(m);
			next_textfile = now + m->params.textfile_every_ns;
		}
		if (m->state_path && now >= next_checkpoint) {
			monitor_checkpoint(m);
			next_checkpoint = now + m->params.checkpoint_ns;
		}
		/* a tick, or sooner when a time block ends */
		wait = TICK_MS * 1000000ULL;
		realtime = clock_ns(CLOCK_REALTIME);
		if (m->next_blocks > realtime && m->next_blocks - realtime < wait)
			wait = m->next_blocks - realtime;
		until = clock_timespec(clock_ns(CLOCK_MONOTONIC) + wait);
		pthread_mutex_lock(&m->lock);
		if (!m->stop)
			pthread_cond_timedwait(&m->wake, &m->lock, &until);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ---- start and stop ---- */

/* On each measuring thread, after each wake-up. */
static void measured(void *context, unsigned int thread, const struct timer_spike *sample,
		     uint64_t skipped)
{
	struct monitor *m = context;

	monitor_cpu_add(m->states[thread], sample, skipped);
}

int monitor_start(struct monitor *m)
{
	struct timer_params timer = { 0 };
	pthread_condattr_t attr;
	unsigned int *cpus = NULL, lane;
	int ret;

	/* the condition waits on the monotonic clock */
	pthread_cond_destroy(&m->wake);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&m->wake, &attr);
	pthread_condattr_destroy(&attr);
	set_clock_offsets(m);
	load_interrupts(m);
	read_interrupts(m);
	if (m->params.explain) {
		/* tracing runs before the first wake-up it may have to explain */
		cpus = calloc(m->nr_lanes, sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		for (lane = 0; lane < m->nr_lanes; lane++)
			cpus[lane] = m->lanes[lane].cpu;
		m->explain = monitor_explain_start(cpus, m->nr_lanes, m->params.explain_above_ns);
		free(cpus);
		if (!m->explain) {
			log_error("cannot trace the measured cpus for --explain: nothing measured "
				  "(without --explain the interrupt counts are still exported)");
			return -EIO;
		}
		for (lane = 0; lane < m->nr_lanes; lane++)
			monitor_explain_restore(m->explain, lane, &m->lanes[lane].kept);
		monitor_explain_set_thresholds(m->explain, m->states);
	}
	timer.nr_threads = m->nr_lanes;
	timer.threads = m->threads;
	timer.policy = m->params.policy;
	timer.mode = TIMER_WAIT_ABSOLUTE;
	timer.spike_threshold_ns = UINT64_MAX; /* the monitor keeps its own spikes */
	timer.root = m->params.root;
	timer.on_sample = measured;
	timer.on_sample_context = m;
	timer.stack_bytes = MEASURING_STACK_BYTES;
	/* what the state holds is in its blocks already: this run's go on from there */
	read_blocks(m, clock_ns(CLOCK_REALTIME), true);
	ret = timer_start(&m->run, &timer);
	if (ret)
		goto fail;
	ret = rt_start_housekeeping_thread(&m->housekeeper, &m->housekeeping, housekeeping, m);
	if (ret)
		goto fail;
	m->housekeeping_started = true;
	if (m->params.audit_every_ns) {
		/* the CPUs given are the RT CPUs to check; by default, the kernel's own */
		m->audit = monitor_audit_start(m->params.root, m->cpus_given ? &m->cpus : NULL,
					       m->params.audit_every_ns, &m->housekeeping);
		if (!m->audit)
			log_warning("the audit does not run: no latscope_check_failed");
	}
	return 0;
fail:
	monitor_stop(m);
	return ret;
}

bool monitor_wait(struct monitor *m, int timeout_ms, const sigset_t *sigmask)
{
	return timer_wait(m->run, timeout_ms, sigmask);
}

static void collect_cpu(struct monitor *m, unsigned int lane, struct monitor_cpu_reading *r,
			struct monitor_explained *kept, struct metrics_cpu *c)
{
	struct lane *l = &m->lanes[lane];

	monitor_cpu_read(l->state, r);
	c->cpu = l->cpu;
	c->count = r->count;
	c->sum_ns = r->sum_ns;
	c->max_ns = r->max_ns;
	c->missed = r->missed;
	memcpy(c->classic, r->classic, sizeof(c->classic));
	c->native.zero_count = r->zero_count;
	c->native.first = r->first;
	c->native.counts = malloc((r->nr + 1) * sizeof(uint64_t));
	if (c->native.counts) {
		c->native.nr = r->nr;
		memcpy(c->native.counts, r->counts, r->nr * sizeof(uint64_t));
	}
	c->has_window = r->has_closed;
	c->window_max_ns = r->last_closed.max_ns;
	if (m->explain || m->params.explain) {
		if (m->explain)
			monitor_explain_read(m->explain, lane, kept);
		else
			*kept = l->kept;
		c->explained = true;
		c->lost_events = kept->lost_events;
		c->causes = malloc((kept->nr_causes + 1) * sizeof(*c->causes));
		if (c->causes) {
			c->nr_causes = kept->nr_causes;
			memcpy(c->causes, kept->causes, kept->nr_causes * sizeof(*c->causes));
		}
	}
	pthread_mutex_lock(&m->irq_lock);
	c->interrupts = malloc((l->nr_interrupts + 1) * sizeof(*c->interrupts));
	if (c->interrupts) {
		unsigned int i;

		/* only what reached this CPU: series of zeros say nothing */
		for (i = 0; i < l->nr_interrupts; i++)
			if (l->interrupts[i].count)
				c->interrupts[c->nr_interrupts++] = l->interrupts[i];
	}
	pthread_mutex_unlock(&m->irq_lock);
}

struct metrics *monitor_collect(void *monitor)
{
	struct monitor *m = monitor;
	struct metrics *metrics = metrics_new(m->nr_lanes);
	struct monitor_cpu_reading reading;
	struct monitor_explained *kept = malloc(sizeof(*kept));
	unsigned int lane;

	reading.counts = malloc(NATIVE_SLOTS * sizeof(uint64_t));
	if (!metrics || !reading.counts || !kept) {
		metrics_free(metrics);
		metrics = NULL;
		goto out;
	}
	metrics->version = LATSCOPE_VERSION;
	metrics->start_time = m->start_time;
	for (lane = 0; lane < m->nr_lanes; lane++)
		collect_cpu(m, lane, &reading, kept, &metrics->cpus[lane]);
	if (m->audit && monitor_audit_failed(m->audit, &metrics->failed, &metrics->nr_failed))
		metrics->nr_failed = 0;
	if (!m->audit && m->nr_final_failed) {
		metrics->failed = malloc(m->nr_final_failed * sizeof(*metrics->failed));
		if (metrics->failed) {
			metrics->nr_failed = m->nr_final_failed;
			memcpy(metrics->failed, m->final_failed,
			       m->nr_final_failed * sizeof(*metrics->failed));
		}
	}
out:
	free(reading.counts);
	free(kept);
	return metrics;
}

static void stop_housekeeping(struct monitor *m)
{
	if (!m->housekeeping_started)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_broadcast(&m->wake);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->housekeeper, NULL);
	m->housekeeping_started = false;
}

int monitor_stop(struct monitor *m)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC);
	unsigned int lane;
	int ret = 0;

	if (m->stopped)
		return m->error;
	m->stopped = true;
	if (m->audit) {
		m->final_audit = monitor_audit_json(m->audit);
		if (monitor_audit_failed(m->audit, &m->final_failed, &m->nr_final_failed))
			m->nr_final_failed = 0;
		monitor_audit_free(m->audit);
		m->audit = NULL;
	}
	stop_housekeeping(m);
	if (m->run)
		ret = timer_stop(m->run);
	if (m->explain) {
		if (m->run)
			pump_explain(m, true);
		/* the tracing instance goes before anything else is written */
		if (monitor_explain_finish(m->explain, end))
			log_warning("out of memory explaining the last spikes");
	}
	if (m->run) {
		for (lane = 0; lane < m->nr_lanes; lane++)
			monitor_cpu_close_window(m->lanes[lane].state);
		take_windows(m);
	}
	/* the last textfile and checkpoint are what the run leaves: failing them fails it */
	if (m->textfile_dir && m->run && write_textfile(m) && !ret)
		ret = -EIO;
	if (m->state_path && m->run && monitor_checkpoint(m) && !ret)
		ret = -EIO;
	m->error = ret;
	return ret;
}

uint64_t monitor_max_ns(const struct monitor *m)
{
	struct timer_live live;
	uint64_t max = 0;
	unsigned int lane;

	for (lane = 0; m->run && lane < m->nr_lanes; lane++) {
		timer_read_live(m->run, lane, &live, NULL);
		if (live.max_ns > max)
			max = live.max_ns;
	}
	return max;
}

bool monitor_read_run(const struct monitor *m, unsigned int lane, unsigned int *cpu,
		      struct timer_live *live)
{
	if (!m->run || lane >= m->nr_lanes)
		return false;
	timer_read_live(m->run, lane, live, NULL);
	*cpu = m->lanes[lane].cpu;
	return true;
}

pid_t monitor_thread_tid(const struct monitor *m, unsigned int lane)
{
	return m->run ? timer_thread_tid(m->run, lane) : 0;
}

unsigned int monitor_nr_cpus(const struct monitor *m)
{
	return m->nr_lanes;
}

const struct cpuset *monitor_cpus(const struct monitor *m)
{
	return &m->cpus;
}

const struct cpuset *monitor_housekeeping_cpus(const struct monitor *m)
{
	return &m->housekeeping;
}

void monitor_free(struct monitor *m)
{
	unsigned int lane;

	if (!m)
		return;
	if (m->run || m->explain || m->audit || m->housekeeping_started)
		monitor_stop(m);
	timer_free(m->run);
	monitor_explain_free(m->explain);
	for (lane = 0; m->lanes && lane < m->nr_lanes; lane++) {
		free_state(m->lanes[lane].state, m->lanes[lane].state_size);
		window_ring_free(m->lanes[lane].windows);
		if (m->lanes[lane].blocks)
			monitor_blocks_release(m->lanes[lane].blocks);
		free(m->lanes[lane].blocks);
		free(m->lanes[lane].interrupts);
	}
	if (m->irqs_loaded) {
		irq_counts_release(&m->last_counts);
		irq_table_release(&m->irqs);
	}
	file_lock_release(m->state_owner);
	json_decref(m->began);
	json_decref(m->host);
	json_decref(m->run_doc);
	json_decref(m->final_audit);
	free(m->final_failed);
	free(m->lanes);
	free(m->states);
	free(m->threads);
	free(m->state_path);
	free(m->textfile_dir);
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->irq_lock);
	pthread_mutex_destroy(&m->state_lock);
	free(m);
}
