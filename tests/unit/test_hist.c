/* test_hist.c - unit tests of analysis/hist.c: rows and the SVG chart */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_hist.h"
#include "../../lib/banned.h"

static int near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

/* 0, -0, a subnormal, 1, 1.5, 2, -4, Inf, NaN: fields 0 x3, 127 x2, 128, 129, 255 x2 */
static void fill(struct gt_stats *s)
{
	const uint32_t bits[] = {
		0x00000000u, 0x80000000u, 0x00000001u, 0x3f800000u, 0x3fc00000u,
		0x40000000u, 0xc0800000u, 0x7f800000u, 0x7fc00000u,
	};

	gt_stats_init(s, GT_DT_F32);
	gt_stats_add(s, bits, sizeof(bits) / sizeof(bits[0]));
}

static void test_rows(void)
{
	struct gt_stats *s = malloc(sizeof(*s));
	struct gt_hist_row *rows;
	size_t n;
	char label[32];

	fill(s);
	CHECK_RC(gt_hist_rows(s, &rows, &n), 0);
	CHECK(n == 5);
	CHECK(rows[0].field == 0 && rows[0].kind == GT_HIST_ZERO && rows[0].count == 3);
	CHECK(rows[1].field == 127 && rows[1].power == 0 && rows[1].count == 2);
	CHECK(rows[2].field == 128 && rows[2].power == 1);
	CHECK(rows[3].field == 129 && rows[3].power == 2 && rows[3].kind == GT_HIST_NORMAL);
	CHECK(rows[4].field == 255 && rows[4].kind == GT_HIST_NONFINITE && rows[4].count == 2);
	CHECK(near(rows[0].pct, 100.0 * 3 / 9));
	CHECK(near(rows[1].cum_pct, 100.0 * 5 / 9));
	CHECK(near(rows[4].cum_pct, 100.0));
	CHECK(!strcmp(gt_hist_label(&rows[0], label, sizeof(label)), "zero/sub"));
	CHECK(!strcmp(gt_hist_label(&rows[3], label, sizeof(label)), "2^2"));
	CHECK(!strcmp(gt_hist_label(&rows[4], label, sizeof(label)), "inf/nan"));
	free(rows);
	/* empty: no rows, no allocation */
	gt_stats_init(s, GT_DT_F16);
	CHECK_RC(gt_hist_rows(s, &rows, &n), 0);
	CHECK(n == 0 && rows == NULL);
	free(s);
}

static void test_rows_mixed(void)
{
	struct gt_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct gt_hist_row *rows;
	size_t n;

	fill(a);
	gt_stats_init(b, GT_DT_F64);
	gt_stats_merge(a, b);
	CHECK_RC(gt_hist_rows(a, &rows, &n), GT_ERR(TYPE));
	free(a);
	free(b);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_svg_one(void)
{
	struct gt_stats *s = malloc(sizeof(*s));
	const struct gt_hist_series sr = { "grads & <co>", s };
	const struct gt_hist_svg_opts o = { "My title", 0, 0, 0 };
	char *svg;
	size_t len;

	fill(s);
	CHECK_RC(gt_hist_svg(&sr, 1, &o, &svg, &len), 0);
	CHECK(svg && strlen(svg) == len);
	CHECK(!strncmp(svg, "<?xml", 5));
	CHECK(count(svg, "<svg") == 1 && count(svg, "</svg>") == 1);
	CHECK(strstr(svg, "My title") != NULL);
	CHECK(strstr(svg, "exponent k") != NULL);
	CHECK(strstr(svg, "share of values") != NULL);
	CHECK(strstr(svg, "grads &amp; &lt;co&gt;") != NULL);
	CHECK(strstr(svg, ">0/sub<") && strstr(svg, ">inf/nan<") && strstr(svg, ">2<"));
	CHECK(count(svg, "<rect x=") == 5 + 1); /* bars + legend swatch */
	free(svg);
	free(s);
}

static void test_svg_series_log(void)
{
	struct gt_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	const float fa[4] = { 1.0f, 2.0f, 0.25f, 0.25f }, fb[3] = { 8.0f, 8.0f, 1e-3f };
	struct gt_hist_series sr[2] = { { "step 1", NULL }, { "step 2", NULL } };
	const struct gt_hist_svg_opts o = { NULL, 1, 640, 480 };
	char *svg;
	size_t len;

	sr[0].stats = a;
	sr[1].stats = b;
	gt_stats_init(a, GT_DT_F32);
	gt_stats_init(b, GT_DT_F32);
	gt_stats_add(a, fa, 4);
	gt_stats_add(b, fb, 3);
	CHECK_RC(gt_hist_svg(sr, 2, &o, &svg, &len), 0);
	CHECK(strstr(svg, "width=\"640\"") != NULL);
	CHECK(strstr(svg, "Exponent histogram") != NULL);
	CHECK(strstr(svg, "log scale") != NULL);
	CHECK(count(svg, "<polyline") == 2);
	CHECK(strstr(svg, ">step 1<") && strstr(svg, ">step 2<"));
	free(svg);
	/* different exponent widths cannot share an axis */
	gt_stats_init(b, GT_DT_F16);
	CHECK_RC(gt_hist_svg(sr, 2, &o, &svg, &len), GT_ERR(INVAL));
	CHECK_RC(gt_hist_svg(sr, 0, &o, &svg, &len), GT_ERR(INVAL));
	free(a);
	free(b);
}

/* Among several series, zeros are bars of their own, never on the line;
 * the y axis ends at the first tick at or above the largest share. */
static void test_svg_zero_bars(void)
{
	struct gt_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	const float fa[5] = { 0.0f, 0.0f, 0.0f, 1.0f, 2.0f }, fb[4] = { 0.0f, 4.0f, 1.0f, 2.0f };
	struct gt_hist_series sr[2] = { { "a", NULL }, { "b", NULL } };
	const char *p;
	char *svg;
	size_t len, pts = 0;

	sr[0].stats = a;
	sr[1].stats = b;
	gt_stats_init(a, GT_DT_F32);
	gt_stats_init(b, GT_DT_F32);
	gt_stats_add(a, fa, 5);
	gt_stats_add(b, fb, 4);
	CHECK_RC(gt_hist_svg(sr, 2, NULL, &svg, &len), 0);
	/* two zero bars (60 % and 25 %) and two legend swatches */
	CHECK(count(svg, "<rect x=") == 2 + 2);
	CHECK(strstr(svg, "<title>60%</title>") && strstr(svg, "<title>25%</title>"));
	/* each line joins the exponents 2^0, 2^1, 2^2 only: 3 points */
	CHECK(count(svg, "<polyline") == 2);
	for (p = strstr(svg, "points=\""); p; p = strstr(p + 1, "points=\""))
		pts += 1 + (size_t)count(p, " ") - (size_t)count(strchr(p, '>'), " ");
	CHECK(pts == 6);
	/* 60 % at most: ticks 20 apart, the axis ends at 60 */
	CHECK(strstr(svg, ">60</text>") && strstr(svg, ">40</text>"));
	CHECK(!strstr(svg, ">80</text>") && !strstr(svg, ">100</text>"));
	free(svg);
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_rows);
	RUN(test_rows_mixed);
	RUN(test_svg_one);
	RUN(test_svg_series_log);
	RUN(test_svg_zero_bars);
	return check_done("test_hist");
}
