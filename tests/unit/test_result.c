// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/result.h"
#include "unit.h"

START_TEST(document_envelope)
{
	char *argv[] = { "noise", "--cpus", "1" };
	json_t *doc = result_new("noise", 3, argv), *line;

	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "latscope/1");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "command")), "noise");
	line = json_object_get(doc, "command_line");
	ck_assert_uint_eq(json_array_size(line), 4);
	ck_assert_str_eq(json_string_value(json_array_get(line, 0)), "latscope");
	ck_assert_str_eq(json_string_value(json_array_get(line, 3)), "1");
	ck_assert_ptr_nonnull(strchr(json_string_value(json_object_get(doc, "start_time")), 'T'));
	json_decref(doc);
}
END_TEST

START_TEST(host_facts_from_a_fixture)
{
	struct sysroot *root = sysroot_new(FIXTURE("numa2-smt"));
	struct topology topo;
	json_t *host;

	ck_assert_int_eq(topology_load(root, &topo), 0);
	host = result_host_facts(root, &topo);
	ck_assert_str_eq(json_string_value(json_object_get(host, "cpu_model")),
			 "Fixture CPU @ 2.0GHz");
	ck_assert_str_eq(json_string_value(json_object_get(host, "virtualization")), "none");
	ck_assert_uint_eq(json_array_size(json_object_get(host, "isolated_cpus")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(host, "numa_nodes")), 2);
	ck_assert(json_is_null(json_object_get(host, "clocksource")));
	json_decref(host);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

START_TEST(histogram_and_percentiles)
{
	struct hist h;
	json_t *p, *hist, *buckets;
	int i;

	hist_init(&h);
	for (i = 1; i <= 1000; i++)
		hist_add(&h, (uint64_t)i);
	hist_add(&h, 20000000000ULL);
	p = result_percentiles(&h);
	ck_assert_uint_eq(json_object_size(p), 6);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "p50")), 500);
	ck_assert_ptr_nonnull(json_object_get(p, "p99.999"));
	hist = result_histogram(&h);
	buckets = json_object_get(hist, "buckets");
	ck_assert_int_eq(json_integer_value(json_object_get(hist, "overflow")), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(buckets, 0), 2)), 1);
	json_decref(p);
	json_decref(hist);
}
END_TEST

START_TEST(atomic_write_and_early_check)
{
	char dir[] = "/tmp/latscope-result-XXXXXX", path[256], readonly[256];
	json_t *doc = json_pack("{s:i}", "answer", 42), *back;
	json_error_t error;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	ck_assert_int_eq(result_check_writable(path), 0);
	ck_assert_int_eq(result_write(doc, path), 0);
	back = json_load_file(path, 0, &error);
	ck_assert_int_eq(json_integer_value(json_object_get(back, "answer")), 42);
	ck_assert_int_eq(result_check_writable("/nonexistent/dir/out.json"), -ENOENT);
	ck_assert_int_eq(result_write(doc, "/nonexistent/dir/out.json"), -ENOENT);
	snprintf(readonly, sizeof(readonly), "%s/sub", dir);
	mkdir(readonly, 0555);
	snprintf(path, sizeof(path), "%s/sub/out.json", dir);
	/* root writes anywhere: only check the refusal as an ordinary user */
	if (geteuid())
		ck_assert_int_eq(result_check_writable(path), -EACCES);
	json_decref(back);
	json_decref(doc);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	rmdir(readonly);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("result");

	tcase_add_test(tc, document_envelope);
	tcase_add_test(tc, host_facts_from_a_fixture);
	tcase_add_test(tc, histogram_and_percentiles);
	tcase_add_test(tc, atomic_write_and_early_check);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
