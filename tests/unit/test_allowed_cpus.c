// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPUs a process may be placed on come from its cpuset, not from the
 * affinity it started with: fixture machines under tests/data/allowed-cpus/
 * (an RT box with isolcpus=, a cpuset on cgroup v2 and on v1, no cgroups,
 * a malformed file), and copies of them changed one file at a time.
 */
#include "latscope/allowed_cpus.h"
#include "latscope/log.h"
#include "latscope/topology.h"
#include "irq_fixture.h"
#include "unit.h"

#define ALLOWED_FIXTURE(name) FIXTURE("allowed-cpus/" name)

static char warning[1024];
static unsigned int nr_warnings;

static void keep_warning(enum log_level level, const char *message)
{
	if (level > LATSCOPE_LOG_WARNING)
		return;
	nr_warnings++;
	snprintf(warning, sizeof(warning), "%s", message);
}

/* What allowed_cpus_read() answers on @dir for a process with @affinity. */
struct answer {
	enum allowed_cpus_source source;
	char list[64];
};

static struct answer read_allowed(const char *dir, const char *affinity_list)
{
	struct sysroot *root = sysroot_new(dir);
	struct cpuset affinity, allowed;
	struct topology topo;
	struct answer a;

	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(topology_load(root, &topo), 0);
	ck_assert_int_eq(cpuset_parse_list(affinity_list, &affinity), 0);
	warning[0] = '\0';
	nr_warnings = 0;
	log_set_hook(keep_warning);
	a.source = allowed_cpus_read(root, &topo.online, &affinity, &allowed);
	log_set_hook(NULL);
	cpuset_format_list(&allowed, a.list, sizeof(a.list));
	ck_assert(cpuset_subset(&allowed, &topo.online));
	topology_release(&topo);
	sysroot_free(root);
	return a;
}

/* A copy of a fixture with one file written (parents made) or removed (NULL). */
static void change(struct fixture_copy *copy, const char *name, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", copy->dir, name);
	if (!text) {
		ck_assert_msg(!unlink(path), "unlink %s: %s", path, strerror(errno));
		return;
	}
	unit_make_parents(path);
	fixture_put(copy, name, text);
}

/* The fallback: the affinity, and one warning that says why. */
static void assert_fallback(const struct answer *a, const char *affinity, const char *why)
{
	ck_assert_msg(a->source == ALLOWED_CPUS_AFFINITY, "%s: source %d", why, a->source);
	ck_assert_msg(!strcmp(a->list, affinity), "%s: allowed %s", why, a->list);
	ck_assert_msg(nr_warnings == 1, "%s: %u warnings", why, nr_warnings);
	ck_assert_msg(strstr(warning, why), "warning '%s' does not say '%s'", warning, why);
	ck_assert_msg(strstr(warning, "affinity"), "warning '%s' names no affinity", warning);
}

/*
 * (a) isolcpus=managed_irq,domain,2-3 starts the process on 0-1, but the
 * root cpuset keeps 2-3, and the session's cgroups, without the cpuset
 * controller, hand it down: 0-3, as taskset -c 2 would find.
 */
START_TEST(rt_box_allows_its_isolated_cpus)
{
	struct sysroot *root = sysroot_new(ALLOWED_FIXTURE("rt-box-v2"));
	struct topology topo;
	struct answer a;
	char list[64];

	ck_assert_int_eq(topology_load(root, &topo), 0);
	ck_assert_str_eq(cpuset_format_list(&topo.housekeeping, list, sizeof(list)), "0-1");
	topology_release(&topo);
	sysroot_free(root);

	a = read_allowed(ALLOWED_FIXTURE("rt-box-v2"), "0-1");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "0-3");
	ck_assert_uint_eq(nr_warnings, 0);
}
END_TEST

/* (b) a slice with AllowedCPUs=0-1: its service, without the controller, gets 0-1 */
START_TEST(cgroup2_cpuset_restricts)
{
	struct answer a = read_allowed(ALLOWED_FIXTURE("cpuset-v2"), "0");

	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "0-1");
	ck_assert_uint_eq(nr_warnings, 0);
}
END_TEST

/* A cpuset left with offline CPUs only gives its parent's, as the kernel does. */
START_TEST(cgroup2_cpuset_without_online_cpus_takes_the_parents)
{
	struct fixture_copy copy;
	struct answer a;

	fixture_copy(&copy, ALLOWED_FIXTURE("cpuset-v2"));
	change(&copy, "sys/fs/cgroup/system.slice/cpuset.cpus.effective", "6-7\n");
	a = read_allowed(copy.dir, "0");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "0-3");
	fixture_remove(&copy);
}
END_TEST

