// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latscope/plot.h"
#include "unit.h"
#include "xml_check.h"

static unsigned int ticks_of(enum plot_scale_type type, enum plot_quantity q, double min,
			     double max, unsigned int target, struct plot_tick *ticks, char *unit)
{
	struct plot_scale s;

	plot_scale_init(&s, type, min, max, 0, 500);
	return plot_ticks(&s, q, target, ticks, unit, 16);
}

START_TEST(duration_units_follow_the_range)
{
	ck_assert_str_eq(plot_duration_unit(850)->name, "ns");
	ck_assert_str_eq(plot_duration_unit(999)->name, "ns");
	ck_assert_str_eq(plot_duration_unit(1000)->name, "us");
	ck_assert_str_eq(plot_duration_unit(400000)->name, "us");
	ck_assert_str_eq(plot_duration_unit(2.5e6)->name, "ms");
	ck_assert_str_eq(plot_duration_unit(3e9)->name, "s");
}

START_TEST(formatted_durations_and_counts)
{
	char buf[32];

	ck_assert_str_eq(plot_format_duration(950, buf, sizeof(buf)), "950 ns");
	ck_assert_str_eq(plot_format_duration(21731, buf, sizeof(buf)), "21.7 us");
	ck_assert_str_eq(plot_format_duration(1036764, buf, sizeof(buf)), "1.04 ms");
	ck_assert_str_eq(plot_format_duration(1000, buf, sizeof(buf)), "1 us");
	/* rounding up to the next unit reads "1 us", never "1000 ns" */
	ck_assert_str_eq(plot_format_duration(999.7, buf, sizeof(buf)), "1 us");
	ck_assert_str_eq(plot_format_duration(3.2e9, buf, sizeof(buf)), "3.2 s");
	ck_assert_str_eq(plot_format_count(950, buf, sizeof(buf)), "950");
	ck_assert_str_eq(plot_format_count(12345, buf, sizeof(buf)), "12.3k");
	ck_assert_str_eq(plot_format_count(1.5e6, buf, sizeof(buf)), "1.5M");
	/* shares: whole percent from 10%, a decimal below, never "0.0%" for a sliver */
	ck_assert_str_eq(plot_format_share(0.62, buf, sizeof(buf)), "62%");
	ck_assert_str_eq(plot_format_share(0.0995, buf, sizeof(buf)), "10%");
	ck_assert_str_eq(plot_format_share(0.04, buf, sizeof(buf)), "4.0%");
	ck_assert_str_eq(plot_format_share(0.003, buf, sizeof(buf)), "0.3%");
	ck_assert_str_eq(plot_format_share(0.0002, buf, sizeof(buf)), "<0.1%");
	ck_assert_str_eq(plot_format_share(0, buf, sizeof(buf)), "0%");
	ck_assert_str_eq(plot_format_share(1, buf, sizeof(buf)), "100%");
}

START_TEST(linear_ticks_in_microseconds)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LINEAR, PLOT_DURATION, 0, 400000, 5, t, unit);

	/* 0..400 us in steps of 100 us, labelled in us */
	ck_assert_str_eq(unit, "us");
	ck_assert_uint_eq(n, 5);
	ck_assert_double_eq_tol(t[1].value, 100000, 1e-6);
	ck_assert_str_eq(t[0].label, "0");
	ck_assert_str_eq(t[4].label, "400");
}

START_TEST(linear_ticks_in_milliseconds_with_decimals)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LINEAR, PLOT_DURATION, 0, 2.5e6, 5, t, unit);

	ck_assert_str_eq(unit, "ms");
	ck_assert_uint_eq(n, 6);
	ck_assert_str_eq(t[1].label, "0.5");
	ck_assert_str_eq(t[5].label, "2.5");
}

START_TEST(linear_ticks_in_nanoseconds)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LINEAR, PLOT_DURATION, 0, 900, 4, t, unit), i;

	ck_assert_str_eq(unit, "ns");
	ck_assert_uint_ge(n, 4);
	for (i = 1; i < n; i++)
		ck_assert_double_eq_tol(t[i].value - t[i - 1].value, 200, 1e-9);
}

