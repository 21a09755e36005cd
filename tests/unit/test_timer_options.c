// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "cli.h"
#include "option_exercise.h"
#include "timer_options.h"
#include "unit.h"

static struct cpuset online, allowed, affinity;
static struct timer_machine machine_cpus = { &online, &allowed, &affinity };

/* where the process runs is what its cpuset allows (a machine without isolcpus=) */
static void machine(const char *online_list, const char *allowed_list)
{
	ck_assert_int_eq(cpuset_parse_list(online_list, &online), 0);
	ck_assert_int_eq(cpuset_parse_list(allowed_list, &allowed), 0);
	affinity = allowed;
}

/* Parse a command line given as one string, words split at spaces. */
static int parse(const char *line, struct timer_options *opts)
{
	static char text[512];
	char *argv[64], *word, *save = NULL;
	int argc = 0, status;

	if (cpuset_empty(&online))
		machine("0-7", "0-7");
	snprintf(text, sizeof(text), "timer %s", line);
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	return timer_options_parse(argc, argv, &machine_cpus, opts, &status) ? 0 : status;
}

static void parse_ok(const char *line, struct timer_options *opts)
{
	ck_assert_msg(parse(line, opts) == 0, "'%s' was rejected", line);
}

static void rejected(const char *line)
{
	struct timer_options opts;

	ck_assert_msg(parse(line, &opts) == EXIT_USAGE, "'%s' was accepted", line);
}

#define all_rejected(lines)                                                   \
	do {                                                                  \
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) \
			rejected(lines[i]);                                   \
	} while (0)

static void check_cpus(const struct timer_options *opts, const int *cpus, unsigned int nr)
{
	unsigned int i;

	ck_assert_uint_eq(opts->params.nr_threads, nr);
	for (i = 0; i < nr; i++)
		ck_assert_msg(opts->threads[i].cpu == cpus[i], "thread %u on cpu %d, not %d", i,
			      opts->threads[i].cpu, cpus[i]);
}

START_TEST(defaults_are_cyclictests)
{
	struct timer_options opts;

	parse_ok("", &opts);
	ck_assert_uint_eq(opts.params.nr_threads, 1);
	ck_assert_int_eq(opts.threads[0].cpu, -1);
	ck_assert(!opts.pinned);
	ck_assert_uint_eq(opts.threads[0].interval_ns, 1000000);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_OTHER);
	ck_assert_int_eq(opts.threads[0].priority, 0);
	ck_assert_int_eq(opts.params.mode, TIMER_WAIT_ABSOLUTE);
	ck_assert(opts.pm_qos);
	ck_assert_int_eq(opts.latency_us, 0);
	ck_assert_uint_eq(opts.params.duration_ns, 0);
	ck_assert_uint_eq(opts.params.loops, 0);
	ck_assert_uint_eq(opts.params.break_above_ns, 0);
	ck_assert_uint_eq(opts.params.histogram_buckets, 0);
	ck_assert_uint_eq(opts.params.unit_ns, 1000);
	ck_assert_uint_eq(opts.params.sample_ring, 0);
	ck_assert_uint_gt(opts.params.spike_capacity, 0);
	timer_options_release(&opts);
}
END_TEST

START_TEST(threads_spellings)
{
	static const char *const four[] = { "-t4", "-t 4", "--threads=4", "--threads 4" };
	struct timer_options opts;
	size_t i;

	for (i = 0; i < sizeof(four) / sizeof(four[0]); i++) {
		parse_ok(four[i], &opts);
		ck_assert_msg(opts.params.nr_threads == 4, "%s", four[i]);
		ck_assert(!opts.pinned);
		timer_options_release(&opts);
	}
	/* bare: one per allowed cpu, unpinned, intervals i + n*d */
	parse_ok("-t", &opts);
	ck_assert_uint_eq(opts.params.nr_threads, 8);
	ck_assert_int_eq(opts.threads[7].cpu, -1);
	ck_assert_uint_eq(opts.threads[0].interval_ns, 1000000);
	ck_assert_uint_eq(opts.threads[1].interval_ns, 1500000);
	ck_assert_uint_eq(opts.threads[7].interval_ns, 4500000);
	timer_options_release(&opts);
	/* a bare -t before another option */
	parse_ok("-t -p 80", &opts);
	ck_assert_uint_eq(opts.params.nr_threads, 8);
	ck_assert_int_eq(opts.threads[0].priority, 80);
	timer_options_release(&opts);
}
END_TEST