/*
 * The affinity is always allowed: the kernel keeps it inside the cpuset,
 * so a CPU of it the files leave out was misread, not forbidden.
 */
START_TEST(affinity_is_always_allowed)
{
	struct answer a = read_allowed(ALLOWED_FIXTURE("cpuset-v2"), "0,3");

	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "0-1,3");
}
END_TEST

/* A container's mount shows its own subtree: the paths below its root. */
START_TEST(cgroup2_mount_of_a_subtree)
{
	struct fixture_copy copy;
	struct answer a;

	fixture_copy(&copy, ALLOWED_FIXTURE("no-cgroup"));
	change(&copy, "proc/self/cgroup", "0::/machine.slice/box.scope/init.scope\n");
	change(&copy, "proc/self/mountinfo",
	       "27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	       "26 27 0:24 /machine.slice/box.scope /sys/fs/cgroup\\040box rw,relatime - "
	       "cgroup2 cgroup2 rw\n");
	change(&copy, "sys/fs/cgroup box/cpuset.cpus.effective", "1-2\n");
	change(&copy, "sys/fs/cgroup box/init.scope/cgroup.type", "domain\n");
	a = read_allowed(copy.dir, "1");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "1-2");
	ck_assert_uint_eq(nr_warnings, 0);

	/* above the subtree's root, a cpuset this process cannot see may apply */
	change(&copy, "sys/fs/cgroup box/cpuset.cpus.effective", NULL);
	a = read_allowed(copy.dir, "1");
	assert_fallback(&a, "1", "up to /sys/fs/cgroup box");
	fixture_remove(&copy);
}
END_TEST

/* (c) cpuset on a v1 hierarchy, beside a unified one without it */
START_TEST(cgroup1_cpuset)
{
	struct answer a = read_allowed(ALLOWED_FIXTURE("cpuset-v1"), "2");

	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP1);
	ck_assert_str_eq(a.list, "2-3");
	ck_assert_uint_eq(nr_warnings, 0);
}
END_TEST

/* kernels before effective_cpus, and the noprefix mount option */
START_TEST(cgroup1_cpus_and_noprefix)
{
	struct fixture_copy copy;
	struct answer a;

	fixture_copy(&copy, ALLOWED_FIXTURE("cpuset-v1"));
	change(&copy, "sys/fs/cgroup/cpuset/rt/cpuset.effective_cpus", NULL);
	change(&copy, "sys/fs/cgroup/cpuset/rt/cpuset.cpus", "3\n");
	a = read_allowed(copy.dir, "3");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP1);
	ck_assert_str_eq(a.list, "3");

	change(&copy, "proc/self/mountinfo",
	       "33 1 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:16 - cgroup cgroup "
	       "rw,cpuset,noprefix\n");
	change(&copy, "sys/fs/cgroup/cpuset/rt/effective_cpus", "1-2\n");
	a = read_allowed(copy.dir, "2");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP1);
	ck_assert_str_eq(a.list, "1-2");
	fixture_remove(&copy);
}
END_TEST

/* (d) no cgroup file system mounted, the process in the root cgroup */
START_TEST(no_cgroup_mounted_allows_every_online_cpu)
{
	struct answer a = read_allowed(ALLOWED_FIXTURE("no-cgroup"), "0-1");

	ck_assert_int_eq(a.source, ALLOWED_CPUS_NO_CPUSET);
	ck_assert_str_eq(a.list, "0-3");
	ck_assert_uint_eq(nr_warnings, 0);
}
END_TEST

/* a kernel without cgroups, and a v2 hierarchy without the cpuset controller */
START_TEST(no_cpuset_controller_allows_every_online_cpu)
{
	struct fixture_copy copy;
	struct answer a;

	fixture_copy(&copy, ALLOWED_FIXTURE("no-cgroup"));
	change(&copy, "proc/self/cgroup", NULL);
	a = read_allowed(copy.dir, "0");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_NO_CPUSET);
	ck_assert_str_eq(a.list, "0-3");
	fixture_remove(&copy);

	fixture_copy(&copy, ALLOWED_FIXTURE("rt-box-v2"));
	change(&copy, "sys/fs/cgroup/cpuset.cpus.effective", NULL);
	a = read_allowed(copy.dir, "0-1");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_NO_CPUSET);
	ck_assert_str_eq(a.list, "0-3");
	ck_assert_uint_eq(nr_warnings, 0);
	fixture_remove(&copy);
}
END_TEST

