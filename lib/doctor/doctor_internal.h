/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LATSCOPE_DOCTOR_INTERNAL_H
#define LATSCOPE_DOCTOR_INTERNAL_H

#ifndef LATSCOPE_INSIDE_DOCTOR
#error "lib/doctor/doctor_internal.h is private to lib/doctor/: outside it, use the headers of include/latscope/"
#endif

#include <jansson.h>
#include <stdbool.h>

#include "latscope/doctor.h"

/*
 * What the join and the verdict read alike from the parts' documents: one
 * reading, so that a fix and the verdict never disagree on which entries
 * (the timer's threads, the noise's CPUs) were measured on the RT CPUs.
 */

/**
 * doctor_entry_cpu - the CPU of a part's entry, and whether it is an RT CPU
 * @parts: the parts; an empty rt_cpus takes every CPU
 * @entry: a thread of the timer's document or a CPU of the noise's
 * @cpu: receives its "cpu" when it has a valid one
 *
 * Returns true when the entry names a CPU (0 up to CPUSET_MAX_CPUS) among
 * the RT CPUs.
 */
bool doctor_entry_cpu(const struct doctor_parts *parts, const json_t *entry, int *cpu);

#endif