START_TEST(affinity_spellings)
{
	static const int first[] = { 0 }, two[] = { 2 }, all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int listed[] = { 0, 3, 4, 5, 0 };
	struct timer_options opts;

	parse_ok("-a", &opts);
	check_cpus(&opts, first, 1);
	ck_assert(opts.pinned);
	timer_options_release(&opts);
	parse_ok("-a2", &opts);
	check_cpus(&opts, two, 1);
	timer_options_release(&opts);
	parse_ok("-a 2", &opts);
	check_cpus(&opts, two, 1);
	timer_options_release(&opts);
	parse_ok("--affinity=2", &opts);
	check_cpus(&opts, two, 1);
	timer_options_release(&opts);
	/* cyclictest's own example: round robin in cpu order */
	parse_ok("-a 3-5,0 -t 5", &opts);
	check_cpus(&opts, listed, 5);
	timer_options_release(&opts);
	parse_ok("-a -t", &opts);
	check_cpus(&opts, all, 8);
	timer_options_release(&opts);
	/* bare -t with a list: one per listed cpu */
	parse_ok("-t -a 3-5,0", &opts);
	check_cpus(&opts, listed, 4);
	ck_assert_str_eq(cpuset_format_list(&opts.measured, (char[32]){ 0 }, 32), "0,3-5");
	timer_options_release(&opts);
}
END_TEST

START_TEST(smp_pins_one_thread_per_allowed_cpu)
{
	static const int cpus[] = { 1, 2, 3 };
	struct timer_options opts;

	machine("0-7", "1-3");
	parse_ok("-S -p 95", &opts);
	check_cpus(&opts, cpus, 3);
	ck_assert_int_eq(opts.threads[2].priority, 95);
	ck_assert_uint_eq(opts.threads[2].interval_ns, 2000000);
	timer_options_release(&opts);
	/* -t and -a are ignored with -S, as in cyclictest (with a warning) */
	parse_ok("-S -t 7 -a 1", &opts);
	check_cpus(&opts, cpus, 3);
	timer_options_release(&opts);
}
END_TEST

START_TEST(combined_short_options)
{
	struct timer_options opts;
	unsigned int i;

	parse_ok("-mSp90 -i200 -h400 -q", &opts);
	ck_assert(opts.mlockall);
	ck_assert(opts.quiet);
	ck_assert(opts.pinned);
	ck_assert_uint_eq(opts.params.nr_threads, 8);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_FIFO);
	ck_assert_uint_eq(opts.params.histogram_buckets, 400);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(opts.threads[i].cpu, (int)i);
		ck_assert_int_eq(opts.threads[i].priority, 90);
		/* -h: every thread at the base interval */
		ck_assert_uint_eq(opts.threads[i].interval_ns, 200000);
	}
	timer_options_release(&opts);
	parse_ok("-qmNa1 -p99", &opts);
	ck_assert(opts.quiet && opts.mlockall && opts.nsecs);
	ck_assert_int_eq(opts.threads[0].cpu, 1);
	ck_assert_uint_eq(opts.params.unit_ns, 1);
	timer_options_release(&opts);
}
END_TEST

START_TEST(histogram_spellings)
{
	static const char *const spellings[] = { "-h400", "-h 400", "--histogram=400",
						 "--histogram 400" };
	struct timer_options opts;
	size_t i;

	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		parse_ok(spellings[i], &opts);
		ck_assert_uint_eq(opts.params.histogram_buckets, 400);
		ck_assert(!opts.histofall);
		timer_options_release(&opts);
	}
	parse_ok("-H 30 -t 2 -d 100 --histfile /tmp/h", &opts);
	ck_assert(opts.histofall);
	ck_assert_str_eq(opts.histfile, "/tmp/h");
	ck_assert_uint_eq(opts.threads[1].interval_ns, 1000000);
	timer_options_release(&opts);
}
END_TEST

START_TEST(durations)
{
	static const struct {
		const char *line;
		uint64_t ns;
	} cases[] = {
		{ "-D 1m", 60000000000ULL },	      { "-D 10", 10000000000ULL },
		{ "-D 2H", 7200000000000ULL },	      { "-D 1d", 86400000000000ULL },
		{ "--duration=500ms", 500000000ULL }, { "-D0", 0 },
		{ "-D 3M", 180000000000ULL },	      { "-D 5ms", 5000000ULL },
	};
	struct timer_options opts;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].line, &opts);
		ck_assert_msg(opts.params.duration_ns == cases[i].ns, "%s", cases[i].line);
		timer_options_release(&opts);
	}
}
END_TEST

