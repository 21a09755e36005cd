/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_UNIT_H
#define LATSCOPE_TEST_UNIT_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fixture sysroots live in tests/data/<name>. */
#define FIXTURE(name) TEST_DATA_DIR "/" name

/* What a directory holds, hidden files included ("." and ".." aside). */
static inline unsigned int unit_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/*
 * The scratch trees are walked in C rather than by cp, mkdir and rm through
 * system(): the audit's rule cases copy a fixture of hundreds of files for
 * each of a hundred cases, and the processes alone took half the run.
 */
static inline int unit_remove_entry(const char *path, const struct stat *st, int type,
				    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -rf of a scratch tree the test made. */
static inline void unit_remove_tree(const char *dir)
{
	ck_assert_int_eq(nftw(dir, unit_remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* mkdir -p of the directories above PATH. */
static inline void unit_make_parents(const char *path)
{
	char dir[4096];
	char *slash;

	ck_assert_int_lt(snprintf(dir, sizeof(dir), "%s", path), (int)sizeof(dir));
	for (slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert_msg(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s: %s", dir,
			      strerror(errno));
		*slash = '/';
	}
}

/* The copy's root, for the walk below (nftw passes no argument). */
static const char *unit_copy_from, *unit_copy_to;

/*
 * No ck_assert inside the walk: under CK_FORK each assertion writes its
 * location down a pipe, a system call per check per file.
 */
static inline int unit_copy_entry(const char *path, const struct stat *st, int type,
				  struct FTW *ftw)
{
	char to[4096];
	char buffer[65536];
	ssize_t n;
	int in, out, status = -1;

	(void)ftw;
	if (snprintf(to, sizeof(to), "%s%s", unit_copy_to, path + strlen(unit_copy_from)) >=
	    (int)sizeof(to))
		return -1;
	if (type == FTW_D)
		return mkdir(to, 0755) && errno != EEXIST;
	if (type == FTW_SL) {
		n = readlink(path, buffer, sizeof(buffer) - 1);
		if (n < 0)
			return -1;
		buffer[n] = '\0';
		return symlink(buffer, to);
	}
	if (type != FTW_F)
		return -1;
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 0777);
	if (out >= 0) {
		while ((n = read(in, buffer, sizeof(buffer))) > 0 &&
		       write(out, buffer, (size_t)n) == n)
			;
		status = close(out) || n != 0 ? -1 : 0;
	}
	close(in);
	return status;
}

/* cp -R FROM/. TO: TO exists; symbolic links are copied as links. */
static inline void unit_copy_tree(const char *from, const char *to)
{
	unit_copy_from = from;
	unit_copy_to = to;
	ck_assert_msg(!nftw(from, unit_copy_entry, 16, FTW_PHYS), "copying %s to %s: %s", from, to,
		      strerror(errno));
}

/*
 * Where a test puts its scratch trees: a directory of the whole run, on
 * tmpfs when there is one, made before the tests fork and removed by the
 * runner after them, so that a test that fails between making a tree and
 * removing it leaves nothing behind.
 */
static char unit_scratch[64];

/* Run one suite and turn its result into the exit status meson expects. */
static inline int unit_run(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	int failed;

	snprintf(unit_scratch, sizeof(unit_scratch), "%s/latscope-unit-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(unit_scratch)) {
		fprintf(stderr, "%s: %s\n", unit_scratch, strerror(errno));
		return EXIT_FAILURE;
	}
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	if (nftw(unit_scratch, unit_remove_entry, 16, FTW_DEPTH | FTW_PHYS)) {
		fprintf(stderr, "removing %s: %s\n", unit_scratch, strerror(errno));
		failed = 1;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
