/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_NUMERICS_H
#define LATSCOPE_NUMERICS_H

/**
 * numerics_init - make GSL report errors instead of aborting
 *
 * GSL's default error handler prints a line and calls abort(); the library
 * never exits, so every statistics entry point calls this first. It turns
 * GSL's handler off once for the whole program (gsl_set_error_handler_off,
 * under pthread_once) and leaves it off: the library checks every GSL
 * status and result itself. A program may call it at start-up too.
 */
void numerics_init(void);

#endif