START_TEST(priorities_and_policies)
{
	struct timer_options opts;

	/* cyclictest 2.4: every thread at -p unless --priospread */
	parse_ok("-p 90 -t 3", &opts);
	ck_assert_int_eq(opts.threads[2].priority, 90);
	timer_options_release(&opts);
	parse_ok("-p 90 -t 3 --priospread", &opts);
	ck_assert_int_eq(opts.threads[0].priority, 90);
	ck_assert_int_eq(opts.threads[2].priority, 88);
	timer_options_release(&opts);
	parse_ok("--policy rr -p 50", &opts);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_RR);
	ck_assert_int_eq(opts.threads[0].priority, 50);
	timer_options_release(&opts);
	parse_ok("-p 50 --policy=rr", &opts);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_RR);
	timer_options_release(&opts);
	/* fifo without -p: cyclictest's default of threads + 1 */
	parse_ok("--policy fifo -t 2", &opts);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_FIFO);
	ck_assert_int_eq(opts.threads[1].priority, 3);
	timer_options_release(&opts);
	parse_ok("--policy batch", &opts);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_BATCH);
	ck_assert_int_eq(opts.threads[0].priority, 0);
	timer_options_release(&opts);
	parse_ok("--policy normal", &opts);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_OTHER);
	timer_options_release(&opts);
}
END_TEST

START_TEST(other_options)
{
	struct timer_options opts;

	parse_ok("-b 100", &opts);
	/* cyclictest's truncated comparison: 100.999 us does not break -b 100 */
	ck_assert_uint_eq(opts.params.break_above_ns, 100999);
	ck_assert_uint_eq(opts.break_us, 100);
	timer_options_release(&opts);
	parse_ok("-b 100 -N --tracemark", &opts);
	ck_assert_uint_eq(opts.params.break_above_ns, 100000);
	ck_assert(opts.params.tracemark);
	timer_options_release(&opts);
	parse_ok("-r -l 1000", &opts);
	ck_assert_int_eq(opts.params.mode, TIMER_WAIT_RELATIVE);
	ck_assert_uint_eq(opts.params.loops, 1000);
	timer_options_release(&opts);
	parse_ok("--posix_timers -c 0", &opts);
	ck_assert_int_eq(opts.params.mode, TIMER_WAIT_POSIX_TIMER);
	timer_options_release(&opts);
	parse_ok("--latency=10 --mainaffinity 0 --json /tmp/x.json -v -u -M", &opts);
	ck_assert_int_eq(opts.latency_us, 10);
	ck_assert(opts.main_affinity_given);
	ck_assert(cpuset_has(&opts.main_affinity, 0));
	ck_assert_str_eq(opts.json.path, "/tmp/x.json");
	ck_assert(opts.verbose && opts.unbuffered && opts.refresh_on_max);
	ck_assert_uint_gt(opts.params.sample_ring, 0);
	timer_options_release(&opts);
	/* cyclictest's -v is the shared --verbose: every sample, and twice debug */
	parse_ok("-vv", &opts);
	ck_assert_int_eq(opts.verbose, 2);
	ck_assert_uint_gt(opts.params.sample_ring, 0);
	timer_options_release(&opts);
	parse_ok("--default-system", &opts);
	ck_assert(!opts.pm_qos);
	timer_options_release(&opts);
	parse_ok("--fail-above 50", &opts);
	ck_assert_uint_eq(opts.fail_above_ns, 50000);
	timer_options_release(&opts);
	parse_ok("--fail-above 2ms -d 0 -t 2", &opts);
	ck_assert_uint_eq(opts.fail_above_ns, 2000000);
	ck_assert_uint_eq(opts.threads[1].interval_ns, 1000000);
	timer_options_release(&opts);
	/* --help stops the command with status 0 and no options to release */
	parse_ok("--help", &opts);
	ck_assert_ptr_null(opts.threads);
}
END_TEST

