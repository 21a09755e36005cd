// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "irq_report.h"
#include "output_path.h"
#include "latscope/json_writer.h"
#include "latscope/result.h"
#include "latscope/sysroot.h"

/* IRQs listed per CPU by show; -v lists them all */
#define SHOW_IRQS_PER_CPU 6

static const char *list(const struct cpuset *set, char *buf, size_t size)
{
	cpuset_format_list(set, buf, size);
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

static const char *rate_text(const struct irq_context *ctx, double rate, char *buf, size_t size)
{
	char number[32];

	snprintf(buf, size, "%s%s", irqplan_format_rate(rate, number, sizeof(number)),
		 ctx->window_ns ? "/s" : "");
	return buf;
}

static const char *rates_unit(const struct irq_context *ctx)
{
	return ctx->window_ns ? "per_second" : "count_since_boot";
}

static void print_rates_line(FILE *out, const struct irq_context *ctx)
{
	if (ctx->window_ns)
		fprintf(out, "rates:         per second, sampled over %.2f s\n",
			(double)ctx->window_ns / 1e9);
	else
		fprintf(out, "rates:         counts since boot (%s)\n",
			sysroot_is_live(ctx->root) ? "--sample 0" :
						     "a fixture has a single snapshot");
}

/* a count of the window, as a rate */
static double cell_rate(const struct irq_context *ctx, uint32_t count)
{
	return ctx->window_ns ? (double)count * 1e9 / (double)ctx->window_ns : count;
}

struct cpu_entry {
	unsigned int row;
	double rate;
};

/* The IRQs that interrupt each CPU: delivered there now, or counted there. */
struct cpu_lists {
	unsigned int *start; /* per column, and one more: its entries in entries[] */
	struct cpu_entry *entries;
	double *total; /* per column: the rate of every IRQ there */
};

/* "*" managed, "?" where it may fire is unknown (gone, or its file does not read) */
static const char *irq_marker(const struct irq_info *irq)
{
	if (!irq->has_affinity)
		return "?";
	return irq->movable ? "" : "*";
}

static int compare_entries(const void *a, const void *b)
{
	const struct cpu_entry *x = a, *y = b;

	if (x->rate != y->rate)
		return x->rate > y->rate ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void cpu_lists_release(struct cpu_lists *lists)
{
	free(lists->start);
	free(lists->entries);
	free(lists->total);
}

/* the column of each CPU a column has, -1 for the others */
static int *columns_of_cpus(const struct irq_table *table, unsigned int *nr_cpus)
{
	unsigned int column;
	int *column_of;

	*nr_cpus = table->nr_columns ? table->column_cpu[table->nr_columns - 1] + 1 : 1;
	column_of = malloc(*nr_cpus * sizeof(*column_of));
	if (!column_of)
		return NULL;
	memset(column_of, 0xff, *nr_cpus * sizeof(*column_of));
	for (column = 0; column < table->nr_columns; column++)
		column_of[table->column_cpu[column]] = (int)column;
	return column_of;
}

/*
 * Calls @put for each column where a row is delivered or counted, in
 * ascending columns, once each: the row's cells merged with the columns of
 * its delivery CPUs. A pass over the rows, not one per CPU: a 1024-CPU
 * machine with 10,000 IRQs has ten million (CPU, IRQ) pairs and a few
 * thousand that matter.
 */
static void for_each_place(const struct irq_context *ctx, unsigned int row, const int *column_of,
			   unsigned int nr_cpus,
			   void (*put)(struct cpu_lists *, unsigned int, unsigned int, double),
			   struct cpu_lists *lists)
{
	const struct cpuset *delivery = irq_delivery_cpus(&ctx->table.irqs[row]);
	const uint16_t *columns;
	const uint32_t *values;
	unsigned int n = irq_counts_row(&ctx->window, row, &columns, &values), i = 0, word;

	for (word = 0; word < CPUSET_WORDS && word * 64 < nr_cpus; word++) {
		uint64_t bits = delivery->words[word];

		while (bits) {
			unsigned int cpu = word * 64 + (unsigned int)__builtin_ctzll(bits);
			int column = cpu < nr_cpus ? column_of[cpu] : -1;

			bits &= bits - 1;
			if (column < 0)
				continue;
			for (; i < n && columns[i] < (unsigned int)column; i++)
				put(lists, columns[i], row, cell_rate(ctx, values[i]));
			if (i < n && columns[i] == (unsigned int)column) {
				put(lists, columns[i], row, cell_rate(ctx, values[i]));
				i++;
			} else {
				put(lists, (unsigned int)column, row, 0);
			}
		}
	}
	for (; i < n; i++)
		put(lists, columns[i], row, cell_rate(ctx, values[i]));
}

static void count_place(struct cpu_lists *lists, unsigned int column, unsigned int row, double rate)
{
	(void)row;
	lists->start[column + 1]++;
	lists->total[column] += rate;
}

static void fill_place(struct cpu_lists *lists, unsigned int column, unsigned int row, double rate)
{
	/* start[] counts up to each column's end as its entries come */
	lists->entries[lists->start[column]++] = (struct cpu_entry){ row, rate };
}

/* every CPU's list, heaviest IRQ first: 0 or -ENOMEM */
static int cpu_lists_build(const struct irq_context *ctx, struct cpu_lists *lists)
{
	unsigned int columns = ctx->table.nr_columns, nr_cpus, row, column;
	int *column_of = columns_of_cpus(&ctx->table, &nr_cpus);

	memset(lists, 0, sizeof(*lists));
	lists->start = calloc(columns + 2, sizeof(*lists->start));
	lists->total = calloc(columns + 1, sizeof(*lists->total));
	if (!column_of || !lists->start || !lists->total)
		goto fail;
	for (row = 0; row < ctx->table.nr_irqs; row++)
		for_each_place(ctx, row, column_of, nr_cpus, count_place, lists);
	for (column = 0; column < columns; column++)
		lists->start[column + 1] += lists->start[column];
	lists->entries = malloc((lists->start[columns] + 1) * sizeof(*lists->entries));
	if (!lists->entries)
		goto fail;
	for (row = 0; row < ctx->table.nr_irqs; row++)
		for_each_place(ctx, row, column_of, nr_cpus, fill_place, lists);
	/* each start moved to its column's end, the next column's start */
	memmove(lists->start + 1, lists->start, columns * sizeof(*lists->start));
	lists->start[0] = 0;
	for (column = 0; column < columns; column++)
		qsort(lists->entries + lists->start[column],
		      lists->start[column + 1] - lists->start[column], sizeof(*lists->entries),
		      compare_entries);
	free(column_of);
	return 0;
fail:
	free(column_of);
	cpu_lists_release(lists);
	return -ENOMEM;
}

static void print_cpu(const struct irq_context *ctx, const struct irq_options *options,
		      const struct cpuset *rt, unsigned int column, const struct cpu_lists *lists)
{
	const struct cpu_entry *entries = lists->entries + lists->start[column];
	unsigned int cpu = ctx->table.column_cpu[column], i, shown = 0;
	unsigned int n = lists->start[column + 1] - lists->start[column];
	char buf[64], siblings[64];
	struct cpuset core;
	uint32_t count;

	topology_smt_siblings(&ctx->topo, cpu, &core);
	printf("%4u %4d %-7s %-2s %7s  ", cpu, topology_cpu_node(&ctx->topo, cpu),
	       list(&core, siblings, sizeof(siblings)), cpuset_has(rt, cpu) ? "RT" : "",
	       rate_text(ctx, lists->total[column], buf, sizeof(buf)));
	for (i = 0; i < n; i++) {
		const struct irq_info *irq = &ctx->table.irqs[entries[i].row];

		if (!options->verbose && shown == SHOW_IRQS_PER_CPU)
			break;
		printf("%s%u%s %s %s", shown ? ", " : "", irq->number, irq_marker(irq),
		       irq->name[0] ? irq->name : irq->chip,
		       irqplan_format_rate(entries[i].rate, buf, sizeof(buf)));
		shown++;
	}
	if (i < n)
		printf(" (+%u more)", n - i);
	printf("\n%30s", "");
	shown = 0;
	for (i = 0; i < ctx->table.nr_vectors; i++) {
		unsigned int row = ctx->table.nr_irqs + i;

		if (!ctx->table.vectors[i].per_cpu ||
		    !(count = irq_count(&ctx->window, row, column)))
			continue;
		printf("%s%s %s", shown++ ? "  " : "", ctx->table.vectors[i].name,
		       irqplan_format_rate(cell_rate(ctx, count), buf, sizeof(buf)));
	}
	printf("\n");
}

enum finding {
	MOVABLE_CAN_REACH_RT, /* its affinity includes an RT CPU */
	MANAGED_ON_RT, /* managed, delivered to an RT CPU */
	MOVE_PENDING_ON_RT, /* affinity right, delivered to RT until its next interrupt */
	NR_FINDINGS,
};

static bool finding_of(const struct irq_info *irq, const struct cpuset *rt, enum finding kind)
{
	const struct cpuset *delivery = irq_delivery_cpus(irq);

	if (!irq->has_affinity)
		return false;
	switch (kind) {
	case MOVABLE_CAN_REACH_RT:
		return irq->movable && cpuset_intersects(irq->affinity, rt);
	case MANAGED_ON_RT:
		return !irq->movable && cpuset_intersects(delivery, rt);
	case MOVE_PENDING_ON_RT:
		return irq->movable && !cpuset_intersects(irq->affinity, rt) &&
		       cpuset_intersects(delivery, rt);
	default:
		return false;
	}
}

/* "smp_affinity_list: not a cpu list" for an IRQ whose affinity files do not read */
static const char *unreadable_text(const struct irq_info *irq, char *buf, size_t size)
{
	bool affinity = irq->affinity_error && irq->affinity_error != -ENOENT;

	snprintf(buf, size, "%s: %s", affinity ? "smp_affinity_list" : "effective_affinity_list",
		 irq_file_error_text(affinity ? irq->affinity_error : irq->effective_error));
	return buf;
}

/* What can reach an RT CPU, grouped by its fix. */
static unsigned int print_findings(const struct irq_context *ctx, const struct cpuset *rt)
{
	char a[256], b[256];
	struct cpuset allowed;
	unsigned int kind, row, n = 0, in_group;

	for (kind = 0; kind < NR_FINDINGS; kind++) {
		in_group = 0;
		for (row = 0; row < ctx->table.nr_irqs; row++) {
			const struct irq_info *irq = &ctx->table.irqs[row];

			if (!finding_of(irq, rt, (enum finding)kind))
				continue;
			if (!in_group++ && kind == MOVABLE_CAN_REACH_RT)
				printf("  movable IRQs that can reach an RT cpu (fix: latscope irq apply):\n");
			else if (in_group == 1 && kind == MANAGED_ON_RT)
				printf("  managed IRQs delivered to an RT cpu (fix: boot with isolcpus=managed_irq,domain,%s):\n",
				       list(rt, a, sizeof(a)));
			else if (in_group == 1)
				printf("  IRQs placed right, delivered to an RT cpu until their next interrupt (the kernel moves them then):\n");
			printf("    irq %u %s: affinity %s, on cpu %s%s\n", irq->number,
			       irq->name[0] ? irq->name : irq->chip,
			       list(irq->affinity, a, sizeof(a)),
			       list(irq_delivery_cpus(irq), b, sizeof(b)),
			       /* managed_irq moves a queue only onto a CPU of its own */
			       kind == MANAGED_ON_RT && cpuset_subset(irq->affinity, rt) ?
				       " (no other cpu in its affinity: managed_irq leaves it there)" :
				       "");
		}
		n += in_group;
	}
	in_group = 0;
	for (row = 0; row < ctx->table.nr_irqs; row++) {
		const struct irq_info *irq = &ctx->table.irqs[row];

		if (!irq_affinity_unreadable(irq))
			continue;
		if (!in_group++)
			printf("  IRQs whose affinity files do not read, not judged (where they fire is unknown):\n");
		printf("    irq %u %s: %s\n", irq->number, irq->name[0] ? irq->name : irq->chip,
		       unreadable_text(irq, a, sizeof(a)));
	}
	n += in_group;
	if (cpuset_intersects(&ctx->default_affinity, rt)) {
		cpuset_andnot(&allowed, &ctx->topo.online, rt);
		printf("  default_smp_affinity %s: new IRQs can reach an RT cpu (fix: latscope irq apply, or boot with irqaffinity=%s)\n",
		       list(&ctx->default_affinity, a, sizeof(a)), list(&allowed, b, sizeof(b)));
		n++;
	}
	return n;
}

void irq_print_show(const struct irq_context *ctx, const struct irq_options *options,
		    const struct cpuset *rt)
{
	char a[256], b[256], c[256];
	struct cpu_lists lists;
	unsigned int column;

	if (cpu_lists_build(ctx, &lists))
		return;
	printf("RT cpus:       %s (isolated %s; nohz_full %s)\n", list(rt, a, sizeof(a)),
	       list(&ctx->topo.isolated, b, sizeof(b)), list(&ctx->topo.nohz_full, c, sizeof(c)));
	print_rates_line(stdout, ctx);
	printf("\n cpu node core    rt    irqs  device IRQs (* managed, ? affinity unknown) by rate\n"
	       "%30ssystem vectors\n",
	       "");
	for (column = 0; column < ctx->table.nr_columns; column++)
		print_cpu(ctx, options, rt, column, &lists);
	cpu_lists_release(&lists);
	printf("\nfindings:\n");
	if (cpuset_empty(rt))
		printf("  no RT cpu: none isolated or nohz_full; name them with --rt-cpus\n");
	else if (!print_findings(ctx, rt))
		printf("  no movable IRQ can reach an RT cpu, no managed IRQ is delivered to one\n");
}

int irq_unjudged_error(const struct irq_context *ctx, const char *verdict)
{
	const struct irq_info *first = NULL;
	unsigned int row, n = 0;
	char what[128], more[64] = "";

	for (row = 0; row < ctx->table.nr_irqs; row++) {
		if (!irq_affinity_unreadable(&ctx->table.irqs[row]))
			continue;
		if (!n++)
			first = &ctx->table.irqs[row];
	}
	if (!n)
		return EXIT_OK;
	if (n > 1)
		snprintf(more, sizeof(more), " (and %u more irqs)", n - 1);
	return runtime_error("cannot judge irq %u: %s/proc/irq/%u/%s%s: %s", first->number,
			     sysroot_is_live(ctx->root) ? "" : sysroot_dir(ctx->root),
			     first->number, unreadable_text(first, what, sizeof(what)), more,
			     verdict);
}

void irq_print_move(FILE *out, const struct irq_table *table, const struct irqplan_move *move,
		    const struct irq_apply_result *result)
{
	const struct irq_info *irq = &table->irqs[move->row];
	char from[256];

	fprintf(out, "  irq %u %s: %s -> %u [%s]", irq->number, irq->name,
		list(irq->affinity, from, sizeof(from)), move->to, irqplan_kind_name(move->kind));
	if (!result) {
		fprintf(out, ": %s\n", move->reason);
		return;
	}
	fprintf(out, ": %s", irq_write_status_name(result->status));
	if (result->error)
		fprintf(out, " (%s)", sysroot_strerror(result->error));
	if (result->status == IRQ_WRITE_DONE && !result->effective_ok)
		fprintf(out, "; effective cpu still %d: the kernel moves it at the next interrupt",
			result->effective_cpu);
	fprintf(out, "\n");
}

void irq_print_plan(FILE *out, const struct irq_context *ctx, const struct irqplan *plan)
{
	char a[256], b[256], c[256];
	unsigned int i;

	fprintf(out, "RT cpus:       %s (isolated %s; nohz_full %s)\n",
		list(&plan->rt, a, sizeof(a)), list(&ctx->topo.isolated, b, sizeof(b)),
		list(&ctx->topo.nohz_full, c, sizeof(c)));
	fprintf(out, "allowed cpus:  %s\n", list(&plan->allowed, a, sizeof(a)));
	print_rates_line(out, ctx);
	if (!plan->nr_moves)
		fprintf(out, "moves:         none%s\n",
			plan->nr_unreadable ? "" : ": the placement is good");
	else
		fprintf(out, "moves:         %u\n", plan->nr_moves);
	for (i = 0; i < plan->nr_moves; i++) {
		const struct irqplan_move *move = &plan->moves[i];

		irq_print_move(out, &ctx->table, move, NULL);
		if (move->remote)
			fprintf(stderr, "latscope irq: warning: irq %u %s: %s\n", move->irq,
				ctx->table.irqs[move->row].name, move->reason);
	}
	if (plan->rt_until_next_interrupt)
		fprintf(out,
			"pending:       %u irqs placed right are delivered to an RT cpu until their next interrupt (the kernel moves them then)\n",
			plan->rt_until_next_interrupt);
	if (plan->held_by_dwell || plan->held_by_budget)
		fprintf(out, "held back:     %u by their dwell time, %u by the move budget\n",
			plan->held_by_dwell, plan->held_by_budget);
	if (plan->nr_unmovable)
		fprintf(out, "unmovable:     %u\n", plan->nr_unmovable);
	for (i = 0; i < plan->nr_unmovable; i++) {
		const struct irqplan_unmovable *u = &plan->unmovable[i];
		const struct irq_info *irq = &ctx->table.irqs[u->row];

		fprintf(out, "  irq %u %s%s: %s\n", irq->number, irq->name,
			u->reaches_rt ? " (RT!)" : "", u->reason);
	}
	if (plan->nr_unreadable)
		fprintf(out,
			"not judged:    %u (their affinity files do not read: where they fire is unknown)\n",
			plan->nr_unreadable);
	for (i = 0; i < plan->nr_unreadable; i++) {
		const struct irqplan_unmovable *u = &plan->unreadable[i];

		fprintf(out, "  irq %u %s: %s\n", u->irq, ctx->table.irqs[u->row].name, u->reason);
	}
	if (plan->default_change)
		fprintf(out, "default_smp_affinity: %s -> %s\n",
			list(&plan->default_from, a, sizeof(a)),
			list(&plan->default_to, b, sizeof(b)));
	else
		fprintf(out, "default_smp_affinity: %s, good\n",
			list(&plan->default_from, a, sizeof(a)));
}

json_t *irq_json_document(const struct irq_context *ctx, const struct irq_options *options)
{
	/* result_new() writes "latscope" itself before the command's own words */
	json_t *doc = result_new("irq", options->argc, options->argv);
	json_t *params;

	json_object_set_new(doc, "subcommand", json_string(options->name));
	json_object_set_new(doc, "host", result_host_facts(ctx->root, &ctx->topo));
	params = json_pack("{s:s, s:o, s:I}", "root", sysroot_dir(ctx->root), "rt_cpus_asked",
			   result_cpuset(&options->rt_cpus), "sample_ns",
			   (json_int_t)options->sample_ns);
	if (options->subcommand == IRQ_BALANCE)
		json_object_update_new(
			params, json_pack("{s:I, s:i, s:I, s:I, s:f}", "interval_ns",
					  (json_int_t)options->interval_ns, "max_moves_per_hour",
					  (json_int_t)options->policy.max_moves_per_hour,
					  "min_dwell_ns", (json_int_t)options->policy.min_dwell_ns,
					  "max_burst_ns", (json_int_t)options->policy.max_burst_ns,
					  "dead_band", options->policy.dead_band));
	json_object_set_new(doc, "params", params);
	if (options->subcommand != IRQ_RESTORE) {
		json_object_set_new(doc, "rate_unit", json_string(rates_unit(ctx)));
		json_object_set_new(doc, "sample_ns", json_integer((json_int_t)ctx->window_ns));
	}
	return doc;
}

/* an affinity file's error for the JSON document: null when it read */
static const char *file_error_text(int err)
{
	return err && err != -ENOENT ? irq_file_error_text(err) : NULL;
}

/* a member that is a cpu list */
static void member_cpus(struct json_writer *w, const char *key, const struct cpuset *set)
{
	json_writer_key(w, key);
	result_write_cpuset(w, set);
}

/* "EIO" for a probe refused with EIO; "taken" for a write the kernel took */
static const char *probe_answer_text(int error)
{
	const char *name = error ? strerrorname_np(error) : "taken";

	return name ? name : "?";
}

static void write_irq(struct json_writer *w, const struct irq_context *ctx, unsigned int row)
{
	const struct irq_info *irq = &ctx->table.irqs[row];

	json_writer_object_begin(w);
	json_writer_member_integer(w, "number", irq->number);
	json_writer_member_string(w, "name", irq->name);
	json_writer_member_string(w, "chip", irq->chip);
	/* no member for no device, as before */
	if (irq->device[0])
		json_writer_member_string(w, "device", irq->device);
	json_writer_member_string(w, "class", irq_device_class_name(irq->device_class));
	json_writer_member_integer(w, "node", irq->node);
	json_writer_member_bool(w, "movable", irq->movable);
	/* how it was known: "mode" (the file's write bits) or "probe" (the kernel's answer) */
	json_writer_member_string(w, "movable_by",
				  irq->movable_by == IRQ_MOVABLE_BY_PROBE ? "probe" : "mode");
	/* the probe's answer, where one was made: "EINVAL", "EIO"... */
	if (irq->probed)
		json_writer_member_string(w, "probe", probe_answer_text(irq->probe_error));
	member_cpus(w, "affinity", irq->affinity);
	member_cpus(w, "effective", irq->effective);
	json_writer_member_real(w, "rate", ctx->rates[row]);
	/* an IRQ /proc/interrupts does not list, or whose files do not read, says so */
	json_writer_member_bool(w, "listed", irq->listed);
	json_writer_member_string(w, "affinity_error", file_error_text(irq->affinity_error));
	json_writer_member_string(w, "effective_error", file_error_text(irq->effective_error));
	json_writer_object_end(w);
}

void irq_write_irqs(struct json_writer *w, const struct irq_context *ctx)
{
	unsigned int row;

	json_writer_key(w, "irqs");
	json_writer_array_begin(w);
	for (row = 0; row < ctx->table.nr_irqs; row++)
		write_irq(w, ctx, row);
	json_writer_array_end(w);
}

static void write_cpu(struct json_writer *w, const struct irq_context *ctx, const struct cpuset *rt,
		      const struct cpu_lists *lists, unsigned int column)
{
	unsigned int cpu = ctx->table.column_cpu[column], i;

	json_writer_object_begin(w);
	json_writer_member_integer(w, "cpu", cpu);
	json_writer_member_integer(w, "node", topology_cpu_node(&ctx->topo, cpu));
	json_writer_member_bool(w, "rt", cpuset_has(rt, cpu));
	json_writer_member_real(w, "rate", lists->total[column]);
	json_writer_key(w, "irqs");
	json_writer_array_begin(w);
	for (i = lists->start[column]; i < lists->start[column + 1]; i++) {
		const struct irq_info *irq = &ctx->table.irqs[lists->entries[i].row];

		json_writer_object_begin(w);
		json_writer_member_integer(w, "irq", irq->number);
		json_writer_member_string(w, "name", irq->name);
		json_writer_member_bool(w, "movable", irq->movable);
		json_writer_member_real(w, "rate", lists->entries[i].rate);
		json_writer_object_end(w);
	}
	json_writer_array_end(w);
	json_writer_key(w, "vectors");
	json_writer_object_begin(w);
	for (i = 0; i < ctx->table.nr_vectors; i++)
		if (ctx->table.vectors[i].per_cpu)
			json_writer_member_real(
				w, ctx->table.vectors[i].name,
				cell_rate(ctx,
					  irq_count(&ctx->window, ctx->table.nr_irqs + i, column)));
	json_writer_object_end(w);
	json_writer_object_end(w);
}

void irq_write_show(struct json_writer *w, const struct irq_context *ctx, const struct cpuset *rt)
{
	struct cpu_lists lists;
	struct cpuset allowed;
	unsigned int column;
	bool listed;

	cpuset_andnot(&allowed, &ctx->topo.online, rt);
	member_cpus(w, "rt_cpus", rt);
	member_cpus(w, "allowed_cpus", &allowed);
	member_cpus(w, "default_smp_affinity", &ctx->default_affinity);
	listed = !cpu_lists_build(ctx, &lists);
	json_writer_key(w, "cpus");
	json_writer_array_begin(w);
	for (column = 0; listed && column < ctx->table.nr_columns; column++)
		write_cpu(w, ctx, rt, &lists, column);
	json_writer_array_end(w);
	if (listed)
		cpu_lists_release(&lists);
}

void irq_write_move(struct json_writer *w, const struct irq_table *table,
		    const struct irqplan_move *move, const struct irq_apply_result *result)
{
	const struct irq_info *irq = &table->irqs[move->row];
	struct cpuset to;

	cpuset_clear(&to);
	cpuset_add(&to, move->to);
	json_writer_object_begin(w);
	json_writer_member_integer(w, "irq", irq->number);
	json_writer_member_string(w, "name", irq->name);
	json_writer_member_string(w, "kind", irqplan_kind_name(move->kind));
	member_cpus(w, "from", irq->affinity);
	member_cpus(w, "to", &to);
	json_writer_member_bool(w, "remote", move->remote);
	json_writer_member_string(w, "reason", move->reason);
	if (result) {
		json_writer_member_string(w, "status", irq_write_status_name(result->status));
		json_writer_member_string(w, "error",
					  result->error ? sysroot_strerror(result->error) : NULL);
		json_writer_member_bool(w, "effective_ok", result->effective_ok);
	}
	json_writer_object_end(w);
}

json_t *irq_json_move(const struct irq_table *table, const struct irqplan_move *move,
		      const struct irq_apply_result *result)
{
	struct json_writer *w = json_writer_tree();
	json_t *entry;

	if (w)
		irq_write_move(w, table, move, result);
	json_writer_finish(w, &entry);
	return entry;
}

void irq_write_plan(struct json_writer *w, const struct irq_context *ctx,
		    const struct irqplan *plan)
{
	unsigned int i;
	int cpu;

	member_cpus(w, "allowed_cpus", &plan->allowed);
	member_cpus(w, "rt_cpus", &plan->rt);
	json_writer_key(w, "moves");
	json_writer_array_begin(w);
	for (i = 0; i < plan->nr_moves; i++)
		irq_write_move(w, &ctx->table, &plan->moves[i], NULL);
	json_writer_array_end(w);
	json_writer_key(w, "unmovable");
	json_writer_array_begin(w);
	for (i = 0; i < plan->nr_unmovable; i++) {
		const struct irqplan_unmovable *u = &plan->unmovable[i];
		const struct irq_info *irq = &ctx->table.irqs[u->row];

		json_writer_object_begin(w);
		json_writer_member_integer(w, "irq", irq->number);
		json_writer_member_string(w, "name", irq->name);
		member_cpus(w, "effective", irq->effective);
		json_writer_member_bool(w, "reaches_rt", u->reaches_rt);
		json_writer_member_string(w, "reason", u->reason);
		json_writer_object_end(w);
	}
	json_writer_array_end(w);
	json_writer_key(w, "unreadable");
	json_writer_array_begin(w);
	for (i = 0; i < plan->nr_unreadable; i++) {
		const struct irqplan_unmovable *u = &plan->unreadable[i];

		json_writer_object_begin(w);
		json_writer_member_integer(w, "irq", u->irq);
		json_writer_member_string(w, "name", ctx->table.irqs[u->row].name);
		json_writer_member_string(w, "reason", u->reason);
		json_writer_object_end(w);
	}
	json_writer_array_end(w);
	json_writer_key(w, "default_smp_affinity");
	json_writer_object_begin(w);
	member_cpus(w, "from", &plan->default_from);
	member_cpus(w, "to", &plan->default_to);
	json_writer_member_bool(w, "change", plan->default_change);
	json_writer_object_end(w);
	json_writer_key(w, "cpu_loads");
	json_writer_array_begin(w);
	cpuset_for_each(cpu, &ctx->topo.online) {
		if ((unsigned int)cpu >= plan->nr_cpus)
			break;
		json_writer_object_begin(w);
		json_writer_member_integer(w, "cpu", cpu);
		json_writer_member_real(w, "before", plan->load_before[cpu]);
		json_writer_member_real(w, "after", plan->load_after[cpu]);
		json_writer_object_end(w);
	}
	json_writer_array_end(w);
	json_writer_member_integer(w, "held_by_dwell", plan->held_by_dwell);
	json_writer_member_integer(w, "held_by_budget", plan->held_by_budget);
	json_writer_member_integer(w, "rt_until_next_interrupt", plan->rt_until_next_interrupt);
}

/* What a document of show or plan is made of. */
struct irq_document {
	const struct irq_context *ctx;
	const struct irq_options *options;
	const struct cpuset *rt; /* show's */
	const struct irqplan *plan; /* or a plan's */
	bool end_time; /* the document is written now: its end time last */
};

static void write_document(struct json_writer *w, void *arg)
{
	const struct irq_document *d = arg;
	json_t *header = irq_json_document(d->ctx, d->options);
	const char *key;
	json_t *value;

	json_writer_object_begin(w);
	json_object_foreach(header, key, value) json_writer_member_value(w, key, value);
	irq_write_irqs(w, d->ctx);
	if (d->plan)
		irq_write_plan(w, d->ctx, d->plan);
	else
		irq_write_show(w, d->ctx, d->rt);
	if (d->end_time) {
		result_set_end_time(header);
		json_writer_member_value(w, "end_time", json_object_get(header, "end_time"));
	}
	json_writer_object_end(w);
	json_decref(header);
}

json_t *irq_plan_document(const struct irq_context *ctx, const struct irq_options *options,
			  const struct irqplan *plan)
{
	struct irq_document d = { .ctx = ctx, .options = options, .plan = plan };
	struct json_writer *w = json_writer_tree();
	json_t *doc;

	if (w)
		write_document(w, &d);
	json_writer_finish(w, &doc);
	return doc;
}

int irq_json_write_show(const struct irq_context *ctx, const struct irq_options *options,
			const struct cpuset *rt)
{
	struct irq_document d = { .ctx = ctx, .options = options, .rt = rt, .end_time = true };

	return output_json_write_with(&options->json, write_document, &d);
}

int irq_json_write_plan(const struct irq_context *ctx, const struct irq_options *options,
			const struct irqplan *plan)
{
	struct irq_document d = { .ctx = ctx, .options = options, .plan = plan, .end_time = true };

	return output_json_write_with(&options->json, write_document, &d);
}

int irq_json_write(json_t *doc, const struct irq_options *options)
{
	result_set_end_time(doc);
	return output_json_write(&options->json, doc);
}
