// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "latscope/sysroot.h"
#include "unit.h"

static char scratch[256];

static void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/latscope-sysroot-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void remove_scratch(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	unlink(path);
}

START_TEST(reads_under_the_root)
{
	struct sysroot *root;
	char buf[16];
	long long v;
	struct cpuset set;

	make_scratch();
	put("number", "42\n");
	put("garbage", "4x2\n");
	put("list", "0-3,7\n");
	put("long", "0123456789abcdefghijklmnop\n");
	root = sysroot_new(scratch);
	ck_assert(!sysroot_is_live(root));
	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/%s", "number"), 2);
	ck_assert_str_eq(buf, "42");
	ck_assert_int_eq(sysroot_read_integer(root, &v, "/number"), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(sysroot_read_integer(root, &v, "/garbage"), -EINVAL);
	ck_assert_int_eq(sysroot_read_cpulist(root, &set, "/list"), 0);
	ck_assert_uint_eq(cpuset_count(&set), 5);
	/*
	 * nohz_full of a NO_HZ_FULL 6.1 kernel booted without nohz_full=, on
	 * 4 CPUs and (padded to the width of 8 CPU ids) on 8
	 */
	put("unallocated", "(null)\n");
	ck_assert_int_eq(sysroot_read_cpulist(root, &set, "/unallocated"), 0);
	ck_assert(cpuset_empty(&set));
	put("unallocated", "  (null)\n");
	ck_assert_int_eq(sysroot_read_cpulist(root, &set, "/unallocated"), 0);
	ck_assert(cpuset_empty(&set));
	ck_assert_int_eq(sysroot_read_cpulist(root, &set, "/garbage"), -EINVAL);
	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/long"), -EFBIG);
	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/missing"), -ENOENT);
	ck_assert(sysroot_exists(root, "/list"));
	ck_assert(!sysroot_exists(root, "/missing"));
	ck_assert_int_eq(sysroot_write(root, "1-2\n", "/list"), 0);
	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/list"), 3);
	ck_assert_str_eq(buf, "1-2");
	ck_assert_uint_eq(sysroot_files_read(root), 9);
	sysroot_free(root);
	remove_scratch("number");
	remove_scratch("garbage");
	remove_scratch("list");
	remove_scratch("long");
	remove_scratch("unallocated");
	rmdir(scratch);
}
END_TEST

START_TEST(live_root_is_slash)
{
	struct sysroot *root = sysroot_new("/");
	char path[64];

	ck_assert(sysroot_is_live(root));
	ck_assert_int_eq(sysroot_path(root, path, sizeof(path), "/proc/%s", "cmdline"), 0);
	ck_assert_str_eq(path, "/proc/cmdline");
	sysroot_free(root);
	root = sysroot_new("/tmp/x/");
	ck_assert_int_eq(sysroot_path(root, path, sizeof(path), "/proc/cmdline"), 0);
	ck_assert_str_eq(path, "/tmp/x/proc/cmdline");
	sysroot_free(root);
}
END_TEST

/*
 * A fixture tree may hold anything: a FIFO must not block a read, a device
 * must not be read for ever, a directory is no file and a file past the
 * limit is refused before a byte of it is read.
 */
START_TEST(refuses_what_is_not_a_regular_file)
{
	char path[512], buf[64], *text = NULL;
	struct sysroot *root;
	size_t len;
	int fd;

	make_scratch();
	snprintf(path, sizeof(path), "%s/fifo", scratch);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/zero", scratch);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	snprintf(path, sizeof(path), "%s/dir", scratch);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/huge", scratch);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	/* sparse: a size past the limit without the disk space */
	ck_assert_int_eq(ftruncate(fd, (off_t)SYSROOT_READ_MAX + 1), 0);
	close(fd);
	put("small", "7\n");
	root = sysroot_new(scratch);

	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/fifo"), -SYSROOT_ENOTREG);
	ck_assert_int_eq(sysroot_read_alloc(root, &text, &len, "/fifo"), -SYSROOT_ENOTREG);
	ck_assert_int_eq(sysroot_read_alloc(root, &text, &len, "/zero"), -SYSROOT_ENOTREG);
	ck_assert_int_eq(sysroot_open_file(root, "/zero"), -SYSROOT_ENOTREG);
	ck_assert_int_eq(sysroot_read(root, buf, sizeof(buf), "/dir"), -EISDIR);
	ck_assert_int_eq(sysroot_read_alloc(root, &text, &len, "/huge"), -EFBIG);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(sysroot_strerror(-SYSROOT_ENOTREG), "not a regular file");
	ck_assert_str_eq(sysroot_strerror(-EISDIR), strerror(EISDIR));
	/* refused files are not counted as read */
	ck_assert_uint_eq(sysroot_files_read(root), 0);
	fd = sysroot_open_file(root, "/small");
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(sysroot_files_read(root), 1);
	sysroot_free(root);

	remove_scratch("fifo");
	remove_scratch("zero");
	remove_scratch("huge");
	remove_scratch("small");
	snprintf(path, sizeof(path), "%s/dir", scratch);
	rmdir(path);
	rmdir(scratch);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sysroot");
	TCase *tc = tcase_create("sysroot");

	tcase_add_test(tc, reads_under_the_root);
	tcase_add_test(tc, live_root_is_slash);
	tcase_add_test(tc, refuses_what_is_not_a_regular_file);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
