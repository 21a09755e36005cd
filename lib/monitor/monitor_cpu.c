// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <sched.h>
#include <string.h>

#include "latscope/monitor_cpu.h"

/*
 * Every field a reader may read while the thread writes is accessed with
 * relaxed atomics (plain moves on x86); the sequence count orders them:
 * odd while the thread writes. This is the seqlock of Boehm, "Can seqlocks
 * get along with programming language memory models?" (MSPC 2012).
 */
#define STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)
#define LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static inline void write_begin(struct monitor_cpu *c)
{
	STORE(c->seq, c->seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void write_end(struct monitor_cpu *c)
{
	__atomic_store_n(&c->seq, c->seq + 1, __ATOMIC_RELEASE);
}

uint64_t monitor_window_p99_ns(const struct monitor_window *w)
{
	uint64_t low = native_slot_low(w->p99_slot), high = native_slot_high[w->p99_slot];
	uint64_t middle = low <= high ? low + (high - low) / 2 : high;

	return middle < w->max_ns ? middle : w->max_ns;
}

void monitor_cpu_init(struct monitor_cpu *c, unsigned int cpu, uint64_t window_ns)
{
	c->cpu = cpu;
	c->window_ns = window_ns;
	c->native_lo = c->window_lo = NATIVE_SLOTS;
	c->spike_threshold_ns = UINT64_MAX;
}

static void store_window(struct monitor_window *to, const struct monitor_window *from)
{
	STORE(to->index, from->index);
	STORE(to->count, from->count);
	STORE(to->max_ns, from->max_ns);
	STORE(to->p99_slot, from->p99_slot);
	STORE(to->missed, from->missed);
	STORE(to->partial, from->partial);
}

static void load_window(struct monitor_window *to, const struct monitor_window *from)
{
	to->index = LOAD(from->index);
	to->count = LOAD(from->count);
	to->max_ns = LOAD(from->max_ns);
	to->p99_slot = LOAD(from->p99_slot);
	to->missed = LOAD(from->missed);
	to->partial = LOAD(from->partial);
}

/* The slot of rank ceil(0.99 * count), walking down from the highest. */
static unsigned int window_p99_slot(const struct monitor_cpu *c)
{
	uint64_t rank = (c->window_count * 99 + 99) / 100, above = c->window_count - rank, seen = 0;
	unsigned int slot;

	for (slot = c->window_hi; slot > c->window_lo; slot--) {
		seen += c->window_native[slot];
		if (seen > above)
			return slot;
	}
	return c->window_lo;
}

/* Close the open window: to the last closed one, the queue, and clear its counts. */
static void close_window(struct monitor_cpu *c)
{
	struct monitor_window w = {
		.index = c->window_index,
		.count = c->window_count,
		.max_ns = c->window_max_ns,
		.p99_slot = c->window_count ? window_p99_slot(c) : 0,
		.missed = c->window_missed,
		.partial = c->window_partial,
	};
	uint64_t head = c->closed_head;
	unsigned int slot;

	store_window(&c->last_closed, &w);
	STORE(c->has_closed, true);
	/* the consumer released the entry it read with its tail */
	if (head - __atomic_load_n(&c->closed_tail, __ATOMIC_ACQUIRE) < MONITOR_CLOSED_QUEUE) {
		c->closed[head % MONITOR_CLOSED_QUEUE] = w;
		__atomic_store_n(&c->closed_head, head + 1, __ATOMIC_RELEASE);
	} else {
		STORE(c->closed_dropped, c->closed_dropped + 1);
	}
	for (slot = c->window_lo; slot <= c->window_hi && slot < NATIVE_SLOTS; slot++)
		STORE(c->window_native[slot], 0);
	STORE(c->window_lo, NATIVE_SLOTS);
	STORE(c->window_hi, 0);
	STORE(c->window_count, 0);
	STORE(c->window_max_ns, 0);
	STORE(c->window_missed, 0);
	STORE(c->window_open, false);
}

/* Open the window of @expiry_ns; the first of a run began inside it. */
static void open_window(struct monitor_cpu *c, uint64_t expiry_ns, bool first)
{
	int64_t offset = LOAD(c->realtime_offset_ns);
	uint64_t real = (uint64_t)((int64_t)expiry_ns + offset);
	uint64_t index = real / c->window_ns;

	STORE(c->window_index, index);
	STORE(c->window_end_ns, (uint64_t)((int64_t)((index + 1) * c->window_ns) - offset));
	STORE(c->window_partial, first);
	STORE(c->window_open, true);
}

/* @sum + @value, at most MONITOR_COUNTER_MAX: what a state can hold */
static inline uint64_t saturating_add(uint64_t sum, uint64_t value)
{
	return value > MONITOR_COUNTER_MAX - sum ? MONITOR_COUNTER_MAX : sum + value;
}

void monitor_cpu_add(struct monitor_cpu *c, const struct timer_spike *sample, uint64_t skipped)
{
	uint64_t latency = sample->latency_ns, head;
	unsigned int slot = native_slot_of(latency);
	unsigned int classic = metrics_classic_slot_of(latency);

	write_begin(c);
	if (!c->window_open) {
		/* the first window of a run began before it */
		open_window(c, sample->expiry_ns, !c->started);
		c->started = true;
	} else if (sample->expiry_ns >= c->window_end_ns) {
		close_window(c);
		open_window(c, sample->expiry_ns, false);
	}
	STORE(c->count, c->count + 1);
	STORE(c->sum_ns, saturating_add(c->sum_ns, latency));
	if (latency > c->max_ns)
		STORE(c->max_ns, latency);
	STORE(c->missed, c->missed + skipped);
	STORE(c->classic[classic], c->classic[classic] + 1);
	STORE(c->native[slot], c->native[slot] + 1);
	if (slot < c->native_lo)
		STORE(c->native_lo, slot);
	if (slot > c->native_hi)
		STORE(c->native_hi, slot);
	STORE(c->window_count, c->window_count + 1);
	if (latency > c->window_max_ns)
		STORE(c->window_max_ns, latency);
	STORE(c->window_missed, c->window_missed + skipped);
	STORE(c->window_native[slot], c->window_native[slot] + 1);
	if (slot < c->window_lo)
		STORE(c->window_lo, slot);
	if (slot > c->window_hi)
		STORE(c->window_hi, slot);
	write_end(c);

	if (latency < LOAD(c->spike_threshold_ns))
		return;
	head = c->spike_head;
	STORE(c->spikes[head % MONITOR_SPIKE_RING].expiry_ns, sample->expiry_ns);
	STORE(c->spikes[head % MONITOR_SPIKE_RING].wakeup_ns, sample->wakeup_ns);
	STORE(c->spikes[head % MONITOR_SPIKE_RING].latency_ns, latency);
	STORE(c->spikes[head % MONITOR_SPIKE_RING].cycle, sample->cycle);
	/* a reader that sees the head sees the spike */
	__atomic_store_n(&c->spike_head, head + 1, __ATOMIC_RELEASE);
}

bool monitor_cpu_close_window(struct monitor_cpu *c)
{
	if (!c->window_open)
		return false;
	write_begin(c);
	/* the run ends inside it */
	STORE(c->window_partial, true);
	close_window(c);
	write_end(c);
	return true;
}

void monitor_cpu_read(const struct monitor_cpu *c, struct monitor_cpu_reading *r)
{
	unsigned int tries = 0, lo, hi, slot;
	uint32_t before, after;

	for (;;) {
		before = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (before & 1) {
			if (++tries > 100)
				sched_yield();
			continue;
		}
		r->count = LOAD(c->count);
		r->sum_ns = LOAD(c->sum_ns);
		r->max_ns = LOAD(c->max_ns);
		r->missed = LOAD(c->missed);
		for (slot = 0; slot <= METRICS_CLASSIC_BOUNDS; slot++)
			r->classic[slot] = LOAD(c->classic[slot]);
		lo = LOAD(c->native_lo);
		hi = LOAD(c->native_hi);
		r->zero_count = LOAD(c->native[0]);
		r->first = lo ? lo : 1;
		r->nr = lo < NATIVE_SLOTS && hi >= r->first ? hi - r->first + 1 : 0;
		for (slot = 0; slot < r->nr && r->first + slot < NATIVE_SLOTS; slot++)
			r->counts[slot] = LOAD(c->native[r->first + slot]);
		r->has_closed = LOAD(c->has_closed);
		load_window(&r->last_closed, &c->last_closed);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		after = LOAD(c->seq);
		if (before == after)
			return;
		if (++tries > 100)
			sched_yield();
	}
}

uint64_t monitor_cpu_reading_percentile(const struct monitor_cpu_reading *r, double percent)
{
	uint64_t rank;

	if (!r->count)
		return 0;
	rank = (uint64_t)ceil(percent / 100.0 * (double)r->count);
	if (percent >= 100.0)
		return r->max_ns;
	if (!rank)
		rank = 1;
	if (rank <= r->zero_count)
		return native_slot_high[0] / 2 < r->max_ns ? native_slot_high[0] / 2 : r->max_ns;
	/* the same sample among those above the zero bucket */
	return native_value_at_rank(r->counts, r->first, r->nr, rank - r->zero_count, 0, r->max_ns);
}

void monitor_cpu_restore(struct monitor_cpu *c, const struct monitor_cpu_reading *r)
{
	unsigned int i;

	c->count = r->count;
	c->sum_ns = r->sum_ns;
	c->max_ns = r->max_ns;
	c->missed = r->missed;
	memcpy(c->classic, r->classic, sizeof(c->classic));
	memset(c->native, 0, sizeof(c->native));
	c->native[0] = r->zero_count;
	c->native_lo = r->zero_count ? 0 : NATIVE_SLOTS;
	c->native_hi = 0;
	for (i = 0; i < r->nr && r->first + i < NATIVE_SLOTS; i++) {
		c->native[r->first + i] = r->counts[i];
		if (!r->counts[i])
			continue;
		if (r->first + i < c->native_lo)
			c->native_lo = r->first + i;
		c->native_hi = r->first + i;
	}
	c->has_closed = r->has_closed;
	c->last_closed = r->last_closed;
}

bool monitor_cpu_take_window(struct monitor_cpu *c, struct monitor_window *window)
{
	uint64_t tail = c->closed_tail;

	if (tail == __atomic_load_n(&c->closed_head, __ATOMIC_ACQUIRE))
		return false;
	*window = c->closed[tail % MONITOR_CLOSED_QUEUE];
	__atomic_store_n(&c->closed_tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

unsigned int monitor_cpu_take_spikes(const struct monitor_cpu *c, uint64_t *next,
				     struct timer_spike *spikes, unsigned int max, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&c->spike_head, __ATOMIC_ACQUIRE), at = *next;
	unsigned int n = 0;

	if (head - at > MONITOR_SPIKE_RING) {
		*lost += head - MONITOR_SPIKE_RING - at;
		at = head - MONITOR_SPIKE_RING;
	}
	for (; at < head && n < max; at++) {
		const struct timer_spike *s = &c->spikes[at % MONITOR_SPIKE_RING];

		spikes[n].expiry_ns = LOAD(s->expiry_ns);
		spikes[n].wakeup_ns = LOAD(s->wakeup_ns);
		spikes[n].latency_ns = LOAD(s->latency_ns);
		spikes[n].cycle = LOAD(s->cycle);
		/* the thread may have lapped the ring while we read */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->spike_head, __ATOMIC_ACQUIRE) - at > MONITOR_SPIKE_RING) {
			(*lost)++;
			continue;
		}
		n++;
	}
	*next = at;
	return n;
}
