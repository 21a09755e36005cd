/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_FUZZ_H
#define LATSCOPE_TEST_FUZZ_H

/*
 * Shared by the libFuzzer harnesses (tests/fuzz/<parser>.c): each feeds one
 * parser of outside input. Inputs that reach a parser through a file are
 * written into a private fixture tree on tmpfs, made once per process and
 * removed when it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a C string (the parsers read text); the caller frees it. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

static char fuzz_tree_dir[64];

static inline int fuzz_remove_entry(const char *path, const struct stat *st, int type,
				    struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* At exit (libFuzzer ends its time-bounded runs with exit()): no tree left on tmpfs. */
static inline void fuzz_tree_remove(void)
{
	nftw(fuzz_tree_dir, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A private directory for a fixture tree; aborts when none can be made. */
static inline const char *fuzz_tree(void)
{
	if (!fuzz_tree_dir[0]) {
		snprintf(fuzz_tree_dir, sizeof(fuzz_tree_dir), "%s/latscope-fuzz-XXXXXX",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
		if (!mkdtemp(fuzz_tree_dir) || atexit(fuzz_tree_remove))
			abort();
	}
	return fuzz_tree_dir;
}

/* mkdir -p of @path's directories under the tree, then write @size bytes. */
static inline void fuzz_put(const char *path, const void *data, size_t size)
{
	char full[512], *slash;
	int fd;

	snprintf(full, sizeof(full), "%s/%s", fuzz_tree(), path);
	for (slash = strchr(full + strlen(fuzz_tree()) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(full, 0700) && errno != EEXIST)
			abort();
		*slash = '/';
	}
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd))
		abort();
}

#endif