START_TEST(bad_values_are_usage_errors)
{
	static const char *const lines[] = {
		"-p abc",
		"-p 0",
		"-p 100",
		"-p",
		"-i 0",
		"-i abc",
		"-i -5",
		"-t 0",
		"-t 9000",
		"-t 4x",
		"-a 9",
		"-a 3-x",
		"-a 7-8",
		"--affinity=",
		"-D -1",
		"-D 5x",
		"-h 0",
		"-h 1000001",
		"-H 0",
		"-h",
		"-b 0",
		"-b -3",
		"-l -5",
		"-d -1",
		"--latency -1",
		"--latency x",
		"--mainaffinity 12",
		"--policy foo",
		"-c 1",
		"-c realtime",
		"-c 2",
		"--fail-above 0",
		"--fail-above x",
		"--json=",
	};
	all_rejected(lines);
}
END_TEST

START_TEST(bad_combinations_are_usage_errors)
{
	static const char *const lines[] = {
		"--policy other -p 90",
		"-p 90 --policy other",
		"--policy batch -p 1",
		"--policy idle --priospread",
		"--priospread -p 2 -t 3",
		"--tracemark",
		"--histfile /tmp/h",
		"-r -x",
		"--latency 10 --default-system",
		"stray",
		"-t 2 stray",
		"--unknown",
		"-Z",
	};
	all_rejected(lines);
}
END_TEST

START_TEST(unsupported_cyclictest_options_are_named)
{
	static const char *const lines[] = {
		"--smi",
		"-s",
		"--system",
		"-M -F /tmp/f",
		"--fifo=/tmp/f",
		"--spike=10",
		"--spike-nodes=4",
		"-A",
		"-A 100",
		"--aligned",
		"--secaligned",
		"--laptop",
		"--deepest-idle-state=1",
		"-R",
		"--resolution",
		"-o 10",
		"--oscope=2",
		"--dbg_cyclictest",
	};
	all_rejected(lines);
}
END_TEST

START_TEST(cpus_outside_the_process_are_refused)
{
	struct timer_options opts;

	machine("0-7", "0-3");
	rejected("-a 5");
	rejected("--mainaffinity 6");
	parse_ok("-t", &opts);
	ck_assert_uint_eq(opts.params.nr_threads, 4);
	timer_options_release(&opts);
	parse_ok("-a", &opts);
	ck_assert_int_eq(opts.threads[0].cpu, 0);
	timer_options_release(&opts);
}
END_TEST

/*
 * isolcpus=2-3: every process starts on 0-1, its cpuset allows 0-3. A list
 * may name the isolated CPUs (as cyclictest's -a may); what names no CPU
 * takes the affinity, as cyclictest does.
 */
START_TEST(isolated_cpus_are_named_not_taken)
{
	static const int isolated[] = { 2, 3 }, housekeeping[] = { 0, 1 };
	struct timer_options opts;

	machine("0-3", "0-3");
	ck_assert_int_eq(cpuset_parse_list("0-1", &affinity), 0);
	parse_ok("-a 2,3 -t 2", &opts);
	check_cpus(&opts, isolated, 2);
	timer_options_release(&opts);
	parse_ok("--affinity=all -t 4", &opts);
	ck_assert_int_eq(opts.threads[3].cpu, 3);
	timer_options_release(&opts);
	parse_ok("-S", &opts);
	check_cpus(&opts, housekeeping, 2);
	timer_options_release(&opts);
	parse_ok("-a -t", &opts);
	check_cpus(&opts, housekeeping, 2);
	timer_options_release(&opts);
	rejected("-a 4");
}
END_TEST

/* OSADL's QA farm runs cyclictest with this line on every board */
START_TEST(osadl_line)
{
	struct timer_options opts;
	unsigned int i;

	parse_ok("-l100000000 -m -Sp90 -i200 -h400 -q", &opts);
	ck_assert_uint_eq(opts.params.loops, 100000000);
	ck_assert(opts.mlockall && opts.quiet && opts.pinned);
	ck_assert_uint_eq(opts.params.nr_threads, 8);
	ck_assert_int_eq(opts.params.policy, RT_POLICY_FIFO);
	ck_assert_uint_eq(opts.params.histogram_buckets, 400);
	ck_assert(!opts.histofall);
	for (i = 0; i < 8; i++) {
		ck_assert_int_eq(opts.threads[i].cpu, (int)i);
		ck_assert_int_eq(opts.threads[i].priority, 90);
		ck_assert_uint_eq(opts.threads[i].interval_ns, 200000);
	}
	timer_options_release(&opts);
}
END_TEST

