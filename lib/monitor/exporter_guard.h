/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPORTER_GUARD_H
#define LATSCOPE_EXPORTER_GUARD_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/exporter_guard.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include <stdint.h>

/*
 * What keeps the exporter's HTTP server answering when clients do not
 * behave: a table of its connections, each in one of three phases (idle
 * between requests, reading a request's headers, being answered), with a
 * deadline for each phase and two limits.
 *
 * - At the connection limit a new connection is not refused (a cap that
 *   refuses is itself the denial of service: a thousand idle connections
 *   would lock Prometheus out): the oldest idle connection is closed for
 *   it, else the oldest one still reading its headers, else the new one.
 * - Requests in progress are limited, not connections: over the limit the
 *   oldest request still reading its headers is closed (a slow client), or
 *   the new one when every other is being answered.
 * - A request's headers must be complete within a deadline counted from its
 *   request line, however slowly they trickle in (slowloris); the whole
 *   request within another; an idle connection (Prometheus keeps one open
 *   between scrapes) lives for the idle timeout, and a request line that
 *   trickles in counts as idle.
 *
 * Closing is shutdown(2) of the socket: the server sees the end of the
 * stream and closes it in its own thread, which then tells the guard
 * (exporter_guard_close()). The guard never closes a descriptor itself,
 * and it touches a socket only while the connection is in its table, so a
 * descriptor number reused by the kernel is never shut by mistake.
 * Thread-safe; times are CLOCK_MONOTONIC ns given by the caller.
 */
struct exporter_guard_limits {
	unsigned int max_connections;
	unsigned int max_requests;
	uint64_t header_deadline_ns; /* request line to the end of the headers */
	uint64_t request_deadline_ns; /* request line to the end of the answer */
	uint64_t idle_timeout_ns; /* between requests */
};

/* what the guard closed, by reason (for the log and the tests) */
struct exporter_guard_counts {
	uint64_t opened;
	uint64_t evicted; /* for a newer connection or request */
	uint64_t refused; /* the new one itself: everything else was being answered */
	uint64_t timed_out; /* past a deadline */
};

struct exporter_guard;
struct exporter_guard_connection;

/**
 * exporter_guard_new - an empty connection table
 * @limits: the limits (copied)
 * Returns a guard to free with exporter_guard_free(), or NULL.
 */
struct exporter_guard *exporter_guard_new(const struct exporter_guard_limits *limits);

/* Free the table; connections still in it are forgotten, not closed. NULL is ignored. */
void exporter_guard_free(struct exporter_guard *guard);

/**
 * exporter_guard_open - a connection was accepted
 * @guard: the table
 * @fd: its socket (shut down, never closed, by the guard)
 * @now_ns: the time
 *
 * At the connection limit, closes the oldest idle connection, else the
 * oldest reading its headers, else this one. Returns the connection's
 * entry, owned by the guard until exporter_guard_close(), or NULL when out
 * of memory (the connection is then shut down).
 */
struct exporter_guard_connection *exporter_guard_open(struct exporter_guard *guard, int fd,
						      uint64_t now_ns);

/* A request line was read on @conn: its headers are due by the header deadline. */
void exporter_guard_request(struct exporter_guard *guard, struct exporter_guard_connection *conn,
			    uint64_t now_ns);

/* @conn's headers are complete: it is being answered. */
void exporter_guard_answering(struct exporter_guard *guard, struct exporter_guard_connection *conn);

/* @conn's request ended (answered, or failed): it is idle from @now_ns. */
void exporter_guard_done(struct exporter_guard *guard, struct exporter_guard_connection *conn,
			 uint64_t now_ns);

/* @conn was closed by the server: its entry is freed. NULL is ignored. */
void exporter_guard_close(struct exporter_guard *guard, struct exporter_guard_connection *conn);

/**
 * exporter_guard_sweep - close every connection past its phase's deadline
 * @guard: the table
 * @now_ns: the time
 * Returns the time of the next deadline (UINT64_MAX when none).
 */
uint64_t exporter_guard_sweep(struct exporter_guard *guard, uint64_t now_ns);

/* What was closed so far, and why. */
void exporter_guard_counts(struct exporter_guard *guard, struct exporter_guard_counts *counts);

#endif
