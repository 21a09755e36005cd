// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_rng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab_rounds.h"
#include "cli.h"

/* "exited 3", "was killed by SIGKILL": how a child ended */
static const char *ended(int status, char *buf, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by SIG%s", sigabbrev_np(WTERMSIG(status)) ?: "?");
	else
		snprintf(buf, size, "exited %d", WEXITSTATUS(status));
	return buf;
}

/*
 * Wait for a child. A stop signal that arrives meanwhile is passed on once
 * when @pass_stop (a measurement ends its round early and writes it);
 * otherwise the child is left to finish (a setup command).
 */
static int wait_child(pid_t pid, bool pass_stop, int *status)
{
	bool passed = false;

	for (;;) {
		if (waitpid(pid, status, 0) == pid)
			return 0;
		if (errno != EINTR)
			return -errno;
		if (pass_stop && stop_requested && !passed) {
			kill(pid, stop_requested);
			passed = true;
		}
	}
}

/* run @argv[0] with @argv; its standard output to /dev/null when @quiet */
static int run_child(char *const argv[], bool quiet, bool pass_stop, int *status)
{
	pid_t pid = fork();
	int null;

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (quiet) {
			null = open("/dev/null", O_WRONLY | O_CLOEXEC);
			if (null >= 0)
				dup2(null, STDOUT_FILENO);
		}
		execv(argv[0], argv);
		fprintf(stderr, "latscope ab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return wait_child(pid, pass_stop, status);
}

/* ab_run_command(), the line kept in @why */
static int run_command(struct part_result *why, const char *what, const char *command)
{
	char *argv[] = { "/bin/sh", "-c", (char *)command, NULL };
	char how[64];
	int status, ret;

	ret = run_child(argv, false, false, &status);
	if (ret)
		return part_refuse(why, PART_NOT_STARTED, EXIT_ERROR, "%s '%s': cannot run: %s",
				   what, command, strerror(-ret));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return part_refuse(why, PART_FAILED, EXIT_ERROR, "%s '%s' %s", what, command,
				   ended(status, how, sizeof(how)));
	return EXIT_OK;
}

int ab_run_command(const char *what, const char *command)
{
	struct part_result why = { 0 };

	return run_command(&why, what, command);
}

static const char side_letter[] = { 'A', 'B' };

/* the measurement of one round: latscope MEASUREMENT WORDS --duration --json --quiet */
static int measure(struct ab_rounds *r, struct ab_round *round)
{
	char duration[48], json[PATH_MAX + 8], how[64];
	char **argv = calloc(r->nr_words + 6, sizeof(*argv));
	unsigned int i, n = 0;
	int status, ret;

	if (!argv)
		return part_refuse(&r->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	snprintf(duration, sizeof(duration), "--duration=%lluns", (unsigned long long)r->round_ns);
	snprintf(json, sizeof(json), "--json=%s", round->path);
	argv[n++] = r->self;
	argv[n++] = (char *)r->measurement;
	for (i = 0; i < r->nr_words; i++)
		argv[n++] = r->words[i];
	argv[n++] = duration;
	argv[n++] = json;
	argv[n++] = "--quiet";
	ret = run_child(argv, true, true, &status);
	free(argv);
	if (ret)
		return part_refuse(&r->result, PART_NOT_STARTED, EXIT_ERROR,
				   "pair %u, %c: cannot run latscope %s: %s", round->pair + 1,
				   side_letter[round->side], r->measurement, strerror(-ret));
	/*
	 * Stopped: the round is not a whole one whatever it wrote, and one
	 * stopped before its first sample exits 1 having measured nothing.
	 */
	round->measured = !stop_requested;
	if (stop_requested)
		return EXIT_OK;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return part_refuse(&r->result, PART_FAILED, EXIT_ERROR,
				   "pair %u, %c: latscope %s %s", round->pair + 1,
				   side_letter[round->side], r->measurement,
				   ended(status, how, sizeof(how)));
	return EXIT_OK;
}

/* one round: its side's setup, then its measurement */
static int run_round(struct ab_rounds *r, struct ab_round *round)
{
	char what[48];
	int status;

	snprintf(what, sizeof(what), "pair %u: the %c setup", round->pair + 1,
		 side_letter[round->side]);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "latscope ab: pair %u of %u, %c (%s)\n", round->pair + 1, r->pairs,
			side_letter[round->side], ab_rounds_order(r, round->pair));
	status = run_command(&r->result, what, r->setup[round->side]);
	if (status || stop_requested)
		return status;
	return measure(r, round);
}

static int prepare(struct ab_rounds *r)
{
	const char *tmp = getenv("TMPDIR");
	ssize_t len = readlink("/proc/self/exe", r->self, sizeof(r->self) - 1);

	if (len < 0)
		return part_refuse(&r->result, PART_NO_MACHINE, EXIT_ERROR,
				   "cannot find this program (/proc/self/exe): %s",
				   strerror(errno));
	r->self[len] = '\0';
	if (snprintf(r->dir, sizeof(r->dir), "%s/latscope-ab.XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof(r->dir)) {
		r->dir[0] = '\0';
		return part_refuse(&r->result, PART_REFUSED, EXIT_ERROR,
				   "TMPDIR is too long for the rounds' results");
	}
	if (!mkdtemp(r->dir)) {
		int err = errno;

		r->dir[0] = '\0';
		return part_refuse(&r->result, PART_NO_MACHINE, EXIT_ERROR,
				   "cannot make a directory for the rounds' results: %s",
				   strerror(err));
	}
	r->rounds = calloc(2 * r->pairs, sizeof(*r->rounds));
	if (!r->rounds)
		return part_refuse(&r->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	return EXIT_OK;
}

int ab_rounds_run(struct ab_rounds *r)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned int pair, k;
	int status;

	if (!rng)
		return part_refuse(&r->result, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	gsl_rng_set(rng, (unsigned long)r->seed);
	status = prepare(r);
	/* the order of every pair is drawn first: the seed alone says it */
	for (pair = 0; !status && pair < r->pairs; pair++) {
		enum ab_side first = gsl_rng_uniform_int(rng, 2) ? AB_B : AB_A;

		for (k = 0; k < 2; k++) {
			struct ab_round *round = &r->rounds[2 * pair + k];

			round->pair = pair;
			round->side = k ? !first : first;
			snprintf(round->path, sizeof(round->path), "%s/pair-%04u-%c.json", r->dir,
				 pair + 1, side_letter[round->side]);
		}
	}
	gsl_rng_free(rng);
	for (k = 0; !status && !stop_requested && k < 2 * r->pairs; k++) {
		r->nr_rounds++;
		status = run_round(r, &r->rounds[k]);
		if (!status && k % 2 && r->rounds[k - 1].measured && r->rounds[k].measured)
			r->pairs_measured++;
	}
	if (!status && stop_requested)
		status = part_refuse(&r->result, PART_STOPPED, EXIT_ERROR,
				     "stopped by SIG%s after %u of %u pairs",
				     sigabbrev_np(stop_requested) ?: "?", r->pairs_measured,
				     r->pairs);
	return status;
}

const char *ab_rounds_path(const struct ab_rounds *r, unsigned int pair, enum ab_side side)
{
	const struct ab_round *first = &r->rounds[2 * pair];

	return first->side == side ? first->path : first[1].path;
}

const char *ab_rounds_order(const struct ab_rounds *r, unsigned int pair)
{
	return r->rounds[2 * pair].side == AB_A ? "AB" : "BA";
}

/* every file of the results' directory (a round killed mid-write leaves its temporary one) */
static void remove_results(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

void ab_rounds_release(struct ab_rounds *r)
{
	if (r->dir[0])
		remove_results(r->dir);
	r->dir[0] = '\0';
	free(r->rounds);
	r->rounds = NULL;
}
