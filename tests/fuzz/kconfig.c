// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel configurations: /boot/config-<release> as text and
 * /proc/config.gz through zlib, as a --root tree may hold them.
 */
#include "fuzz.h"
#include "latscope/kconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kconfig config = { 0 };
	char *text;

	/* the plain parser on the bytes as they are */
	text = fuzz_text(data, size);
	kconfig_parse(&config, text);
	kconfig_lookup(&config, "PREEMPT_RT");
	kconfig_release(&config);
	/* the same bytes as a gzip stream */
	if (!kconfig_inflate(data, size, &text)) {
		if (!kconfig_parse(&config, text))
			kconfig_enabled(&config, "PREEMPT_RT");
		kconfig_release(&config);
	}
	return 0;
}
