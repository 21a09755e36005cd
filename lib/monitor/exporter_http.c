// SPDX-License-Identifier: GPL-2.0-or-later
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/clock.h"
#include "latscope/exporter.h"
#include "exporter_auth.h"
#include "exporter_guard.h"
#include "latscope/exporter_http.h"
#include "latscope/log.h"
#include "latscope/parse.h"
#include "latscope/rt.h"

/* Limits: enough for Prometheus and a person with curl, little for a flood. */
#define SERVER_THREADS 2
/* locked in full under the monitor's mlockall; a scrape over TLS touches tens of KiB */
#define SERVER_STACK_BYTES (512 * 1024)
/*
 * Connections open at once: at the limit the oldest idle one is closed for
 * a new one (exporter_guard.h). The server's own limit is above it, since
 * a connection shut down by the guard closes a moment later.
 */
#define MAX_CONNECTIONS 256
#define SERVER_CONNECTION_LIMIT (MAX_CONNECTIONS + 64)
#define MAX_REQUESTS 32
/* from the request line: headers within 5 s, the whole answer within 30 s */
#define HEADER_DEADLINE_NS (5 * NS_PER_SEC)
#define REQUEST_DEADLINE_NS (30 * NS_PER_SEC)
/* keep-alive: longer than Prometheus's usual scrape intervals (15 s to 1 min) */
#define IDLE_TIMEOUT_S 120
/* the guard sweeps at least this often */
#define SWEEP_EVERY_NS NS_PER_SEC
/* the request line and headers must fit: larger requests get 431 or 414 */
#define CONNECTION_MEMORY 16384

#define REALM "latscope"

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>latscope monitor</title>"
	"</head>\n<body><h1>latscope monitor</h1>\n<p>Timer wake-up latency of the real-time "
	"CPUs, their spikes' causes and the audit's drift, for Prometheus: "
	"<a href=\"metrics\">/metrics</a>.</p>\n</body></html>\n";

struct exporter_http {
	struct exporter_http_options options;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	char where[128]; /* the address as given, for messages */
	int fd;
	struct MHD_Daemon *daemon;
	struct web_auth *auth;
	struct exporter_auth *checker; /* the password checks' thread */
	struct exporter_guard *guard;
	/* the sweeping thread: deadlines of the guard */
	pthread_t sweeper;
	bool sweeping;
	pthread_mutex_t sweep_lock;
	pthread_cond_t sweep_wake;
	bool stop_sweeping;
	char priorities[160];
};

/* One request, from its request line to its end. */
struct request {
	struct exporter_guard_connection *guarded;
	bool headers_read;
	struct exporter_auth_check check;
};

int exporter_listen_parse(const char *text, struct sockaddr_storage *addr, socklen_t *len)
{
	struct addrinfo hints = { 0 }, *found = NULL;
	char host[256], *end;
	const char *colon, *port_text;
	unsigned long port;
	size_t host_len;
	int ret;

	if (!text || !*text)
		goto bad;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || close[1] != ':')
			goto bad;
		host_len = (size_t)(close - text - 1);
		memcpy(host, text + 1, host_len < sizeof(host) ? host_len : 0);
		port_text = close + 2;
	} else {
		colon = strrchr(text, ':');
		if (!colon || strchr(text, ':') != colon)
			goto bad;
		host_len = (size_t)(colon - text);
		memcpy(host, text, host_len < sizeof(host) ? host_len : 0);
		port_text = colon + 1;
	}
	if (host_len >= sizeof(host))
		goto bad;
	host[host_len] = '\0';
	errno = 0;
	port = strtoul(port_text, &end, 10);
	if (!*port_text || *end || errno || port > 65535 || port_text[0] == '-' ||
	    port_text[0] == '+')
		goto bad;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	hints.ai_family = AF_UNSPEC;
	ret = getaddrinfo(host[0] ? host : NULL, port_text, &hints, &found);
	if (ret || !found) {
		log_error("invalid listen address '%s': %s", text,
			  ret ? gai_strerror(ret) : "no address");
		return -EINVAL;
	}
	/* ":PORT" means every address: the IPv4 wildcard, as exporters do */
	if (!host[0]) {
		struct sockaddr_in *any = (struct sockaddr_in *)addr;

		memset(addr, 0, sizeof(*addr));
		any->sin_family = AF_INET;
		any->sin_port = htons((uint16_t)port);
		any->sin_addr.s_addr = htonl(INADDR_ANY);
		*len = sizeof(*any);
	} else {
		memcpy(addr, found->ai_addr, found->ai_addrlen);
		*len = found->ai_addrlen;
	}
	freeaddrinfo(found);
	return 0;
