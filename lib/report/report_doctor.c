// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The part of the page a latscope doctor result leads with: the verdict
 * for its budget, per CPU, and the fixes ranked by measured impact, each
 * with the finding and the measured causes it comes from. Read from the
 * document's "verdict", "fixes", "unfixed", "params" and "skipped".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

/* causes listed under a fix, the largest; a busy machine has hundreds */
#define CAUSES_SHOWN 12

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void duration_cell(struct textbuf *out, const json_t *ns)
{
	char buf[32];

	textbuf_puts(out, "<td class=\"n\">");
	if (json_is_number(ns))
		textbuf_escape(out, plot_format_duration(json_number_value(ns), buf, sizeof(buf)));
	else
		textbuf_puts(out, "—");
	textbuf_puts(out, "</td>");
}

static void text_cell(struct textbuf *out, const char *text)
{
	textbuf_puts(out, "<td>");
	textbuf_escape(out, text ? text : "—");
	textbuf_puts(out, "</td>");
}

static void level_cell(struct textbuf *out, const json_t *timer)
{
	const json_t *level = json_object_get(timer, "return_level_1h");
	const json_t *ci = json_object_get(level, "ci_ns");
	char a[32], b[32], c[32];

	textbuf_puts(out, "<td>");
	if (!timer || json_is_null(timer)) {
		textbuf_puts(out, "—");
	} else if (!json_is_true(json_object_get(level, "available"))) {
		/* the reason's first words; all of it on hover */
		const char *says = str(level, "says") ? str(level, "says") : "—";

		textbuf_puts(out, "<span title=\"");
		textbuf_escape(out, says);
		textbuf_puts(out, "\">");
		textbuf_escape_n(out, says, strcspn(says, ":"));
		textbuf_puts(out, "</span>");
	} else {
		textbuf_escape(out, plot_format_duration(
					    json_number_value(json_object_get(level, "value_ns")),
					    a, sizeof(a)));
		if (json_array_size(ci) == 2 && isfinite(json_number_value(json_array_get(ci, 1))))
			textbuf_printf(
				out, " (%s … %s)",
				plot_format_duration(json_number_value(json_array_get(ci, 0)), b,
						     sizeof(b)),
				plot_format_duration(json_number_value(json_array_get(ci, 1)), c,
						     sizeof(c)));
		if (!json_is_true(json_object_get(level, "reliable"))) {
			textbuf_puts(out, "<br><span class=\"muted\">");
			textbuf_escape(out, str(level, "says"));
			textbuf_puts(out, "</span>");
		}
	}
	textbuf_puts(out, "</td>");
}

