/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_EXPORTER_HTTP_H
#define LATSCOPE_EXPORTER_HTTP_H

#include <stdbool.h>
#include <sys/socket.h>

#include "latscope/cpuset.h"
#include "latscope/metrics.h"
#include "latscope/web_config.h"

/*
 * The HTTP endpoint (libmicrohttpd, TLS through GnuTLS): GET and HEAD of
 * /metrics, in the format the Accept header asks for, and of / (a page that
 * links /metrics). Other methods get 405, other paths 404, a request
 * without the configured credentials 401 and nothing else. Connections,
 * request size and time are limited so that slow or hostile clients cannot
 * stall it, and its threads run on the housekeeping CPUs, away from the
 * measurement.
 */
#define EXPORTER_DEFAULT_LISTEN "127.0.0.1:9737"

/* Returns a snapshot for one scrape, freed with metrics_free(); NULL on failure. */
typedef struct metrics *(*exporter_collect)(void *context);

struct exporter_http_options {
	const char *listen; /* "HOST:PORT", "[V6]:PORT" or ":PORT"; NULL: the default */
	const struct web_config *web; /* TLS and basic auth, or NULL */
	const struct cpuset *cpus; /* where the server threads run; NULL: anywhere */
	exporter_collect collect;
	void *context;
};

/**
 * exporter_listen_parse - parse a listen address
 * @text: "127.0.0.1:9737", "[::1]:9737", "localhost:9737", ":9737" (every
 *	  address) or "0.0.0.0:9737"; port 0 takes a free port
 * @addr: receives the address
 * @len: receives its length
 *
 * Returns 0, or -EINVAL (logged) for a malformed address or port.
 */
int exporter_listen_parse(const char *text, struct sockaddr_storage *addr, socklen_t *len);

/* true for 127.0.0.0/8 and ::1 */
bool exporter_address_is_loopback(const struct sockaddr_storage *addr);

struct exporter_http;

/**
 * exporter_http_open - bind the listening socket, before any measurement:
 * a port in use or an address that is not this machine's fails here
 * @options: the options (copied; the web config must outlive the server)
 *
 * Returns a server that does not answer yet, to free with
 * exporter_http_free(), or NULL (logged: "cannot listen on ADDR: ...").
 */
struct exporter_http *exporter_http_open(const struct exporter_http_options *options);

/* The port the socket is bound to (the one chosen for port 0). */
unsigned int exporter_http_port(const struct exporter_http *server);

/**
 * exporter_http_start - start answering (the server threads start here)
 * Returns 0 or a negative errno code (logged).
 */
int exporter_http_start(struct exporter_http *server);

/* Stop answering and close every connection; safe to repeat. */
void exporter_http_stop(struct exporter_http *server);

/* Stop if needed and free. NULL is ignored. */
void exporter_http_free(struct exporter_http *server);

#endif
