/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_WEB_CONFIG_H
#define LATSCOPE_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * --web-config FILE: the YAML file of the Prometheus exporter-toolkit, so a
 * fleet configures latscope as it configures its exporters:
 *
 *   tls_server_config:
 *     cert_file: server.crt        # paths relative to this file
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: clients.crt
 *     min_version: TLS12           # TLS10 .. TLS13; default TLS12
 *     max_version: TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...       # bcrypt ($2a$, $2b$, $2y$)
 *
 * Every file is read and every hash checked when the file is loaded, so a
 * mistake stops the command before it measures. Keys the toolkit has and
 * latscope does not (cipher_suites, http_server_config, ...) are refused
 * by name rather than ignored.
 */
enum web_client_auth {
	WEB_CLIENT_NONE, /* NoClientCert */
	WEB_CLIENT_REQUEST, /* RequestClientCert: asked for, not needed, not verified */
	WEB_CLIENT_REQUIRE_ANY, /* RequireAnyClientCert: needed, not verified */
	WEB_CLIENT_VERIFY_IF_GIVEN, /* VerifyClientCertIfGiven */
	WEB_CLIENT_REQUIRE_AND_VERIFY, /* RequireAndVerifyClientCert */
};

enum web_tls_version {
	WEB_TLS10,
	WEB_TLS11,
	WEB_TLS12,
	WEB_TLS13,
};

struct web_user {
	char *name;
	char *hash; /* bcrypt, checked */
};

struct web_config {
	bool tls;
	char *cert_pem; /* the files' contents, NUL-terminated */
	char *key_pem;
	char *client_ca_pem; /* NULL without client_ca_file */
	enum web_client_auth client_auth;
	enum web_tls_version min_version, max_version;
	struct web_user *users;
	size_t nr_users;
};

/*
 * What is read: the file itself at most 64 KiB and nested at most 32
 * levels (a configuration is three), each certificate or key file it names
 * at most 1 MiB; regular files only.
 */
#define WEB_CONFIG_MAX_BYTES (64 * 1024)
#define WEB_CONFIG_MAX_DEPTH 32
#define WEB_REFERENCED_MAX_BYTES (1024 * 1024)

/* the bcrypt costs a password hash may have: a check at 14 takes about 1.5 s here */
#define WEB_BCRYPT_MIN_COST 4
#define WEB_BCRYPT_MAX_COST 14

/* The cost of a well-formed bcrypt hash ("$2y$10$..." is 10). */
unsigned int web_bcrypt_cost(const char *hash);

/**
 * web_config_load - read and check a web configuration file
 * @path: the YAML file
 * @config: receives the configuration; free it with web_config_free()
 *
 * Returns 0, or a negative errno code after one log line naming the file,
 * the line and what is wrong (an unreadable file, one that is not a regular
 * file or is over WEB_CONFIG_MAX_BYTES, nesting over WEB_CONFIG_MAX_DEPTH,
 * malformed YAML, an unknown key, a malformed bcrypt hash or one of a cost
 * above WEB_BCRYPT_MAX_COST, a certificate that does not load).
 */
int web_config_load(const char *path, struct web_config **config);

void web_config_free(struct web_config *config);

/**
 * web_config_priorities - the GnuTLS priority string for the TLS versions
 * @config: the configuration
 * @buf: receives "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
 * @size: size of @buf
 * Returns @buf.
 */
char *web_config_priorities(const struct web_config *config, char *buf, size_t size);

/*
 * Checking basic-auth credentials. bcrypt is slow by design (tens of ms),
 * so a success is remembered: as an HMAC-SHA-256 of the user and password
 * under a key drawn at start, never the password itself, for a limited time.
 * Failures are not remembered and cost a full bcrypt, for an unknown user
 * too (against a dummy hash of the same cost), so the time of an answer
 * does not tell which users exist. One bcrypt runs at a time.
 */
struct web_auth;

/**
 * web_auth_new - a credential checker for a configuration's users
 * @config: the configuration (must outlive the checker)
 * Returns a checker to free with web_auth_free(), or NULL.
 */
struct web_auth *web_auth_new(const struct web_config *config);

/* true when @user and @password match a configured user (a bcrypt unless
 * remembered: tens of ms, or seconds at a high cost); thread-safe */
bool web_auth_check(struct web_auth *auth, const char *user, const char *password);

/* true when @user and @password are a success remembered (microseconds, no
 * bcrypt); false says nothing: web_auth_check() decides. Thread-safe. */
bool web_auth_remembered(struct web_auth *auth, const char *user, const char *password);

/* bcrypt computations so far (for tests of the cache) */
unsigned long web_auth_bcrypt_count(const struct web_auth *auth);

void web_auth_free(struct web_auth *auth);

#endif
