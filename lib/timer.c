// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "latscope/array.h"
#include "latscope/log.h"
#include "latscope/result.h"
#include "latscope/timer.h"
#include "latscope/workers.h"

/* one thread's block maxima, as the main thread collected them */
struct block_store {
	uint64_t *max_ns;
	unsigned int nr, cap;
	uint64_t taken; /* ring entries read so far */
	uint64_t lost; /* closed blocks not kept */
};

struct timer_run {
	struct timer_params params;
	struct timer_thread_params *threads; /* our copy of params.threads */
	struct worker *workers;
	struct worker_group group;
	struct timer_stats **stats; /* each allocated by its own thread */
	struct block_store *blocks; /* per thread, with params.block_maxima */
	struct time_blocks *time_blocks; /* per thread, with params.time_blocks */
	int event_fd; /* a thread that ends adds 1: the caller's poll wakes */
	/* written by the measuring threads, read with atomics */
	int stop;
	int failed;
	unsigned int nr_finished;
	int break_thread; /* -1 until a thread claims the break */
	struct timer_spike break_spike;
	bool tracing_stopped;
	/* tracefs files for --tracemark, opened before the threads start */
	int marker_fd;
	int tracing_on_fd;
	enum timer_end end;
	uint64_t origin_ns;
	bool joined;
};

static inline void store_relaxed(uint64_t *where, uint64_t value)
{
	__atomic_store_n(where, value, __ATOMIC_RELAXED);
}

static inline uint64_t load_relaxed(const uint64_t *where)
{
	return __atomic_load_n(where, __ATOMIC_RELAXED);
}

/* Spike records: with break_above_ns, one more slot kept for the sample that breaks. */
static size_t spike_slots(const struct timer_params *params)
{
	return params->spike_capacity + (params->break_above_ns ? 1 : 0);
}

/* The ring of closed blocks, with params.block_maxima. */
static size_t block_ring_size(const struct timer_params *params)
{
	return params->block_maxima ? TIMER_BLOCK_RING * sizeof(struct timer_block) : 0;
}

/* The open time block's counts and the ring of closed ones, with params.time_blocks. */
static size_t time_block_size(const struct timer_params *params)
{
	return params->time_blocks ?
		       time_block_builder_bytes() +
			       record_ring_bytes(TIMER_TIME_RING, sizeof(struct time_block_chunk)) :
		       0;
}

/* One thread's block: its statistics, spike records, histogram and rings. */
static size_t stats_size(const struct timer_params *params)
{
	return sizeof(struct timer_stats) + spike_slots(params) * sizeof(struct timer_spike) +
	       2 * (size_t)params->histogram_buckets * sizeof(uint64_t) +
	       params->sample_ring * sizeof(uint64_t) + block_ring_size(params) +
	       time_block_size(params);
}

uint64_t timer_memory_estimate(const struct timer_params *params)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t per_thread = stats_size(params);

	/* rt_alloc_local maps whole pages; the stack is locked in full too */
	if (page > 0)
		per_thread = (per_thread + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
	per_thread += (params->stack_bytes ? params->stack_bytes : WORKER_STACK_BYTES) +
		      sizeof(struct worker) + sizeof(struct timer_thread_params) +
		      sizeof(struct timer_stats *);
	return per_thread * params->nr_threads + sizeof(struct timer_run);
}

struct timer_stats *timer_stats_new(const struct timer_params *params, unsigned int thread)
{
	const struct timer_thread_params *config = &params->threads[thread];
	size_t spikes = spike_slots(params) * sizeof(struct timer_spike);
	size_t buckets = (size_t)params->histogram_buckets * sizeof(uint64_t);
	size_t ring = params->sample_ring * sizeof(uint64_t);
	size_t blocks = block_ring_size(params);
	size_t size = stats_size(params);
	struct timer_stats *stats;
	unsigned char *tail;

	if (params->sample_ring & (params->sample_ring - 1)) {
		log_error("the sample ring size %zu is not a power of two", params->sample_ring);
		return NULL;
	}
	/* one block: the thread touches only memory of its own node */
	stats = rt_alloc_local(size);
	if (!stats)
		return NULL;
	tail = (unsigned char *)(stats + 1);
	stats->alloc_size = size;
	stats->thread = thread;
	stats->cpu = config->cpu;
	stats->priority = config->priority;
	stats->interval_ns = config->interval_ns;
	stats->mode = params->mode;
	stats->count_missed = params->mode != TIMER_WAIT_RELATIVE;
	stats->live.min_ns = UINT64_MAX;
	hist_init(&stats->hist);
	stats->spike_threshold_ns = params->spike_threshold_ns;
	stats->spike_capacity = params->spike_capacity;
	stats->break_above_ns = params->break_above_ns;
	stats->spikes = spike_slots(params) ? (struct timer_spike *)tail : NULL;
	tail += spikes;
	stats->unit_ns = params->unit_ns ? params->unit_ns : 1000;
	stats->nr_buckets = params->histogram_buckets;
	if (buckets) {
		stats->buckets = (uint64_t *)tail;
		stats->overflow_cycles = (uint64_t *)(tail + buckets);
	}
	tail += 2 * buckets;
	if (ring) {
		stats->samples = (uint64_t *)tail;
		stats->sample_mask = params->sample_ring - 1;
	}
	tail += ring;
	if (blocks) {
		stats->block_ring = (struct timer_block *)tail;
		stats->block_ns = timer_block_ns(config->interval_ns);
	}
	tail += blocks;
	if (params->time_blocks) {
		/* the ring's slots first: 8-byte aligned like everything before them */
		record_ring_init(&stats->time_ring, tail, TIMER_TIME_RING,
				 sizeof(struct time_block_chunk));
		tail += record_ring_bytes(TIMER_TIME_RING, sizeof(struct time_block_chunk));
		time_block_builder_init(&stats->time_builder, tail,
					timer_time_block_ns(config->interval_ns));
	}
	return stats;
}

