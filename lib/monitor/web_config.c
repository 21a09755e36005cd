// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <gnutls/gnutls.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "latscope/input_file.h"
#include "latscope/log.h"
#include "latscope/web_config.h"

/* What a load needs to report errors: the file, and the document read. */
struct loader {
	const char *path;
	char *dir; /* relative paths in the file are relative to it */
	yaml_document_t doc;
	struct web_config *config;
};

static int fail_at(struct loader *l, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct loader *l, const yaml_node_t *node, const char *fmt, ...)
{
	char what[512];
	va_list args;

	va_start(args, fmt);
	vsnprintf(what, sizeof(what), fmt, args);
	va_end(args);
	if (node)
		log_error("web config %s: line %lu: %s", l->path,
			  (unsigned long)node->start_mark.line + 1, what);
	else
		log_error("web config %s: %s", l->path, what);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *node)
{
	return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value :
							NULL;
}

/*
 * A whole file into memory, NUL-terminated: a regular file of at most
 * @max_bytes (input_file.h). Returns 0, or a negative errno code with
 * @why said.
 */
static int read_whole(const char *path, uint64_t max_bytes, char **text, size_t *len, char *why,
		      size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = input_file_open(path, max_bytes, &st);

	*text = NULL;
	if (fd < 0) {
		input_file_describe(fd, &st, max_bytes, why, size);
		return fd;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		snprintf(why, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	n = read(fd, *text, (size_t)st.st_size + 1);
	close(fd);
	if (n < 0 || n > st.st_size) {
		free(*text);
		*text = NULL;
		snprintf(why, size, "%s", n < 0 ? strerror(errno) : "it grows while read");
		return -EIO;
	}
	(*text)[n] = '\0';
	*len = (size_t)n;
	return 0;
}

/* Read a whole file referred to by the configuration. */
static int read_referenced(struct loader *l, const yaml_node_t *node, const char *name, char **text)
{
	char path[4096], why[128];
	size_t len;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", l->dir, name);
	if (read_whole(path, WEB_REFERENCED_MAX_BYTES, text, &len, why, sizeof(why)))
		return fail_at(l, node, "cannot read %s: %s", path, why);
	if (!len) {
		free(*text);
		*text = NULL;
		return fail_at(l, node, "cannot read %s: it is empty", path);
	}
	return 0;
}

/*
 * A key a mapping gave before @pair: YAML leaves duplicates to the reader,
 * and a value read twice would be the second one silently (and the first
 * one's file left behind).
 */
static const yaml_node_t *given_before(struct loader *l, const yaml_node_t *map,
				       const yaml_node_pair_t *pair)
{
	const char *key = scalar(yaml_document_get_node(&l->doc, pair->key));
	const yaml_node_pair_t *earlier;

	for (earlier = map->data.mapping.pairs.start; key && earlier < pair; earlier++) {
		const char *other = scalar(yaml_document_get_node(&l->doc, earlier->key));

		if (other && !strcmp(other, key))
			return yaml_document_get_node(&l->doc, pair->key);
	}
	return NULL;
}

static int parse_client_auth(struct loader *l, const yaml_node_t *node)
{
	static const char *const names[] = {
		[WEB_CLIENT_NONE] = "NoClientCert",
		[WEB_CLIENT_REQUEST] = "RequestClientCert",
		[WEB_CLIENT_REQUIRE_ANY] = "RequireAnyClientCert",
		[WEB_CLIENT_VERIFY_IF_GIVEN] = "VerifyClientCertIfGiven",
		[WEB_CLIENT_REQUIRE_AND_VERIFY] = "RequireAndVerifyClientCert",
	};
	const char *value = scalar(node);
	size_t i;

	for (i = 0; value && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(value, names[i])) {
			l->config->client_auth = (enum web_client_auth)i;
			return 0;
		}
	}
	return fail_at(l, node,
		       "client_auth_type '%s' is not one of NoClientCert, RequestClientCert, "
		       "RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert",
		       value ? value : "");
}

static int parse_version(struct loader *l, const yaml_node_t *node, const char *key,
			 enum web_tls_version *version)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *value = scalar(node);
	size_t i;

	for (i = 0; value && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(value, names[i])) {
			*version = (enum web_tls_version)i;
			return 0;
		}
	}
	return fail_at(l, node, "%s '%s' is not one of TLS10, TLS11, TLS12, TLS13", key,
		       value ? value : "");
}

