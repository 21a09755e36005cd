// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "irq_fixture.h"
#include "latscope/kconfig.h"
#include "unit.h"

static const char sample[] = "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
			     "CONFIG_PREEMPT_RT=y\n"
			     "# CONFIG_NO_HZ_FULL is not set\n"
			     "CONFIG_HZ=1000\n"
			     "CONFIG_CMDLINE=\"quiet splash\"\n"
			     "CONFIG_SOUND=m\n"
			     "# a comment line\n"
			     "garbage that is not an option\n";

static char *copy(const char *text)
{
	char *dup = strdup(text);

	ck_assert_ptr_nonnull(dup);
	return dup;
}

/* gzip @text into @out the way gzip -n does; returns the length */
static size_t gzip_text(const char *text, unsigned char *out, size_t size)
{
	z_stream z = { 0 };

	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)size;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return size - z.avail_out;
}

START_TEST(parses_set_unset_and_values)
{
	struct kconfig config = { 0 };

	ck_assert_int_eq(kconfig_parse(&config, copy(sample)), 0);
	ck_assert_uint_eq(config.nr_entries, 5);
	ck_assert(kconfig_enabled(&config, "PREEMPT_RT"));
	ck_assert(kconfig_enabled(&config, "SOUND"));
	ck_assert(!kconfig_enabled(&config, "NO_HZ_FULL"));
	ck_assert_ptr_nonnull(kconfig_lookup(&config, "NO_HZ_FULL"));
	ck_assert_ptr_null(kconfig_value(&config, "NO_HZ_FULL"));
	/* the exact name: HZ_FULL is not NO_HZ_FULL */
	ck_assert_ptr_null(kconfig_lookup(&config, "HZ_FULL"));
	ck_assert_str_eq(kconfig_value(&config, "HZ"), "1000");
	ck_assert_str_eq(kconfig_value(&config, "CMDLINE"), "\"quiet splash\"");
	ck_assert_ptr_null(kconfig_lookup(&config, "PREEMPT"));
	kconfig_release(&config);
}
END_TEST

START_TEST(text_without_options_is_rejected)
{
	struct kconfig config = { 0 };

	ck_assert_int_eq(kconfig_parse(&config, copy("hello\nworld\n")), -EBADMSG);
	kconfig_release(&config);
	ck_assert_int_eq(kconfig_parse(&config, copy("")), -EBADMSG);
	kconfig_release(&config);
}
END_TEST

START_TEST(inflates_gzip_and_rejects_the_rest)
{
	unsigned char gz[4096];
	char *text;
	size_t len = gzip_text(sample, gz, sizeof(gz));

	ck_assert_int_eq(kconfig_inflate(gz, len, &text), 0);
	ck_assert_str_eq(text, sample);
	free(text);
	/* truncated: the stream never ends */
	ck_assert_int_eq(kconfig_inflate(gz, len / 2, &text), -EBADMSG);
	/* a flipped byte in the deflate data fails the data or CRC check */
	gz[len / 2] ^= 0x55;
	ck_assert_int_eq(kconfig_inflate(gz, len, &text), -EBADMSG);
	/* plain text is not taken for gzip */
	ck_assert_int_eq(kconfig_inflate(sample, strlen(sample), &text), -EBADMSG);
	ck_assert_int_eq(kconfig_inflate("", 0, &text), -EBADMSG);
}
END_TEST

/* load a fixture's configuration and check where it came from and one option */
static void check_loads(const char *fixture, const char *source, const char *option)
{
	struct sysroot *root = sysroot_new(fixture);
	struct kconfig config;

	ck_assert_int_eq(kconfig_load(root, &config), 0);
	ck_assert_str_eq(config.source, source);
	ck_assert(kconfig_enabled(&config, option));
	kconfig_release(&config);
	sysroot_free(root);
}

START_TEST(loads_proc_config_gz)
{
	check_loads(FIXTURE("check-rt-box"), "/proc/config.gz", "PREEMPT_RT");
}
END_TEST

START_TEST(falls_back_to_boot_config)
{
	check_loads(FIXTURE("check-workstation"), "/boot/config-6.8.0-45-generic", "PROVE_LOCKING");
}
END_TEST

START_TEST(corrupt_config_gz_says_why)
{
	struct fixture_copy tree;
	struct sysroot *root;
	struct kconfig config;

	fixture_copy(&tree, FIXTURE("check-rt-box"));
	fixture_put(&tree, "proc/config.gz", "\x1f\x8b not really gzip");
	root = sysroot_new(tree.dir);
	ck_assert_int_eq(kconfig_load(root, &config), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(config.why, "/proc/config.gz: not a kernel configuration"));
	ck_assert_ptr_nonnull(strstr(config.why, "/boot/config-6.12.0-rt5: absent"));
	kconfig_release(&config);
	sysroot_free(root);
	fixture_remove(&tree);
}
END_TEST

START_TEST(missing_everywhere_is_enoent)
{
	struct sysroot *root = sysroot_new(FIXTURE("numa2-smt"));
	struct kconfig config;

	ck_assert_int_eq(kconfig_load(root, &config), -ENOENT);
	ck_assert_ptr_nonnull(strstr(config.why, "absent"));
	kconfig_release(&config);
	sysroot_free(root);
}
END_TEST

START_TEST(live_machine_config_if_any)
{
	struct sysroot *root = sysroot_new(NULL);
	struct kconfig config;
	int ret = kconfig_load(root, &config);

	/* a live kernel may ship no configuration; when it does, it parses */
	ck_assert(ret == 0 || ret == -ENOENT || ret == -EACCES);
	if (!ret)
		ck_assert_uint_gt(config.nr_entries, 100);
	kconfig_release(&config);
	sysroot_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kconfig");
	TCase *tc = tcase_create("kconfig");

	tcase_add_test(tc, parses_set_unset_and_values);
	tcase_add_test(tc, text_without_options_is_rejected);
	tcase_add_test(tc, inflates_gzip_and_rejects_the_rest);
	tcase_add_test(tc, loads_proc_config_gz);
	tcase_add_test(tc, falls_back_to_boot_config);
	tcase_add_test(tc, corrupt_config_gz_says_why);
	tcase_add_test(tc, missing_everywhere_is_enoent);
	tcase_add_test(tc, live_machine_config_if_any);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