START_TEST(log_ticks_at_decades_with_their_own_units)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LOG, PLOT_DURATION, 10, 1e7, 8, t, unit), i, labelled = 0;

	ck_assert_str_eq(unit, "");
	for (i = 0; i < n; i++) {
		if (t[i].minor)
			continue;
		ck_assert_double_eq_tol(log10(t[i].value), round(log10(t[i].value)), 1e-9);
		labelled++;
	}
	ck_assert_uint_eq(labelled, 7);
	ck_assert_str_eq(t[0].label, "10 ns");
	for (i = 0; i < n && strcmp(t[i].label, "1 us"); i++)
		;
	ck_assert_uint_lt(i, n);
	ck_assert_str_eq(t[n - 1].label, "10 ms");
}

START_TEST(log_ticks_thinned_on_wide_ranges)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LOG, PLOT_COUNT, 1, 1e9, 4, t, unit), i, labelled = 0;

	for (i = 0; i < n; i++)
		if (!t[i].minor) {
			labelled++;
			/* whole multiples of the stride: 1, 1k, 1M, 1G */
			ck_assert_int_eq((int)lround(log10(t[i].value)) % 3, 0);
		}
	ck_assert_uint_eq(labelled, 4);
	ck_assert_str_eq(t[n - 1].label, "1G");
}

START_TEST(log_ticks_of_probabilities)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LOG, PLOT_PROBABILITY, 1e-6, 1, 7, t, unit);

	ck_assert_str_eq(t[n - 1].label, "1");
	ck_assert_str_eq(t[n - 2].label, "0.1");
	ck_assert_str_eq(t[0].label, "10⁻⁶");
}

START_TEST(short_log_range_gets_2_and_5)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	unsigned int n = ticks_of(PLOT_LOG, PLOT_DURATION, 1000, 20000, 6, t, unit), i;
	bool two = false, five = false;

	for (i = 0; i < n; i++) {
		two |= !strcmp(t[i].label, "2 us");
		five |= !strcmp(t[i].label, "5 us");
	}
	ck_assert(two && five);
}

START_TEST(wall_clock_ticks_at_days)
{
	struct plot_tick t[PLOT_MAX_TICKS];
	char unit[16];
	/* 2026-11-01 00:00 UTC to 35 days later */
	double start = 1793491200e9, end = start + 35 * 86400e9;
	unsigned int n = ticks_of(PLOT_LINEAR, PLOT_WALLCLOCK, start, end, 6, t, unit), i;

	ck_assert_str_eq(unit, "UTC");
	ck_assert_uint_ge(n, 3);
	ck_assert_uint_le(n, 7);
	/* whole days, labelled by date */
	for (i = 0; i < n; i++) {
		ck_assert_double_eq_tol(fmod(t[i].value / 1e9, 86400), 0, 1e-3);
		ck_assert_uint_eq(strlen(t[i].label), 5);
		ck_assert_int_eq(t[i].label[2], '-');
	}
	ck_assert_str_eq(t[0].label, "11-05");
}

START_TEST(nice_scale_widens_to_round_bounds)
{
	struct plot_scale s;

	plot_scale_init(&s, PLOT_LINEAR, 3, 1531000, 0, 500);
	plot_scale_nice(&s, PLOT_DURATION, 8);
	ck_assert_double_eq_tol(s.min, 0, 1e-9);
	ck_assert_double_eq_tol(s.max, 1.6e6, 1e-3);
	plot_scale_init(&s, PLOT_LOG, 17, 8906000, 0, 500);
	plot_scale_nice(&s, PLOT_DURATION, 5);
	ck_assert_double_eq_tol(s.min, 10, 1e-9);
	ck_assert_double_eq_tol(s.max, 1e7, 1e-3);
}