/* The certificate and key must load together, as the server will load them. */
static int check_credentials(struct loader *l, const yaml_node_t *node)
{
	struct web_config *c = l->config;
	gnutls_certificate_credentials_t credentials;
	gnutls_datum_t cert = { (unsigned char *)c->cert_pem, (unsigned int)strlen(c->cert_pem) };
	gnutls_datum_t key = { (unsigned char *)c->key_pem, (unsigned int)strlen(c->key_pem) };
	gnutls_datum_t ca;
	int ret;

	if (gnutls_certificate_allocate_credentials(&credentials))
		return -ENOMEM;
	ret = gnutls_certificate_set_x509_key_mem(credentials, &cert, &key, GNUTLS_X509_FMT_PEM);
	if (ret < 0) {
		gnutls_certificate_free_credentials(credentials);
		return fail_at(l, node, "the certificate and key do not load: %s",
			       gnutls_strerror(ret));
	}
	if (c->client_ca_pem) {
		ca.data = (unsigned char *)c->client_ca_pem;
		ca.size = (unsigned int)strlen(c->client_ca_pem);
		ret = gnutls_certificate_set_x509_trust_mem(credentials, &ca, GNUTLS_X509_FMT_PEM);
		if (ret <= 0) {
			gnutls_certificate_free_credentials(credentials);
			return fail_at(l, node, "client_ca_file holds no certificate%s%s",
				       ret < 0 ? ": " : "", ret < 0 ? gnutls_strerror(ret) : "");
		}
	}
	gnutls_certificate_free_credentials(credentials);
	return 0;
}

static int parse_tls(struct loader *l, const yaml_node_t *map)
{
	struct web_config *c = l->config;
	yaml_node_pair_t *pair;
	const char *key;
	int ret = 0;

	if (map->type != YAML_MAPPING_NODE)
		return fail_at(l, map, "tls_server_config must be a mapping");
	c->tls = true;
	c->min_version = WEB_TLS12;
	c->max_version = WEB_TLS13;
	for (pair = map->data.mapping.pairs.start; !ret && pair < map->data.mapping.pairs.top;
	     pair++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, pair->value);

		key = scalar(k);
		if (!key)
			return fail_at(l, k, "a key must be a word");
		if (given_before(l, map, pair))
			return fail_at(l, k, "tls_server_config: %s is given twice", key);
		if (strcmp(key, "cert_file") && strcmp(key, "key_file") &&
		    strcmp(key, "client_ca_file") && strcmp(key, "client_auth_type") &&
		    strcmp(key, "min_version") && strcmp(key, "max_version"))
			return fail_at(l, k, "tls_server_config: %s is not supported", key);
		if (!scalar(v))
			return fail_at(l, v, "%s must be a single value", key);
		if (!strcmp(key, "cert_file"))
			ret = read_referenced(l, v, scalar(v), &c->cert_pem);
		else if (!strcmp(key, "key_file"))
			ret = read_referenced(l, v, scalar(v), &c->key_pem);
		else if (!strcmp(key, "client_ca_file"))
			ret = read_referenced(l, v, scalar(v), &c->client_ca_pem);
		else if (!strcmp(key, "client_auth_type"))
			ret = parse_client_auth(l, v);
		else if (!strcmp(key, "min_version"))
			ret = parse_version(l, v, key, &c->min_version);
		else
			ret = parse_version(l, v, key, &c->max_version);
	}
	if (ret)
		return ret;
	if (!c->cert_pem || !c->key_pem)
		return fail_at(l, map, "tls_server_config needs cert_file and key_file");
	if (c->min_version > c->max_version)
		return fail_at(l, map, "min_version is above max_version");
	if ((c->client_auth == WEB_CLIENT_VERIFY_IF_GIVEN ||
	     c->client_auth == WEB_CLIENT_REQUIRE_AND_VERIFY) &&
	    !c->client_ca_pem)
		return fail_at(l, map,
			       "client_auth_type verifies client certificates: it needs "
			       "client_ca_file");
	return check_credentials(l, map);
}

