// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latscope/atomic_file.h"
#include "unit.h"

static char dir[] = "/tmp/latscope-atomic-XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* what the directory holds, hidden temporary files included */
static unsigned int entries(void)
{
	return unit_count_entries(dir);
}

static void teardown(void)
{
	unit_remove_tree(dir);
}
static const char *in_dir(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static const char *get(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(commit_replaces_the_file_whole)
{
	struct atomic_file file;
	char path[PATH_MAX], text[64];

	in_dir("out.txt", path, sizeof(path));
	put(path, "old\n");
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	fprintf(file.stream, "new %d\n", 42);
	/* until the commit, readers see the old file */
	ck_assert_str_eq(get(path, text, sizeof(text)), "old\n");
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	ck_assert_str_eq(get(path, text, sizeof(text)), "new 42\n");
	ck_assert_uint_eq(entries(), 1);
	ck_assert_ptr_null(file.stream);
}
END_TEST

START_TEST(new_file_gets_the_mode_fopen_would_give)
{
	struct atomic_file file;
	char path[PATH_MAX];
	struct stat st;
	mode_t mask = umask(022);

	in_dir("fresh.txt", path, sizeof(path));
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	fputs("x\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	umask(mask);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);
}
END_TEST

START_TEST(abandon_leaves_the_old_file)
{
	struct atomic_file file;
	char path[PATH_MAX], text[64];

	in_dir("kept.txt", path, sizeof(path));
	put(path, "old\n");
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	fputs("half a fi", file.stream);
	atomic_file_abandon(&file);
	atomic_file_abandon(&file);
	ck_assert_str_eq(get(path, text, sizeof(text)), "old\n");
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

/*
 * A big file replaced keeps a second name through the rename and is freed
 * behind; written behind as it goes, the new one is whole all the same.
 */
START_TEST(a_big_file_is_written_and_freed_behind)
{
	static char chunk[64 * 1024];
	struct atomic_file file;
	char path[PATH_MAX];
	struct stat st;
	unsigned int i;
	int fd;

	in_dir("state.json", path, sizeof(path));
	/* 32 MiB to replace, sparse: the size is what counts */
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 32 << 20), 0);
	close(fd);
	memset(chunk, 'x', sizeof(chunk));
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	for (i = 0; i < 160; i++) {
		fwrite(chunk, 1, sizeof(chunk), file.stream);
		atomic_file_write_behind(&file);
	}
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	atomic_file_settle();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 160 * (off_t)sizeof(chunk));
	/* the old file's second name is gone, nothing else was left */
	ck_assert_uint_eq(entries(), 1);
	/* in place, write-behind is nothing */
	ck_assert_int_eq(atomic_file_open(&file, "/dev/null"), 0);
	fputs("x", file.stream);
	atomic_file_write_behind(&file);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
}
END_TEST

START_TEST(paths_that_cannot_be_written)
{
	struct atomic_file file;
	char path[PATH_MAX];

	ck_assert_int_eq(atomic_file_open(&file, in_dir("no/such/dir/x", path, sizeof(path))),
			 -ENOENT);
	ck_assert_int_eq(atomic_file_open(&file, dir), -EISDIR);
	ck_assert_int_eq(atomic_file_open(&file, in_dir("", path, sizeof(path))), -EISDIR);
	ck_assert_int_eq(atomic_file_open(&file, ""), -ENOENT);
	ck_assert_ptr_null(file.stream);
	/* a file where a directory should be */
	put(in_dir("file", path, sizeof(path)), "x\n");
	ck_assert_int_eq(atomic_file_open(&file, in_dir("file/out", path, sizeof(path))), -ENOTDIR);
	ck_assert_int_eq(unlink(in_dir("file", path, sizeof(path))), 0);
	ck_assert_uint_eq(entries(), 0);
}
END_TEST

/*
 * Refused by creating a file, not by access(2); root may write there, so
 * only an ordinary user sees the refusal.
 */
START_TEST(a_directory_without_write_permission)
{
	char sub[PATH_MAX], path[PATH_MAX];

	ck_assert_int_eq(mkdir(in_dir("ro", sub, sizeof(sub)), 0555), 0);
	in_dir("ro/out.txt", path, sizeof(path));
	if (geteuid()) {
		ck_assert_int_eq(atomic_file_check(path), -EACCES);
		ck_assert_int_eq(atomic_file_check_directory(sub), -EACCES);
	}
	ck_assert_int_eq(chmod(sub, 0755), 0);
	ck_assert_int_eq(atomic_file_check(path), 0);
	ck_assert_int_eq(atomic_file_check_directory(sub), 0);
	ck_assert_int_eq(rmdir(sub), 0);
}
END_TEST

START_TEST(the_directory_check_leaves_nothing)
{
	char path[PATH_MAX];

	ck_assert_int_eq(atomic_file_check_directory(dir), 0);
	/* a file of the name the check builds on changes nothing */
	put(in_dir("latscope", path, sizeof(path)), "x\n");
	ck_assert_int_eq(atomic_file_check_directory(dir), 0);
	ck_assert_uint_eq(entries(), 1);
	ck_assert_int_eq(atomic_file_check_directory(in_dir("missing", path, sizeof(path))),
			 -ENOENT);
	ck_assert_int_eq(atomic_file_check_directory(in_dir("latscope", path, sizeof(path))),
			 -ENOTDIR);
	ck_assert_int_eq(atomic_file_check_directory(""), -ENOENT);
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

START_TEST(a_link_is_followed_and_kept)
{
	struct atomic_file file;
	char path[PATH_MAX], link[PATH_MAX], text[64];
	struct stat st;

	in_dir("target.txt", path, sizeof(path));
	in_dir("link.txt", link, sizeof(link));
	put(path, "old\n");
	ck_assert_int_eq(symlink("target.txt", link), 0);
	ck_assert_int_eq(atomic_file_open(&file, link), 0);
	fputs("through\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(path, text, sizeof(text)), "through\n");
	ck_assert_uint_eq(entries(), 2);
	/* a link to a directory is a directory */
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink(".", link), 0);
	ck_assert_int_eq(atomic_file_check(link), -EISDIR);
	ck_assert_int_eq(atomic_file_open(&file, link), -EISDIR);
}
END_TEST

START_TEST(a_device_is_written_in_place)
{
	struct atomic_file file;

	ck_assert_int_eq(atomic_file_open(&file, "/dev/null"), 0);
	ck_assert_ptr_null(file.temp);
	fputs("gone\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	/* /dev/full: every write fails with ENOSPC, and says so */
	ck_assert_int_eq(atomic_file_open(&file, "/dev/full"), 0);
	fputs("no room\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), -ENOSPC);
}
END_TEST

/* A write failing half way (here: the file size limit) leaves no partial file. */
START_TEST(a_failed_write_leaves_nothing)
{
	struct rlimit limit = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	struct atomic_file file;
	char path[PATH_MAX], text[64];
	unsigned int i;

	in_dir("big.txt", path, sizeof(path));
	put(path, "old\n");
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	for (i = 0; i < 10000; i++)
		fprintf(file.stream, "line %u\n", i);
	ck_assert_int_eq(atomic_file_commit(&file), -EFBIG);
	ck_assert_str_eq(get(path, text, sizeof(text)), "old\n");
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

START_TEST(the_longest_names_still_have_a_temporary_file)
{
	struct atomic_file file;
	char name[NAME_MAX + 2], path[PATH_MAX];
	size_t len;

	/* 248 to 255 characters: a ".tmp.PID" suffix would not fit */
	for (len = NAME_MAX - 7; len <= NAME_MAX; len++) {
		memset(name, 'n', len);
		name[len] = '\0';
		in_dir(name, path, sizeof(path));
		ck_assert_int_eq(atomic_file_check(path), 0);
		ck_assert_int_eq(atomic_file_open(&file, path), 0);
		fputs("x\n", file.stream);
		ck_assert_int_eq(atomic_file_commit(&file), 0);
		ck_assert_int_eq(access(path, R_OK), 0);
		ck_assert_int_eq(unlink(path), 0);
	}
	/* one more cannot be a name at all */
	memset(name, 'n', NAME_MAX + 1);
	name[NAME_MAX + 1] = '\0';
	ck_assert_int_eq(atomic_file_check(in_dir(name, path, sizeof(path))), -ENAMETOOLONG);
	ck_assert_uint_eq(entries(), 0);
}
END_TEST

START_TEST(the_check_does_what_the_open_does)
{
	char path[PATH_MAX], link[PATH_MAX];

	/* nothing created, nothing left; the same answers as atomic_file_open() */
	ck_assert_int_eq(atomic_file_check(in_dir("new.txt", path, sizeof(path))), 0);
	ck_assert_int_eq(atomic_file_check(dir), -EISDIR);
	ck_assert_int_eq(atomic_file_check(in_dir("no/such/x", path, sizeof(path))), -ENOENT);
	ck_assert_int_eq(atomic_file_check(""), -ENOENT);
	ck_assert_int_eq(atomic_file_check("/dev/null"), 0);
	in_dir("loop", link, sizeof(link));
	ck_assert_int_eq(symlink("loop", link), 0);
	ck_assert_int_eq(atomic_file_check(link), -ELOOP);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_uint_eq(entries(), 0);
}
END_TEST

START_TEST(a_dangling_relative_link_creates_its_file)
{
	struct atomic_file file;
	char path[PATH_MAX], link[PATH_MAX], text[64];
	struct stat st;

	ck_assert_int_eq(mkdir(in_dir("sub", path, sizeof(path)), 0755), 0);
	in_dir("latest", link, sizeof(link));
	ck_assert_int_eq(symlink("sub/run-1.txt", link), 0);
	ck_assert_int_eq(atomic_file_check(link), 0);
	ck_assert_int_eq(atomic_file_open(&file, link), 0);
	fputs("first\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(in_dir("sub/run-1.txt", path, sizeof(path)), text, sizeof(text)),
			 "first\n");
	/* the temporary file went beside the target, and is gone */
	ck_assert_uint_eq(entries(), 2);
}
END_TEST

START_TEST(a_replaced_file_keeps_its_mode)
{
	struct atomic_file file;
	char path[PATH_MAX];
	struct stat st;

	in_dir("private.txt", path, sizeof(path));
	put(path, "old\n");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(atomic_file_open(&file, path), 0);
	fputs("new\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
}
END_TEST

/* /dev/stdout redirected to a file: that file is appended to, not replaced */
START_TEST(an_open_file_of_proc_is_written_in_place)
{
	struct atomic_file file;
	char path[PATH_MAX], fd_path[64], text[64];
	int fd;

	in_dir("redirected.txt", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "printed\n", 8), 8);
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	ck_assert_int_eq(atomic_file_open(&file, fd_path), 0);
	ck_assert_ptr_null(file.temp);
	fputs("document\n", file.stream);
	ck_assert_int_eq(atomic_file_commit(&file), 0);
	close(fd);
	ck_assert_str_eq(get(path, text, sizeof(text)), "printed\ndocument\n");
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

/* A pid no process has: a child's, once it is reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

START_TEST(temporaries_of_dead_writers_are_removed)
{
	char path[PATH_MAX], name[64], buf[PATH_MAX];
	pid_t dead = dead_pid();

	put(in_dir("state.json", path, sizeof(path)), "{}\n");
	/* a writer killed inside its fsync window, twice */
	snprintf(name, sizeof(name), ".state.json.%d.0.tmp", (int)dead);
	put(in_dir(name, buf, sizeof(buf)), "{\"cpus\": [");
	snprintf(name, sizeof(name), ".state.json.%d.12.tmp", (int)dead);
	put(in_dir(name, buf, sizeof(buf)), "");
	/* a writer still running, another file's temporary, names that only look alike */
	snprintf(name, sizeof(name), ".state.json.%d.0.tmp", (int)getppid());
	put(in_dir(name, buf, sizeof(buf)), "");
	snprintf(name, sizeof(name), ".state.json.old.%d.0.tmp", (int)dead);
	put(in_dir(name, buf, sizeof(buf)), "");
	snprintf(name, sizeof(name), ".state.json.%d.0.tmpx", (int)dead);
	put(in_dir(name, buf, sizeof(buf)), "");
	snprintf(name, sizeof(name), "state.json.%d.0.tmp", (int)dead);
	put(in_dir(name, buf, sizeof(buf)), "");
	ck_assert_uint_eq(entries(), 7);
	ck_assert_int_eq(atomic_file_remove_stale(path), 2);
	ck_assert_uint_eq(entries(), 5);
	snprintf(name, sizeof(name), ".state.json.%d.0.tmp", (int)dead);
	ck_assert_int_eq(access(in_dir(name, buf, sizeof(buf)), F_OK), -1);
	snprintf(name, sizeof(name), ".state.json.%d.0.tmp", (int)getppid());
	ck_assert_int_eq(access(in_dir(name, buf, sizeof(buf)), F_OK), 0);
	/* nothing to remove, or no directory: nothing done */
	ck_assert_int_eq(atomic_file_remove_stale(path), 0);
	ck_assert_int_eq(atomic_file_remove_stale("/nonexistent-dir/state.json"), 0);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("atomic_file");
	TCase *tc = tcase_create("write");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, commit_replaces_the_file_whole);
	tcase_add_test(tc, new_file_gets_the_mode_fopen_would_give);
	tcase_add_test(tc, abandon_leaves_the_old_file);
	tcase_add_test(tc, a_big_file_is_written_and_freed_behind);
	tcase_add_test(tc, paths_that_cannot_be_written);
	tcase_add_test(tc, a_directory_without_write_permission);
	tcase_add_test(tc, the_directory_check_leaves_nothing);
	tcase_add_test(tc, a_link_is_followed_and_kept);
	tcase_add_test(tc, a_device_is_written_in_place);
	tcase_add_test(tc, a_failed_write_leaves_nothing);
	tcase_add_test(tc, the_longest_names_still_have_a_temporary_file);
	tcase_add_test(tc, the_check_does_what_the_open_does);
	tcase_add_test(tc, a_dangling_relative_link_creates_its_file);
	tcase_add_test(tc, a_replaced_file_keeps_its_mode);
	tcase_add_test(tc, an_open_file_of_proc_is_written_in_place);
	tcase_add_test(tc, temporaries_of_dead_writers_are_removed);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
