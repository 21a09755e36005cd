// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "latscope/attach_target.h"
#include "unit.h"

/* tests/data/attach/README says what each tree holds */
static struct sysroot *fixture(const char *name)
{
	char dir[512];
	struct sysroot *root;

	snprintf(dir, sizeof(dir), "%s/attach/%s", TEST_DATA_DIR, name);
	root = sysroot_new(dir);
	ck_assert_ptr_nonnull(root);
	return root;
}

static int find(struct sysroot *root, enum attach_by by, const char *value,
		struct attach_threads *out)
{
	struct attach_target target = { .by = by, .value = value };

	return attach_target_find(root, &target, out);
}

/*
 * What a target found as "pid/tid comm, ...", in the list's order: one
 * assertion shows every field and the order at once.
 */
static const char *listing(const struct attach_threads *threads)
{
	static char text[1024];
	size_t used = 0;
	unsigned int i;

	text[0] = '\0';
	for (i = 0; i < threads->nr; i++) {
		const struct attach_thread *t = &threads->threads[i];
		int n = snprintf(text + used, sizeof(text) - used, "%s%d/%d %s", i ? ", " : "",
				 (int)t->pid, (int)t->tid, t->comm);

		ck_assert_int_lt(n, (int)(sizeof(text) - used));
		used += (size_t)n;
	}
	return text;
}

/* The target is refused with @error and leaves nothing to release. */
static void expect_error(struct sysroot *root, enum attach_by by, const char *value, int error)
{
	/* what a caller's earlier list left: the find must not trust it */
	struct attach_threads out = { .nr = 7 };
	int ret = find(root, by, value, &out);

	ck_assert_msg(ret == error, "%d '%s': expected %s, got %s", (int)by,
		      value ? value : "(null)", strerror(-error), ret ? strerror(-ret) : "threads");
	ck_assert_uint_eq(out.nr, 0);
	ck_assert_ptr_null(out.threads);
}

static void expect_threads(struct sysroot *root, enum attach_by by, const char *value,
			   const char *expected)
{
	struct attach_threads out;

	ck_assert_int_eq(find(root, by, value, &out), 0);
	ck_assert_str_eq(listing(&out), expected);
	attach_threads_release(&out);
}

#define CYCLICTEST "1200/1200 cyclictest, 1200/1201 cyclictest, 1200/1202 cyclictest"
#define LAB CYCLICTEST ", 1300/1303 worker"

START_TEST(pid_names_every_thread_of_the_process)
{
	struct sysroot *root = fixture("host");

	expect_threads(root, ATTACH_PID, "1200", CYCLICTEST);
	/* 1305 was listed but ended before its comm was read */
	expect_threads(root, ATTACH_PID, "1300", "1300/1300 app, 1300/1303 worker");
	expect_threads(root, ATTACH_PID, "1", "1/1 systemd");
	sysroot_free(root);
}
END_TEST

START_TEST(pid_errors)
{
	static const char *const not_ids[] = { "",    "0",	     "-1",	  "+5",
					       " 5",  "5 ",	     "0x10",	  "12a",
					       "1.0", "99999999999", "2147483648" };
	struct sysroot *root = fixture("host");
	size_t i;

	for (i = 0; i < sizeof(not_ids) / sizeof(not_ids[0]); i++)
		expect_error(root, ATTACH_PID, not_ids[i], -EINVAL);
	expect_error(root, ATTACH_PID, NULL, -EINVAL);
	expect_error(root, ATTACH_PID, "4242", -ESRCH);
	/* a thread that leads no process: /proc/1303 opens, but it is --tid's */
	expect_error(root, ATTACH_PID, "1303", -ESRCH);
	/* every thread ended while the process was read */
	expect_error(root, ATTACH_PID, "1500", -ESRCH);
	expect_error(root, ATTACH_PID, "2", -EPERM);
	expect_error(root, ATTACH_PID, "57", -EPERM);
	sysroot_free(root);
}
END_TEST

START_TEST(tid_names_one_thread_of_its_process)
{
	struct sysroot *root = fixture("host");

	expect_threads(root, ATTACH_TID, "1201", "1200/1201 cyclictest");
	expect_threads(root, ATTACH_TID, "1200", "1200/1200 cyclictest");
	expect_threads(root, ATTACH_TID, "1303", "1300/1303 worker");
	sysroot_free(root);
}
END_TEST

START_TEST(tid_errors)
{
	struct sysroot *root = fixture("host");

	expect_error(root, ATTACH_TID, "x", -EINVAL);
	expect_error(root, ATTACH_TID, "0", -EINVAL);
	expect_error(root, ATTACH_TID, "-1201", -EINVAL);
	expect_error(root, ATTACH_TID, "", -EINVAL);
	expect_error(root, ATTACH_TID, "4242", -ESRCH);
	expect_error(root, ATTACH_TID, "1305", -ESRCH);
	expect_error(root, ATTACH_TID, "57", -EPERM);
	expect_error(root, ATTACH_TID, "2", -EPERM);
	sysroot_free(root);
}
END_TEST

START_TEST(comm_names_the_threads_so_named_in_every_process)
{
	struct sysroot *root = fixture("host");

	expect_threads(root, ATTACH_COMM, "cyclictest", CYCLICTEST);
	/* a thread's own name counts, not its process's: app's worker and process 1400 */
	expect_threads(root, ATTACH_COMM, "worker", "1300/1303 worker, 1400/1400 worker");
	expect_threads(root, ATTACH_COMM, "app", "1300/1300 app");
	sysroot_free(root);
}
END_TEST

