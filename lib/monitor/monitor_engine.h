/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_ENGINE_H
#define LATSCOPE_MONITOR_ENGINE_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/monitor_engine.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct state_job;

#include "latscope/blocks_text.h"
#include "latscope/cpuset.h"
#include "latscope/irq.h"
#include "latscope/file_lock.h"
#include "latscope/metrics.h"
#include "latscope/monitor.h"
#include "latscope/monitor_blocks.h"
#include "latscope/monitor_cpu.h"
#include "latscope/monitor_explain.h"
#include "latscope/timer.h"
#include "latscope/topology.h"
#include "latscope/window_ring.h"
#include "latscope/window_text.h"

/*
 * The monitor engine's insides, shared by the files of lib/monitor/ that
 * each do one of its jobs: monitor.c (its lifecycle and housekeeping
 * thread), monitor_persist.c (the state: restored at start, checkpointed),
 * monitor_interrupts.c (/proc/interrupts per measured CPU),
 * monitor_collect.c (the exporter's snapshot) and monitor_textfile.c.
 */

struct lane {
	unsigned int cpu;
	struct monitor_cpu *state; /* on the CPU's NUMA node */
	size_t state_size;
	struct window_ring *windows;
	/* the text of its windows' full blocks and of its time blocks: the state's writer's */
	struct window_text *text;
	struct blocks_text *blocks_text;
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
	pthread_mutex_t state_lock; /* the window rings and the time blocks */
	/* the checkpoint written behind (monitor_checkpoint_behind()) */
	pthread_t checkpointer;
	struct state_job *behind; /* its job while started and not joined */
	bool behind_done; /* atomic: its thread has finished */
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
};

/*
 * monitor_reset_lanes - every CPU back to nothing measured: a new state
 * Returns 0 or -ENOMEM.
 */
int monitor_reset_lanes(struct monitor *m);

/*
 * monitor_texts_give_up - the texts made ahead after a load stop at the next
 * CPU (what is made is kept), so that a stop right after the start is not
 * held up by them; a checkpoint written behind goes on. Then wait with
 * monitor_checkpoint_wait().
 */
void monitor_texts_give_up(struct monitor *m);

/* The windows a CPU's ring keeps: its capacity, for a ring of the same. */
size_t monitor_ring_capacity(const struct monitor *m);

#endif
