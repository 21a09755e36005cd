// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * systemd readiness (Type=notify): READY=1 once the monitor measures and
 * serves, STOPPING=1 while it checkpoints. Without $NOTIFY_SOCKET these do
 * nothing.
 */
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "latscope/monitor.h"

int monitor_notify_ready(const char *status)
{
	int ret;

	if (status)
		ret = sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	else
		ret = sd_notify(0, "READY=1");
	return ret < 0 ? ret : 0;
}

int monitor_notify_stopping(void)
{
	int ret = sd_notify(0, "STOPPING=1");

	return ret < 0 ? ret : 0;
}
