// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exporter_auth.h"
#include "latscope/log.h"
#include "latscope/rt.h"

/* below the server's threads: a scrape preempts a bcrypt */
#define CHECKER_NICE 10

struct exporter_auth {
	struct web_auth *auth;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t queued;
	struct exporter_auth_check *head, *tail; /* under lock */
	unsigned int nr_queued;
	bool stopping;
};

static void forget_credentials(struct exporter_auth_check *check)
{
	if (check->password) {
		explicit_bzero(check->password, strlen(check->password));
		free(check->password);
	}
	free(check->user);
	check->user = check->password = NULL;
}

/* The verdict first: once resumed, the request may end and free @check. */
static void resume(struct exporter_auth_check *check, enum exporter_auth_verdict verdict)
{
	struct MHD_Connection *connection = check->connection;

	forget_credentials(check);
	check->verdict = verdict;
	MHD_resume_connection(connection);
}

static void *run_checks(void *arg)
{
	struct exporter_auth *checker = arg;
	struct exporter_auth_check *check;
	bool ok;

	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), CHECKER_NICE);
	pthread_mutex_lock(&checker->lock);
	for (;;) {
		while (!checker->head && !checker->stopping)
			pthread_cond_wait(&checker->queued, &checker->lock);
		if (checker->stopping)
			break;
		check = checker->head;
		checker->head = check->next;
		if (!checker->head)
			checker->tail = NULL;
		checker->nr_queued--;
		pthread_mutex_unlock(&checker->lock);
		ok = web_auth_check(checker->auth, check->user, check->password);
		resume(check, ok ? EXPORTER_AUTH_ALLOWED : EXPORTER_AUTH_DENIED);
		pthread_mutex_lock(&checker->lock);
	}
	pthread_mutex_unlock(&checker->lock);
	return NULL;
}

struct exporter_auth *exporter_auth_start(struct web_auth *auth, const struct cpuset *cpus)
{
	struct exporter_auth *checker = calloc(1, sizeof(*checker));

	if (!checker)
		return NULL;
	checker->auth = auth;
	pthread_mutex_init(&checker->lock, NULL);
	pthread_cond_init(&checker->queued, NULL);
	if (rt_start_housekeeping_thread(&checker->thread, cpus, run_checks, checker)) {
		pthread_cond_destroy(&checker->queued);
		pthread_mutex_destroy(&checker->lock);
		free(checker);
		return NULL;
	}
	return checker;
}

int exporter_auth_submit(struct exporter_auth *checker, struct exporter_auth_check *check,
			 struct MHD_Connection *connection, const char *user, const char *password)
{
	int ret = 0;

	memset(check, 0, sizeof(*check));
	check->verdict = EXPORTER_AUTH_BUSY;
	check->connection = connection;
	check->user = strdup(user);
	check->password = strdup(password);
	if (!check->user || !check->password) {
		forget_credentials(check);
		return -ENOMEM;
	}
	pthread_mutex_lock(&checker->lock);
	if (checker->stopping || checker->nr_queued >= EXPORTER_AUTH_QUEUE) {
		ret = -EBUSY;
	} else {
		check->verdict = EXPORTER_AUTH_UNDECIDED;
		/* suspended before the checker can take it: it resumes a suspended one */
		MHD_suspend_connection(connection);
		if (checker->tail)
			checker->tail->next = check;
		else
			checker->head = check;
		checker->tail = check;
		checker->nr_queued++;
		pthread_cond_signal(&checker->queued);
	}
	pthread_mutex_unlock(&checker->lock);
	if (ret)
		forget_credentials(check);
	return ret;
}

void exporter_auth_stop(struct exporter_auth *checker)
{
	struct exporter_auth_check *check, *next;

	if (!checker)
		return;
	pthread_mutex_lock(&checker->lock);
	if (checker->stopping) {
		pthread_mutex_unlock(&checker->lock);
		return;
	}
	checker->stopping = true;
	pthread_cond_signal(&checker->queued);
	pthread_mutex_unlock(&checker->lock);
	pthread_join(checker->thread, NULL);
	/* nothing is queued once stopping is set: what is left is resumed */
	for (check = checker->head; check; check = next) {
		next = check->next;
		resume(check, EXPORTER_AUTH_BUSY);
	}
	checker->head = checker->tail = NULL;
	checker->nr_queued = 0;
}

void exporter_auth_free(struct exporter_auth *checker)
{
	if (!checker)
		return;
	exporter_auth_stop(checker);
	pthread_cond_destroy(&checker->queued);
	pthread_mutex_destroy(&checker->lock);
	free(checker);
}