START_TEST(scale_maps_both_ways_and_degenerate_ranges)
{
	struct plot_scale s;

	plot_scale_init(&s, PLOT_LOG, 1, 1000, 100, 400);
	ck_assert_double_eq_tol(plot_scale_map(&s, 10), 200, 1e-9);
	/* inverted pixel range (y grows down) */
	plot_scale_init(&s, PLOT_LINEAR, 0, 10, 300, 0);
	ck_assert_double_eq_tol(plot_scale_map(&s, 5), 150, 1e-9);
	/* an empty range and a log scale of nothing positive still map */
	plot_scale_init(&s, PLOT_LINEAR, 5, 5, 0, 100);
	ck_assert(isfinite(plot_scale_map(&s, 5)));
	plot_scale_init(&s, PLOT_LOG, 0, 0, 0, 100);
	ck_assert(s.min > 0 && s.max > s.min);
	ck_assert(isfinite(plot_scale_map(&s, 0)));
}

/* pseudo-random numbers without a global state */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

START_TEST(reduction_keeps_each_column_maximum)
{
	struct plot_scale x, y;
	struct plot_reducer r;
	struct plot_point *kept;
	const size_t n = 200000, columns = 600;
	double *xs = malloc(n * sizeof(*xs)), *ys = malloc(n * sizeof(*ys));
	double data_max[600], kept_max[600];
	uint64_t seed = 12345;
	size_t i, nr_kept;

	ck_assert_ptr_nonnull(xs);
	plot_scale_init(&x, PLOT_LINEAR, 0, 2e9, 50, 50 + columns);
	plot_scale_init(&y, PLOT_LOG, 1000, 1e7, 300, 20);
	for (i = 0; i < columns; i++)
		data_max[i] = kept_max[i] = -1;
	ck_assert_int_eq(plot_reducer_init(&r, &x, &y, 1, 0), 0);
	for (i = 0; i < n; i++) {
		size_t column;

		xs[i] = (double)(next_random(&seed) % 2000000000ULL);
		ys[i] = 1000 + (double)(next_random(&seed) % 5000000ULL);
		plot_reducer_add(&r, xs[i], ys[i]);
		column = (size_t)floor(plot_scale_map(&x, xs[i]) - 50);
		if (ys[i] > data_max[column])
			data_max[column] = ys[i];
	}
	nr_kept = plot_reducer_points(&r, &kept);
	ck_assert_uint_le(nr_kept, columns);
	for (i = 0; i < nr_kept; i++) {
		size_t j;
		bool found = false;

		/* every point drawn is a point of the data (a sample of them: O(n) each) */
		for (j = 0; j < n && !found; j++)
			found = xs[j] == kept[i].x && ys[j] == kept[i].y;
		ck_assert(found);
		if (i > 64)
			break;
	}
	for (i = 0; i < nr_kept; i++) {
		size_t column = (size_t)floor(plot_scale_map(&x, kept[i].x) - 50);

		if (kept[i].y > kept_max[column])
			kept_max[column] = kept[i].y;
	}
	for (i = 0; i < columns; i++)
		ck_assert_double_eq(kept_max[i], data_max[i]);
	free(kept);
	plot_reducer_release(&r);
	free(xs);
	free(ys);
}

START_TEST(reduction_on_a_grid_keeps_stripes_and_the_maximum)
{
	struct plot_scale x, y;
	struct plot_reducer r;
	struct plot_point *kept;
	size_t i, nr_kept, stripe = 0;
	double max = 0, kept_overall = 0;

	plot_scale_init(&x, PLOT_LINEAR, 0, 10e9, 0, 600);
	plot_scale_init(&y, PLOT_LOG, 1000, 1e7, 300, 0);
	ck_assert_int_eq(plot_reducer_init(&r, &x, &y, 2, 3), 0);
	/* a 20 us gap every 1 ms under random larger ones: 10,000 of each */
	for (i = 0; i < 10000; i++) {
		double big = 50000 + (double)((i * 7919) % 900000);

		plot_reducer_add(&r, (double)i * 1e6, 20000);
		plot_reducer_add(&r, (double)i * 1e6 + 5e5, big);
		max = fmax(max, big);
	}
	nr_kept = plot_reducer_points(&r, &kept);
	/* bounded by the cells, far fewer than the 20,000 points */
	ck_assert_uint_le(nr_kept, 300 * 100);
	ck_assert_uint_lt(nr_kept, 20000);
	for (i = 0; i < nr_kept; i++) {
		stripe += kept[i].y == 20000;
		kept_overall = fmax(kept_overall, kept[i].y);
	}
	/* the periodic 20 us gaps stay visible in every column */
	ck_assert_uint_ge(stripe, 300);
	ck_assert_double_eq(kept_overall, max);
	free(kept);
	plot_reducer_release(&r);
}

