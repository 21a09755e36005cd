/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_TEST_IRQ_FIXTURE_H
#define LATSCOPE_TEST_IRQ_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/*
 * IRQ tests work on a copy of a fixture in a temporary directory: some of
 * them write, and committed fixtures must never change. Git keeps no write
 * bits, so the copy gets the modes listed in the fixture's file-modes
 * ("0444 proc/irq/61/smp_affinity_list": a managed IRQ).
 */
struct fixture_copy {
	char dir[256];
};

static inline void fixture_apply_modes(const char *dir)
{
	char path[1024], line[512], name[400];
	unsigned int mode;
	FILE *modes;

	snprintf(path, sizeof(path), "%s/file-modes", dir);
	modes = fopen(path, "r");
	if (!modes)
		return;
	while (fgets(line, sizeof(line), modes)) {
		if (sscanf(line, "%o %399s", &mode, name) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		ck_assert_int_eq(chmod(path, mode), 0);
	}
	fclose(modes);
}

/*
 * A private copy of a fixture, on tmpfs when there is one: some tests copy
 * a fixture a hundred times, and a disk file system makes that take most of
 * a minute.
 */
static inline void fixture_copy(struct fixture_copy *copy, const char *fixture)
{
	snprintf(copy->dir, sizeof(copy->dir), "%s/fixture-XXXXXX", unit_scratch);
	ck_assert_ptr_nonnull(mkdtemp(copy->dir));
	unit_copy_tree(fixture, copy->dir);
	fixture_apply_modes(copy->dir);
}

static inline void fixture_remove(struct fixture_copy *copy)
{
	unit_remove_tree(copy->dir);
}

static inline void fixture_put(const struct fixture_copy *copy, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", copy->dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

#endif