START_TEST(comm_errors)
{
	struct sysroot *root = fixture("host");

	/* kernel threads are never attached to, whatever their name */
	expect_error(root, ATTACH_COMM, "kworker/1:1", -ENOENT);
	expect_error(root, ATTACH_COMM, "kthreadd", -ENOENT);
	/* exactly: no prefix, no case folding */
	expect_error(root, ATTACH_COMM, "cyclic", -ENOENT);
	expect_error(root, ATTACH_COMM, "Cyclictest", -ENOENT);
	expect_error(root, ATTACH_COMM, "fifteen-letters", -ENOENT);
	expect_error(root, ATTACH_COMM, "sixteen-letters!", -ENAMETOOLONG);
	expect_error(root, ATTACH_COMM, "kworker/u8:2-events_unbound", -ENAMETOOLONG);
	expect_error(root, ATTACH_COMM, "", -EINVAL);
	expect_error(root, ATTACH_COMM, NULL, -EINVAL);
	sysroot_free(root);
}
END_TEST

/* Its kernel thread and its ended thread are left out, the rest sorted. */
START_TEST(cgroup_names_the_threads_it_lists)
{
	static const char *const paths[] = { "/sys/fs/cgroup/lab", "/sys/fs/cgroup/lab/", "lab",
					     "lab/", "/lab" };
	struct sysroot *root = fixture("host");
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		expect_threads(root, ATTACH_CGROUP, paths[i], LAB);
	sysroot_free(root);
}
END_TEST

START_TEST(cgroup_errors)
{
	struct sysroot *root = fixture("host");

	expect_error(root, ATTACH_CGROUP, "nosuch", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "/sys/fs/cgroup/nosuch", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "/proc", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "cpu/lab", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "lab/cgroup.threads", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "empty", -ESRCH);
	expect_error(root, ATTACH_CGROUP, "broken", -EBADMSG);
	expect_error(root, ATTACH_CGROUP, "", -EINVAL);
	expect_error(root, ATTACH_CGROUP, NULL, -EINVAL);
	sysroot_free(root);
}
END_TEST

/* v1 controllers in /sys/fs/cgroup, v2 in /sys/fs/cgroup/unified */
START_TEST(cgroup_on_the_hybrid_layout)
{
	static const char *const paths[] = { "/sys/fs/cgroup/unified/rt", "unified/rt", "rt",
					     "/rt" };
	struct sysroot *root = fixture("hybrid");
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		expect_threads(root, ATTACH_CGROUP, paths[i], "700/700 rt-app, 700/701 rt-app");
	/* a path in /sys/fs/cgroup is taken as it is: cpu/rt is cgroup v1 */
	expect_error(root, ATTACH_CGROUP, "/sys/fs/cgroup/rt", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "cpu/rt", -ENOTDIR);
	expect_error(root, ATTACH_CGROUP, "/sys/fs/cgroup/cpu/rt", -ENOTDIR);
	sysroot_free(root);
}
END_TEST

/* In a pid namespace process 2 is the user's: "Kthread: 0" says so. */
START_TEST(kthread_line_decides_over_pid_2)
{
	struct sysroot *root = fixture("container");

	expect_threads(root, ATTACH_PID, "2", "2/2 server, 2/3 server-io");
	expect_threads(root, ATTACH_TID, "3", "2/3 server-io");
	expect_threads(root, ATTACH_COMM, "helper", "9/9 helper");
	expect_threads(root, ATTACH_PID, "9", "9/9 helper");
	sysroot_free(root);
}
END_TEST

START_TEST(bad_targets)
{
	struct attach_target unknown = { .by = (enum attach_by)42, .value = "1200" };
	struct sysroot *root = fixture("host");
	struct attach_threads out;

	ck_assert_int_eq(attach_target_find(root, &unknown, &out), -EINVAL);
	ck_assert_uint_eq(out.nr, 0);
	ck_assert_int_eq(attach_target_find(root, NULL, &out), -EINVAL);
	sysroot_free(root);
}
END_TEST

START_TEST(has_searches_the_list)
{
	struct sysroot *root = fixture("host");
	struct attach_threads out;

	ck_assert_int_eq(find(root, ATTACH_CGROUP, "lab", &out), 0);
	ck_assert(attach_threads_has(&out, 1200));
	ck_assert(attach_threads_has(&out, 1202));
	ck_assert(attach_threads_has(&out, 1303));
	ck_assert(!attach_threads_has(&out, 57));
	ck_assert(!attach_threads_has(&out, 1305));
	ck_assert(!attach_threads_has(&out, 0));
	attach_threads_release(&out);
	ck_assert(!attach_threads_has(&out, 1200));
	attach_threads_release(&out);
	sysroot_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attach_target");
	TCase *tc = tcase_create("attach_target");

	tcase_add_test(tc, pid_names_every_thread_of_the_process);
	tcase_add_test(tc, pid_errors);
	tcase_add_test(tc, tid_names_one_thread_of_its_process);
	tcase_add_test(tc, tid_errors);
	tcase_add_test(tc, comm_names_the_threads_so_named_in_every_process);
	tcase_add_test(tc, comm_errors);
	tcase_add_test(tc, cgroup_names_the_threads_it_lists);
	tcase_add_test(tc, cgroup_errors);
	tcase_add_test(tc, cgroup_on_the_hybrid_layout);
	tcase_add_test(tc, kthread_line_decides_over_pid_2);
	tcase_add_test(tc, bad_targets);
	tcase_add_test(tc, has_searches_the_list);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
