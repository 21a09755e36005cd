// SPDX-License-Identifier: GPL-2.0-or-later
#include <gsl/gsl_errno.h>
#include <pthread.h>

#include "latscope/numerics.h"

static void turn_gsl_abort_off(void)
{
	gsl_set_error_handler_off();
}

void numerics_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, turn_gsl_abort_off);
}
