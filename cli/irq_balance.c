// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "irq_balance.h"
#include "irq_report.h"
#include "latscope/array.h"
#include "latscope/irq_history.h"
#include "latscope/log.h"
#include "latscope/parse.h"

/*
 * The counts of the last interval, kept by IRQ number: when IRQs come or
 * go the table is reloaded and its rows move, but an IRQ that stayed
 * still has a rate.
 */
struct snapshot {
	unsigned int nr_irqs, nr_columns;
	unsigned int *numbers;
	unsigned int *column_cpu;
	struct irq_counts counts;
};

static void snapshot_release(struct snapshot *s)
{
	free(s->numbers);
	free(s->column_cpu);
	irq_counts_release(&s->counts);
	memset(s, 0, sizeof(*s));
}

static int snapshot_take(struct snapshot *s, const struct irq_table *table,
			 const struct irq_counts *counts)
{
	unsigned int i;

	snapshot_release(s);
	s->numbers = malloc((table->nr_irqs + 1) * sizeof(*s->numbers));
	s->column_cpu = malloc((table->nr_columns + 1) * sizeof(*s->column_cpu));
	if (!s->numbers || !s->column_cpu || irq_counts_copy(&s->counts, counts))
		return -ENOMEM;
	for (i = 0; i < table->nr_irqs; i++)
		s->numbers[i] = table->irqs[i].number;
	memcpy(s->column_cpu, table->column_cpu, table->nr_columns * sizeof(*s->column_cpu));
	s->nr_irqs = table->nr_irqs;
	s->nr_columns = table->nr_columns;
	return 0;
}

static int snapshot_row(const struct snapshot *s, unsigned int number)
{
	const unsigned int *found;

	if (!s->nr_irqs)
		return -1;
	found = bsearch(&number, s->numbers, s->nr_irqs, sizeof(*s->numbers), array_compare_uint);
	return found ? (int)(found - s->numbers) : -1;
}

/* Per second since the snapshot; 0 for new IRQs or after a CPU hotplug. */
static void rates_since(const struct snapshot *s, const struct irq_table *table,
			const struct irq_counts *counts, double *rates)
{
	double seconds = (double)(counts->time_ns - s->counts.time_ns) / 1e9;
	bool same_cpus = s->nr_columns == table->nr_columns &&
			 !memcmp(s->column_cpu, table->column_cpu,
				 table->nr_columns * sizeof(*s->column_cpu));
	unsigned int row;

	for (row = 0; row < table->nr_irqs; row++) {
		int old = same_cpus && seconds > 0 ? snapshot_row(s, table->irqs[row].number) : -1;

		rates[row] = old >= 0 ? (double)irq_counts_row_change(counts, row, &s->counts,
								      (unsigned int)old) /
						seconds :
					0;
	}
}

/*
 * IRQs whose moves the kernel refused. EIO or EPERM (a managed IRQ): left
 * alone from then on. ENOSPC (no vector left on the target), EBUSY and
 * the like: left where they are for one interval, then two, four... up to
 * an hour, so that a machine out of vectors (irqbalance's issue #303) is
 * not asked the same thing every interval; a move that succeeds forgets it.
 */
#define REFUSAL_MAX_DELAY_NS (3600 * NS_PER_SEC)

struct refusal {
	unsigned int number;
	unsigned int failures;
	uint64_t next_try_ns; /* UINT64_MAX: never */
};

struct refusals {
	struct refusal *items;
	unsigned int nr, cap;
};

static struct refusal *find_refusal(const struct refusals *r, unsigned int number)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->items[i].number == number)
			return &r->items[i];
	return NULL;
}

static bool held_back(const struct refusals *r, unsigned int number, uint64_t now_ns)
{
	const struct refusal *found = find_refusal(r, number);

	return found && found->next_try_ns > now_ns;
}

static void forget_refusal(struct refusals *r, unsigned int number)
{
	struct refusal *found = find_refusal(r, number);

	if (found)
		*found = r->items[--r->nr];
}

