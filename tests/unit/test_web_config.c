// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/web_config.h"
#include "unit.h"

#define WEB(name) TEST_DATA_DIR "/web/" name

static char last_message[1024];
static int nr_messages;

static void remember(enum log_level level, const char *message)
{
	(void)level;
	snprintf(last_message, sizeof(last_message), "%s", message);
	nr_messages++;
}

static int load(const char *path, struct web_config **config)
{
	last_message[0] = '\0';
	nr_messages = 0;
	log_set_hook(remember);
	return web_config_load(path, config);
}

START_TEST(good_config_loads_tls_and_users)
{
	struct web_config *c;
	char priorities[160];

	ck_assert_int_eq(load(WEB("good.yml"), &c), 0);
	ck_assert_int_eq(nr_messages, 0);
	ck_assert(c->tls);
	ck_assert_ptr_nonnull(strstr(c->cert_pem, "BEGIN CERTIFICATE"));
	ck_assert_ptr_nonnull(strstr(c->key_pem, "PRIVATE KEY"));
	ck_assert_ptr_nonnull(c->client_ca_pem);
	ck_assert_int_eq(c->client_auth, WEB_CLIENT_VERIFY_IF_GIVEN);
	ck_assert_int_eq(c->min_version, WEB_TLS12);
	ck_assert_int_eq(c->max_version, WEB_TLS13);
	ck_assert_uint_eq(c->nr_users, 2);
	ck_assert_str_eq(c->users[0].name, "prometheus");
	ck_assert_str_eq(c->users[1].name, "alice");
	ck_assert_str_eq(web_config_priorities(c, priorities, sizeof(priorities)),
			 "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
	web_config_free(c);
}
END_TEST

START_TEST(empty_config_sets_nothing)
{
	struct web_config *c;

	ck_assert_int_eq(load(WEB("empty.yml"), &c), 0);
	ck_assert(!c->tls);
	ck_assert_uint_eq(c->nr_users, 0);
	web_config_free(c);
}
END_TEST

/* Each failure: one message naming the file (and the line where there is one). */
static void check_refused(const char *path, int want, const char *words)
{
	struct web_config *c = (struct web_config *)1;

	ck_assert_int_eq(load(path, &c), want);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(nr_messages, 1);
	ck_assert_msg(strstr(last_message, path) != NULL, "no file in: %s", last_message);
	ck_assert_msg(strstr(last_message, words) != NULL, "'%s' not in: %s", words, last_message);
}

START_TEST(missing_file_is_one_line)
{
	check_refused(WEB("no-such-file.yml"), -ENOENT, "No such file");
}
END_TEST

START_TEST(malformed_yaml_names_the_line)
{
	check_refused(WEB("malformed.yml"), -EINVAL, "line 3: malformed YAML");
}
END_TEST

START_TEST(malformed_hash_is_refused)
{
	check_refused(WEB("bad-hash.yml"), -EINVAL, "line 2: the password of prometheus is not");
}
END_TEST

START_TEST(a_costly_hash_is_refused)
{
	/* cost 31: the check at start alone would spin for days */
	check_refused(WEB("costly.yml"), -EINVAL, "bcrypt cost 31: it must be 4-14");
}
END_TEST

/* A file of @text in a scratch directory: its path (static). */
static const char *scratch_file(const char *name, const char *text, size_t repeat)
{
	static char path[256];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "/tmp/latscope-web-%d-%s", (int)getpid(), name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < repeat; i++)
		fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(inputs_are_bounded)
{
	char deep[4096] = "", path[256];
	int i;

	/* over 64 KiB: refused before it is parsed */
	snprintf(path, sizeof(path), "%s", scratch_file("big.yml", "# padding\n", 8000));
	check_refused(path, -EFBIG, "larger than the 64 KiB read");
	unlink(path);
	/* nested 40 levels deep, in a few hundred bytes: refused at level 33 */
	for (i = 0; i < 40; i++)
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "%*sk%d:\n", 2 * i, "",
			 i);
	snprintf(path, sizeof(path), "%s", scratch_file("deep.yml", deep, 1));
	check_refused(path, -EINVAL, "line 33: nested more than 32 levels deep");
	unlink(path);
	/* a FIFO is refused, not waited on; a device is not read */
	snprintf(path, sizeof(path), "/tmp/latscope-web-%d-fifo", (int)getpid());
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	check_refused(path, -EINVAL, "a FIFO, not a regular file");
	unlink(path);
	check_refused("/dev/zero", -EINVAL, "a character device, not a regular file");
}
END_TEST

