// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "latscope/rt.h"

volatile sig_atomic_t stop_requested;

static void request_stop(int signo)
{
	stop_requested = signo;
}

int signals_catch(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction action;
	size_t i;

	memset(&action, 0, sizeof(action));
	action.sa_handler = request_stop;
	sigemptyset(&action.sa_mask);
	/* no SA_RESTART: a sleeping main loop must wake up and see the flag */
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (sigaction(signals[i], &action, NULL))
			return -errno;
	/* the library's long preparations give up on a stop too */
	rt_set_stop_flag(&stop_requested);
	return 0;
}

volatile sig_atomic_t reload_requested;

static void request_reload(int signo)
{
	(void)signo;
	reload_requested = 1;
}

int signals_catch_reload(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	action.sa_handler = request_reload;
	sigemptyset(&action.sa_mask);
	return sigaction(SIGHUP, &action, NULL) ? -errno : 0;
}