/* Returns the delay before the next try, UINT64_MAX for never. */
static uint64_t add_refusal(struct refusals *r, unsigned int number, bool permanent,
			    uint64_t interval_ns, uint64_t now_ns)
{
	struct refusal *found = find_refusal(r, number), *items;
	uint64_t delay = interval_ns;

	if (!found) {
		items = array_grow(r->items, &r->cap, r->nr + 1, sizeof(*items));
		if (!items)
			return 0; /* tried again next interval: harmless */
		r->items = items;
		found = &r->items[r->nr++];
		*found = (struct refusal){ .number = number };
	}
	found->failures++;
	if (permanent) {
		found->next_try_ns = UINT64_MAX;
		return UINT64_MAX;
	}
	for (unsigned int i = 1; i < found->failures && delay < REFUSAL_MAX_DELAY_NS; i++)
		delay *= 2;
	if (delay > REFUSAL_MAX_DELAY_NS)
		delay = REFUSAL_MAX_DELAY_NS;
	found->next_try_ns = now_ns + delay;
	return delay;
}

struct daemon {
	const struct irq_options *options;
	struct irq_options load_options; /* no sampling: the loop measures */
	struct irq_context ctx;
	struct irq_counts counts;
	struct snapshot last;
	struct irq_history *history;
	struct refusals refusals;
	struct irqplan_policy policy;
	unsigned long long intervals;
	unsigned int moves_done, held_by_dwell, held_by_budget;
	unsigned int refused; /* moves the kernel refused */
	/* IRQs not judged for their unreadable affinity files: in the last interval, ever */
	unsigned int unjudged;
	bool unjudged_seen;
	uint64_t start_ns;
	json_t *moves; /* every move made, for --json */
};

static double cpu_ms(void)
{
	struct rusage usage;

	getrusage(RUSAGE_SELF, &usage);
	return (double)usage.ru_utime.tv_sec * 1e3 + (double)usage.ru_utime.tv_usec / 1e3 +
	       (double)usage.ru_stime.tv_sec * 1e3 + (double)usage.ru_stime.tv_usec / 1e3;
}

static int reload(struct daemon *d, const char *why)
{
	int ret;

	if (why)
		log_info("%s: re-reading the topology and the IRQs", why);
	irq_counts_release(&d->counts);
	irq_context_release(&d->ctx);
	ret = irq_context_load(&d->ctx, &d->load_options);
	if (!ret)
		ret = irq_counts_copy(&d->counts, &d->ctx.table.counts);
	/* loads measured on the old CPUs or settings do not compare */
	irq_history_forget_streaks(d->history);
	return ret;
}

static bool online_changed(const struct daemon *d)
{
	struct cpuset online;

	return !sysroot_read_cpulist(d->ctx.root, &online, "/sys/devices/system/cpu/online") &&
	       !cpuset_equal(&online, &d->ctx.topo.online);
}

/* This interval's counts, affinities and rates. */
static int observe(struct daemon *d)
{
	struct irq_context *ctx = &d->ctx;
	bool reloaded = false;
	int ret;

	if (reload_requested) {
		reload_requested = 0;
		ret = reload(d, "SIGHUP");
		reloaded = true;
	} else if (online_changed(d)) {
		ret = reload(d, "cpu hotplug");
		reloaded = true;
	} else {
		ret = irq_counts_read(ctx->root, &ctx->table, &d->counts);
		if (ret == -ESTALE) {
			ret = reload(d, NULL);
			reloaded = true;
		}
	}
	if (ret)
		return ret;
	if (!reloaded) {
		ret = irq_table_refresh_affinity(ctx->root, &ctx->table);
		if (!ret)
			ret = irq_read_default_affinity(ctx->root, &ctx->default_affinity);
		if (ret)
			return ret;
	}
	if (sysroot_is_live(ctx->root)) {
		rates_since(&d->last, &ctx->table, &d->counts, ctx->rates);
		/* per second: the reasons say "/s" */
		ctx->window_ns = d->counts.time_ns - d->last.counts.time_ns;
		if (!ctx->window_ns)
			ctx->window_ns = 1;
	} else {
		irq_rates(&ctx->table, NULL, &d->counts, ctx->rates);
	}
	for (unsigned int row = 0; row < ctx->table.nr_irqs; row++)
		if (held_back(&d->refusals, ctx->table.irqs[row].number, clock_ns(CLOCK_MONOTONIC)))
			ctx->table.irqs[row].movable = false;
	return snapshot_take(&d->last, &ctx->table, &d->counts);
}