void timer_stats_free(struct timer_stats *stats)
{
	if (stats)
		rt_free_local(stats, stats->alloc_size);
}

/* Keep the ten largest, largest first; an equal later one does not displace. */
static void keep_if_top(struct timer_stats *stats, const struct timer_spike *spike)
{
	unsigned int at = stats->nr_top;

	if (at == TIMER_TOP_SPIKES && spike->latency_ns <= stats->top[at - 1].latency_ns)
		return;
	while (at > 0 && stats->top[at - 1].latency_ns < spike->latency_ns)
		at--;
	if (stats->nr_top < TIMER_TOP_SPIKES)
		stats->nr_top++;
	memmove(&stats->top[at + 1], &stats->top[at],
		(stats->nr_top - 1 - at) * sizeof(stats->top[0]));
	stats->top[at] = *spike;
}

uint64_t timer_time_block_ns(uint64_t interval_ns)
{
	uint64_t length = TIME_BLOCK_NS;

	while (length / 10 < interval_ns && length < UINT64_MAX / 2)
		length *= 2;
	return length;
}

uint64_t timer_block_ns(uint64_t interval_ns)
{
	if (interval_ns > TIMER_BLOCK_NS / TIMER_BLOCK_MIN_WAKEUPS)
		return interval_ns * TIMER_BLOCK_MIN_WAKEUPS;
	return TIMER_BLOCK_NS;
}

/*
 * A sample's expiry lies beyond the open block: hand the block's maximum
 * to the main thread and open the block that holds the expiry. Blocks the
 * thread had no expiry in are skipped: they have no maximum. The first
 * block begins at the first expiry.
 */
static void next_block(struct timer_stats *stats, uint64_t expiry_ns)
{
	uint64_t later;

	if (!stats->block_end_ns) {
		stats->block_end_ns = expiry_ns + stats->block_ns;
		return;
	}
	if (stats->block_sampled) {
		struct timer_block *slot =
			&stats->block_ring[stats->blocks_closed % TIMER_BLOCK_RING];

		slot->index = stats->block_index;
		slot->max_ns = stats->block_max_ns;
		/* release: a reader that sees the count sees the entry */
		__atomic_store_n(&stats->blocks_closed, stats->blocks_closed + 1, __ATOMIC_RELEASE);
	}
	later = (expiry_ns - stats->block_end_ns) / stats->block_ns + 1;
	stats->block_index += later;
	stats->block_end_ns += later * stats->block_ns;
	stats->block_max_ns = 0;
	stats->block_sampled = false;
}

