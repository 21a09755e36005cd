// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latscope/clock.h"
#include "latscope/irq_apply.h"
#include "latscope/irq_journal.h"
#include "latscope/log.h"
#include "irq_fixture.h"

/* What the library said, for the tests that check a message. */
static char said[8192];

static void capture(enum log_level level, const char *message)
{
	size_t len = strlen(said);

	(void)level;
	snprintf(said + len, sizeof(said) - len, "%s\n", message);
}

/* Everything a test needs to plan and apply on a fixture copy. */
struct state {
	struct fixture_copy copy;
	struct sysroot *root;
	struct topology topo;
	struct irq_table table;
	double *rates;
	struct irqplan plan;
	struct irqplan_policy policy;
	char journal[512];
};

static void make_plan(struct state *s, const char *rt_cpus)
{
	struct irqplan_input input;

	memset(&input, 0, sizeof(input));
	ck_assert_int_eq(topology_load(s->root, &s->topo), 0);
	ck_assert_int_eq(irq_table_load(s->root, &s->table), 0);
	s->rates = calloc(s->table.nr_irqs + 1, sizeof(double));
	irq_rates(&s->table, NULL, &s->table.counts, s->rates);
	input.topo = &s->topo;
	input.table = &s->table;
	input.rates = s->rates;
	input.rates_are_counts = true;
	ck_assert_int_eq(cpuset_parse_list(rt_cpus, &input.rt_cpus), 0);
	ck_assert_int_eq(irq_read_default_affinity(s->root, &input.default_affinity), 0);
	irqplan_policy_default(&s->policy);
	ck_assert_int_eq(irqplan_make(&input, &s->policy, &s->plan), 0);
}

static void drop_plan(struct state *s)
{
	irqplan_release(&s->plan);
	free(s->rates);
	irq_table_release(&s->table);
	topology_release(&s->topo);
}

static void start(struct state *s, const char *fixture)
{
	memset(s, 0, sizeof(*s));
	fixture_copy(&s->copy, fixture);
	s->root = sysroot_new(s->copy.dir);
	ck_assert_int_eq(irq_journal_default_path(s->root, s->journal, sizeof(s->journal)), 0);
}

static void finish(struct state *s)
{
	sysroot_free(s->root);
	fixture_remove(&s->copy);
}

static int apply(struct state *s, struct irq_apply_report *report)
{
	struct irq_journal_lock *lock;
	int ret;

	report->moves = calloc(s->plan.nr_moves + 1, sizeof(*report->moves));
	ck_assert_int_eq(irq_journal_lock(s->journal, true, 0, &lock), 0);
	ret = irq_apply(s->root, &s->topo, &s->table, &s->plan, lock, report);
	irq_journal_unlock(lock);
	return ret;
}

/* restore as the CLI does: under the lock; -ENOENT when there is no directory */
static int restore(struct state *s, struct irq_restore_report *report)
{
	struct irq_journal_lock *lock;
	int ret;

	ret = irq_journal_lock(s->journal, false, 0, &lock);
	if (ret)
		return ret;
	ret = irq_journal_restore(s->root, lock, report);
	irq_journal_unlock(lock);
	return ret;
}

/* Run "COMMAND 'COPY/PATH'" (rm -r, chattr); returns its status. */
static int in_copy(const struct state *s, const char *command, const char *path)
{
	char line[1024];

	snprintf(line, sizeof(line), "%s '%s/%s' 2>/dev/null", command, s->copy.dir, path);
	return system(line);
}

/* Plan with these RT CPUs and apply; every move must succeed. */
static void plan_and_apply(struct state *s, const char *rt_cpus)
{
	struct irq_apply_report report;

	make_plan(s, rt_cpus);
	ck_assert_int_eq(apply(s, &report), 0);
	ck_assert_uint_eq(report.done, s->plan.nr_moves);
	free(report.moves);
	drop_plan(s);
}

/* The copy equals the committed fixture, byte for byte (latscope's run/ aside). */
static void assert_same_as(const struct state *s, const char *fixture)
{
	char command[1024];

	snprintf(command, sizeof(command), "diff -r -x run '%s' '%s' >&2", fixture, s->copy.dir);
	ck_assert_int_eq(system(command), 0);
}