/* bcrypt: $2a$, $2b$ or $2y$, a two-digit cost, 22 salt and 31 hash characters. */
static bool bcrypt_well_formed(const char *hash)
{
	static const char alphabet[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	if (strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' || !strchr("aby", hash[2]) ||
	    hash[3] != '$' || hash[6] != '$')
		return false;
	if (hash[4] < '0' || hash[4] > '9' || hash[5] < '0' || hash[5] > '9')
		return false;
	return strspn(hash + 7, alphabet) == 53;
}

unsigned int web_bcrypt_cost(const char *hash)
{
	return (unsigned int)((hash[4] - '0') * 10 + hash[5] - '0');
}

static int parse_users(struct loader *l, const yaml_node_t *map)
{
	struct web_config *c = l->config;
	yaml_node_pair_t *pair;
	size_t n;

	if (map->type != YAML_MAPPING_NODE)
		return fail_at(l, map, "basic_auth_users must be a mapping of user: bcrypt hash");
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	c->users = calloc(n + 1, sizeof(*c->users));
	if (!c->users)
		return -ENOMEM;
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, pair->value);
		const char *name = scalar(k), *hash = scalar(v);

		if (!name || !*name || strchr(name, ':'))
			return fail_at(l, k, "a user name must be a word without ':'");
		if (!hash || !bcrypt_well_formed(hash))
			return fail_at(
				l, v,
				"the password of %s is not a bcrypt hash ($2a$, $2b$ or $2y$, "
				"a cost, 53 characters of salt and hash)",
				name);
		/*
		 * Each step of the cost doubles a check (cost 10 takes about 0.1 s,
		 * 14 about 1.5 s, 31 days): a scrape must not wait for one, and a
		 * monitor must not spin at start preparing one.
		 */
		if (web_bcrypt_cost(hash) < WEB_BCRYPT_MIN_COST ||
		    web_bcrypt_cost(hash) > WEB_BCRYPT_MAX_COST)
			return fail_at(
				l, v,
				"the password of %s has bcrypt cost %u: it must be %d-%d (each "
				"step doubles the time of a check; 10 is usual)",
				name, web_bcrypt_cost(hash), WEB_BCRYPT_MIN_COST,
				WEB_BCRYPT_MAX_COST);
		if (given_before(l, map, pair))
			return fail_at(l, k, "user %s is given twice", name);
		c->users[c->nr_users].name = strdup(name);
		c->users[c->nr_users].hash = strdup(hash);
		c->nr_users++;
		if (!c->users[c->nr_users - 1].name || !c->users[c->nr_users - 1].hash)
			return -ENOMEM;
	}
	return 0;
}

static int parse_root(struct loader *l)
{
	yaml_node_t *root = yaml_document_get_root_node(&l->doc);
	yaml_node_pair_t *pair;
	int ret = 0;

	/* an empty file configures nothing, as in the toolkit */
	if (!root || (root->type == YAML_SCALAR_NODE && !root->data.scalar.length))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail_at(l, root,
			       "the file must be a mapping (tls_server_config, "
			       "basic_auth_users)");
	for (pair = root->data.mapping.pairs.start; !ret && pair < root->data.mapping.pairs.top;
	     pair++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, pair->value);
		const char *key = scalar(k);

		if (!key)
			return fail_at(l, k, "a key must be a word");
		if (given_before(l, root, pair))
			return fail_at(l, k, "%s is given twice", key);
		/* "key:" with nothing after it is an empty scalar: nothing set */
		if (v->type == YAML_SCALAR_NODE && !v->data.scalar.length)
			continue;
		if (!strcmp(key, "tls_server_config"))
			ret = parse_tls(l, v);
		else if (!strcmp(key, "basic_auth_users"))
			ret = parse_users(l, v);
		else
			ret = fail_at(l, k,
				      "%s is not supported (tls_server_config and "
				      "basic_auth_users are)",
				      key);
	}
	return ret;
}