START_TEST(palette_is_okabe_ito_and_stable)
{
	ck_assert_str_eq(plot_colour(0), "#0072B2");
	ck_assert_str_eq(plot_colour(1), "#D55E00");
	ck_assert_str_eq(plot_colour(8), plot_colour(0));
	ck_assert_str_eq(plot_colour(7), "#F0E442");
}

/* a plot of every primitive, with hostile text everywhere */
static void draw_everything(struct textbuf *out, bool standalone, const char *id)
{
	static const char *const hostile = "<script>alert(\"x\")</script> & 'q' \x01\xff";
	const char *categories[] = { hostile, "cpu 1" };
	double x[] = { 1000, 2000, NAN, 4000, 8000 }, y[] = { 1, 0.1, 0.5, 0.01, 0.001 };
	double edges[] = { 0, 1000, 2000, 3000 }, heights[] = { 5, 0, 100 };
	struct plot_style style = { plot_colour(0), 0, "4 2", 0.5 };
	struct plot_spec spec = { 0 };
	struct plot p;

	spec.id = id;
	spec.title = hostile;
	spec.x_title = hostile;
	spec.y_title = "P(value > x)";
	spec.x_type = PLOT_LOG;
	spec.x_quantity = PLOT_DURATION;
	spec.x_min = 100;
	spec.x_max = 1e6;
	spec.y_type = PLOT_LOG;
	spec.y_quantity = PLOT_PROBABILITY;
	spec.y_min = 1e-4;
	spec.y_max = 1;
	spec.standalone = standalone;
	spec.description = hostile;
	ck_assert_int_eq(plot_begin(&p, out, &spec), 0);
	plot_line(&p, x, y, 5, &style);
	plot_dots(&p, x, y, 5, 2, &style);
	plot_steps(&p, edges, heights, 3, &style);
	plot_rect(&p, 1000, 0.1, 2000, 0.2, "#009E73", hostile);
	plot_vmarker(&p, 5000, hostile, &style);
	plot_hmarker(&p, 0.05, hostile, &style);
	plot_point_label(&p, 3000, 0.01, hostile, &style);
	plot_legend(&p, hostile, &style, false);
	plot_legend(&p, "bars", &style, true);
	/* a note under the axes, outside the clipped data area; said twice, closed once */
	plot_unclip(&p);
	plot_unclip(&p);
	plot_text(&p, p.left, p.height - 4, "start", "a note under the plot", 10, NULL);
	plot_end(&p);

	memset(&spec, 0, sizeof(spec));
	spec.id = "categories";
	spec.title = "bars";
	spec.x_quantity = PLOT_FRACTION;
	spec.x_max = 1;
	spec.y_categories = categories;
	spec.nr_y_categories = 2;
	spec.standalone = standalone;
	spec.legend_outside = true;
	if (!standalone) {
		ck_assert_int_eq(plot_begin(&p, out, &spec), 0);
		plot_rect(&p, 0, 0.2, 0.5, 0.8, "#0072B2", NULL);
		plot_legend(&p, hostile, &style, true);
		plot_end(&p);
	}
}