uint64_t timer_stats_add(struct timer_stats *stats, uint64_t expiry_ns, uint64_t wakeup_ns,
			 uint64_t overruns)
{
	uint64_t latency = wakeup_ns > expiry_ns ? wakeup_ns - expiry_ns : 0;
	uint64_t cycle = stats->live.cycles, interval = stats->interval_ns;
	uint64_t next, skipped, late, threshold;
	bool breaks;

	hist_add(&stats->hist, latency);
	if (stats->time_builder.counts) {
		time_block_builder_at(&stats->time_builder, &stats->time_ring, expiry_ns);
		time_block_builder_add(&stats->time_builder, latency);
	}
	if (stats->block_ns) {
		if (expiry_ns >= stats->block_end_ns)
			next_block(stats, expiry_ns);
		if (latency > stats->block_max_ns)
			stats->block_max_ns = latency;
		stats->block_sampled = true;
	}
	if (latency < stats->live.min_ns)
		store_relaxed(&stats->live.min_ns, latency);
	if (latency > stats->live.max_ns)
		store_relaxed(&stats->live.max_ns, latency);
	store_relaxed(&stats->live.act_ns, latency);
	store_relaxed(&stats->live.sum_ns, stats->live.sum_ns + latency);

	threshold = __atomic_load_n(&stats->spike_threshold_ns, __ATOMIC_RELAXED);
	/*
	 * The sample that breaks the run is a spike whatever the threshold
	 * (an adaptive one is not even set before the 200th sample): it is
	 * the one a -b user wants explained, and it has a slot of its own.
	 */
	breaks = stats->break_above_ns && latency > stats->break_above_ns;
	if (breaks)
		threshold = 0;
	if (latency >= threshold || stats->nr_top < TIMER_TOP_SPIKES ||
	    latency > stats->top[TIMER_TOP_SPIKES - 1].latency_ns) {
		struct timer_spike spike = { expiry_ns, wakeup_ns, latency, cycle };

		if (latency >= threshold) {
			if (stats->nr_spikes < stats->spike_capacity + breaks) {
				stats->spikes[stats->nr_spikes] = spike;
				/* a reader that sees the count sees the spike */
				__atomic_store_n(&stats->nr_spikes, stats->nr_spikes + 1,
						 __ATOMIC_RELEASE);
			} else {
				stats->spikes_dropped++;
			}
		}
		keep_if_top(stats, &spike);
	}
	if (stats->nr_buckets) {
		uint64_t bucket = latency / stats->unit_ns;

		if (bucket < stats->nr_buckets) {
			stats->buckets[bucket]++;
		} else {
			if (stats->bucket_overflows < stats->nr_buckets)
				stats->overflow_cycles[stats->bucket_overflows] = cycle;
			stats->bucket_overflows++;
		}
	}
	if (stats->samples)
		store_relaxed(&stats->samples[cycle & stats->sample_mask], latency);
	/* release: a reader that sees the count sees the sample in the ring */
	__atomic_store_n(&stats->live.cycles, cycle + 1, __ATOMIC_RELEASE);

	/* POSIX timers: the kernel counted the expiries it could not deliver */
	next = expiry_ns + interval * (1 + overruns);
	if (!stats->count_missed)
		return next;
	skipped = overruns;
	/*
	 * clock_nanosleep: an expiry already in the past would return at
	 * once and be measured as a late wake-up that never was; skip to the
	 * first expiry after the wake-up and count the periods skipped. A
	 * POSIX timer's next signal may be pending already: it is measured,
	 * not skipped.
	 */
	if (stats->mode == TIMER_WAIT_ABSOLUTE && wakeup_ns > next) {
		late = (wakeup_ns - next - 1) / interval + 1;
		next += late * interval;
		skipped = late;
	}
	if (skipped) {
		uint64_t first_missed = expiry_ns + interval;
		uint64_t overrun = wakeup_ns > first_missed ? wakeup_ns - first_missed : 0;

		stats->missed += skipped;
		if (overrun > stats->max_overrun_ns)
			stats->max_overrun_ns = overrun;
	}
	return next;
}

/*
 * Tracefs, for --tracemark: the mount table first (it may be mounted
 * anywhere), then the usual places.
 */
