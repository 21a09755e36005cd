// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare_render.h"
#include "comparison.h"
#include "latscope/compare_document.h"
#include "latscope/numerics.h"
#include "latscope/result.h"

int comparison_compute(struct comparison *c, const unsigned int *group_of, bool paired,
		       const struct compare_statistics_options *o)
{
	const struct run *const *runs = (const struct run *const *)c->runs;
	int ret;

	numerics_init();
	ret = compare_plan_make_groups(runs, c->names, c->nr_runs, group_of, paired, o->by,
				       &c->plan);
	if (ret == -EINVAL)
		return part_refuse(&c->why, PART_REFUSED, EXIT_ERROR, "%s", c->plan.error);
	if (ret)
		return part_refuse(&c->why, PART_NO_MEMORY, EXIT_ERROR, "out of memory");
	ret = compare_result_compute(runs, &c->plan, &o->settings, &c->result);
	if (ret)
		return part_refuse(&c->why, ret == -ENOMEM ? PART_NO_MEMORY : PART_FAILED,
				   EXIT_ERROR, "cannot compute the comparison: %s", strerror(-ret));
	return EXIT_OK;
}

int comparison_gate(struct comparison *c, bool fail_worse)
{
	const struct compare_result *r = &c->result;
	unsigned int i, k, compared = 0;

	for (i = 0; i < r->nr_pairs; i++)
		compared += r->pairs[i].nr_stats - r->pairs[i].not_available;
	if (!compared)
		return part_refuse(&c->why, PART_REFUSED, EXIT_ERROR,
				   "nothing could be compared: %s",
				   r->nr_pairs ? r->pairs[0].stats[0].reason : "no pairs");
	for (k = 0; fail_worse && r->nr_pairs && k + 1 < r->pairs[0].nr_stats; k++) {
		for (i = 0; i < r->nr_pairs; i++)
			if (r->pairs[i].stats[k].verdict != COMPARE_NOT_AVAILABLE)
				break;
		if (i == r->nr_pairs)
			return part_refuse(&c->why, PART_REFUSED, EXIT_ERROR,
					   "--fail-worse: %s could be compared on no pair (%s): "
					   "choose percentiles the runs support (-P)",
					   r->pairs[0].stats[k].name, r->pairs[0].stats[k].reason);
	}
	return fail_worse && compare_result_worse(r) ? EXIT_BUDGET : EXIT_OK;
}

/* the summary line as the text ends with it */
static json_t *summary_json(const struct comparison *c)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	json_t *line;

	if (!f)
		return NULL;
	compare_render_summary(f, &c->result, &c->plan, c->names);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	if (size && text[size - 1] == '\n')
		text[size - 1] = '\0';
	line = json_string(text);
	free(text);
	return line;
}

json_t *comparison_document(const struct comparison *c, const char *command, int argc, char **argv,
			    const struct compare_statistics_options *o, int status)
{
	const struct run *const *runs = (const struct run *const *)c->runs;
	json_t *doc = result_new(command, argc, argv);
	json_t *params = compare_document_params(&o->settings, o->by);
	json_t *inputs = compare_document_inputs(runs, c->names, c->nr_runs, &c->plan);
	json_t *pairs = compare_document_pairs(runs, c->names, &c->result);
	json_t *unpaired = compare_document_unpaired(&c->plan, c->names);

	if (!doc || !params || !inputs || !pairs || !unpaired) {
		json_decref(doc);
		json_decref(params);
		json_decref(inputs);
		json_decref(pairs);
		json_decref(unpaired);
		return NULL;
	}
	json_object_set_new(params, "fail_worse", json_boolean(o->fail_worse));
	json_object_set_new(doc, "params", params);
	json_object_set_new(doc, "inputs", inputs);
	json_object_set_new(doc, "pairs", pairs);
	json_object_set_new(doc, "unpaired", unpaired);
	json_object_set_new(doc, "verdict", json_string(compare_result_verdict(&c->result)));
	json_object_set_new(doc, "summary", summary_json(c));
	json_object_set_new(doc, "exit_status", json_integer(status));
	return doc;
}

void comparison_release(struct comparison *c)
{
	unsigned int i;

	compare_result_release(&c->result);
	compare_plan_release(&c->plan);
	for (i = 0; c->runs && i < c->nr_runs; i++)
		run_free(c->runs[i]);
	free(c->runs);
	c->runs = NULL;
	c->nr_runs = 0;
}