bad:
	log_error("invalid listen address '%s' (HOST:PORT, [IPV6]:PORT or :PORT)",
		  text ? text : "");
	return -EINVAL;
}

bool exporter_address_is_loopback(const struct sockaddr_storage *addr)
{
	if (addr->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
	if (addr->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	return false;
}

struct exporter_http *exporter_http_open(const struct exporter_http_options *options)
{
	struct exporter_http *server = calloc(1, sizeof(*server));
	int one = 1, err;

	if (!server)
		return NULL;
	server->options = *options;
	server->fd = -1;
	snprintf(server->where, sizeof(server->where), "%s",
		 options->listen ? options->listen : EXPORTER_DEFAULT_LISTEN);
	if (exporter_listen_parse(server->where, &server->addr, &server->addr_len))
		goto fail;
	server->fd = socket(server->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (server->fd < 0)
		goto fail_errno;
	/* a restarted monitor gets its port back at once */
	setsockopt(server->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (server->addr.ss_family == AF_INET6)
		setsockopt(server->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* a flood of connections must not fill the queue a scrape's connection waits in */
	if (bind(server->fd, (struct sockaddr *)&server->addr, server->addr_len) ||
	    listen(server->fd, SOMAXCONN))
		goto fail_errno;
	if (options->web && options->web->nr_users) {
		server->auth = web_auth_new(options->web);
		if (!server->auth)
			goto fail;
	}
	return server;
fail_errno:
	err = errno;
	log_error("cannot listen on %s: %s", server->where, strerror(err));
fail:
	exporter_http_free(server);
	return NULL;
}

unsigned int exporter_http_port(const struct exporter_http *server)
{
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);

	if (getsockname(server->fd, (struct sockaddr *)&addr, &len))
		return 0;
	if (addr.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
	return ntohs(((struct sockaddr_in *)&addr)->sin_port);
}

static enum MHD_Result queue_empty(struct MHD_Connection *connection, unsigned int status,
				   const char *allow)
{
	struct MHD_Response *response =
		MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!response)
		return MHD_NO;
	if (allow)
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(connection, status, response);
	MHD_destroy_response(response);
	return ret;
}

/*
 * Basic auth, when users are configured: a remembered success at once; any
 * other credentials go to the checking thread and the request waits,
 * suspended, for its verdict (exporter_auth.h). Returns the verdict so far.
 */
static enum exporter_auth_verdict
authorize(struct exporter_http *server, struct MHD_Connection *connection, struct request *request)
{
	enum exporter_auth_verdict verdict = EXPORTER_AUTH_DENIED;
	char *password = NULL, *user;

	if (!server->auth)
		return EXPORTER_AUTH_ALLOWED;
	if (request->check.verdict != EXPORTER_AUTH_UNDECIDED)
		return request->check.verdict;
	user = MHD_basic_auth_get_username_password(connection, &password);
	if (user && password) {
		if (web_auth_remembered(server->auth, user, password))
			verdict = EXPORTER_AUTH_ALLOWED;
		else if (exporter_auth_submit(server->checker, &request->check, connection, user,
					      password))
			verdict = EXPORTER_AUTH_BUSY;
		else
			verdict = EXPORTER_AUTH_UNDECIDED;
	}
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	return verdict;
}

/*
 * Client certificates, as client_auth_type asks. GnuTLS asked the client
 * for one during the handshake (MHD does when a trust list is given); this
 * decides whether to serve.
 */
static bool certificate_accepted(struct exporter_http *server, struct MHD_Connection *connection)
{
	enum web_client_auth mode =
		server->options.web ? server->options.web->client_auth : WEB_CLIENT_NONE;
	const union MHD_ConnectionInfo *info;
	unsigned int nr_certs = 0, status = 0;
	gnutls_session_t session;

	if (mode == WEB_CLIENT_NONE || mode == WEB_CLIENT_REQUEST)
		return true;
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info)
		return false;
	session = (gnutls_session_t)info->tls_session;
	if (!gnutls_certificate_get_peers(session, &nr_certs) || !nr_certs)
		return mode == WEB_CLIENT_VERIFY_IF_GIVEN;
	if (mode == WEB_CLIENT_REQUIRE_ANY)
		return true;
	return !gnutls_certificate_verify_peers2(session, &status) && !status;
}

static enum MHD_Result serve_metrics(struct exporter_http *server,
				     struct MHD_Connection *connection)
{
	const char *accept =
		MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum exporter_format format = exporter_negotiate(accept);
	struct metrics *metrics = server->options.collect(server->options.context);
	struct MHD_Response *response;
	enum MHD_Result ret;
	char *body = NULL;
	size_t size = 0;

	if (!metrics || exporter_render(metrics, format, &body, &size)) {
		metrics_free(metrics);
		log_warning("cannot answer a scrape: out of memory");
		return queue_empty(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL);
	}
	metrics_free(metrics);
	response = MHD_create_response_from_buffer(size, body, MHD_RESPMEM_MUST_FREE);
	if (!response) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				exporter_content_type(format));
	ret = MHD_queue_response(connection, MHD_HTTP_OK, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result serve_index(struct MHD_Connection *connection)
{
	struct MHD_Response *response = MHD_create_response_from_buffer(
		sizeof(index_page) - 1, (void *)index_page, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!response)
		return MHD_NO;
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
	ret = MHD_queue_response(connection, MHD_HTTP_OK, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **request_context)
{
	struct exporter_http *server = context;
	struct request *request = *request_context;
	struct MHD_Response *response;
	enum MHD_Result ret;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET), head = !strcmp(method, "HEAD");

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	/* no request of our own (out of memory at its request line): closed */
	if (!request)
		return MHD_NO;
	if (!request->headers_read) {
		request->headers_read = true;
		exporter_guard_answering(server->guard, request->guarded);
		/*
		 * A GET or HEAD is answered once its request is read whole, which
		 * keeps the connection open for the next scrape; anything else is
		 * answered at once, its body never read, and the connection closed.
		 */
		if (get || head)
			return MHD_YES;
	}
	if (!certificate_accepted(server, connection))
		return queue_empty(connection, MHD_HTTP_FORBIDDEN, NULL);
	switch (authorize(server, connection, request)) {
	case EXPORTER_AUTH_ALLOWED:
		break;
	case EXPORTER_AUTH_UNDECIDED:
		return MHD_YES; /* suspended until the verdict */
	case EXPORTER_AUTH_BUSY:
		return queue_empty(connection, MHD_HTTP_SERVICE_UNAVAILABLE, NULL);
	default:
		response = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		if (!response)
			return MHD_NO;
		ret = MHD_queue_basic_auth_fail_response(connection, REALM, response);
		MHD_destroy_response(response);
		return ret;
	}
	if (strcmp(url, "/metrics") && strcmp(url, "/"))
		return queue_empty(connection, MHD_HTTP_NOT_FOUND, NULL);
	if (!get && !head)
		return queue_empty(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "GET, HEAD");
	return strcmp(url, "/") ? serve_metrics(server, connection) : serve_index(connection);
}

/* A connection accepted or closed: the guard's table follows. */
static void on_connection(void *context, struct MHD_Connection *connection, void **guarded,
			  enum MHD_ConnectionNotificationCode what)
{
	struct exporter_http *server = context;
	const union MHD_ConnectionInfo *info;

	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		exporter_guard_close(server->guard, *guarded);
		*guarded = NULL;
		return;
	}
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
	*guarded = info ? exporter_guard_open(server->guard, info->connect_fd,
					      clock_ns(CLOCK_MONOTONIC)) :
			  NULL;
}

/* A request line was read: the request begins (its headers are due). */
static void *on_request_line(void *context, const char *uri, struct MHD_Connection *connection)
{
	struct exporter_http *server = context;
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct request *request = calloc(1, sizeof(*request));

	(void)uri;
	if (!request)
		return NULL;
	request->guarded = info ? info->socket_context : NULL;
	exporter_guard_request(server->guard, request->guarded, clock_ns(CLOCK_MONOTONIC));
	return request;
}

/* A request ended, answered or not: the connection is idle again. */
static void on_completed(void *context, struct MHD_Connection *connection, void **request_context,
			 enum MHD_RequestTerminationCode why)
{
	struct exporter_http *server = context;
	struct request *request = *request_context;

	(void)connection;
	(void)why;
	if (!request)
		return;
	exporter_guard_done(server->guard, request->guarded, clock_ns(CLOCK_MONOTONIC));
	free(request);
	*request_context = NULL;
}

/* Closes what is past its deadline, at least once a second, until stopped. */
static void *sweep(void *arg)
{
	struct exporter_http *server = arg;
	uint64_t now, next;
	struct timespec until;

	pthread_mutex_lock(&server->sweep_lock);
	while (!server->stop_sweeping) {
		pthread_mutex_unlock(&server->sweep_lock);
		now = clock_ns(CLOCK_MONOTONIC);
		next = exporter_guard_sweep(server->guard, now);
		if (next > now + SWEEP_EVERY_NS)
			next = now + SWEEP_EVERY_NS;
		until = clock_timespec(next);
		pthread_mutex_lock(&server->sweep_lock);
		if (!server->stop_sweeping)
			pthread_cond_timedwait(&server->sweep_wake, &server->sweep_lock, &until);
	}
	pthread_mutex_unlock(&server->sweep_lock);
	return NULL;
}

static int start_sweeper(struct exporter_http *server)
{
	pthread_condattr_t cond_attr;
	int ret;

	pthread_mutex_init(&server->sweep_lock, NULL);
	pthread_condattr_init(&cond_attr);
	pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
	pthread_cond_init(&server->sweep_wake, &cond_attr);
	pthread_condattr_destroy(&cond_attr);
	ret = rt_start_housekeeping_thread(&server->sweeper, server->options.cpus, sweep, server);
	if (ret) {
		pthread_cond_destroy(&server->sweep_wake);
		pthread_mutex_destroy(&server->sweep_lock);
		return ret;
	}
	server->sweeping = true;
	return 0;
}

static void stop_sweeper(struct exporter_http *server)
{
	if (!server->sweeping)
		return;
	pthread_mutex_lock(&server->sweep_lock);
	server->stop_sweeping = true;
	pthread_cond_signal(&server->sweep_wake);
	pthread_mutex_unlock(&server->sweep_lock);
	pthread_join(server->sweeper, NULL);
	pthread_cond_destroy(&server->sweep_wake);
	pthread_mutex_destroy(&server->sweep_lock);
	server->sweeping = false;
}

static void log_from_server(void *context, const char *fmt, va_list args)
{
	char text[512];
	size_t n;

	(void)context;
	vsnprintf(text, sizeof(text), fmt, args);
	n = strlen(text);
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	log_debug("http: %s", text);
}

/* Threads inherit the caller's CPUs and signal mask at creation. */
static void enter_server_context(const struct cpuset *cpus, cpu_set_t *old_cpus, sigset_t *old_mask)
{
	sigset_t all;
	cpu_set_t set;
	int cpu;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old_mask);
	pthread_getaffinity_np(pthread_self(), sizeof(*old_cpus), old_cpus);
	if (!cpus || cpuset_empty(cpus))
		return;
	CPU_ZERO(&set);
	cpuset_for_each(cpu, cpus)
		if (cpu < CPU_SETSIZE)
			CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		log_warning("cannot keep the http threads on the housekeeping cpus");
}

static void leave_server_context(const cpu_set_t *old_cpus, const sigset_t *old_mask)
{
	pthread_setaffinity_np(pthread_self(), sizeof(*old_cpus), old_cpus);
	pthread_sigmask(SIG_SETMASK, old_mask, NULL);
}

int exporter_http_start(struct exporter_http *server)
{
	static const struct exporter_guard_limits limits = {
		.max_connections = MAX_CONNECTIONS,
		.max_requests = MAX_REQUESTS,
		.header_deadline_ns = HEADER_DEADLINE_NS,
		.request_deadline_ns = REQUEST_DEADLINE_NS,
		.idle_timeout_ns = IDLE_TIMEOUT_S * NS_PER_SEC,
	};
	const struct web_config *web = server->options.web;
	struct MHD_OptionItem options[20];
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			     MHD_ALLOW_SUSPEND_RESUME;
	unsigned int n = 0;
	cpu_set_t old_cpus;
	sigset_t old_mask;
	int ret = 0;

	if (server->daemon)
		return 0;
	server->guard = exporter_guard_new(&limits);
	if (!server->guard)
		return -ENOMEM;
	/* first, or libmicrohttpd says so through its own logger on stderr */
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER,
						(intptr_t)log_from_server, NULL };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, server->fd, NULL };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, SERVER_THREADS, NULL };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
						SERVER_CONNECTION_LIMIT, NULL };
	/* the guard's deadlines decide; this is for a client that stops reading */
	options[n++] =
		(struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
						CONNECTION_MEMORY, NULL };
	options[n++] =
		(struct MHD_OptionItem){ MHD_OPTION_THREAD_STACK_SIZE, SERVER_STACK_BYTES, NULL };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
						(intptr_t)on_connection, server };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK,
						(intptr_t)on_request_line, server };
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed,
						server };
	if (server->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (web && web->tls) {
		flags |= MHD_USE_TLS;
		web_config_priorities(web, server->priorities, sizeof(server->priorities));
		options[n++] =
			(struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert_pem };
		options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, web->key_pem };
		options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
							server->priorities };
		if (web->client_ca_pem && web->client_auth != WEB_CLIENT_NONE)
			options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
								web->client_ca_pem };
	}
	options[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	/* the helpers on the housekeeping CPUs, as the server's own threads below */
	if (server->auth) {
		server->checker = exporter_auth_start(server->auth, server->options.cpus);
		if (!server->checker)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = start_sweeper(server);
	if (!ret) {
		enter_server_context(server->options.cpus, &old_cpus, &old_mask);
		server->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, server,
						  MHD_OPTION_ARRAY, options, MHD_OPTION_END);
		leave_server_context(&old_cpus, &old_mask);
		if (!server->daemon) {
			log_error("cannot start the http server on %s", server->where);
			ret = -EIO;
		}
	}
	if (ret)
		exporter_http_stop(server);
	return ret;
}

void exporter_http_stop(struct exporter_http *server)
{
	if (!server)
		return;
	/* no suspended request may be left when the daemon stops */
	exporter_auth_stop(server->checker);
	if (server->daemon) {
		MHD_stop_daemon(server->daemon);
		server->daemon = NULL;
		/* the daemon closed the listening socket it was given */
		server->fd = -1;
	}
	exporter_auth_free(server->checker);
	server->checker = NULL;
	stop_sweeper(server);
	exporter_guard_free(server->guard);
	server->guard = NULL;
}

void exporter_http_free(struct exporter_http *server)
{
	if (!server)
		return;
	exporter_http_stop(server);
	if (server->fd >= 0)
		close(server->fd);
	web_auth_free(server->auth);
	free(server);
}