static void verdict_table(const json_t *verdict, struct textbuf *out)
{
	const json_t *cpus = json_object_get(verdict, "cpus");
	char buf[32];
	size_t i;

	if (!json_array_size(cpus))
		return;
	textbuf_puts(out, "<div class=\"scroll\"><table class=\"stats\"><thead><tr><th>cpu</th>"
			  "<th class=\"n\">timer worst</th><th class=\"n\">p99.99</th>"
			  "<th>1-hour return level</th><th class=\"n\">noise worst gap</th>"
			  "<th class=\"n\">time lost</th><th>budget</th></tr></thead><tbody>\n");
	for (i = 0; i < json_array_size(cpus); i++) {
		const json_t *c = json_array_get(cpus, i);
		const json_t *timer = json_object_get(c, "timer"),
			     *noise = json_object_get(c, "noise");

		textbuf_printf(out, "<tr><td>%lld</td>",
			       (long long)json_integer_value(json_object_get(c, "cpu")));
		duration_cell(out, json_object_get(timer, "max_ns"));
		duration_cell(out, json_object_get(timer, "p99_99_ns"));
		level_cell(out, timer);
		duration_cell(out, json_object_get(noise, "max_ns"));
		textbuf_puts(out, "<td class=\"n\">");
		textbuf_escape(out, json_is_number(json_object_get(noise, "lost_fraction")) ?
					    plot_format_share(json_number_value(json_object_get(
								      noise, "lost_fraction")),
							      buf, sizeof(buf)) :
					    "—");
		textbuf_puts(out, "</td>");
		text_cell(out, json_is_true(json_object_get(c, "over_budget")) ? "over" : "within");
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
}

static const char *measure_of(const char *part)
{
	return part && !strcmp(part, "timer") ? "of the timer's spike time" :
						"of the noise's lost time";
}

static void top_causes(const json_t *verdict, struct textbuf *out)
{
	const json_t *top = json_object_get(verdict, "top_causes");
	char buf[32];
	size_t i;

	if (!json_array_size(top))
		return;
	textbuf_puts(out, "<p><b>Top causes:</b> ");
	for (i = 0; i < json_array_size(top); i++) {
		const json_t *c = json_array_get(top, i);

		textbuf_puts(out, i ? "; " : "");
		textbuf_escape(out, str(c, "label"));
		textbuf_printf(out, " (cpu %lld) ",
			       (long long)json_integer_value(json_object_get(c, "cpu")));
		textbuf_escape(out,
			       plot_format_share(json_number_value(json_object_get(c, "share")),
						 buf, sizeof(buf)));
		textbuf_puts(out, " ");
		textbuf_escape(out, measure_of(str(c, "part")));
		textbuf_puts(out, " → ");
		textbuf_escape(out, str(c, "fix"));
	}
	textbuf_puts(out, "</p>\n");
}

static void causes_table(const json_t *causes, struct textbuf *out)
{
	char buf[32];
	size_t i;

	textbuf_puts(out, "<div class=\"scroll\"><table class=\"causes\"><thead><tr>"
			  "<th>measured cause</th><th>part</th><th class=\"n\">cpu</th>"
			  "<th class=\"n\">spikes or gaps</th><th class=\"n\">share</th>"
			  "<th class=\"n\">up to</th><th class=\"n\">every</th><th>why</th>"
			  "</tr></thead><tbody>\n");
	for (i = 0; i < json_array_size(causes) && i < CAUSES_SHOWN; i++) {
		const json_t *c = json_array_get(causes, i);

		textbuf_puts(out, "<tr>");
		text_cell(out, str(c, "label"));
		text_cell(out, str(c, "part"));
		textbuf_printf(out, "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>",
			       (long long)json_integer_value(json_object_get(c, "cpu")),
			       (long long)json_integer_value(json_object_get(c, "spikes")));
		textbuf_puts(out, "<td class=\"n\">");
		textbuf_escape(out,
			       plot_format_share(json_number_value(json_object_get(c, "share")),
						 buf, sizeof(buf)));
		textbuf_puts(out, "</td>");
		duration_cell(out, json_object_get(c, "max_ns"));
		duration_cell(out, json_object_get(c, "period_ns"));
		text_cell(out, str(c, "why"));
		textbuf_puts(out, "</tr>\n");
	}
	textbuf_puts(out, "</tbody></table></div>\n");
	if (json_array_size(causes) > CAUSES_SHOWN)
		textbuf_printf(out,
			       "<p class=\"muted\">and %zu more, the smaller ones (the JSON "
			       "lists them all)</p>\n",
			       json_array_size(causes) - CAUSES_SHOWN);
}

static void fix_item(const json_t *fix, bool known, struct textbuf *out)
{
	const json_t *finding = json_object_get(fix, "finding"),
		     *share = json_object_get(fix, "share");
	const char *severity = str(finding, "severity"), *status = str(finding, "status");
	double timer = json_number_value(json_object_get(share, "timer"));
	double noise = json_number_value(json_object_get(share, "noise"));
	char a[32], b[32];

	textbuf_printf(out, "<li><div class=\"finding sev-%s\"><h4>", severity ? severity : "info");
	if (severity)
		textbuf_printf(out, "<span class=\"badge sev\">%s</span>", severity);
	if (status && (!strcmp(status, "fail") || !strcmp(status, "warn")))
		textbuf_printf(out, "<span class=\"badge %s\">%s</span>", status, status);
	textbuf_escape(out, str(fix, "title"));
	textbuf_puts(out, "</h4><dl>");
	if (str(finding, "id")) {
		textbuf_puts(out, "<dt>finding</dt><dd><code>");
		textbuf_escape(out, str(finding, "id"));
		textbuf_puts(out, "</code>");
		if (str(finding, "detail")) {
			textbuf_puts(out, ": ");
			textbuf_escape(out, str(finding, "detail"));
		}
		textbuf_puts(out, "</dd>");
	}
	textbuf_printf(out, "<dt>%s</dt><dd><code class=\"cmd\">", known ? "fix" : "next");
	textbuf_escape(out, str(fix, known ? "fix" : "next"));
	textbuf_puts(out, "</code></dd>");
	if (str(fix, "note")) {
		textbuf_puts(out, "<dt>note</dt><dd>");
		textbuf_escape(out, str(fix, "note"));
		textbuf_puts(out, "</dd>");
	}
	textbuf_puts(out, "<dt>impact</dt><dd>");
	if (timer > 0)
		textbuf_printf(out, "%s %s", plot_format_share(timer, a, sizeof(a)),
			       measure_of("timer"));
	if (timer > 0 && noise > 0)
		textbuf_puts(out, " and ");
	if (noise > 0)
		textbuf_printf(out, "%s %s", plot_format_share(noise, b, sizeof(b)),
			       measure_of("noise"));
	textbuf_printf(out, "; up to %s at once</dd></dl>\n",
		       plot_format_duration(json_number_value(json_object_get(fix, "max_ns")), a,
					    sizeof(a)));
	causes_table(json_object_get(fix, "causes"), out);
	textbuf_puts(out, "</div></li>\n");
}

static void fix_list(const json_t *fixes, bool known, struct textbuf *out)
{
	size_t i;

	if (!json_array_size(fixes))
		return;
	textbuf_puts(out, known ? "<h3>Fixes, by measured impact</h3>\n<ol>\n" :
				  "<h3>Causes without a known fix</h3>\n<ol>\n");
	for (i = 0; i < json_array_size(fixes); i++)
		fix_item(json_array_get(fixes, i), known, out);
	textbuf_puts(out, "</ol>\n");
}

void report_doctor_section(const struct report *r, unsigned int i, struct textbuf *out)
{
	const struct report_input *in = &r->inputs[i];
	const json_t *json = in->run->json, *verdict = json_object_get(json, "verdict");
	const json_t *params = json_object_get(json, "params");
	const json_t *not_seen = json_object_get(verdict, "not_seen");
	const json_t *skipped = json_object_get(json, "skipped");
	const char *readiness = str(verdict, "readiness"), *says;
	bool ready = json_is_true(json_object_get(verdict, "ready"));
	size_t k;

	textbuf_printf(out, "<section id=\"in-%s\">\n<h2>Verdict<span class=\"kind\">", in->slug);
	textbuf_escape(out, in->label);
	textbuf_puts(out, " (latscope doctor)</span></h2>\n");
	/* green only for ready; red for not ready; grey when it cannot say */
	textbuf_printf(out, "<p class=\"summary\" style=\"border-left-color:%s\"><b>",
		       ready					    ? "#009E73" :
		       readiness && !strcmp(readiness, "not ready") ? "#D55E00" :
								      "#999");
	says = str(verdict, "says") ? str(verdict, "says") : "no verdict: the result has none";
	/* "not ready for a 100 us budget" in bold, then why */
	textbuf_escape_n(out, says, strcspn(says, ":"));
	textbuf_puts(out, "</b>");
	textbuf_escape(out, says + strcspn(says, ":"));
	textbuf_puts(out, "</p>\n");
	if (str(params, "rt_cpus_source")) {
		textbuf_puts(out, "<p class=\"sub\">RT CPUs: ");
		textbuf_escape(out, str(params, "rt_cpus_source"));
		textbuf_puts(out, "</p>\n");
	}
	verdict_table(verdict, out);
	top_causes(verdict, out);
	if (json_array_size(not_seen)) {
		textbuf_puts(out, "<p><b>Not seen:</b></p><ul class=\"notes\">");
		for (k = 0; k < json_array_size(not_seen); k++) {
			textbuf_puts(out, "<li>");
			textbuf_escape(out, json_string_value(json_array_get(not_seen, k)));
			textbuf_puts(out, "</li>");
		}
		textbuf_puts(out, "</ul>\n");
	}
	fix_list(json_object_get(json, "fixes"), true, out);
	fix_list(json_object_get(json, "unfixed"), false, out);
	if (json_array_size(skipped)) {
		textbuf_puts(out, "<h3>Parts that did not run</h3><ul>");
		for (k = 0; k < json_array_size(skipped); k++) {
			const json_t *s = json_array_get(skipped, k);

			textbuf_puts(out, "<li><b>");
			textbuf_escape(out, str(s, "part"));
			textbuf_puts(out, "</b>: ");
			textbuf_escape(out, str(s, "reason"));
			textbuf_puts(out, "</li>");
		}
		textbuf_puts(out, "</ul>\n");
	}
	textbuf_puts(out, "<p class=\"muted\">Every part's own results follow, as "
			  "<code>latscope report</code> shows them.</p>\n</section>\n");
}
