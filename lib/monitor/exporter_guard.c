// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "exporter_guard.h"
#include "latscope/log.h"

enum phase {
	PHASE_IDLE, /* since it opened or its last request ended */
	PHASE_HEADERS, /* a request line read, headers not yet complete */
	PHASE_ANSWERING, /* headers complete, the answer not yet sent */
};

struct exporter_guard_connection {
	struct exporter_guard_connection *prev, *next;
	int fd;
	enum phase phase;
	uint64_t since_ns; /* the phase began */
	uint64_t request_ns; /* the request line came (not idle) */
	bool closing; /* shut down: no longer counted, waiting for the server */
};

struct exporter_guard {
	struct exporter_guard_limits limits;
	pthread_mutex_t lock;
	struct exporter_guard_connection *head;
	unsigned int nr_open; /* not closing */
	unsigned int nr_requests; /* not closing and not idle */
	struct exporter_guard_counts counts;
};

struct exporter_guard *exporter_guard_new(const struct exporter_guard_limits *limits)
{
	struct exporter_guard *guard = calloc(1, sizeof(*guard));

	if (!guard)
		return NULL;
	guard->limits = *limits;
	pthread_mutex_init(&guard->lock, NULL);
	return guard;
}

void exporter_guard_free(struct exporter_guard *guard)
{
	struct exporter_guard_connection *conn, *next;

	if (!guard)
		return;
	for (conn = guard->head; conn; conn = next) {
		next = conn->next;
		free(conn);
	}
	pthread_mutex_destroy(&guard->lock);
	free(guard);
}

/* Under the lock: the server will close it and then tell us. */
static void shut(struct exporter_guard *guard, struct exporter_guard_connection *conn,
		 uint64_t *reason)
{
	if (conn->closing)
		return;
	shutdown(conn->fd, SHUT_RDWR);
	conn->closing = true;
	guard->nr_open--;
	if (conn->phase != PHASE_IDLE)
		guard->nr_requests--;
	(*reason)++;
}

/* The oldest connection in @phase other than @besides, or NULL. */
static struct exporter_guard_connection *oldest(struct exporter_guard *guard, enum phase phase,
						const struct exporter_guard_connection *besides)
{
	struct exporter_guard_connection *conn, *found = NULL;

	for (conn = guard->head; conn; conn = conn->next)
		if (conn != besides && !conn->closing && conn->phase == phase &&
		    (!found || conn->since_ns < found->since_ns))
			found = conn;
	return found;
}

struct exporter_guard_connection *exporter_guard_open(struct exporter_guard *guard, int fd,
						      uint64_t now_ns)
{
	struct exporter_guard_connection *conn = calloc(1, sizeof(*conn)), *victim;

	if (!conn) {
		shutdown(fd, SHUT_RDWR);
		return NULL;
	}
	conn->fd = fd;
	conn->since_ns = now_ns;
	pthread_mutex_lock(&guard->lock);
	conn->next = guard->head;
	if (guard->head)
		guard->head->prev = conn;
	guard->head = conn;
	guard->nr_open++;
	guard->counts.opened++;
	if (guard->nr_open > guard->limits.max_connections) {
		victim = oldest(guard, PHASE_IDLE, conn) ?: oldest(guard, PHASE_HEADERS, conn);
		if (victim)
			shut(guard, victim, &guard->counts.evicted);
		else
			shut(guard, conn, &guard->counts.refused);
	}
	pthread_mutex_unlock(&guard->lock);
	return conn;
}

void exporter_guard_request(struct exporter_guard *guard, struct exporter_guard_connection *conn,
			    uint64_t now_ns)
{
	struct exporter_guard_connection *victim;

	if (!conn)
		return;
	pthread_mutex_lock(&guard->lock);
	if (!conn->closing) {
		if (conn->phase == PHASE_IDLE)
			guard->nr_requests++;
		conn->phase = PHASE_HEADERS;
		conn->since_ns = conn->request_ns = now_ns;
		if (guard->nr_requests > guard->limits.max_requests) {
			victim = oldest(guard, PHASE_HEADERS, conn);
			if (victim)
				shut(guard, victim, &guard->counts.evicted);
			else
				shut(guard, conn, &guard->counts.refused);
		}
	}
	pthread_mutex_unlock(&guard->lock);
}

void exporter_guard_answering(struct exporter_guard *guard, struct exporter_guard_connection *conn)
{
	if (!conn)
		return;
	pthread_mutex_lock(&guard->lock);
	if (conn->phase == PHASE_HEADERS)
		conn->phase = PHASE_ANSWERING;
	pthread_mutex_unlock(&guard->lock);
}

void exporter_guard_done(struct exporter_guard *guard, struct exporter_guard_connection *conn,
			 uint64_t now_ns)
{
	if (!conn)
		return;
	pthread_mutex_lock(&guard->lock);
	if (!conn->closing && conn->phase != PHASE_IDLE)
		guard->nr_requests--;
	conn->phase = PHASE_IDLE;
	conn->since_ns = now_ns;
	pthread_mutex_unlock(&guard->lock);
}

void exporter_guard_close(struct exporter_guard *guard, struct exporter_guard_connection *conn)
{
	if (!conn)
		return;
	pthread_mutex_lock(&guard->lock);
	if (!conn->closing) {
		guard->nr_open--;
		if (conn->phase != PHASE_IDLE)
			guard->nr_requests--;
	}
	if (conn->prev)
		conn->prev->next = conn->next;
	else
		guard->head = conn->next;
	if (conn->next)
		conn->next->prev = conn->prev;
	pthread_mutex_unlock(&guard->lock);
	free(conn);
}

/* When @conn's present phase must end. */
static uint64_t deadline_of(const struct exporter_guard *guard,
			    const struct exporter_guard_connection *conn)
{
	const struct exporter_guard_limits *l = &guard->limits;

	switch (conn->phase) {
	case PHASE_IDLE:
		return conn->since_ns + l->idle_timeout_ns;
	case PHASE_HEADERS:
		return conn->request_ns + l->header_deadline_ns;
	default:
		return conn->request_ns + l->request_deadline_ns;
	}
}

uint64_t exporter_guard_sweep(struct exporter_guard *guard, uint64_t now_ns)
{
	struct exporter_guard_connection *conn;
	uint64_t next = UINT64_MAX, due;

	pthread_mutex_lock(&guard->lock);
	for (conn = guard->head; conn; conn = conn->next) {
		if (conn->closing)
			continue;
		due = deadline_of(guard, conn);
		if (due <= now_ns) {
			log_debug("http: closing a connection %s",
				  conn->phase == PHASE_IDLE    ? "idle too long" :
				  conn->phase == PHASE_HEADERS ? "whose headers are late" :
								 "whose answer is late");
			shut(guard, conn, &guard->counts.timed_out);
		} else if (due < next) {
			next = due;
		}
	}
	pthread_mutex_unlock(&guard->lock);
	return next;
}

void exporter_guard_counts(struct exporter_guard *guard, struct exporter_guard_counts *counts)
{
	pthread_mutex_lock(&guard->lock);
	*counts = guard->counts;
	pthread_mutex_unlock(&guard->lock);
}
