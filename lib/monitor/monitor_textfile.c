// SPDX-License-Identifier: GPL-2.0-or-later
/* The monitor's metrics for node_exporter's textfile collector (monitor_textfile.h). */
#include <errno.h>

#include "latscope/exporter.h"
#include "latscope/log.h"
#include "latscope/metrics.h"
#include "monitor_textfile.h"

int monitor_textfile_write(struct monitor *m)
{
	struct metrics *metrics = monitor_collect(m);
	int ret = metrics ? exporter_write_textfile(metrics, m->textfile_dir) : -ENOMEM;

	if (!metrics)
		log_error("cannot write the textfile: out of memory");
	metrics_free(metrics);
	return ret;
}