/* The IRQ stays where it is: said once per refusal, with when it is tried again. */
static void refused(struct daemon *d, const struct irqplan_move *move,
		    const struct irq_apply_result *result)
{
	uint64_t delay = add_refusal(&d->refusals, move->irq, result->status == IRQ_WRITE_PERMANENT,
				     d->options->interval_ns, clock_ns(CLOCK_MONOTONIC));

	d->refused++;
	if (delay == UINT64_MAX)
		log_warning("irq %u: the kernel refused cpu %u (%s): it stays on cpu %d and is "
			    "left alone from now on",
			    move->irq, move->to, strerror(result->error), move->from_cpu);
	else
		log_warning("irq %u: the kernel refused cpu %u (%s): it stays on cpu %d; next "
			    "try in %.0f s",
			    move->irq, move->to, strerror(result->error), move->from_cpu,
			    (double)delay / 1e9);
}

static void record(struct daemon *d, const struct irqplan *plan,
		   const struct irq_apply_report *report, bool *done)
{
	unsigned int i;

	for (i = 0; i < plan->nr_moves; i++) {
		const struct irqplan_move *move = &plan->moves[i];
		const struct irq_apply_result *result = &report->moves[i];
		json_t *entry;

		done[i] = result->status == IRQ_WRITE_DONE;
		d->moves_done += done[i];
		irq_print_move(stdout, &d->ctx.table, move, NULL);
		if (!done[i] || !result->effective_ok)
			irq_print_move(stdout, &d->ctx.table, move, result);
		if (done[i])
			forget_refusal(&d->refusals, move->irq);
		else if (result->status == IRQ_WRITE_TEMPORARY ||
			 result->status == IRQ_WRITE_PERMANENT)
			refused(d, move, result);
		if (!d->moves)
			continue;
		entry = irq_json_move(&d->ctx.table, move, result);
		json_object_set_new(
			entry, "time_ns",
			json_integer((json_int_t)(clock_ns(CLOCK_MONOTONIC) - d->start_ns)));
		json_array_append_new(d->moves, entry);
	}
}

static int step(struct daemon *d)
{
	struct irq_apply_report report = { 0 };
	struct irqplan_input input;
	struct irqplan plan;
	double cpu = cpu_ms();
	bool *done;
	int ret;

	ret = observe(d);
	if (ret)
		return ret;
	irq_plan_input(&d->ctx, d->options, &input);
	input.history = d->history;
	input.now_ns = clock_ns(CLOCK_MONOTONIC);
	ret = irqplan_make(&input, &d->policy, &plan);
	if (ret == -EINVAL)
		return 0; /* no CPU left (hotplug): logged; try again next interval */
	if (ret)
		return ret;
	d->held_by_dwell += plan.held_by_dwell;
	d->held_by_budget += plan.held_by_budget;
	/* said when it changes, not every interval; the run then ends in error */
	if (plan.nr_unreadable && plan.nr_unreadable != d->unjudged)
		irq_unjudged_error(&d->ctx, "balance leaves it alone");
	d->unjudged = plan.nr_unreadable;
	d->unjudged_seen |= plan.nr_unreadable > 0;
	report.moves = calloc(plan.nr_moves + 1, sizeof(*report.moves));
	done = calloc(plan.nr_moves + 1, sizeof(*done));
	if (!report.moves || !done)
		ret = -ENOMEM;
	if (!ret)
		ret = irq_apply(d->ctx.root, &d->ctx.topo, &d->ctx.table, &plan,
				d->ctx.journal_lock, &report);
	if (!ret) {
		record(d, &plan, &report, done);
		if (plan.default_change)
			printf("  default_smp_affinity: %s\n",
			       report.default_written ? "set to the allowed cpus" : "NOT set");
		ret = irq_history_commit(d->history, &plan, &d->ctx.table, done, input.now_ns);
	}
	fflush(stdout);
	log_info("interval %llu: %u moves, %u held by dwell, %u by budget; %.1f ms cpu",
		 d->intervals + 1, plan.nr_moves, plan.held_by_dwell, plan.held_by_budget,
		 cpu_ms() - cpu);
	free(done);
	free(report.moves);
	irqplan_release(&plan);
	return ret;
}

static int refuse_to_fight(const struct daemon *d)
{
	int pid = irq_balancer_pid(d->ctx.root);

	if (!pid)
		return 0;
	if (d->options->force) {
		log_warning("irqbalance (pid %d) is running; --force: both will move IRQs", pid);
		return 0;
	}
	return runtime_error(
		"irqbalance (pid %d) is running: two balancers would undo each other's moves; stop it (systemctl stop irqbalance) or pass --force",
		pid);
}

