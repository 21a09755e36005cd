// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The gap threshold latscope doctor gives its noise part. The user did not
 * ask for one, doctor did: where the loop cannot resolve the noise's
 * default (no constant TSC, and clock_gettime costs hundreds of ns a read),
 * keeping it would have doctor's own part refuse doctor's own choice.
 */
#include "latscope/doctor.h"
#include "latscope/noise.h"

uint64_t doctor_noise_threshold(uint64_t read_cost_ns)
{
	struct noise_params defaults;

	noise_params_default(&defaults);
	/* the noise's own rule, so that its check never refuses what doctor chose */
	if (noise_threshold_resolved(defaults.threshold_ns, read_cost_ns))
		return defaults.threshold_ns;
	return noise_threshold_least(read_cost_ns);
}
