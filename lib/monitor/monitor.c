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
#include "latscope/monitor_explain.h"
#include "latscope/result.h"
#include "latscope/timer.h"
#include "latscope/window_ring.h"
#include "monitor_audit.h"
#include "monitor_engine.h"
#include "monitor_interrupts.h"
#include "monitor_textfile.h"

#define TICK_MS 250
#define THRESHOLD_EVERY_NS (1ULL * 1000000000ULL)
#define INTERRUPTS_EVERY_NS (5ULL * 1000000000ULL)
#define CLOCK_OFFSET_EVERY_NS (60ULL * 1000000000ULL)
/*
 * A measuring thread's stack: clock_nanosleep, the accounting and, rarely,
 * a log line. Locked under mlockall, so 256 threads hold 16 MiB, not 128.
 */
#define MEASURING_STACK_BYTES (64 * 1024)

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
	/* both map fresh pages, zeroed by the kernel: not written twice */
	return c == MAP_FAILED ? NULL : c;
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

size_t monitor_ring_capacity(const struct monitor *m)
{
	return (size_t)((MONITOR_HISTORY_NS + m->params.window_ns - 1) / m->params.window_ns);
}

int monitor_reset_lanes(struct monitor *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_lanes; i++) {
		struct lane *l = &m->lanes[i];

		/* a lane set up before has its ring; a new one's state is fresh zeroed pages */
		if (l->windows)
			memset(l->state, 0, l->state_size);
		monitor_cpu_init(l->state, l->cpu, m->params.window_ns);
		window_ring_free(l->windows);
		l->windows = window_ring_new(monitor_ring_capacity(m));
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
	if (monitor_reset_lanes(m))
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
			monitor_interrupts_read(m);
			next_interrupts = now + INTERRUPTS_EVERY_NS;
		}
		if (now >= next_offset) {
			set_clock_offsets(m);
			next_offset = now + CLOCK_OFFSET_EVERY_NS;
		}
		if (m->textfile_dir && now >= next_textfile) {
			monitor_textfile_write(m);
			next_textfile = now + m->params.textfile_every_ns;
		}
		/* busy: the one before is still writing, tried again at the next tick */
		if (m->state_path && now >= next_checkpoint &&
		    monitor_checkpoint_behind(m) != -EBUSY)
			next_checkpoint = now + m->params.checkpoint_ns;
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
	monitor_interrupts_load(m);
	monitor_interrupts_read(m);
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
	/* a checkpoint still writing finishes before anything is taken down */
	monitor_texts_give_up(m);
	monitor_checkpoint_wait(m, NULL);
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
	if (m->textfile_dir && m->run && monitor_textfile_write(m) && !ret)
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
	/* the state's lock is held until its last writer is done */
	monitor_texts_give_up(m);
	monitor_checkpoint_wait(m, NULL);
	timer_free(m->run);
	monitor_explain_free(m->explain);
	for (lane = 0; m->lanes && lane < m->nr_lanes; lane++) {
		free_state(m->lanes[lane].state, m->lanes[lane].state_size);
		window_ring_free(m->lanes[lane].windows);
		window_text_free(m->lanes[lane].text);
		blocks_text_free(m->lanes[lane].blocks_text);
		if (m->lanes[lane].blocks)
			monitor_blocks_release(m->lanes[lane].blocks);
		free(m->lanes[lane].blocks);
		free(m->lanes[lane].interrupts);
	}
	monitor_interrupts_release(m);
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
