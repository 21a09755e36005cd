// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "latscope/log.h"
#include "latscope/workers.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

/*
 * pthread_cancel() unwinds run() without its frames' epilogues, which under
 * AddressSanitizer leave their redzones poisoned on the thread's stack; the
 * sanitizer's own teardown of the thread (sigaltstack, uninstrumented) then
 * writes there and reports an overflow that is none. The whole stack is
 * clean again once run() is gone: nothing of it is used after. (The
 * sanitizer's __asan_handle_no_return() trips over the same poison.)
 */
static void cancelled(void *unused)
{
#if defined(__SANITIZE_ADDRESS__)
	pthread_attr_t attr;
	size_t size;
	void *stack;

	if (!pthread_getattr_np(pthread_self(), &attr)) {
		if (!pthread_attr_getstack(&attr, &stack, &size))
			__asan_unpoison_memory_region(stack, size);
		pthread_attr_destroy(&attr);
	}
#endif
	(void)unused;
}

static void *worker_main(void *arg)
{
	struct worker *worker = arg;
	struct worker_group *group = worker->group;

	/* never cancelled while holding the group's lock; run() may allow it */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	worker->tid = (pid_t)syscall(SYS_gettid);
	worker->error = worker->cpu == WORKER_UNPINNED ? 0 : rt_pin_self(worker->cpu);
	if (!worker->error)
		worker->error = rt_set_self_policy(worker->policy, worker->priority);
	if (!worker->error) {
		rt_prefault_stack(worker->stack_bytes ? worker->stack_bytes / 2 :
							WORKER_PREFAULT_STACK_BYTES);
		if (worker->setup)
			worker->error = worker->setup(worker);
	}
	pthread_mutex_lock(&group->lock);
	group->nr_ready++;
	pthread_cond_broadcast(&group->changed);
	while (!group->go)
		pthread_cond_wait(&group->changed, &group->lock);
	pthread_mutex_unlock(&group->lock);
	if (!group->abort) {
		pthread_cleanup_push(cancelled, NULL);
		worker->run(worker);
		pthread_cleanup_pop(0);
	}
	return NULL;
}

/* Let the waiting threads measure, or with @abort, return at once. */
static void release_workers(struct worker_group *group, bool abort)
{
	pthread_mutex_lock(&group->lock);
	group->abort = abort;
	group->go = true;
	pthread_cond_broadcast(&group->changed);
	pthread_mutex_unlock(&group->lock);
}

int worker_group_start(struct worker_group *group, struct worker *workers, unsigned int nr_workers)
{
	pthread_attr_t attr;
	sigset_t all, old;
	unsigned int i;
	int ret = 0;

	memset(group, 0, sizeof(*group));
	group->workers = workers;
	group->nr_workers = nr_workers;
	pthread_mutex_init(&group->lock, NULL);
	pthread_cond_init(&group->changed, NULL);
	/* threads inherit the mask: block everything so signals reach main */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	for (i = 0; i < nr_workers; i++) {
		workers[i].group = group;
		workers[i].error = 0;
		pthread_attr_setstacksize(&attr, workers[i].stack_bytes ? workers[i].stack_bytes :
									  WORKER_STACK_BYTES);
		ret = -pthread_create(&workers[i].thread, &attr, worker_main, &workers[i]);
		if (ret) {
			log_error("cannot start a thread for cpu %u: %s", workers[i].cpu,
				  strerror(-ret));
			break;
		}
		group->nr_started++;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	pthread_mutex_lock(&group->lock);
	while (group->nr_ready < group->nr_started)
		pthread_cond_wait(&group->changed, &group->lock);
	pthread_mutex_unlock(&group->lock);
	for (i = 0; i < group->nr_started && !ret; i++)
		ret = workers[i].error;
	release_workers(group, ret != 0);
	if (ret)
		worker_group_join(group);
	return ret;
}

void worker_group_join(struct worker_group *group)
{
	unsigned int i;

	for (i = 0; i < group->nr_started; i++)
		pthread_join(group->workers[i].thread, NULL);
	group->nr_started = 0;
	pthread_cond_destroy(&group->changed);
	pthread_mutex_destroy(&group->lock);
}
