// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "latscope/3");
	ck_assert(result_schema_readable(doc));
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
	ck_assert_str_eq(json_string_value(json_object_get(host, "isolated_cpus")), "2-3,6-7");
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

/* the path rules are atomic_file's (test_atomic_file.c): a document follows them */
START_TEST(atomic_write)
{
	char dir[] = "/tmp/latscope-result-XXXXXX", path[256];
	json_t *doc = json_pack("{s:i}", "answer", 42), *back;
	json_error_t error;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	ck_assert_int_eq(result_write(doc, path), 0);
	back = json_load_file(path, 0, &error);
	ck_assert_int_eq(json_integer_value(json_object_get(back, "answer")), 42);
	ck_assert_int_eq(result_write(doc, "/nonexistent/dir/out.json"), -ENOENT);
	ck_assert_int_eq(result_write(doc, dir), -EISDIR);
	json_decref(back);
	json_decref(doc);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(cpu_sets_are_cpu_lists)
{
	struct cpuset set, back;
	json_t *value;
	size_t len;
	int cpu;

	cpuset_clear(&set);
	value = result_cpuset(&set);
	ck_assert_str_eq(json_string_value(value), "");
	json_decref(value);
	ck_assert_int_eq(cpuset_parse_list("0-3,8-11", &set), 0);
	value = result_cpuset(&set);
	ck_assert_str_eq(json_string_value(value), "0-3,8-11");
	ck_assert_int_eq(result_read_cpuset(value, &back), 0);
	ck_assert(cpuset_equal(&set, &back));
	json_decref(value);
	/* the longest list there is: never cut short */
	cpuset_clear(&set);
	for (cpu = 0; cpu < CPUSET_MAX_CPUS; cpu++)
		if (cpu % 3 != 2)
			cpuset_add(&set, (unsigned int)cpu);
	value = result_cpuset(&set);
	len = strlen(json_string_value(value));
	ck_assert_uint_eq(len, 26568);
	ck_assert_ptr_null(strstr(json_string_value(value), "..."));
	ck_assert_int_eq(result_read_cpuset(value, &back), 0);
	ck_assert(cpuset_equal(&set, &back));
	json_decref(value);
}
END_TEST

START_TEST(latscope_1_documents_are_read)
{
	json_t *doc = json_loads("{\"schema\": \"latscope/1\", \"rt_cpus\": [2, 3, 8],"
				 " \"none\": [], \"bad\": [1, \"x\"], \"neg\": [-1],"
				 " \"big\": [8192]}",
				 0, NULL);
	json_t *other = json_loads("{\"schema\": \"latscope/4\"}", 0, NULL);
	struct cpuset set, want;

	ck_assert(result_schema_readable(doc));
	ck_assert(!result_schema_readable(other));
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "rt_cpus"), &set), 0);
	ck_assert_int_eq(cpuset_parse_list("2-3,8", &want), 0);
	ck_assert(cpuset_equal(&set, &want));
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "none"), &set), 0);
	ck_assert(cpuset_empty(&set));
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "bad"), &set), -EINVAL);
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "neg"), &set), -EINVAL);
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "big"), &set), -ERANGE);
	ck_assert_int_eq(result_read_cpuset(json_object_get(doc, "schema"), &set), -EINVAL);
	ck_assert_int_eq(result_read_cpuset(NULL, &set), -EINVAL);
	json_decref(doc);
	json_decref(other);
}
END_TEST

/* A scratch directory. */
static void scratch(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/latscope-result-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static char *slurp(const char *path)
{
	static char text[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	n = read(fd, text, sizeof(text) - 1);
	ck_assert_int_ge(n, 0);
	text[n] = '\0';
	close(fd);
	return text;
}

START_TEST(compact_in_files_pretty_on_request)
{
	json_t *doc = json_pack("{s:i, s:[i, i]}", "answer", 42, "list", 1, 2);
	char dir[64], path[128];

	scratch(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	/* a file is not a terminal: one line */
	ck_assert_int_eq(result_write(doc, path), 0);
	ck_assert_str_eq(slurp(path), "{\"answer\":42,\"list\":[1,2]}\n");
	ck_assert_int_eq(result_write_as(doc, path, RESULT_LAYOUT_COMPACT), 0);
	ck_assert_str_eq(slurp(path), "{\"answer\":42,\"list\":[1,2]}\n");
	ck_assert_int_eq(result_write_as(doc, path, RESULT_LAYOUT_PRETTY), 0);
	ck_assert_str_eq(slurp(path),
			 "{\n  \"answer\": 42,\n  \"list\": [\n    1,\n    2\n  ]\n}\n");
	ck_assert_uint_eq(unit_count_entries(dir), 1);
	json_decref(doc);
	unit_remove_tree(dir);
}
END_TEST

START_TEST(large_document_round_trip)
{
	json_t *doc = json_array(), *back;
	char dir[64], path[128];
	json_error_t error;
	struct stat st;
	int i;

	/* several buffers' worth: the pieces must join up at every boundary */
	for (i = 0; i < 100000; i++)
		json_array_append_new(doc, json_pack("{s:i, s:s}", "n", i, "t", "0-1023"));
	scratch(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.json", dir);
	ck_assert_int_eq(result_write(doc, path), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 4 * 65536);
	back = json_load_file(path, 0, &error);
	ck_assert_ptr_nonnull(back);
	ck_assert(json_equal(doc, back));
	json_decref(back);
	json_decref(doc);
	unit_remove_tree(dir);
}
END_TEST

START_TEST(devices_are_written_in_place)
{
	json_t *doc = json_pack("{s:i}", "answer", 42);

	ck_assert_int_eq(result_write(doc, "/dev/null"), 0);
	/* a device that is always full: the error comes back, once */
	ck_assert_int_eq(result_write(doc, "/dev/full"), -ENOSPC);
	json_decref(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("result");

	/* the large document takes 3 s under the sanitizers on a quiet 2-vCPU
	 * VM, past Check's 4 s default once the machine is busy */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, document_envelope);
	tcase_add_test(tc, host_facts_from_a_fixture);
	tcase_add_test(tc, histogram_and_percentiles);
	tcase_add_test(tc, atomic_write);
	tcase_add_test(tc, cpu_sets_are_cpu_lists);
	tcase_add_test(tc, latscope_1_documents_are_read);
	tcase_add_test(tc, compact_in_files_pretty_on_request);
	tcase_add_test(tc, large_document_round_trip);
	tcase_add_test(tc, devices_are_written_in_place);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
