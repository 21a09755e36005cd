// SPDX-License-Identifier: GPL-2.0-or-later
#include "latscope/serial.h"

/* 64 bits: a billion a second would last 500 years */
static uint64_t last_serial;

uint64_t serial_next(void)
{
	return __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED);
}
