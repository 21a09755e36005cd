/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPORTER_H
#define LATSCOPE_EXPORTER_H

#include <stddef.h>

#include "latscope/metrics.h"

/*
 * The exposition formats of a metrics snapshot: Prometheus text 0.0.4 (the
 * default, and the textfile), OpenMetrics 1.0 text, and the delimited
 * protobuf MetricFamily stream, the only one that carries native
 * histograms. The scraper's Accept header picks one.
 */
enum exporter_format {
	EXPORTER_TEXT,
	EXPORTER_OPENMETRICS,
	EXPORTER_PROTOBUF,
};

/* The Content-Type of a format (a static string). */
const char *exporter_content_type(enum exporter_format format);

/**
 * exporter_negotiate - the format an Accept header asks for
 * @accept: the header's value, or NULL when there is none
 *
 * Media ranges are weighed by their q value, the first listed winning a
 * tie: the protobuf stream only with proto=io.prometheus.client.MetricFamily
 * and encoding=delimited, OpenMetrics text 1.0.0 (or without a version),
 * text/plain 0.0.4 (or without a version) and wildcards, which get text.
 * Anything else, or nothing, gets text 0.0.4.
 */
enum exporter_format exporter_negotiate(const char *accept);

/**
 * exporter_render - the exposition of a snapshot in one format
 * @metrics: the snapshot
 * @format: the format
 * @body: receives a buffer the caller frees with free()
 * @size: receives its length
 *
 * Returns 0 or -ENOMEM.
 */
int exporter_render(const struct metrics *metrics, enum exporter_format format, char **body,
		    size_t *size);

/* The text renderers behind exporter_render(); same contract. */
int exporter_render_text(const struct metrics *metrics, bool openmetrics, char **body,
			 size_t *size);
int exporter_render_protobuf(const struct metrics *metrics, char **body, size_t *size);

/**
 * exporter_write_textfile - DIR/latscope.prom for node_exporter's textfile
 * collector, text 0.0.4, written to a temporary name in DIR and renamed so
 * that the collector never reads half a file
 * @metrics: the snapshot
 * @dir: the collector's directory
 *
 * Returns 0 or a negative errno code (logged).
 */
int exporter_write_textfile(const struct metrics *metrics, const char *dir);

/**
 * exporter_remove_stale_textfile - remove the temporary files of
 * DIR/latscope.prom that a writer left when it died (atomic_file.h)
 * Returns how many were removed, or a negative errno code.
 */
int exporter_remove_stale_textfile(const char *dir);

/**
 * exporter_check_textfile_dir - fail early when DIR/latscope.prom could
 * not be written (a missing directory, no permission)
 * Returns 0 or a negative errno code.
 */
int exporter_check_textfile_dir(const char *dir);

#endif
