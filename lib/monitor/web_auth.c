// SPDX-License-Identifier: GPL-2.0-or-later
#include <crypt.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "latscope/clock.h"
#include "latscope/log.h"
#include "latscope/web_config.h"

#define CACHE_ENTRIES 64
#define CACHE_LIFETIME_NS (3600ULL * 1000000000ULL)
#define MAC_SIZE 32

struct cache_entry {
	uint8_t mac[MAC_SIZE];
	uint64_t expires_ns; /* 0: free */
};

struct web_auth {
	const struct web_config *config;
	uint8_t key[32]; /* drawn at start: a remembered MAC is useless elsewhere */
	char dummy_hash[CRYPT_OUTPUT_SIZE]; /* for unknown users: the same work */
	pthread_mutex_t cache_lock;
	struct cache_entry cache[CACHE_ENTRIES];
	pthread_mutex_t bcrypt_lock; /* one bcrypt at a time: bounded CPU */
	struct crypt_data *crypt; /* under bcrypt_lock */
	unsigned long bcrypts;
};

/* The dummy hash has the cost of the most expensive configured hash. */
static int make_dummy_hash(struct web_auth *auth)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE], random_bytes[16], password[17];
	unsigned long cost = 4;
	size_t i;

	for (i = 0; i < auth->config->nr_users; i++)
		if (web_bcrypt_cost(auth->config->users[i].hash) > cost)
			cost = web_bcrypt_cost(auth->config->users[i].hash);
	if (getrandom(random_bytes, sizeof(random_bytes), 0) != sizeof(random_bytes))
		return -1;
	for (i = 0; i < sizeof(random_bytes); i++)
		password[i] = (char)('a' + ((unsigned char)random_bytes[i] % 26));
	password[16] = '\0';
	if (!crypt_gensalt_rn("$2b$", cost, NULL, 0, setting, sizeof(setting)))
		return -1;
	if (!crypt_r(password, setting, auth->crypt) || auth->crypt->output[0] == '*')
		return -1;
	snprintf(auth->dummy_hash, sizeof(auth->dummy_hash), "%s", auth->crypt->output);
	return 0;
}

struct web_auth *web_auth_new(const struct web_config *config)
{
	struct web_auth *auth = calloc(1, sizeof(*auth));

	if (!auth)
		return NULL;
	auth->config = config;
	auth->crypt = calloc(1, sizeof(*auth->crypt));
	pthread_mutex_init(&auth->cache_lock, NULL);
	pthread_mutex_init(&auth->bcrypt_lock, NULL);
	if (!auth->crypt || getrandom(auth->key, sizeof(auth->key), 0) != sizeof(auth->key) ||
	    make_dummy_hash(auth)) {
		log_error("cannot prepare the basic-auth check");
		web_auth_free(auth);
		return NULL;
	}
	return auth;
}

/* HMAC-SHA-256(key, user NUL password): what a success is remembered by. */
static int credentials_mac(const struct web_auth *auth, const char *user, const char *password,
			   uint8_t *mac)
{
	size_t user_len = strlen(user), password_len = strlen(password);
	char *text = malloc(user_len + password_len + 2);
	int ret;

	if (!text)
		return -1;
	memcpy(text, user, user_len + 1);
	memcpy(text + user_len + 1, password, password_len + 1);
	ret = gnutls_hmac_fast(GNUTLS_MAC_SHA256, auth->key, sizeof(auth->key), text,
			       user_len + password_len + 1, mac);
	explicit_bzero(text, user_len + password_len + 2);
	free(text);
	return ret;
}

static bool cache_find(struct web_auth *auth, const uint8_t *mac, uint64_t now)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&auth->cache_lock);
	for (i = 0; i < CACHE_ENTRIES; i++) {
		struct cache_entry *e = &auth->cache[i];

		if (e->expires_ns && e->expires_ns <= now)
			e->expires_ns = 0;
		/* every entry is compared, in constant time: no early exit */
		if (e->expires_ns && !gnutls_memcmp(e->mac, mac, MAC_SIZE))
			found = true;
	}
	pthread_mutex_unlock(&auth->cache_lock);
	return found;
}

static void cache_add(struct web_auth *auth, const uint8_t *mac, uint64_t now)
{
	size_t i, oldest = 0;

	pthread_mutex_lock(&auth->cache_lock);
	for (i = 0; i < CACHE_ENTRIES; i++) {
		if (!auth->cache[i].expires_ns) {
			oldest = i;
			break;
		}
		if (auth->cache[i].expires_ns < auth->cache[oldest].expires_ns)
			oldest = i;
	}
	memcpy(auth->cache[oldest].mac, mac, MAC_SIZE);
	auth->cache[oldest].expires_ns = now + CACHE_LIFETIME_NS;
	pthread_mutex_unlock(&auth->cache_lock);
}

static bool bcrypt_matches(struct web_auth *auth, const char *password, const char *hash)
{
	bool match;

	pthread_mutex_lock(&auth->bcrypt_lock);
	__atomic_add_fetch(&auth->bcrypts, 1, __ATOMIC_RELAXED);
	match = crypt_r(password, hash, auth->crypt) && auth->crypt->output[0] != '*' &&
		strlen(auth->crypt->output) == strlen(hash) &&
		!gnutls_memcmp(auth->crypt->output, hash, strlen(hash));
	explicit_bzero(auth->crypt->output, sizeof(auth->crypt->output));
	pthread_mutex_unlock(&auth->bcrypt_lock);
	return match;
}

/* The configured hash of @user, or NULL. */
static const char *hash_of(const struct web_auth *auth, const char *user)
{
	const char *hash = NULL;
	size_t i;

	/* every user is compared: no early exit */
	for (i = 0; i < auth->config->nr_users; i++)
		if (!strcmp(auth->config->users[i].name, user))
			hash = auth->config->users[i].hash;
	return hash;
}

bool web_auth_remembered(struct web_auth *auth, const char *user, const char *password)
{
	uint8_t mac[MAC_SIZE];
	bool found;

	if (!user || !password || !hash_of(auth, user) ||
	    credentials_mac(auth, user, password, mac))
		return false;
	found = cache_find(auth, mac, clock_ns(CLOCK_MONOTONIC));
	explicit_bzero(mac, sizeof(mac));
	return found;
}

bool web_auth_check(struct web_auth *auth, const char *user, const char *password)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	const char *hash;
	uint8_t mac[MAC_SIZE];
	bool ok;

	if (!user || !password)
		return false;
	hash = hash_of(auth, user);
	if (credentials_mac(auth, user, password, mac))
		return false;
	if (hash && cache_find(auth, mac, now))
		return true;
	ok = bcrypt_matches(auth, password, hash ? hash : auth->dummy_hash) && hash;
	if (ok)
		cache_add(auth, mac, now);
	explicit_bzero(mac, sizeof(mac));
	return ok;
}

unsigned long web_auth_bcrypt_count(const struct web_auth *auth)
{
	return __atomic_load_n(&auth->bcrypts, __ATOMIC_RELAXED);
}

void web_auth_free(struct web_auth *auth)
{
	if (!auth)
		return;
	pthread_mutex_destroy(&auth->cache_lock);
	pthread_mutex_destroy(&auth->bcrypt_lock);
	free(auth->crypt);
	explicit_bzero(auth, sizeof(*auth));
	free(auth);
}
