/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPORTER_AUTH_H
#define LATSCOPE_EXPORTER_AUTH_H

#ifndef LATSCOPE_INSIDE_MONITOR
#error "lib/monitor/exporter_auth.h is private to lib/monitor/: outside it, use the headers of include/latscope/"
#endif

#include <microhttpd.h>

#include "latscope/cpuset.h"
#include "latscope/web_config.h"

/*
 * Password checks off the HTTP server's threads. A bcrypt takes tens of
 * milliseconds (seconds at a high cost); run on a server thread it would
 * hold every connection of that thread, and a few clients sending wrong
 * passwords would stall the scrapes of the right one. A request whose
 * credentials are not a remembered success is suspended
 * (MHD_suspend_connection()) and queued; one thread of its own, at a low
 * priority (nice 10) on the server's CPUs, runs the bcrypts in turn and
 * resumes each request with its verdict. A scrape with remembered
 * credentials never waits for one. The queue is short: past it a request
 * is answered 503 at once, so wrong passwords cost a bounded amount of CPU
 * and memory.
 */
#define EXPORTER_AUTH_QUEUE 8

enum exporter_auth_verdict {
	EXPORTER_AUTH_UNDECIDED,
	EXPORTER_AUTH_ALLOWED,
	EXPORTER_AUTH_DENIED,
	EXPORTER_AUTH_BUSY, /* the queue was full, or the server stops */
};

/* One request's check; part of the request, which must outlive it. */
struct exporter_auth_check {
	struct exporter_auth_check *next;
	struct MHD_Connection *connection;
	char *user, *password; /* copies, wiped once checked */
	enum exporter_auth_verdict verdict; /* set before the request is resumed */
};

struct exporter_auth;

/**
 * exporter_auth_start - start the checking thread
 * @auth: the credential checker (must outlive the returned object)
 * @cpus: where the thread runs (the housekeeping CPUs); NULL: anywhere
 *
 * A helper thread as rt_start_housekeeping_thread() starts one. Returns an object
 * to stop with exporter_auth_stop() and free with exporter_auth_free(), or
 * NULL (logged).
 */
struct exporter_auth *exporter_auth_start(struct web_auth *auth, const struct cpuset *cpus);

/**
 * exporter_auth_submit - check @user and @password for the request being
 * handled on @connection, from its access handler
 * @checker: the checker
 * @check: the request's check (zeroed first)
 * @connection: the connection, suspended here until the verdict is in
 *	       @check->verdict, then resumed (the access handler is called again)
 * @user: the user name given
 * @password: the password given
 *
 * Returns 0 when queued (the handler returns MHD_YES and waits), or
 * -EBUSY when the queue is full or the server stops, -ENOMEM: the verdict
 * is then EXPORTER_AUTH_BUSY and the connection not suspended.
 */
int exporter_auth_submit(struct exporter_auth *checker, struct exporter_auth_check *check,
			 struct MHD_Connection *connection, const char *user, const char *password);

/*
 * Stop: the check in progress finishes, every queued request is resumed
 * with EXPORTER_AUTH_BUSY and the thread is joined; later submissions are
 * refused (-EBUSY). Call before MHD_stop_daemon(), which may not find a
 * suspended connection. Safe to repeat; NULL is ignored.
 */
void exporter_auth_stop(struct exporter_auth *checker);

/* Stop if needed and free: after MHD_stop_daemon(). NULL is ignored. */
void exporter_auth_free(struct exporter_auth *checker);

#endif
