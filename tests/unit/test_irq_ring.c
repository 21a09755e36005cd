// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The affinity files read through io_uring say what they say read one
 * system call at a time: lists, errors, modes, and the files that must not
 * be opened (a FIFO, a directory) or do not fit the ring's buffers.
 */
#define LATSCOPE_INSIDE_IRQ /* white-box: reaches into lib/irq/ */

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irq_fixture.h"
#include "lib/irq/irq_internal.h"
#include "latscope/log.h"

/* a list of @n CPUs written the long way, longer than the ring's buffer */
static void put_long_list(struct fixture_copy *copy, const char *file, unsigned int n)
{
	char text[8192], *p = text;
	unsigned int i;

	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%u", i ? "," : "", 2 * i);
	sprintf(p, "\n");
	fixture_put(copy, file, text);
}

static void replace(struct fixture_copy *copy, const char *file, int (*make)(const char *))
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", copy->dir, file);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(make(path), 0);
}

static int make_dir(const char *path)
{
	return mkdir(path, 0755);
}

static int make_fifo(const char *path)
{
	return mkfifo(path, 0644);
}

START_TEST(ring_reads_as_one_call_at_a_time)
{
	unsigned int numbers[] = { 0,  1,  8,  9,  16, 24, 40, 41, 42, 43,  44,	  45,
				   46, 47, 48, 50, 51, 52, 53, 54, 55, 56,  57,	  58,
				   60, 61, 62, 63, 64, 70, 80, 81, 99, 100, 12345 };
	unsigned int nr = sizeof(numbers) / sizeof(numbers[0]), i, at;
	struct irq_affinity plain[64], ringed[64];
	struct irq_files one, batch;
	struct fixture_copy copy;
	struct irq_store *store;
	struct sysroot *root;
	char path[1024];

	fixture_copy(&copy, FIXTURE("irq-numa2"));
	fixture_put(&copy, "proc/irq/40/smp_affinity_list", "99999\n");
	fixture_put(&copy, "proc/irq/41/smp_affinity_list", "5-2\n");
	fixture_put(&copy, "proc/irq/44/smp_affinity_list", "\n");
	replace(&copy, "proc/irq/45/smp_affinity_list", make_dir);
	fixture_put(&copy, "proc/irq/46/effective_affinity_list", "zz\n");
	snprintf(path, sizeof(path), "%s/proc/irq/47/smp_affinity_list", copy.dir);
	ck_assert_int_eq(unlink(path), 0);
	replace(&copy, "proc/irq/48/smp_affinity_list", make_fifo);
	replace(&copy, "proc/irq/50/effective_affinity_list", make_fifo);
	put_long_list(&copy, "proc/irq/51/smp_affinity_list", 400);
	put_long_list(&copy, "proc/irq/52/effective_affinity_list", 300);
	snprintf(path, sizeof(path), "%s/proc/irq/53/smp_affinity_list", copy.dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("../61/smp_affinity_list", path), 0);
	root = sysroot_new(copy.dir);
	store = irq_store_new();
	ck_assert_ptr_nonnull(store);
	ck_assert_int_eq(irq_files_open(&one, root, store), 0);
	ck_assert_int_eq(irq_files_open(&batch, root, store), 0);
	memset(plain, 0, sizeof(plain));
	memset(ringed, 0, sizeof(ringed));
	for (i = 0; i < nr; i++) {
		plain[i].number = ringed[i].number = numbers[i];
		irq_affinity_read(&one, &plain[i]);
	}
	/* in chunks as the readers take them, one smaller than a batch */
	for (at = 0; at < nr; at += IRQ_RING_IRQS)
		irq_affinity_read_chunk(&batch, &ringed[at],
					nr - at < IRQ_RING_IRQS ? nr - at : IRQ_RING_IRQS);
	if (!batch.ring)
		fprintf(stderr, "test_irq_ring: no io_uring here, both read one call at a time\n");
	for (i = 0; i < nr; i++) {
		ck_assert_msg(ringed[i].affinity_error == plain[i].affinity_error,
			      "irq %u: %d, one at a time %d", numbers[i], ringed[i].affinity_error,
			      plain[i].affinity_error);
		ck_assert_msg(ringed[i].effective_error == plain[i].effective_error,
			      "irq %u: %d, one at a time %d", numbers[i], ringed[i].effective_error,
			      plain[i].effective_error);
		ck_assert_msg(ringed[i].movable == plain[i].movable, "irq %u", numbers[i]);
		/* the store keeps each set once: the same set is the same pointer */
		ck_assert_ptr_eq(ringed[i].affinity, plain[i].affinity);
		ck_assert_ptr_eq(ringed[i].effective, plain[i].effective);
	}
	/* what the files were made to be */
	ck_assert_int_eq(plain[6].affinity_error, -ERANGE);
	ck_assert_int_eq(plain[11].affinity_error, -EISDIR);
	ck_assert_int_eq(plain[13].affinity_error, -ENOENT);
	ck_assert_int_eq(plain[14].affinity_error, -SYSROOT_ENOTREG);
	ck_assert_int_eq(plain[15].effective_error, -SYSROOT_ENOTREG);
	ck_assert_uint_eq(cpuset_count(plain[16].affinity), 400);
	ck_assert_uint_eq(cpuset_count(plain[17].effective), 300);
	/* 61 is managed (0444), 60 not, 53 a link to 61 */
	ck_assert(!plain[25].movable && plain[24].movable && !plain[18].movable);
	ck_assert_int_eq(plain[34].affinity_error, -ENOENT);
	irq_files_close(&one);
	irq_files_close(&batch);
	irq_store_free(store);
	sysroot_free(root);
	fixture_remove(&copy);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irq_ring");
	TCase *tc = tcase_create("irq_ring");

	tcase_add_test(tc, ring_reads_as_one_call_at_a_time);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