START_TEST(unknown_keys_are_refused_by_name)
{
	check_refused(WEB("unknown-key.yml"), -EINVAL, "cipher_suites is not supported");
}
END_TEST

/* found by fuzzing: the second value replaced the first, whose file leaked */
START_TEST(keys_given_twice_are_refused)
{
	check_refused(WEB("key-twice.yml"), -EINVAL,
		      "line 5: tls_server_config: key_file is given twice");
	check_refused(WEB("section-twice.yml"), -EINVAL, "line 4: basic_auth_users is given twice");
}
END_TEST

START_TEST(mismatched_key_is_refused)
{
	check_refused(WEB("mismatch.yml"), -EINVAL, "do not load");
}
END_TEST

START_TEST(verification_needs_a_ca)
{
	check_refused(WEB("verify-without-ca.yml"), -EINVAL, "needs client_ca_file");
}
END_TEST

START_TEST(credentials_are_checked_and_successes_remembered)
{
	struct web_config *c;
	struct web_auth *auth;
	unsigned long before;

	ck_assert_int_eq(load(WEB("good.yml"), &c), 0);
	auth = web_auth_new(c);
	ck_assert_ptr_nonnull(auth);
	ck_assert(web_auth_check(auth, "prometheus", "secret"));
	before = web_auth_bcrypt_count(auth);
	/* remembered: no second bcrypt */
	ck_assert(web_auth_check(auth, "prometheus", "secret"));
	ck_assert_uint_eq(web_auth_bcrypt_count(auth), before);
	/* and said so without one, for the server's threads */
	ck_assert(web_auth_remembered(auth, "prometheus", "secret"));
	ck_assert(!web_auth_remembered(auth, "prometheus", "Secret"));
	ck_assert(!web_auth_remembered(auth, "alice", "secret"));
	ck_assert(!web_auth_remembered(auth, "mallory", "secret"));
	ck_assert_uint_eq(web_auth_bcrypt_count(auth), before);
	/* $2y$ is the same algorithm */
	ck_assert(web_auth_check(auth, "alice", "secret"));
	/* a wrong password costs a bcrypt each time and is never remembered */
	ck_assert(!web_auth_check(auth, "prometheus", "Secret"));
	ck_assert(!web_auth_check(auth, "prometheus", "Secret"));
	ck_assert_uint_eq(web_auth_bcrypt_count(auth), before + 3);
	/* a success of one user is not another's */
	ck_assert(!web_auth_check(auth, "alice", "secretX"));
	/* unknown users cost a bcrypt too: their answer takes as long */
	before = web_auth_bcrypt_count(auth);
	ck_assert(!web_auth_check(auth, "mallory", "secret"));
	ck_assert_uint_eq(web_auth_bcrypt_count(auth), before + 1);
	ck_assert(!web_auth_check(auth, "", ""));
	ck_assert(!web_auth_check(auth, NULL, "secret"));
	web_auth_free(auth);
	web_config_free(c);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("web_config");
	TCase *parse = tcase_create("parse"), *auth = tcase_create("auth");

	tcase_add_test(parse, good_config_loads_tls_and_users);
	tcase_add_test(parse, empty_config_sets_nothing);
	tcase_add_test(parse, missing_file_is_one_line);
	tcase_add_test(parse, malformed_yaml_names_the_line);
	tcase_add_test(parse, malformed_hash_is_refused);
	tcase_add_test(parse, a_costly_hash_is_refused);
	tcase_add_test(parse, inputs_are_bounded);
	tcase_add_test(parse, unknown_keys_are_refused_by_name);
	tcase_add_test(parse, mismatched_key_is_refused);
	tcase_add_test(parse, keys_given_twice_are_refused);
	tcase_add_test(parse, verification_needs_a_ca);
	tcase_set_timeout(auth, 30);
	tcase_add_test(auth, credentials_are_checked_and_successes_remembered);
	suite_add_tcase(suite, parse);
	suite_add_tcase(suite, auth);
	return unit_run(suite);
}