START_TEST(svg_is_well_formed_and_escapes_everything)
{
	struct textbuf svg;
	const char *note, *clip;

	textbuf_init(&svg);
	draw_everything(&svg, true, "all");
	ck_assert_int_eq(textbuf_error(&svg), 0);
	ck_assert_int_eq(xml_check(textbuf_text(&svg), false), 0);
	ck_assert_ptr_null(strstr(textbuf_text(&svg), "<script"));
	ck_assert_ptr_nonnull(strstr(textbuf_text(&svg), "&lt;script&gt;"));
	/* text stays text: selectable, not outlines */
	ck_assert_ptr_nonnull(strstr(textbuf_text(&svg), "<text"));
	/* nothing outside the document is referred to */
	ck_assert_ptr_null(strstr(textbuf_text(&svg), "href"));
	ck_assert_ptr_null(strstr(textbuf_text(&svg), "NaN"));
	ck_assert_ptr_null(strstr(textbuf_text(&svg), "nan"));
	/* the note comes after the data area's group has closed */
	note = strstr(textbuf_text(&svg), "a note under");
	clip = strstr(textbuf_text(&svg), "<g clip-path");
	ck_assert_ptr_nonnull(note);
	ck_assert_ptr_nonnull(clip);
	ck_assert(clip < note && strstr(clip, "</g>") < note);
	textbuf_release(&svg);

	/* inline in HTML: two plots side by side, still well-formed as XML */
	textbuf_init(&svg);
	textbuf_puts(&svg, "<div>");
	draw_everything(&svg, false, "first plot!");
	textbuf_puts(&svg, "</div>");
	ck_assert_int_eq(xml_check(textbuf_text(&svg), false), 0);
	ck_assert_ptr_nonnull(strstr(textbuf_text(&svg), "id=\"first_plot_\""));
	textbuf_release(&svg);
}

START_TEST(numbers_ignore_the_locale)
{
	struct textbuf b;

	textbuf_init(&b);
	textbuf_number(&b, 12.25, 1);
	textbuf_puts(&b, " ");
	textbuf_number(&b, -0.04, 1);
	textbuf_puts(&b, " ");
	textbuf_number(&b, 3.0, 2);
	textbuf_puts(&b, " ");
	textbuf_number(&b, NAN, 1);
	ck_assert_str_eq(textbuf_text(&b), "12.3 0 3 0");
	textbuf_release(&b);
}

START_TEST(escaping_makes_any_bytes_well_formed)
{
	struct textbuf b;
	char bytes[256];
	int i;

	for (i = 0; i < 255; i++)
		bytes[i] = (char)(i + 1);
	bytes[255] = '\0';
	textbuf_init(&b);
	textbuf_puts(&b, "<t>");
	textbuf_escape(&b, bytes);
	textbuf_escape(&b, "\xe2\x82\xac ok \xed\xa0\x80 \xf4\x90\x80\x80");
	textbuf_puts(&b, "</t>");
	ck_assert_int_eq(xml_check(textbuf_text(&b), false), 0);
	ck_assert_ptr_nonnull(strstr(textbuf_text(&b), "\xe2\x82\xac ok"));
	textbuf_release(&b);
}

int main(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("plot");

	tcase_add_test(tc, duration_units_follow_the_range);
	tcase_add_test(tc, formatted_durations_and_counts);
	tcase_add_test(tc, linear_ticks_in_microseconds);
	tcase_add_test(tc, linear_ticks_in_milliseconds_with_decimals);
	tcase_add_test(tc, linear_ticks_in_nanoseconds);
	tcase_add_test(tc, log_ticks_at_decades_with_their_own_units);
	tcase_add_test(tc, log_ticks_thinned_on_wide_ranges);
	tcase_add_test(tc, log_ticks_of_probabilities);
	tcase_add_test(tc, short_log_range_gets_2_and_5);
	tcase_add_test(tc, wall_clock_ticks_at_days);
	tcase_add_test(tc, nice_scale_widens_to_round_bounds);
	tcase_add_test(tc, scale_maps_both_ways_and_degenerate_ranges);
	tcase_add_test(tc, reduction_keeps_each_column_maximum);
	tcase_add_test(tc, reduction_on_a_grid_keeps_stripes_and_the_maximum);
	tcase_add_test(tc, palette_is_okabe_ito_and_stable);
	tcase_add_test(tc, svg_is_well_formed_and_escapes_everything);
	tcase_add_test(tc, numbers_ignore_the_locale);
	tcase_add_test(tc, escaping_makes_any_bytes_well_formed);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