static int find_tracefs(struct sysroot *root, char *dir, size_t size)
{
	static const char *const usual[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char *mounts, *line, *save = NULL;
	size_t i;
	int found = -ENOENT;

	if (!sysroot_read_alloc(root, &mounts, NULL, "/proc/mounts")) {
		for (line = strtok_r(mounts, "\n", &save); line && found;
		     line = strtok_r(NULL, "\n", &save)) {
			char where[512], type[64];

			if (sscanf(line, "%*s %511s %63s", where, type) == 2 &&
			    !strcmp(type, "tracefs") &&
			    sysroot_exists(root, "%s/trace_marker", where))
				found = snprintf(dir, size, "%s", where) < (int)size ?
						0 :
						-ENAMETOOLONG;
		}
		free(mounts);
		if (!found)
			return 0;
	}
	for (i = 0; i < sizeof(usual) / sizeof(usual[0]); i++) {
		if (sysroot_exists(root, "%s/trace_marker", usual[i])) {
			snprintf(dir, size, "%s", usual[i]);
			return 0;
		}
	}
	return -ENOENT;
}

static void open_tracemark(struct timer_run *run)
{
	char dir[512];

	if (find_tracefs(run->params.root, dir, sizeof(dir))) {
		log_warning(
			"tracefs is not mounted: --tracemark will neither mark nor stop a trace "
			"(mount -t tracefs nodev /sys/kernel/tracing)");
		return;
	}
	run->marker_fd =
		sysroot_open(run->params.root, O_WRONLY | O_CLOEXEC, "%s/trace_marker", dir);
	run->tracing_on_fd =
		sysroot_open(run->params.root, O_WRONLY | O_CLOEXEC, "%s/tracing_on", dir);
	if (run->marker_fd < 0 || run->tracing_on_fd < 0)
		log_warning("cannot open %s/%s: %s", dir,
			    run->marker_fd < 0 ? "trace_marker" : "tracing_on",
			    strerror(-(run->marker_fd < 0 ? run->marker_fd : run->tracing_on_fd)));
}

static void close_tracemark(struct timer_run *run)
{
	if (run->marker_fd >= 0)
		close(run->marker_fd);
	if (run->tracing_on_fd >= 0)
		close(run->tracing_on_fd);
	run->marker_fd = run->tracing_on_fd = -1;
}

static void notify_finished(struct timer_run *run)
{
	uint64_t one = 1;

	__atomic_add_fetch(&run->nr_finished, 1, __ATOMIC_RELEASE);
	if (write(run->event_fd, &one, sizeof(one)) != sizeof(one))
		return; /* the caller then wakes at its next timeout */
}

/*
 * The first thread above the limit stops the run; with --tracemark it marks
 * the trace and stops it at once, so that the trace ends at the spike.
 */
static void break_run(struct timer_run *run, unsigned int thread, const struct timer_spike *spike)
{
	int none = -1;
	uint64_t unit = run->params.unit_ns ? run->params.unit_ns : 1000;

	if (!__atomic_compare_exchange_n(&run->break_thread, &none, (int)thread, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	run->break_spike = *spike;
	if (run->marker_fd >= 0) {
		char text[96];
		int len = snprintf(text, sizeof(text), "hit latency threshold (%llu > %llu)",
				   (unsigned long long)(spike->latency_ns / unit),
				   (unsigned long long)(run->params.break_above_ns / unit));

		if (write(run->marker_fd, text, (size_t)len) < 0)
			log_warning("cannot write the trace marker: %s", strerror(errno));
	}
	if (run->tracing_on_fd >= 0) {
		if (write(run->tracing_on_fd, "0\n", 2) == 2)
			run->tracing_stopped = true;
		else
			log_warning("cannot stop tracing: %s", strerror(errno));
	}
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
}

/*
 * Wait for the next period and read the clock the moment the wait returns:
 * nothing but the wake-up itself may count as latency. Cancellation is
 * allowed only in the wait, so that timer_stop() ends a thread that sleeps
 * for a long interval at once and never one in the middle of accounting a
 * sample.
 */
static int wait_period(struct timer_stats *stats, enum timer_wait_mode mode, uint64_t *expiry,
		       uint64_t *wakeup, uint64_t *overruns)
{
	struct timespec ts, left;
	siginfo_t info;
	sigset_t set;
	int ret, old;

	if (mode == TIMER_WAIT_POSIX_TIMER) {
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
	}
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	switch (mode) {
	case TIMER_WAIT_ABSOLUTE:
		ts = clock_timespec(*expiry);
		do
			ret = clock_nanosleep(TIMER_CLOCK, TIMER_ABSTIME, &ts, NULL);
		while (ret == EINTR);
		break;
	case TIMER_WAIT_RELATIVE:
		*expiry = timer_clock_ns() + stats->interval_ns;
		ts = clock_timespec(stats->interval_ns);
		while ((ret = clock_nanosleep(TIMER_CLOCK, 0, &ts, &left)) == EINTR)
			ts = left;
		break;
	default:
		do
			ret = sigwaitinfo(&set, &info) < 0 ? errno : 0;
		while (ret == EINTR);
		break;
	}
	*wakeup = timer_clock_ns();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	if (mode == TIMER_WAIT_POSIX_TIMER)
		*overruns = ret || info.si_overrun <= 0 ? 0 : (uint64_t)info.si_overrun;
	return -ret;
}

static int arm_posix_timer(struct timer_stats *stats, uint64_t first_expiry)
{
	struct itimerspec spec;

	spec.it_value = clock_timespec(first_expiry);
	spec.it_interval = clock_timespec(stats->interval_ns);
	if (timer_settime(stats->posix_timer, TIMER_ABSTIME, &spec, NULL))
		return -errno;
	return 0;
}

static void measure(struct worker *worker)
{
	struct timer_run *run = worker->data;
	unsigned int thread = (unsigned int)(worker - run->workers);
	struct timer_stats *stats = run->stats[thread];
	const struct timer_params *params = &run->params;
	uint64_t now, expiry, next, overruns = 0, end = UINT64_MAX, missed;
	uint64_t loops = params->loops ? params->loops : UINT64_MAX;
	int ret = 0;

	stats->tid = worker->tid;
	now = timer_clock_ns();
	stats->start_ns = now;
	if (stats->time_builder.counts)
		time_block_builder_start(&stats->time_builder, now);
	if (params->duration_ns)
		end = now + params->duration_ns;
	next = now + stats->interval_ns;
	__atomic_store_n(&stats->live.horizon_ns, params->mode == TIMER_WAIT_RELATIVE ? now : next,
			 __ATOMIC_RELEASE);
	if (params->mode == TIMER_WAIT_POSIX_TIMER)
		ret = arm_posix_timer(stats, next);
	while (!ret) {
		expiry = next;
		ret = wait_period(stats, params->mode, &expiry, &now, &overruns);
		if (ret)
			break;
		missed = stats->missed;
		next = timer_stats_add(stats, expiry, now, overruns);
		if (params->on_sample) {
			struct timer_spike sample = { expiry, now, now > expiry ? now - expiry : 0,
						      stats->live.cycles - 1 };

			params->on_sample(params->on_sample_context, thread, &sample,
					  stats->missed - missed);
		}
		/* samples before this are all accounted for (--explain waits for it) */
		__atomic_store_n(&stats->live.horizon_ns,
				 params->mode == TIMER_WAIT_RELATIVE ? now : next,
				 __ATOMIC_RELEASE);
		if (params->break_above_ns && now > expiry &&
		    now - expiry > params->break_above_ns) {
			struct timer_spike spike = { expiry, now, now - expiry,
						     stats->live.cycles - 1 };

			break_run(run, thread, &spike);
			break;
		}
		if (stats->live.cycles >= loops || now >= end ||
		    __atomic_load_n(&run->stop, __ATOMIC_ACQUIRE))
			break;
	}
	if (ret) {
		stats->error = ret;
		log_error("thread %u stopped measuring: %s", thread, strerror(-ret));
		__atomic_store_n(&run->failed, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	}
	notify_finished(run);
}

/* On the measuring thread, pinned and with its policy: memory on its node. */
static int setup_thread(struct worker *worker)
{
	struct timer_run *run = worker->data;
	unsigned int thread = (unsigned int)(worker - run->workers);
	struct timer_stats *stats;
	struct sigevent event;

	stats = timer_stats_new(&run->params, thread);
	if (!stats)
		return -ENOMEM;
	run->stats[thread] = stats;
	if (run->params.mode != TIMER_WAIT_POSIX_TIMER)
		return 0;
	memset(&event, 0, sizeof(event));
	event.sigev_notify = SIGEV_THREAD_ID;
	event.sigev_signo = SIGRTMIN;
	event._sigev_un._tid = worker->tid;
	if (timer_create(TIMER_CLOCK, &event, &stats->posix_timer)) {
		int err = errno;

		log_error("cannot create a POSIX timer for thread %u: %s", thread, strerror(err));
		return -err;
	}
	stats->has_posix_timer = true;
	return 0;
}

static void free_stats(struct timer_run *run)
{
	unsigned int i;

	for (i = 0; i < run->params.nr_threads; i++) {
		struct timer_stats *stats = run->stats[i];

		if (!stats)
			continue;
		if (stats->has_posix_timer)
			timer_delete(stats->posix_timer);
		timer_stats_free(stats);
		run->stats[i] = NULL;
	}
}

static void free_run(struct timer_run *run)
{
	unsigned int i;

	for (i = 0; run->blocks && i < run->params.nr_threads; i++)
		free(run->blocks[i].max_ns);
	free(run->blocks);
	for (i = 0; run->time_blocks && i < run->params.nr_threads; i++)
		time_blocks_release(&run->time_blocks[i]);
	free(run->time_blocks);
	free_stats(run);
	close_tracemark(run);
	if (run->event_fd >= 0)
		close(run->event_fd);
	free(run->stats);
	free(run->workers);
	free(run->threads);
	free(run);
}

static int check_params(const struct timer_params *params)
{
	unsigned int i;

	if (!params->nr_threads || !params->threads) {
		log_error("a timer run needs at least one thread");
		return -EINVAL;
	}
	for (i = 0; i < params->nr_threads; i++) {
		if (!params->threads[i].interval_ns) {
			log_error("thread %u has an interval of 0", i);
			return -EINVAL;
		}
	}
	if (params->tracemark && !params->root) {
		log_error("--tracemark needs a sysroot to find tracefs");
		return -EINVAL;
	}
	return 0;
}

int timer_start(struct timer_run **runp, const struct timer_params *params)
{
	struct timer_run *run;
	unsigned int i, n = params->nr_threads;
	int ret;

	*runp = NULL;
	ret = check_params(params);
	if (ret)
		return ret;
	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	run->params = *params;
	run->marker_fd = run->tracing_on_fd = -1;
	run->break_thread = -1;
	run->threads = calloc(n, sizeof(*run->threads));
	run->workers = calloc(n, sizeof(*run->workers));
	run->stats = calloc(n, sizeof(*run->stats));
	if (params->block_maxima)
		run->blocks = calloc(n, sizeof(*run->blocks));
	if (params->time_blocks)
		run->time_blocks = calloc(n, sizeof(*run->time_blocks));
	run->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!run->threads || !run->workers || !run->stats || run->event_fd < 0 ||
	    (params->block_maxima && !run->blocks) || (params->time_blocks && !run->time_blocks)) {
		ret = run->event_fd < 0 ? -errno : -ENOMEM;
		log_error("cannot prepare %u measuring threads: %s", n, strerror(-ret));
		free_run(run);
		return ret;
	}
	memcpy(run->threads, params->threads, n * sizeof(*run->threads));
	run->params.threads = run->threads;
	for (i = 0; run->time_blocks && i < n; i++)
		time_blocks_init(&run->time_blocks[i],
				 timer_time_block_ns(run->threads[i].interval_ns));
	if (params->tracemark && params->break_above_ns)
		open_tracemark(run);
	for (i = 0; i < n; i++) {
		struct worker *worker = &run->workers[i];

		worker->cpu = run->threads[i].cpu < 0 ? WORKER_UNPINNED :
							(unsigned int)run->threads[i].cpu;
		worker->policy = params->policy;
		worker->priority = run->threads[i].priority;
		worker->setup = setup_thread;
		worker->run = measure;
		worker->data = run;
		worker->stack_bytes = params->stack_bytes;
	}
	ret = worker_group_start(&run->group, run->workers, n);
	if (ret) {
		free_run(run);
		return ret;
	}
	*runp = run;
	return 0;
}

static bool run_over(const struct timer_run *run)
{
	return __atomic_load_n(&run->nr_finished, __ATOMIC_ACQUIRE) == run->params.nr_threads ||
	       __atomic_load_n(&run->break_thread, __ATOMIC_ACQUIRE) >= 0 ||
	       __atomic_load_n(&run->failed, __ATOMIC_ACQUIRE);
}

bool timer_wait(struct timer_run *run, int timeout_ms, const sigset_t *sigmask)
{
	struct pollfd wait = { .fd = run->event_fd, .events = POLLIN };
	struct timespec timeout, *limit = NULL;
	uint64_t count;

	if (run_over(run))
		return true;
	if (timeout_ms >= 0) {
		timeout = clock_timespec((uint64_t)timeout_ms * 1000000ULL);
		limit = &timeout;
	}
	/* the count only wakes us: what ended is read from the run */
	if (ppoll(&wait, 1, limit, sigmask) > 0 && read(run->event_fd, &count, sizeof(count)) < 0)
		count = 0;
	return run_over(run);
}

int timer_stop(struct timer_run *run)
{
	unsigned int i;
	bool first = true;
	int ret = 0;

	if (run->joined)
		return 0;
	if (__atomic_load_n(&run->failed, __ATOMIC_ACQUIRE))
		run->end = TIMER_END_ERROR;
	else if (__atomic_load_n(&run->break_thread, __ATOMIC_ACQUIRE) >= 0)
		run->end = TIMER_END_BREAK;
	else if (__atomic_load_n(&run->nr_finished, __ATOMIC_ACQUIRE) == run->params.nr_threads)
		run->end = TIMER_END_COMPLETE;
	else
		run->end = TIMER_END_STOPPED;
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	/* no timer signal may outlive its thread: the default action kills */
	for (i = 0; i < run->params.nr_threads; i++) {
		struct itimerspec off = { 0 };

		if (run->stats[i]->has_posix_timer)
			timer_settime(run->stats[i]->posix_timer, 0, &off, NULL);
	}
	/* a thread that already ended ignores this: it never waits again */
	for (i = 0; i < run->params.nr_threads; i++)
		pthread_cancel(run->workers[i].thread);
	worker_group_join(&run->group);
	run->joined = true;
	close_tracemark(run);
	/* the open time block is partial: it ends with the run */
	for (i = 0; run->time_blocks && i < run->params.nr_threads; i++)
		time_block_builder_flush(&run->stats[i]->time_builder, &run->stats[i]->time_ring);
	/* the blocks closed since the last collection; the open maximum is partial */
	timer_collect_blocks(run);
	for (i = 0; i < run->params.nr_threads; i++) {
		const struct timer_stats *stats = run->stats[i];

		if (!ret && stats->error)
			ret = stats->error;
		if (stats->start_ns && (first || stats->start_ns < run->origin_ns)) {
			run->origin_ns = stats->start_ns;
			first = false;
		}
	}
	return ret;
}

void timer_free(struct timer_run *run)
{
	if (!run)
		return;
	if (!run->joined)
		timer_stop(run);
	free_run(run);
}

pid_t timer_thread_tid(const struct timer_run *run, unsigned int thread)
{
	return run->workers[thread].tid;
}

unsigned int timer_nr_threads(const struct timer_run *run)
{
	return run->params.nr_threads;
}

void timer_read_live(const struct timer_run *run, unsigned int thread, struct timer_live *live,
		     pid_t *tid)
{
	const struct timer_stats *stats = run->stats[thread];

	live->horizon_ns = __atomic_load_n(&stats->live.horizon_ns, __ATOMIC_ACQUIRE);
	live->cycles = __atomic_load_n(&stats->live.cycles, __ATOMIC_ACQUIRE);
	live->min_ns = load_relaxed(&stats->live.min_ns);
	live->act_ns = load_relaxed(&stats->live.act_ns);
	live->max_ns = load_relaxed(&stats->live.max_ns);
	live->sum_ns = load_relaxed(&stats->live.sum_ns);
	if (live->min_ns == UINT64_MAX)
		live->min_ns = 0;
	if (tid)
		*tid = stats->tid;
}

size_t timer_spikes_published(const struct timer_run *run, unsigned int thread,
			      const struct timer_spike **spikes)
{
	const struct timer_stats *stats = run->stats[thread];

	*spikes = stats->spikes;
	return __atomic_load_n(&stats->nr_spikes, __ATOMIC_ACQUIRE);
}

void timer_set_spike_threshold(struct timer_run *run, unsigned int thread, uint64_t ns)
{
	__atomic_store_n(&run->stats[thread]->spike_threshold_ns, ns, __ATOMIC_RELAXED);
}

uint64_t timer_drain_samples(const struct timer_run *run, unsigned int thread, uint64_t *next_cycle,
			     void (*emit)(void *context, unsigned int thread, uint64_t cycle,
					  uint64_t latency_ns),
			     void *context)
{
	const struct timer_stats *stats = run->stats[thread];
	uint64_t size = stats->sample_mask + 1, head, cycle, lost = 0, value;

	if (!stats->samples)
		return 0;
	head = __atomic_load_n(&stats->live.cycles, __ATOMIC_ACQUIRE);
	cycle = *next_cycle;
	if (head - cycle > size) {
		lost = head - size - cycle;
		cycle = head - size;
	}
	for (; cycle < head; cycle++) {
		value = __atomic_load_n(&stats->samples[cycle & stats->sample_mask],
					__ATOMIC_RELAXED);
		/* the thread may have lapped the ring while we read it */
		if (__atomic_load_n(&stats->live.cycles, __ATOMIC_ACQUIRE) - cycle > size) {
			lost++;
			continue;
		}
		emit(context, thread, cycle, value);
	}
	*next_cycle = head;
	return lost;
}

const struct timer_stats *timer_result(const struct timer_run *run, unsigned int thread)
{
	return run->stats[thread];
}

/* the entries of one thread's ring not taken yet, into its store */
static int collect_thread(struct timer_stats *stats, struct block_store *store)
{
	uint64_t closed = __atomic_load_n(&stats->blocks_closed, __ATOMIC_ACQUIRE), at;
	struct timer_block entry;
	uint64_t *grown;

	if (closed - store->taken > TIMER_BLOCK_RING) {
		store->lost += closed - TIMER_BLOCK_RING - store->taken;
		store->taken = closed - TIMER_BLOCK_RING;
	}
	for (at = store->taken; at < closed; at++) {
		entry = stats->block_ring[at % TIMER_BLOCK_RING];
		/* the thread may have lapped the ring while we read it */
		if (__atomic_load_n(&stats->blocks_closed, __ATOMIC_ACQUIRE) - at >
		    TIMER_BLOCK_RING) {
			store->lost++;
			continue;
		}
		if (store->nr == TIMER_MAX_BLOCKS) {
			store->lost++;
			continue;
		}
		grown = array_grow(store->max_ns, &store->cap, store->nr + 1,
				   sizeof(*store->max_ns));
		if (!grown) {
			store->taken = at;
			return -ENOMEM;
		}
		store->max_ns = grown;
		store->max_ns[store->nr++] = entry.max_ns;
	}
	store->taken = closed;
	return 0;
}

int timer_collect_blocks(struct timer_run *run)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; run->blocks && i < run->params.nr_threads; i++)
		if (run->stats[i] && collect_thread(run->stats[i], &run->blocks[i]))
			ret = -ENOMEM;
	for (i = 0; run->time_blocks && i < run->params.nr_threads; i++)
		if (run->stats[i] &&
		    time_blocks_take(&run->time_blocks[i], &run->stats[i]->time_ring))
			ret = -ENOMEM;
	if (ret)
		log_error("out of memory keeping the blocks");
	return ret;
}

const struct time_blocks *timer_time_blocks(const struct timer_run *run, unsigned int thread,
					    uint64_t *builder_lost)
{
	if (builder_lost)
		*builder_lost = run->time_blocks && run->stats[thread] ?
					__atomic_load_n(&run->stats[thread]->time_builder.lost,
							__ATOMIC_RELAXED) :
					0;
	return run->time_blocks ? &run->time_blocks[thread] : NULL;
}

const uint64_t *timer_block_maxima(const struct timer_run *run, unsigned int thread, size_t *nr,
				   uint64_t *lost)
{
	const struct block_store *store = run->blocks ? &run->blocks[thread] : NULL;

	*nr = store ? store->nr : 0;
	if (lost)
		*lost = store ? store->lost : 0;
	return store && store->nr ? store->max_ns : NULL;
}

uint64_t timer_origin_ns(const struct timer_run *run)
{
	return run->origin_ns;
}

enum timer_end timer_end_reason(const struct timer_run *run)
{
	return run->joined ? run->end : TIMER_END_RUNNING;
}

const char *timer_end_name(enum timer_end end)
{
	switch (end) {
	case TIMER_END_COMPLETE:
		return "complete";
	case TIMER_END_STOPPED:
		return "stopped";
	case TIMER_END_BREAK:
		return "break";
	case TIMER_END_ERROR:
		return "error";
	default:
		return "running";
	}
}

bool timer_break(const struct timer_run *run, unsigned int *thread, struct timer_spike *spike)
{
	int broke = __atomic_load_n(&run->break_thread, __ATOMIC_ACQUIRE);

	if (broke < 0)
		return false;
	*thread = (unsigned int)broke;
	*spike = run->break_spike;
	return true;
}

bool timer_tracing_stopped(const struct timer_run *run)
{
	return run->tracing_stopped;
}

static json_t *spike_json(const struct timer_spike *spike, uint64_t origin_ns)
{
	return json_pack("{sIsIsIsIsI}", "t_ns", (json_int_t)(spike->wakeup_ns - origin_ns),
			 "latency_ns", (json_int_t)spike->latency_ns, "expiry_ns",
			 (json_int_t)spike->expiry_ns, "wakeup_ns", (json_int_t)spike->wakeup_ns,
			 "cycle", (json_int_t)spike->cycle);
}

static json_t *spike_records_json(const struct timer_stats *stats, uint64_t origin_ns)
{
	json_t *records = json_array();
	size_t i;

	for (i = 0; i < stats->nr_spikes; i++)
		json_array_append_new(records, spike_json(&stats->spikes[i], origin_ns));
	return json_pack("{sIsIsIso}", "threshold_ns", (json_int_t)stats->spike_threshold_ns,
			 "capacity", (json_int_t)stats->spike_capacity, "dropped",
			 (json_int_t)stats->spikes_dropped, "records", records);
}

/* cyclictest's histogram: non-empty unit buckets, and where it overflowed */
static json_t *cyclictest_histogram_json(const struct timer_stats *stats)
{
	json_t *buckets = json_object(), *cycles = json_array();
	uint64_t kept = stats->bucket_overflows < stats->nr_buckets ? stats->bucket_overflows :
								      stats->nr_buckets;
	unsigned int i;
	char key[24];

	for (i = 0; i < stats->nr_buckets; i++) {
		if (!stats->buckets[i])
			continue;
		snprintf(key, sizeof(key), "%u", i);
		json_object_set_new(buckets, key, json_integer((json_int_t)stats->buckets[i]));
	}
	for (i = 0; i < kept; i++)
		json_array_append_new(cycles, json_integer((json_int_t)stats->overflow_cycles[i]));
	return json_pack("{sIsIsosIsosI}", "unit_ns", (json_int_t)stats->unit_ns, "nr_buckets",
			 (json_int_t)stats->nr_buckets, "buckets", buckets, "overflows",
			 (json_int_t)stats->bucket_overflows, "overflow_cycles", cycles,
			 "overflow_cycles_dropped", (json_int_t)(stats->bucket_overflows - kept));
}

static json_t *block_maxima_json(const struct timer_run *run, unsigned int thread)
{
	json_t *list = json_array();
	uint64_t lost;
	size_t nr, i;
	const uint64_t *max_ns = timer_block_maxima(run, thread, &nr, &lost);

	for (i = 0; i < nr; i++)
		json_array_append_new(list, json_integer((json_int_t)max_ns[i]));
	return json_pack("{sIsosI}", "block_ns", (json_int_t)run->stats[thread]->block_ns, "max_ns",
			 list, "lost", (json_int_t)lost);
}

json_t *timer_stats_json(const struct timer_stats *stats, uint64_t origin_ns)
{
	const struct hist *h = &stats->hist;
	json_t *entry = json_object(), *spikes = json_array();
	unsigned int j;

	json_object_set_new(entry, "thread", json_integer(stats->thread));
	json_object_set_new(entry, "cpu", stats->cpu < 0 ? json_null() : json_integer(stats->cpu));
	json_object_set_new(entry, "tid", json_integer(stats->tid));
	json_object_set_new(entry, "priority", json_integer(stats->priority));
	json_object_set_new(entry, "interval_ns", json_integer((json_int_t)stats->interval_ns));
	json_object_set_new(entry, "cycles", json_integer((json_int_t)h->count));
	json_object_set_new(entry, "min_ns", json_integer(h->count ? (json_int_t)h->min : 0));
	json_object_set_new(entry, "avg_ns", json_integer((json_int_t)(hist_mean(h) + 0.5)));
	json_object_set_new(entry, "max_ns", json_integer((json_int_t)h->max));
	json_object_set_new(entry, "percentiles", result_percentiles(h));
	json_object_set_new(entry, "missed", json_integer((json_int_t)stats->missed));
	json_object_set_new(entry, "max_overrun_ns",
			    json_integer((json_int_t)stats->max_overrun_ns));
	for (j = 0; j < stats->nr_top; j++)
		json_array_append_new(spikes, spike_json(&stats->top[j], origin_ns));
	json_object_set_new(entry, "spikes", spikes);
	json_object_set_new(entry, "spike_records", spike_records_json(stats, origin_ns));
	json_object_set_new(entry, "histogram", result_histogram(h));
	return entry;
}

json_t *timer_result_threads(const struct timer_run *run)
{
	json_t *threads = json_array();
	unsigned int i;

	for (i = 0; i < run->params.nr_threads; i++) {
		const struct timer_stats *stats = run->stats[i];
		json_t *entry = timer_stats_json(stats, run->origin_ns);

		if (run->blocks)
			json_object_set_new(entry, "block_maxima", block_maxima_json(run, i));
		if (run->time_blocks) {
			uint64_t lost;
			const struct time_blocks *tb = timer_time_blocks(run, i, &lost);

			json_object_set_new(entry, "time_blocks", time_blocks_json(tb, lost));
		}
		if (stats->nr_buckets)
			json_object_set_new(entry, "cyclictest_histogram",
					    cyclictest_histogram_json(stats));
		json_array_append_new(threads, entry);
	}
	return threads;
}
