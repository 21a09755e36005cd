// SPDX-License-Identifier: GPL-2.0-or-later
/* The interrupts that reach the measured CPUs (monitor_interrupts.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "latscope/irq.h"
#include "latscope/log.h"
#include "latscope/metrics.h"
#include "monitor_interrupts.h"

void monitor_interrupts_load(struct monitor *m)
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
void monitor_interrupts_read(struct monitor *m)
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
		monitor_interrupts_load(m);
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

void monitor_interrupts_release(struct monitor *m)
{
	if (!m->irqs_loaded)
		return;
	irq_counts_release(&m->last_counts);
	irq_table_release(&m->irqs);
	m->irqs_loaded = false;
}
