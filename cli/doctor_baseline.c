// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_render.h"
#include "doctor_baseline.h"
#include "latscope/import.h"

/* a doctor result's timer part, taken out of it (NULL when it has none) */
static struct run *take_timer_part(struct run *doctor)
{
	struct run *timer;
	unsigned int i;

	for (i = 0; i < doctor->nr_parts; i++) {
		if (!doctor->parts[i] || doctor->parts[i]->kind != RUN_TIMER)
			continue;
		timer = doctor->parts[i];
		doctor->parts[i] = NULL;
		return timer;
	}
	return NULL;
}

int doctor_baseline_load(struct doctor_baseline *b)
{
	struct run *run = NULL;

	compare_statistics_defaults(&b->statistics);
	/* import_file() names the file and says what is wrong with it */
	if (import_file(b->path, &run))
		return EXIT_ERROR;
	if (run->kind == RUN_DOCTOR) {
		b->timer = take_timer_part(run);
		run_free(run);
		if (!b->timer)
			return runtime_error("--baseline '%s': a doctor result without a timer "
					     "part: nothing to compare this run's timer with",
					     b->path);
		return EXIT_OK;
	}
	if (run->kind != RUN_TIMER) {
		run_free(run);
		return runtime_error("--baseline '%s': not a timer or doctor result: doctor "
				     "compares its timer part with it",
				     b->path);
	}
	b->timer = run;
	return EXIT_OK;
}

/* why nothing was compared, in the document instead of the comparison; said once */
static int say_not_compared(json_t *doc, const char *why, bool said)
{
	if (!said)
		fprintf(stderr, "latscope doctor: --baseline: %s\n", why);
	return json_object_set_new(doc, "baseline", json_pack("{s:s}", "error", why)) ?
		       runtime_error("out of memory") :
		       EXIT_OK;
}

int doctor_baseline_compare(struct doctor_baseline *b, const json_t *timer, FILE *out, json_t *doc,
			    int argc, char **argv)
{
	static const unsigned int group_of[] = { 0, 1 };
	struct comparison *c = &b->comparison;
	char *text;
	int status;

	if (!timer)
		return say_not_compared(doc, "the timer did not run: nothing to compare", false);
	b->names[0] = b->path;
	b->names[1] = "this run's timer";
	c->names = b->names;
	c->runs = calloc(2, sizeof(*c->runs));
	text = json_dumps(timer, JSON_COMPACT);
	if (!c->runs || !text) {
		free(text);
		return runtime_error("out of memory");
	}
	/* the comparison owns both runs from here */
	c->runs[0] = b->timer;
	b->timer = NULL;
	c->nr_runs = 2;
	/* this run's timer is read as compare reads a result file */
	status = import_buffer(b->names[1], text, strlen(text), &c->runs[1]) ? EXIT_ERROR : EXIT_OK;
	free(text);
	if (status)
		return say_not_compared(doc, "this run's timer result could not be read back",
					false);
	status = comparison_compute(c, group_of, false, &b->statistics);
	if (!status)
		status = comparison_gate(c, false);
	/* comparison_compute() or the gate said why in its line, and kept it */
	if (status)
		return say_not_compared(doc, c->why.text, true);
	fprintf(out, "\nSince the baseline:\n");
	compare_render(out, (const struct run *const *)c->runs, c->names, c->nr_runs, &c->plan,
		       &c->result, &b->statistics.settings);
	b->compared = true;
	if (json_object_set_new(
		    doc, "baseline",
		    comparison_document(c, "compare", argc, argv, &b->statistics, EXIT_OK)))
		return runtime_error("out of memory");
	return EXIT_OK;
}

void doctor_baseline_release(struct doctor_baseline *b)
{
	run_free(b->timer);
	b->timer = NULL;
	comparison_release(&b->comparison);
	b->compared = false;
}
