/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_SERIAL_H
#define LATSCOPE_SERIAL_H

#include <stdint.h>

/**
 * serial_next - a number no other call in this process returns (never 0),
 * for what a reader knows again by it: a block of windows or a time block
 * that has not changed since the reader formatted it (a checkpoint's text)
 * Thread-safe.
 */
uint64_t serial_next(void);

#endif
