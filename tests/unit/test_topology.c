// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>

#include "latscope/topology.h"
#include "unit.h"

static void load(const char *fixture, struct topology *topo, struct sysroot **root)
{
	*root = sysroot_new(fixture);
	ck_assert_ptr_nonnull(*root);
	ck_assert_int_eq(topology_load(*root, topo), 0);
}

static const char *list(const struct cpuset *set)
{
	static char buf[4][64];
	static int next;

	next = (next + 1) % 4;
	return cpuset_format_list(set, buf[next], sizeof(buf[next]));
}

START_TEST(two_nodes_with_smt)
{
	struct topology topo;
	struct sysroot *root;
	struct cpuset siblings;

	load(FIXTURE("numa2-smt"), &topo, &root);
	ck_assert_str_eq(list(&topo.online), "0-7");
	ck_assert_str_eq(list(&topo.isolated), "2-3,6-7");
	ck_assert_str_eq(list(&topo.nohz_full), "3,7");
	ck_assert_str_eq(list(&topo.housekeeping), "0-1,4-5");
	ck_assert_uint_eq(topo.nr_cpus, 8);
	ck_assert_uint_eq(topo.nr_nodes, 2);
	ck_assert_str_eq(list(&topo.node_cpus[1]), "4-7");
	ck_assert_int_eq(topology_cpu_node(&topo, 5), 1);
	ck_assert_int_eq(topology_cpu_node(&topo, 2), 0);
	topology_smt_siblings(&topo, 3, &siblings);
	ck_assert_str_eq(list(&siblings), "2-3");
	ck_assert_int_eq(topo.cpus[7].first_sibling, 6);
	ck_assert_int_eq(topo.cpus[6].first_sibling, 6);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

START_TEST(missing_online_list_is_an_error)
{
	struct sysroot *root = sysroot_new(FIXTURE("does-not-exist"));
	struct topology topo;

	ck_assert_int_eq(topology_load(root, &topo), -ENOENT);
	sysroot_free(root);
}
END_TEST

START_TEST(live_machine_loads)
{
	struct sysroot *root = sysroot_new(NULL);
	struct topology topo;

	ck_assert_int_eq(topology_load(root, &topo), 0);
	ck_assert(!cpuset_empty(&topo.online));
	ck_assert(cpuset_subset(&topo.housekeeping, &topo.online));
	ck_assert_uint_ge(topo.nr_nodes, 1);
	topology_release(&topo);
	sysroot_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");

	tcase_add_test(tc, two_nodes_with_smt);
	tcase_add_test(tc, missing_online_list_is_an_error);
	tcase_add_test(tc, live_machine_loads);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