static const char *file_text(const struct state *s, const char *name)
{
	static char text[4096];
	char path[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", s->copy.dir, name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

START_TEST(plan_apply_plan_restore_round_trip)
{
	struct irq_restore_report restored;
	struct irq_apply_report report;
	unsigned int moves, i;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	make_plan(&s, "");
	moves = s.plan.nr_moves;
	ck_assert_uint_gt(moves, 10);
	ck_assert(s.plan.default_change);
	ck_assert_int_eq(apply(&s, &report), 0);
	ck_assert_uint_eq(report.done, moves);
	ck_assert(report.default_written);
	for (i = 0; i < moves; i++)
		ck_assert(report.moves[i].effective_ok);
	ck_assert_int_eq(access(s.journal, F_OK), 0);
	/* the kernel's part was played: the mask and effective files follow */
	ck_assert_str_eq(file_text(&s, "proc/irq/default_smp_affinity"), "0f0f\n");
	for (i = 0; i < moves; i++) {
		char name[64], want[16];

		if (s.plan.moves[i].irq != 43)
			continue;
		snprintf(want, sizeof(want), "%u\n", s.plan.moves[i].to);
		ck_assert_str_eq(file_text(&s, "proc/irq/43/smp_affinity_list"), want);
		ck_assert_str_eq(file_text(&s, "proc/irq/43/effective_affinity_list"), want);
		snprintf(name, sizeof(name), "%04x\n", 1U << s.plan.moves[i].to);
		ck_assert_str_eq(file_text(&s, "proc/irq/43/smp_affinity"), name);
	}
	free(report.moves);
	drop_plan(&s);

	/* plan again: nothing left to do */
	make_plan(&s, "");
	ck_assert_uint_eq(s.plan.nr_moves, 0);
	ck_assert(!s.plan.default_change);
	drop_plan(&s);

	ck_assert_int_eq(restore(&s, &restored), 0);
	ck_assert_uint_eq(restored.restored, moves);
	ck_assert(restored.default_restored);
	ck_assert_int_ne(access(s.journal, F_OK), 0);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	/* a second restore has nothing to do */
	ck_assert_int_eq(restore(&s, &restored), -ENOENT);
	finish(&s);
}
END_TEST

START_TEST(journal_keeps_the_first_state)
{
	struct irq_restore_report restored;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	plan_and_apply(&s, "");
	/* a second apply with more RT CPUs moves IRQs moved before */
	plan_and_apply(&s, "2-3,10-11");
	ck_assert_int_eq(restore(&s, &restored), 0);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	finish(&s);
}
END_TEST

START_TEST(vanished_changed_and_unwritable_irqs)
{
	struct irq_restore_report restored;
	struct irq_apply_report report;
	unsigned int i;
	bool immutable;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	make_plan(&s, "");
	/* between the plan and the writes: 43 vanishes, 44 is moved by someone */
	ck_assert_int_eq(in_copy(&s, "rm -r", "proc/irq/43"), 0);
	fixture_put(&s.copy, "proc/irq/44/smp_affinity_list", "1\n");
	/* and 45's file refuses writes, as a managed IRQ's does (EPERM) */
	immutable = in_copy(&s, "chattr +i", "proc/irq/45/smp_affinity_list") == 0;
	ck_assert_int_eq(apply(&s, &report), 0);
	for (i = 0; i < s.plan.nr_moves; i++) {
		const struct irq_apply_result *result = &report.moves[i];

		switch (s.plan.moves[i].irq) {
		case 43:
			ck_assert_int_eq(result->status, IRQ_WRITE_GONE);
			break;
		case 44:
			ck_assert_int_eq(result->status, IRQ_WRITE_CHANGED);
			break;
		case 45:
			if (immutable) {
				ck_assert_int_eq(result->status, IRQ_WRITE_PERMANENT);
				ck_assert_int_eq(result->error, EPERM);
			}
			break;
		default:
			ck_assert_int_eq(result->status, IRQ_WRITE_DONE);
		}
	}
	ck_assert_uint_eq(report.gone, 1);
	ck_assert_uint_eq(report.changed, 1);
	ck_assert_uint_eq(report.permanent, immutable ? 1 : 0);
	/* neither was written over */
	ck_assert_str_eq(file_text(&s, "proc/irq/44/smp_affinity_list"), "1\n");
	ck_assert_str_eq(file_text(&s, "proc/irq/45/smp_affinity_list"), "0-15\n");
	free(report.moves);
	drop_plan(&s);
	/* restore: what was done is undone; the immutable file needs no write */
	if (immutable) {
		ck_assert_int_eq(in_copy(&s, "chattr -i", "proc/irq/45/smp_affinity_list"), 0);
	}
	ck_assert_int_eq(restore(&s, &restored), 0);
	ck_assert_uint_eq(restored.failed, 0);
	ck_assert_str_eq(file_text(&s, "proc/irq/46/smp_affinity_list"), "0-15\n");
	finish(&s);
}
END_TEST

START_TEST(bad_journals_write_nothing)
{
	struct irq_restore_report restored;
	struct irq_apply_report report;
	struct state s;
	char path[1024];

	start(&s, FIXTURE("irq-numa2"));
	make_plan(&s, "");
	snprintf(path, sizeof(path), "%s/run", s.copy.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	strcat(path, "/latscope");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	/* does not parse */
	fixture_put(&s.copy, "run/latscope/irq-journal.json", "{ \"schema\": ");
	ck_assert_int_eq(apply(&s, &report), -EINVAL);
	free(report.moves);
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	/* parses, but would write where it must not */
	fixture_put(&s.copy, "run/latscope/irq-journal.json",
		    "{\"schema\": \"latscope-irq-journal/1\", \"root\": \"x\", \"irqs\": []}");
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	snprintf(
		path, sizeof(path),
		"{\"schema\": \"latscope-irq-journal/1\", \"root\": \"%s\", \"irqs\": "
		"[{\"irq\": 43, \"files\": {\"smp_affinity_list\": \"1\\n\", \"../../x\": \"1\"}}]}",
		s.copy.dir);
	fixture_put(&s.copy, "run/latscope/irq-journal.json", path);
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	snprintf(path, sizeof(path),
		 "{\"schema\": \"latscope-irq-journal/1\", \"root\": \"%s\", \"irqs\": "
		 "[{\"irq\": 43, \"files\": {\"smp_affinity_list\": \"$(reboot)\"}}]}",
		 s.copy.dir);
	fixture_put(&s.copy, "run/latscope/irq-journal.json", path);
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	drop_plan(&s);
	finish(&s);
}
END_TEST

START_TEST(restore_skips_vanished_irqs)
{
	struct irq_restore_report restored;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	plan_and_apply(&s, "");
	ck_assert_int_eq(in_copy(&s, "rm -r", "proc/irq/47"), 0);
	ck_assert_int_eq(restore(&s, &restored), 0);
	ck_assert_uint_eq(restored.gone, 1);
	ck_assert_str_eq(file_text(&s, "proc/irq/48/smp_affinity_list"), "0-15\n");
	finish(&s);
}
END_TEST

/* A journal of the fixture's root with these IRQ entries and default. */
static void put_journal(const struct state *s, const char *irqs, const char *default_mask)
{
	char text[4096], path[1024];

	snprintf(path, sizeof(path), "%s/run", s->copy.dir);
	mkdir(path, 0755);
	strcat(path, "/latscope");
	mkdir(path, 0755);
	snprintf(text, sizeof(text),
		 "{\"schema\": \"latscope-irq-journal/1\", \"root\": \"%s\", %s%s%s\"irqs\": [%s]}",
		 s->copy.dir, default_mask ? "\"default_smp_affinity\": \"" : "",
		 default_mask ? default_mask : "", default_mask ? "\", " : "", irqs);
	fixture_put(&s->copy, "run/latscope/irq-journal.json", text);
}

#define ENTRY(irq, name, list)                                                                   \
	"{\"irq\": " #irq ", \"name\": \"" name "\", \"files\": {\"smp_affinity_list\": \"" list \
	"\"}}"

START_TEST(invalid_journals_are_refused_whole)
{
	/* each with a valid entry (irq 44) and a valid default that must not be written */
	static const char *const bad_irq_values[] = {
		"999\\n", "-", "", "ff,ff,ff", "0-3,x", "16"
	};
	struct irq_restore_report restored;
	char irqs[1024];
	struct state s;
	size_t i;

	start(&s, FIXTURE("irq-numa2"));
	log_set_hook(capture);
	for (i = 0; i < sizeof(bad_irq_values) / sizeof(bad_irq_values[0]); i++) {
		snprintf(irqs, sizeof(irqs),
			 ENTRY(44, "eth0-TxRx-3", "0-3\\n") ", " ENTRY(43, "eth0-TxRx-2", "%s"),
			 bad_irq_values[i]);
		put_journal(&s, irqs, "000f\\n");
		said[0] = '\0';
		ck_assert_int_eq(restore(&s, &restored), -EINVAL);
		ck_assert_uint_eq(restored.restored, 0);
		ck_assert_msg(strstr(said, "irq 43"), "said: %s", said);
		ck_assert_ptr_nonnull(strstr(said, "nothing is written"));
		assert_same_as(&s, FIXTURE("irq-numa2"));
		/* refused, not removed */
		ck_assert_int_eq(access(s.journal, F_OK), 0);
	}
	/* a default of no CPU, and one with CPUs that are not possible */
	put_journal(&s, ENTRY(44, "eth0-TxRx-3", "0-3\\n"), "0\\n");
	said[0] = '\0';
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	ck_assert_ptr_nonnull(strstr(said, "default_smp_affinity '0' has no cpu at all"));
	put_journal(&s, ENTRY(44, "eth0-TxRx-3", "0-3\\n"), "ff,ffffffff\\n");
	ck_assert_int_eq(restore(&s, &restored), -EINVAL);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	log_set_hook(NULL);
	finish(&s);
}
END_TEST

START_TEST(renamed_irqs_are_skipped_and_named)
{
	struct irq_restore_report restored;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	log_set_hook(capture);
	/* only a stale entry: nothing written, named, journal kept */
	put_journal(&s, ENTRY(44, "nvme0q1", "0-3\\n"), NULL);
	said[0] = '\0';
	ck_assert_int_eq(restore(&s, &restored), -ESTALE);
	ck_assert_uint_eq(restored.stale, 1);
	ck_assert_uint_eq(restored.restored, 0);
	ck_assert_ptr_nonnull(
		strstr(said, "irq 44 skipped: recorded as 'nvme0q1', now 'eth0-TxRx-3'"));
	assert_same_as(&s, FIXTURE("irq-numa2"));
	ck_assert_int_eq(access(s.journal, F_OK), 0);
	/* beside a good one: the good one is written, the summary counts it */
	put_journal(&s, ENTRY(44, "nvme0q1", "0-3\\n") ", " ENTRY(45, "eth0-TxRx-4", "4-7\\n"),
		    NULL);
	ck_assert_int_eq(restore(&s, &restored), -ESTALE);
	ck_assert_uint_eq(restored.restored, 1);
	ck_assert_uint_eq(restored.stale, 1);
	ck_assert_str_eq(file_text(&s, "proc/irq/44/smp_affinity_list"), "0-15\n");
	ck_assert_str_eq(file_text(&s, "proc/irq/45/smp_affinity_list"), "4-7\n");
	log_set_hook(NULL);
	finish(&s);
}
END_TEST

/*
 * A journal that names an IRQ the kernel does not let user space set (an
 * apply of an older latscope journaled managed IRQs before the kernel
 * refused them): skipped and named, not a failed write; the others are
 * restored and the journal is done with.
 */
START_TEST(unmovable_irqs_are_skipped_and_named)
{
	struct irq_restore_report restored;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	log_set_hook(capture);
	put_journal(&s, ENTRY(62, "nvme0q2", "0-15\\n") ", " ENTRY(45, "eth0-TxRx-4", "4-7\\n"),
		    NULL);
	said[0] = '\0';
	ck_assert_int_eq(restore(&s, &restored), 0);
	ck_assert_uint_eq(restored.unmovable, 1);
	ck_assert_uint_eq(restored.restored, 1);
	ck_assert_uint_eq(restored.failed, 0);
	ck_assert_ptr_nonnull(strstr(said, "irq 62 nvme0q2 cannot be set from user space "
					   "(affinity file mode 0444): not written back"));
	/* a tree's 0444 file root could write: not written, as the kernel would refuse */
	ck_assert_str_eq(file_text(&s, "proc/irq/62/smp_affinity_list"), "4-7\n");
	ck_assert_str_eq(file_text(&s, "proc/irq/45/smp_affinity_list"), "4-7\n");
	ck_assert_int_eq(access(s.journal, F_OK), -1);
	log_set_hook(NULL);
	finish(&s);
}
END_TEST

START_TEST(failed_writes_are_named_and_counted)
{
	struct irq_restore_report restored;
	unsigned int moves;
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	make_plan(&s, "");
	moves = s.plan.nr_moves;
	drop_plan(&s);
	plan_and_apply(&s, "");
	/* irq 45's file becomes something no write goes into */
	ck_assert_int_eq(in_copy(&s, "rm", "proc/irq/45/smp_affinity_list"), 0);
	ck_assert_int_eq(in_copy(&s, "mkdir", "proc/irq/45/smp_affinity_list"), 0);
	log_set_hook(capture);
	said[0] = '\0';
	ck_assert_int_eq(restore(&s, &restored), -EIO);
	ck_assert_uint_eq(restored.failed, 1);
	ck_assert_uint_eq(restored.restored, moves - 1);
	ck_assert(restored.default_restored);
	ck_assert_ptr_nonnull(strstr(said, "irq 45 eth0-TxRx-4: cannot write smp_affinity_list"));
	ck_assert_ptr_nonnull(strstr(said, "Is a directory"));
	ck_assert_ptr_nonnull(strstr(said, "kept"));
	ck_assert_int_eq(access(s.journal, F_OK), 0);
	ck_assert_str_eq(file_text(&s, "proc/irq/46/smp_affinity_list"), "0-15\n");
	log_set_hook(NULL);
	finish(&s);
}
END_TEST

/* a write the kernel refuses leaves the IRQ where it was and says why in the journal */
START_TEST(refused_writes_are_journaled)
{
	struct irq_apply_report report;
	json_t *journal, *refused, *entry;
	unsigned int i;

	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	make_plan(&s, "");
	ck_assert_uint_gt(s.plan.nr_moves, 1);
	ck_assert_int_eq(in_copy(&s, "rm", "proc/irq/45/smp_affinity_list"), 0);
	ck_assert_int_eq(in_copy(&s, "mkdir", "proc/irq/45/smp_affinity_list"), 0);
	ck_assert_int_eq(apply(&s, &report), 0);
	ck_assert_uint_eq(report.permanent, 1);
	journal = json_load_file(s.journal, 0, NULL);
	ck_assert_ptr_nonnull(journal);
	refused = json_object_get(journal, "refused");
	ck_assert_uint_eq(json_array_size(refused), 1);
	entry = json_array_get(refused, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(entry, "irq")), 45);
	ck_assert_str_eq(json_string_value(json_object_get(entry, "error")), "EISDIR");
	for (i = 0; i < s.plan.nr_moves; i++)
		if (s.plan.moves[i].irq == 45)
			ck_assert_int_eq(json_integer_value(json_object_get(entry, "to")),
					 (int)s.plan.moves[i].to);
	json_decref(journal);
	free(report.moves);
	drop_plan(&s);
	finish(&s);
}
END_TEST

/* a file that takes the write but does not read back as one: named in sysroot's words */
START_TEST(a_read_back_that_is_no_file_is_named)
{
	struct irq_restore_report restored;
	char link[1024];
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	plan_and_apply(&s, "");
	snprintf(link, sizeof(link), "%s/proc/irq/45/smp_affinity_list", s.copy.dir);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink("/dev/null", link), 0);
	log_set_hook(capture);
	said[0] = '\0';
	ck_assert_int_eq(restore(&s, &restored), -EIO);
	ck_assert_uint_eq(restored.failed, 1);
	ck_assert_ptr_nonnull(strstr(
		said,
		"irq 45 eth0-TxRx-4: cannot write smp_affinity_list '0-15' back: not a regular file"));
	log_set_hook(NULL);
	finish(&s);
}
END_TEST

START_TEST(an_empty_journal_is_a_fresh_one)
{
	struct irq_restore_report restored;
	struct irq_apply_report report;
	char dir[1024];
	struct state s;

	start(&s, FIXTURE("irq-numa2"));
	snprintf(dir, sizeof(dir), "%s/run", s.copy.dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	strcat(dir, "/latscope");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	/* what mktemp makes */
	fixture_put(&s.copy, "run/latscope/irq-journal.json", "");
	ck_assert_int_eq(restore(&s, &restored), 0);
	ck_assert_uint_eq(restored.restored, 0);
	ck_assert_int_ne(access(s.journal, F_OK), 0);
	fixture_put(&s.copy, "run/latscope/irq-journal.json", "");
	make_plan(&s, "");
	ck_assert_int_eq(apply(&s, &report), 0);
	ck_assert_uint_eq(report.done, s.plan.nr_moves);
	free(report.moves);
	drop_plan(&s);
	ck_assert_int_eq(restore(&s, &restored), 0);
	assert_same_as(&s, FIXTURE("irq-numa2"));
	finish(&s);
}
END_TEST

START_TEST(journal_paths_checked)
{
	char dir[] = "/tmp/latscope-journal-XXXXXX", path[8192];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(irq_journal_check_path(dir), -EISDIR);
	snprintf(path, sizeof(path), "%s/", dir);
	ck_assert_int_eq(irq_journal_check_path(path), -EISDIR);
	snprintf(path, sizeof(path), "%s/journal.json", dir);
	ck_assert_int_eq(irq_journal_check_path(path), 0);
	ck_assert_int_eq(irq_journal_check_path("/dev/null"), -EINVAL);
	memset(path, 'j', 6000);
	path[0] = '/';
	path[6000] = '\0';
	ck_assert_int_eq(irq_journal_check_path(path), -ENAMETOOLONG);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static int files_in(const char *dir)
{
	char command[600];
	FILE *ls;
	int n = 0;

	snprintf(command, sizeof(command), "ls -A '%s'", dir);
	ls = popen(command, "r");
	ck_assert_ptr_nonnull(ls);
	while (fgets(command, sizeof(command), ls))
		n++;
	pclose(ls);
	return n;
}

START_TEST(one_holder_at_a_time)
{
	char dir[] = "/tmp/latscope-journal-XXXXXX", path[1024], pid[32];
	struct irq_journal_lock *a, *b;
	uint64_t start_ns, waited_ns;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run/latscope/journal.json", dir);
	/* restore does not make the directory: no directory, no journal */
	ck_assert_int_eq(irq_journal_lock(path, false, 0, &a), -ENOENT);
	ck_assert_int_eq(irq_journal_lock(path, true, 0, &a), 0);
	ck_assert_str_eq(irq_journal_lock_journal(a), path);
	log_set_hook(capture);
	said[0] = '\0';
	/* flock is per open file: a second taker in this very process conflicts */
	ck_assert_int_eq(irq_journal_lock(path, true, 0, &b), -EBUSY);
	ck_assert_ptr_null(b);
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	ck_assert_ptr_nonnull(strstr(said, pid));
	start_ns = clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(irq_journal_lock(path, true, 100 * 1000 * 1000, &b), -EBUSY);
	waited_ns = clock_ns(CLOCK_MONOTONIC) - start_ns;
	ck_assert_uint_ge(waited_ns, 100 * 1000 * 1000);
	ck_assert_ptr_nonnull(strstr(said, "waiting up to"));
	log_set_hook(NULL);
	irq_journal_unlock(a);
	ck_assert_int_eq(irq_journal_lock(path, true, 0, &b), 0);
	irq_journal_unlock(b);
	/* nothing left beside the journal */
	snprintf(path, sizeof(path), "%s/run/latscope", dir);
	ck_assert_int_eq(files_in(path), 0);
	snprintf(path, sizeof(path), "rm -r '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

struct waiter {
	const char *path;
	int ret;
	struct irq_journal_lock *lock;
};

static void *wait_for_lock(void *data)
{
	struct waiter *w = data;

	w->ret = irq_journal_lock(w->path, true, 60ULL * 1000 * 1000 * 1000, &w->lock);
	return NULL;
}

/* set by the log hook when a taker says it waits: the moment to let go */
static atomic_bool waiting;

static void notice_waiting(enum log_level level, const char *message)
{
	if (level == LATSCOPE_LOG_WARNING && strstr(message, "waiting up to"))
		atomic_store(&waiting, true);
}

START_TEST(a_second_one_waits_for_the_first)
{
	char dir[] = "/tmp/latscope-journal-XXXXXX", path[1024], name[300], byte;
	struct waiter w = { .path = path, .ret = -1 };
	int ready[2], release[2], status, i;
	pthread_t thread;
	pid_t child;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* the longest name: the lock's name is cut to fit */
	memset(name, 'j', NAME_MAX);
	name[NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(release), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		struct irq_journal_lock *lock;

		/* holds the journal until the parent says its taker is waiting */
		if (irq_journal_lock(path, true, 0, &lock) || write(ready[1], "x", 1) != 1 ||
		    read(release[0], &byte, 1) != 1)
			_exit(1);
		irq_journal_unlock(lock);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &byte, 1), 1);
	atomic_store(&waiting, false);
	log_set_hook(notice_waiting);
	ck_assert_int_eq(pthread_create(&thread, NULL, wait_for_lock, &w), 0);
	for (i = 0; i < 3000 && !atomic_load(&waiting); i++)
		usleep(10 * 1000);
	ck_assert_msg(atomic_load(&waiting), "the second taker never said it waits");
	ck_assert_int_eq(write(release[1], "x", 1), 1);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	log_set_hook(NULL);
	/* it got the journal once the first holder let go */
	ck_assert_int_eq(w.ret, 0);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	irq_journal_unlock(w.lock);
	close(ready[0]);
	close(ready[1]);
	close(release[0]);
	close(release[1]);
	ck_assert_int_eq(files_in(dir), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(write_errors_are_sorted)
{
	ck_assert_int_eq(irq_write_status_of(0), IRQ_WRITE_DONE);
	ck_assert_int_eq(irq_write_status_of(EBUSY), IRQ_WRITE_TEMPORARY);
	ck_assert_int_eq(irq_write_status_of(EAGAIN), IRQ_WRITE_TEMPORARY);
	ck_assert_int_eq(irq_write_status_of(EINVAL), IRQ_WRITE_TEMPORARY);
	ck_assert_int_eq(irq_write_status_of(ENOSPC), IRQ_WRITE_TEMPORARY);
	ck_assert_int_eq(irq_write_status_of(EIO), IRQ_WRITE_PERMANENT);
	ck_assert_int_eq(irq_write_status_of(EPERM), IRQ_WRITE_PERMANENT);
	ck_assert_int_eq(irq_write_status_of(EACCES), IRQ_WRITE_PERMANENT);
	ck_assert_int_eq(irq_write_status_of(ENOENT), IRQ_WRITE_GONE);
	ck_assert_str_eq(irq_write_status_name(IRQ_WRITE_GONE), "gone");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("irqapply");
	TCase *tc = tcase_create("irqapply");

	tcase_add_test(tc, plan_apply_plan_restore_round_trip);
	tcase_add_test(tc, journal_keeps_the_first_state);
	tcase_add_test(tc, vanished_changed_and_unwritable_irqs);
	tcase_add_test(tc, bad_journals_write_nothing);
	tcase_add_test(tc, restore_skips_vanished_irqs);
	tcase_add_test(tc, write_errors_are_sorted);
	tcase_add_test(tc, invalid_journals_are_refused_whole);
	tcase_add_test(tc, renamed_irqs_are_skipped_and_named);
	tcase_add_test(tc, failed_writes_are_named_and_counted);
	tcase_add_test(tc, unmovable_irqs_are_skipped_and_named);
	tcase_add_test(tc, refused_writes_are_journaled);
	tcase_add_test(tc, a_read_back_that_is_no_file_is_named);
	tcase_add_test(tc, an_empty_journal_is_a_fresh_one);
	tcase_add_test(tc, journal_paths_checked);
	tcase_add_test(tc, one_holder_at_a_time);
	tcase_add_test(tc, a_second_one_waits_for_the_first);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
