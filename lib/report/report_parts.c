// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The parts a report page is made of, listed once: a new kind of figure
 * or of input section adds its part here, and the page, its plan and the
 * SVG files find it through this list, without naming it.
 */
#include <errno.h>

#include "report_internal.h"

static const struct report_part *const parts[] = {
	&report_figures_part,
	&report_compare_part,
};

#define NR_PARTS (sizeof(parts) / sizeof(parts[0]))

const struct report_part *report_part_of(enum run_kind kind)
{
	unsigned int i;

	for (i = 0; i < NR_PARTS; i++)
		if (parts[i]->input == (int)kind)
			return parts[i];
	return NULL;
}

int report_figure_svg(const struct report *r, const struct figure *f, struct textbuf *out,
		      bool standalone)
{
	unsigned int i, k;

	for (i = 0; i < NR_PARTS; i++)
		for (k = 0; k < parts[i]->nr_figures; k++)
			if (parts[i]->figures[k].kind == f->kind)
				return parts[i]->figures[k].draw(r, f, out, standalone);
	return -EINVAL;
}