/*
 * The nesting of the document, from libyaml's events, before it is loaded:
 * a file nested thousands of levels deep takes libyaml time quadratic in
 * the depth, and no configuration is more than a few levels deep. Returns
 * 0 or -EINVAL after one line.
 */
static int check_depth(const char *path, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t event;
	int depth = 0, ret = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&parser, &event))
			break; /* malformed: the load says where */
		if (event.type == YAML_SEQUENCE_START_EVENT ||
		    event.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (event.type == YAML_SEQUENCE_END_EVENT ||
			 event.type == YAML_MAPPING_END_EVENT)
			depth--;
		done = event.type == YAML_STREAM_END_EVENT;
		if (depth > WEB_CONFIG_MAX_DEPTH) {
			log_error("web config %s: line %lu: nested more than %d levels deep", path,
				  (unsigned long)event.start_mark.line + 1, WEB_CONFIG_MAX_DEPTH);
			ret = -EINVAL;
		}
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	return ret;
}

int web_config_load(const char *path, struct web_config **configp)
{
	struct loader l = { .path = path };
	yaml_parser_t parser;
	char *copy, *text, why[128];
	size_t len;
	int ret;

	*configp = NULL;
	ret = read_whole(path, WEB_CONFIG_MAX_BYTES, &text, &len, why, sizeof(why));
	if (ret) {
		log_error("web config %s: cannot read it: %s", path, why);
		return ret;
	}
	ret = check_depth(path, text, len);
	if (ret) {
		free(text);
		return ret;
	}
	copy = strdup(path);
	l.config = calloc(1, sizeof(*l.config));
	if (!copy || !l.config || !yaml_parser_initialize(&parser)) {
		free(text);
		free(copy);
		free(l.config);
		return -ENOMEM;
	}
	l.dir = strdup(dirname(copy));
	free(copy);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &l.doc)) {
		log_error("web config %s: line %lu: malformed YAML: %s", path,
			  (unsigned long)parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "parse error");
		ret = -EINVAL;
		yaml_parser_delete(&parser);
		goto out;
	}
	yaml_parser_delete(&parser);
	ret = l.dir ? parse_root(&l) : -ENOMEM;
	yaml_document_delete(&l.doc);
out:
	free(text);
	free(l.dir);
	if (ret) {
		web_config_free(l.config);
		return ret;
	}
	*configp = l.config;
	return 0;
}

void web_config_free(struct web_config *config)
{
	size_t i;

	if (!config)
		return;
	for (i = 0; i < config->nr_users; i++) {
		free(config->users[i].name);
		free(config->users[i].hash);
	}
	free(config->users);
	free(config->cert_pem);
	if (config->key_pem) {
		/* a private key does not outlive its use in memory */
		explicit_bzero(config->key_pem, strlen(config->key_pem));
		free(config->key_pem);
	}
	free(config->client_ca_pem);
	free(config);
}

char *web_config_priorities(const struct web_config *config, char *buf, size_t size)
{
	static const char *const names[] = { "+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2",
					     "+VERS-TLS1.3" };
	size_t used;
	int v;

	used = (size_t)snprintf(buf, size, "NORMAL:-VERS-ALL");
	for (v = (int)config->max_version; v >= (int)config->min_version && used < size; v--)
		used += (size_t)snprintf(buf + used, size - used, ":%s", names[v]);
	return buf;
}
