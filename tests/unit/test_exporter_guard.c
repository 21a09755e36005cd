// SPDX-License-Identifier: GPL-2.0-or-later
#define LATSCOPE_INSIDE_MONITOR /* white-box: reaches into lib/monitor/ */

#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/monitor/exporter_guard.h"
#include "unit.h"

#define S 1000000000ULL
#define MAX_PEERS 16

static const struct exporter_guard_limits limits = {
	.max_connections = 4,
	.max_requests = 2,
	.header_deadline_ns = 5 * S,
	.request_deadline_ns = 30 * S,
	.idle_timeout_ns = 120 * S,
};

/* A connection's two ends: the server's (given to the guard) and the client's. */
struct peer {
	int server, client;
	struct exporter_guard_connection *conn;
};

static struct peer peers[MAX_PEERS];
static unsigned int nr_peers;

static struct peer *connect_at(struct exporter_guard *guard, uint64_t now)
{
	struct peer *p = &peers[nr_peers++];
	int fds[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
	p->server = fds[0];
	p->client = fds[1];
	p->conn = exporter_guard_open(guard, p->server, now);
	ck_assert_ptr_nonnull(p->conn);
	return p;
}

/* Whether the guard shut the server's end down: the client reads the end of the stream. */
static bool shut(const struct peer *p)
{
	char byte;

	return read(p->client, &byte, 1) == 0;
}

/* What the guard closed so far, by reason. */
static void assert_closed(struct exporter_guard *guard, uint64_t evicted, uint64_t refused,
			  uint64_t timed_out)
{
	struct exporter_guard_counts counts;

	exporter_guard_counts(guard, &counts);
	ck_assert_uint_eq(counts.evicted, evicted);
	ck_assert_uint_eq(counts.refused, refused);
	ck_assert_uint_eq(counts.timed_out, timed_out);
}

static void release_peers(struct exporter_guard *guard)
{
	unsigned int i;

	for (i = 0; i < nr_peers; i++) {
		exporter_guard_close(guard, peers[i].conn);
		close(peers[i].server);
		close(peers[i].client);
	}
	nr_peers = 0;
	exporter_guard_free(guard);
}

START_TEST(at_the_limit_the_oldest_idle_connection_goes)
{
	struct exporter_guard *guard = exporter_guard_new(&limits);
	struct exporter_guard_counts counts;
	struct peer *a, *b, *c, *d, *e, *f;

	a = connect_at(guard, 1 * S);
	b = connect_at(guard, 2 * S);
	c = connect_at(guard, 3 * S);
	d = connect_at(guard, 4 * S);
	/* b is in a request: not idle, so a goes first, then c (b's idle time does not count) */
	exporter_guard_request(guard, b->conn, 4 * S);
	e = connect_at(guard, 5 * S);
	ck_assert(shut(a));
	ck_assert(!shut(b) && !shut(c) && !shut(d) && !shut(e));
	/* a closes in the server's own time: one more is not another eviction */
	exporter_guard_close(guard, a->conn);
	a->conn = NULL;
	f = connect_at(guard, 6 * S);
	ck_assert(shut(c));
	ck_assert(!shut(b) && !shut(d) && !shut(e) && !shut(f));
	exporter_guard_counts(guard, &counts);
	ck_assert_uint_eq(counts.opened, 6);
	assert_closed(guard, 2, 0, 0);
	release_peers(guard);
}
END_TEST

START_TEST(a_slow_request_goes_before_the_newcomer_is_refused)
{
	struct exporter_guard *guard = exporter_guard_new(&limits);
	struct peer *p[7];
	unsigned int i;

	for (i = 0; i < 4; i++)
		p[i] = connect_at(guard, (i + 1) * S);
	exporter_guard_request(guard, p[0]->conn, 5 * S);
	exporter_guard_answering(guard, p[0]->conn);
	exporter_guard_request(guard, p[2]->conn, 5 * S); /* its headers never come */
	/* over the two requests in progress: the oldest still reading headers goes */
	exporter_guard_request(guard, p[3]->conn, 6 * S);
	ck_assert(shut(p[2]));
	ck_assert(!shut(p[0]) && !shut(p[3]));
	exporter_guard_close(guard, p[2]->conn);
	p[2]->conn = NULL;
	/* only requests being answered besides it: the newcomer's is refused */
	exporter_guard_answering(guard, p[3]->conn);
	exporter_guard_request(guard, p[1]->conn, 7 * S);
	ck_assert(shut(p[1]));
	exporter_guard_close(guard, p[1]->conn);
	p[1]->conn = NULL;
	/* a request ends: room for another */
	exporter_guard_done(guard, p[0]->conn, 8 * S);
	p[4] = connect_at(guard, 9 * S);
	exporter_guard_request(guard, p[4]->conn, 9 * S);
	ck_assert(!shut(p[4]) && !shut(p[0]) && !shut(p[3]));
	/* five connections: the oldest idle one (idle since 8 s, not 10 s) goes */
	p[5] = connect_at(guard, 10 * S);
	p[6] = connect_at(guard, 11 * S);
	ck_assert(shut(p[0]));
	ck_assert(!shut(p[3]) && !shut(p[4]) && !shut(p[5]) && !shut(p[6]));
	assert_closed(guard, 2, 1, 0);
	release_peers(guard);
}
END_TEST

START_TEST(every_phase_has_its_deadline)
{
	struct exporter_guard *guard = exporter_guard_new(&limits);
	struct peer *idle, *slow, *answering, *kept;

	idle = connect_at(guard, 0);
	slow = connect_at(guard, 0);
	answering = connect_at(guard, 0);
	kept = connect_at(guard, 0);
	exporter_guard_request(guard, slow->conn, 100 * S);
	exporter_guard_request(guard, answering->conn, 100 * S);
	exporter_guard_answering(guard, answering->conn);
	exporter_guard_done(guard, kept->conn, 100 * S);
	/* the next deadline: the slow request's headers, 5 s after its request line */
	ck_assert_uint_eq(exporter_guard_sweep(guard, 101 * S), 105 * S);
	ck_assert(!shut(slow));
	/* headers trickling in do not move the deadline: nothing tells the guard of them */
	ck_assert_uint_eq(exporter_guard_sweep(guard, 105 * S), 120 * S);
	ck_assert(shut(slow));
	ck_assert(shut(idle) == false);
	/* 120 s idle since it opened */
	exporter_guard_sweep(guard, 120 * S);
	ck_assert(shut(idle));
	ck_assert(!shut(answering));
	/* the whole answer within 30 s of the request line */
	exporter_guard_sweep(guard, 130 * S);
	ck_assert(shut(answering));
	/* kept alive 120 s from its last request's end */
	ck_assert_uint_eq(exporter_guard_sweep(guard, 219 * S), 220 * S);
	ck_assert(!shut(kept));
	ck_assert_uint_eq(exporter_guard_sweep(guard, 220 * S), UINT64_MAX);
	ck_assert(shut(kept));
	assert_closed(guard, 0, 0, 4);
	release_peers(guard);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("exporter_guard");
	TCase *tc = tcase_create("guard");

	tcase_add_test(tc, at_the_limit_the_oldest_idle_connection_goes);
	tcase_add_test(tc, a_slow_request_goes_before_the_newcomer_is_refused);
	tcase_add_test(tc, every_phase_has_its_deadline);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
