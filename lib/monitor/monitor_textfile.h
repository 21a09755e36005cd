/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_MONITOR_TEXTFILE_H
#define LATSCOPE_MONITOR_TEXTFILE_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/monitor_textfile.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include "monitor_engine.h"

/*
 * monitor_textfile_write - the metrics now, for node_exporter's textfile
 * collector, into m->textfile_dir
 * Returns 0 or a negative errno code (logged).
 */
int monitor_textfile_write(struct monitor *m);

#endif