static int finish(struct daemon *d, int status)
{
	struct irq_restore_report restored;
	json_t *doc;

	if (d->options->restore_on_exit && d->ctx.journal_lock && !access(d->ctx.journal, F_OK)) {
		if (irq_journal_restore(d->ctx.root, d->ctx.journal_lock, &restored))
			status = EXIT_ERROR;
		else
			printf("restored: %u irqs%s, %u gone\n", restored.restored,
			       restored.default_restored ? " and default_smp_affinity" : "",
			       restored.gone);
	}
	printf("balance: %llu intervals, %u moves, %u held by dwell, %u by budget, %u refused\n",
	       d->intervals, d->moves_done, d->held_by_dwell, d->held_by_budget, d->refused);
	if (d->unjudged_seen && status == EXIT_OK)
		status = runtime_error("some irqs could not be judged during the run: their "
				       "affinity files did not read (said above)");
	if (d->options->json.path && d->ctx.table.nr_columns) {
		doc = irq_json_document(&d->ctx, d->options);
		json_object_set_new(doc, "intervals", json_integer((json_int_t)d->intervals));
		json_object_set_new(doc, "moves", json_incref(d->moves));
		json_object_set_new(doc, "held_by_dwell", json_integer(d->held_by_dwell));
		json_object_set_new(doc, "held_by_budget", json_integer(d->held_by_budget));
		json_object_set_new(doc, "refused", json_integer(d->refused));
		json_object_set_new(doc, "journal", json_string(d->ctx.journal));
		if (irq_json_write(doc, d->options))
			status = EXIT_ERROR;
		json_decref(doc);
	}
	return status;
}

/*
 * Time left to the next beat. Intervals keep a fixed beat rather than
 * following each plan's end, so a plan's own time does not stretch them;
 * a plan that overran its beat is followed by a whole interval, never by
 * another plan at once.
 */
static uint64_t until_beat(uint64_t *beat, uint64_t interval_ns)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (*beat <= now)
		*beat = now + interval_ns;
	return *beat - now;
}

int irq_balance(const struct irq_options *options)
{
	struct daemon d = { .options = options };
	struct part_result why = { 0 };
	int status = EXIT_OK, ret;
	uint64_t beat;

	d.load_options = *options;
	d.load_options.sample_ns = 0;
	d.load_options.sample_given = false;
	d.history = irq_history_new();
	d.moves = options->json.path ? json_array() : NULL;
	d.start_ns = clock_ns(CLOCK_MONOTONIC);
	irq_policy(options, &d.policy);
	ret = d.history ? irq_context_open(&d.ctx, options) : -ENOMEM;
	if (ret) {
		status = runtime_error("cannot start: %s", strerror(-ret));
		goto out;
	}
	if (sysroot_is_live(d.ctx.root) && geteuid()) {
		status = runtime_error("balance writes /proc/irq: run it as root");
		goto out;
	}
	status = refuse_to_fight(&d);
	/* for the whole run: a second balancer on this journal would fight this one */
	if (!status)
		status = irq_lock_journal(&d.ctx, true);
	if (!status && signals_catch_reload())
		status = runtime_error("cannot catch SIGHUP: %s", strerror(errno));
	if (status)
		goto out;
	ret = reload(&d, NULL);
	if (!ret)
		ret = snapshot_take(&d.last, &d.ctx.table, &d.counts);
	if (ret) {
		status = EXIT_ERROR;
		goto out;
	}
	status = irq_check_rt_cpus(&d.ctx, options, &why);
	if (status)
		goto out;
	/* the first interval is one sample long: misplaced IRQs move soon */
	beat = clock_ns(CLOCK_MONOTONIC) + (options->sample_ns > options->interval_ns ?
						    options->interval_ns :
						    options->sample_ns);
	while (irq_sleep(until_beat(&beat, options->interval_ns))) {
		ret = step(&d);
		beat += options->interval_ns;
		if (ret) {
			log_error("balance stops: %s", strerror(-ret));
			status = EXIT_ERROR;
			break;
		}
		d.intervals++;
		if (options->count && d.intervals >= options->count)
			break;
	}
	status = finish(&d, status);
out:
	json_decref(d.moves);
	free(d.refusals.items);
	snapshot_release(&d.last);
	irq_counts_release(&d.counts);
	irq_history_free(d.history);
	irq_context_close(&d.ctx);
	return status;
}
