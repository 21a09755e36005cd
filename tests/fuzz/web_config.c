// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --web-config: the exporter-toolkit's YAML (tls_server_config with the
 * files it names, basic_auth_users with bcrypt hashes), written as
 * web.yml beside the fixture certificates of tests/data/web, so the names
 * the seeds use (server.crt, server.key) load. A configuration that loads
 * is used as the exporter uses it: its TLS priorities, and a password
 * check of each user (only for cheap hashes: a bcrypt of cost 12 takes a
 * quarter of a second, and the cost is the file's to choose).
 */
#include "fuzz.h"
#include "latscope/web_config.h"

#define CHEAP_COST 6

/* the fixture certificates and keys, copied into the tree once */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[] = { "server.crt", "server.key", "other.crt", "other.key" };
	char path[512], *text;
	size_t i, size;
	FILE *f;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/web/%s", FUZZ_DATA_DIR, names[i]);
		f = fopen(path, "r");
		if (!f)
			abort();
		text = malloc(1 << 16);
		size = text ? fread(text, 1, 1 << 16, f) : 0;
		fclose(f);
		if (!size)
			abort();
		fuzz_put(names[i], text, size);
		free(text);
	}
	return 0;
}

static bool cheap(const char *hash)
{
	return hash[4] == '0' && hash[5] >= '4' && hash[5] <= '0' + CHEAP_COST;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config *config;
	struct web_auth *auth;
	char path[512], priorities[128];
	size_t i;

	fuzz_put("web.yml", data, size);
	snprintf(path, sizeof(path), "%s/web.yml", fuzz_tree());
	if (web_config_load(path, &config))
		return 0;
	web_config_priorities(config, priorities, sizeof(priorities));
	if (strncmp(priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.", 28))
		abort();
	if (config->tls && (!config->cert_pem || !config->key_pem))
		abort();
	for (i = 0; i < config->nr_users; i++)
		if (!config->users[i].name || strlen(config->users[i].hash) != 60 ||
		    !cheap(config->users[i].hash))
			break;
	if (i == config->nr_users) {
		auth = web_auth_new(config);
		if (!auth)
			abort();
		for (i = 0; i < config->nr_users && i < 2; i++)
			web_auth_check(auth, config->users[i].name, "password");
		if (web_auth_check(auth, "no such user", "password"))
			abort();
		web_auth_free(auth);
	}
	web_config_free(config);
	return 0;
}
