// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

void cmd_noise_usage(FILE *out)
{
	fprintf(out, "usage: latscope noise\n");
}

int cmd_noise(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return EXIT_ERROR;
}