/* (e) a cpuset file the kernel would not write: the affinity, said so */
START_TEST(malformed_cpuset_falls_back_to_the_affinity)
{
	struct answer a = read_allowed(ALLOWED_FIXTURE("malformed"), "0-1");

	assert_fallback(&a, "0-1", "/sys/fs/cgroup/cpuset.cpus.effective");
}
END_TEST

/* every other way the cpuset cannot be read: the affinity, and the reason */
START_TEST(unreadable_cgroups_fall_back_to_the_affinity)
{
	static const struct {
		const char *removed; /* a file taken away first, or NULL */
		const char *file, *text; /* then written, or removed (NULL text) */
		const char *why;
	} cases[] = {
		{ NULL, "proc/self/cgroup", "garbage\n", "line 1 of /proc/self/cgroup" },
		{ NULL, "proc/self/cgroup", "", "/proc/self/cgroup is empty" },
		{ NULL, "proc/self/cgroup", "x:cpuset:/rt\n", "line 1 of /proc/self/cgroup" },
		{ NULL, "proc/self/mountinfo", "26 21 0:24 /\n", "line 1 of /proc/self/mountinfo" },
		{ NULL, "proc/self/mountinfo", NULL, "cannot read /proc/self/mountinfo" },
		/* a cgroup namespace shows a cgroup outside it so */
		{ NULL, "proc/self/cgroup", "0::/../../user.slice\n",
		  "outside this cgroup namespace" },
		{ NULL, "proc/self/cgroup", "0::/gone.slice\n", "is not in /sys/fs/cgroup" },
		/* the root of a cgroup namespace, without the cpuset controller */
		{ "sys/fs/cgroup/cpuset.cpus.effective", "sys/fs/cgroup/cgroup.type", "domain\n",
		  "no cpuset.cpus.effective" },
	};
	struct fixture_copy copy;
	struct answer a;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture_copy(&copy, ALLOWED_FIXTURE("rt-box-v2"));
		if (cases[i].removed)
			change(&copy, cases[i].removed, NULL);
		change(&copy, cases[i].file, cases[i].text);
		a = read_allowed(copy.dir, "0-1");
		assert_fallback(&a, "0-1", cases[i].why);
		fixture_remove(&copy);
	}

	/* not in the root cgroup, and its hierarchy mounted nowhere */
	fixture_copy(&copy, ALLOWED_FIXTURE("no-cgroup"));
	change(&copy, "proc/self/cgroup", "0::/user.slice\n");
	a = read_allowed(copy.dir, "1");
	assert_fallback(&a, "1", "in no mounted hierarchy");
	fixture_remove(&copy);
}
END_TEST

/* offline CPUs are never allowed, whatever the cpuset says */
START_TEST(only_online_cpus)
{
	struct fixture_copy copy;
	struct answer a;

	fixture_copy(&copy, ALLOWED_FIXTURE("rt-box-v2"));
	change(&copy, "sys/devices/system/cpu/online", "0-2\n");
	a = read_allowed(copy.dir, "0-1");
	ck_assert_int_eq(a.source, ALLOWED_CPUS_CGROUP2);
	ck_assert_str_eq(a.list, "0-2");
	fixture_remove(&copy);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("allowed_cpus");
	TCase *tc = tcase_create("allowed_cpus");

	tcase_add_test(tc, rt_box_allows_its_isolated_cpus);
	tcase_add_test(tc, cgroup2_cpuset_restricts);
	tcase_add_test(tc, cgroup2_cpuset_without_online_cpus_takes_the_parents);
	tcase_add_test(tc, affinity_is_always_allowed);
	tcase_add_test(tc, cgroup2_mount_of_a_subtree);
	tcase_add_test(tc, cgroup1_cpuset);
	tcase_add_test(tc, cgroup1_cpus_and_noprefix);
	tcase_add_test(tc, no_cgroup_mounted_allows_every_online_cpu);
	tcase_add_test(tc, no_cpuset_controller_allows_every_online_cpu);
	tcase_add_test(tc, malformed_cpuset_falls_back_to_the_affinity);
	tcase_add_test(tc, unreadable_cgroups_fall_back_to_the_affinity);
	tcase_add_test(tc, only_online_cpus);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