/* The same run spelled with long options, as rtla and scripts write them. */
START_TEST(long_forms)
{
	struct timer_options a, b;
	unsigned int i;

	parse_ok("-l100000000 -m -Sp90 -i200 -h400 -q", &a);
	parse_ok("--loops=100000000 --mlockall --smp --priority=90 --interval=200 "
		 "--histogram=400 --quiet",
		 &b);
	ck_assert_uint_eq(a.params.loops, b.params.loops);
	ck_assert_uint_eq(a.params.nr_threads, b.params.nr_threads);
	ck_assert_uint_eq(a.params.histogram_buckets, b.params.histogram_buckets);
	ck_assert(a.mlockall == b.mlockall && a.quiet == b.quiet && a.pinned == b.pinned);
	for (i = 0; i < a.params.nr_threads; i++) {
		ck_assert_int_eq(a.threads[i].cpu, b.threads[i].cpu);
		ck_assert_int_eq(a.threads[i].priority, b.threads[i].priority);
		ck_assert_uint_eq(a.threads[i].interval_ns, b.threads[i].interval_ns);
	}
	timer_options_release(&a);
	timer_options_release(&b);
	parse_ok("--duration=5m --affinity=3-5 --threads=3 --breaktrace=100 --tracemark "
		 "--policy=rr --priority 80 --json=/tmp/latscope-long-forms.json",
		 &a);
	ck_assert_uint_eq(a.params.duration_ns, 300000000000ULL);
	ck_assert_uint_eq(a.params.nr_threads, 3);
	ck_assert_int_eq(a.threads[2].cpu, 5);
	ck_assert_uint_eq(a.break_us, 100);
	ck_assert(a.params.tracemark);
	ck_assert_int_eq(a.params.policy, RT_POLICY_RR);
	ck_assert_int_eq(a.threads[0].priority, 80);
	timer_options_release(&a);
	parse_ok("--duration 1h --explain --affinity 1 --explain-above=50us --fail-above 2ms", &a);
	ck_assert_uint_eq(a.params.duration_ns, 3600000000000ULL);
	ck_assert_int_eq(a.explain, EXPLAIN_WITH_TRACE);
	ck_assert_uint_eq(a.explain_above_ns, 50000);
	ck_assert_uint_eq(a.fail_above_ns, 2000000);
	timer_options_release(&a);
	parse_ok("--explain=counters", &a);
	ck_assert_int_eq(a.explain, EXPLAIN_WITH_COUNTERS);
	timer_options_release(&a);
}
END_TEST

static const struct exercise_hint hints[] = {
	{ .long_name = "affinity", .valid = "2", .invalid = "9" },
	{ .long_name = "policy", .valid = "fifo", .invalid = "deadline" },
	{ .long_name = "duration", .valid = "5m", .invalid = "5x" },
	{ .long_name = "clock", .valid = "0", .invalid = "1" },
	{ .long_name = "histogram", .valid = "400", .invalid = "0" },
	{ .long_name = "histofall", .valid = "400", .invalid = "1000001" },
	{ .long_name = "mainaffinity", .valid = "0", .invalid = "12" },
	{ .long_name = "histfile", .companion = "-h 10" },
	{ .long_name = "tracemark", .companion = "-b 10" },
	{ .long_name = "explain", .companion = "-a 1" },
	{ .long_name = "explain-above", .companion = "--explain -a 1" },
	{ .long_name = "trace-dir", .companion = "--explain -a 1" },
	EXERCISE_JSON_COMPACT,
	{ NULL },
};

START_TEST(every_option_in_every_spelling)
{
	struct exercise x = { .command = &timer_command, .context = &machine_cpus, .hints = hints };

	machine("0-7", "0-7");
	exercise_command(&x);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("timer_options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, defaults_are_cyclictests);
	tcase_add_test(tc, threads_spellings);
	tcase_add_test(tc, affinity_spellings);
	tcase_add_test(tc, smp_pins_one_thread_per_allowed_cpu);
	tcase_add_test(tc, combined_short_options);
	tcase_add_test(tc, histogram_spellings);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, priorities_and_policies);
	tcase_add_test(tc, other_options);
	tcase_add_test(tc, bad_values_are_usage_errors);
	tcase_add_test(tc, bad_combinations_are_usage_errors);
	tcase_add_test(tc, unsupported_cyclictest_options_are_named);
	tcase_add_test(tc, cpus_outside_the_process_are_refused);
	tcase_add_test(tc, isolated_cpus_are_named_not_taken);
	tcase_add_test(tc, osadl_line);
	tcase_add_test(tc, long_forms);
	tcase_add_test(tc, every_option_in_every_spelling);
	suite_add_tcase(suite, tc);
	return unit_run(suite);
}
