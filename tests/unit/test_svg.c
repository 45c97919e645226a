/* test_svg.c - unit tests of analysis/svg.c: well-formed documents, escaping */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_svg.h"
#include "../../lib/banned.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/*
 * A small well-formedness check: every '<' opens a tag that ends with
 * '>', element names nest (a stack of names), text holds no raw '<' or
 * '&' that does not start an entity.  Enough for what gt_svg writes.
 */
static int well_formed(const char *s)
{
	char stack[64][32];
	int depth = 0;

	if (strncmp(s, "<?xml", 5))
		return 0;
	s = strstr(s, "?>") + 2;
	while (*s) {
		if (*s == '&') {
			if (strncmp(s, "&amp;", 5) && strncmp(s, "&lt;", 4) && strncmp(s, "&gt;", 4) &&
			    strncmp(s, "&quot;", 6) && strncmp(s, "&apos;", 6))
				return 0;
			s++;
		} else if (*s == '<') {
			const char *end = strchr(s, '>');
			const int close = s[1] == '/', empty = end && end[-1] == '/';
			size_t len = strcspn(s + 1 + close, " />");

			if (!end || len >= 32 || memchr(s + 1, '<', (size_t)(end - s - 1)))
				return 0;
			if (close) {
				if (!depth || strncmp(stack[depth - 1], s + 2, len) ||
				    stack[depth - 1][len])
					return 0;
				depth--;
			} else if (!empty) {
				if (depth == 64)
					return 0;
				memcpy(stack[depth], s + 1, len);
				stack[depth++][len] = 0;
			}
			s = end + 1;
		} else if (*s == '>') {
			return 0;
		} else {
			s++;
		}
	}
	return depth == 0;
}

static void test_primitives(void)
{
	struct gt_svg *s = gt_svg_new(300, 200);
	const char *labels[] = { "a<b", "c&d" };
	const double xy[] = { 0, 0, 10, 10, 20, 5 };
	char *buf;
	size_t len;

	CHECK(s != NULL);
	gt_svg_text(s, 10, 10, 12, "middle", -90, "x < y & \"q\" 'r' > z");
	gt_svg_line(s, 0, 0, 1, 1, "black");
	gt_svg_rect(s, 1, 2, 3, 4, "red", "tip <&>");
	gt_svg_circle(s, 5, 5, 2, "blue", NULL);
	gt_svg_polyline(s, xy, 3, "green", 1.5);
	gt_svg_legend(s, 100, 10, labels, 2);
	CHECK_RC(gt_svg_end(s, &buf, &len), 0);
	CHECK(buf && strlen(buf) == len);
	CHECK(well_formed(buf));
	CHECK(strstr(buf, "x &lt; y &amp; &quot;q&quot; &apos;r&apos; &gt; z") != NULL);
	CHECK(strstr(buf, "<title>tip &lt;&amp;&gt;</title>") != NULL);
	CHECK(strstr(buf, "a&lt;b") && strstr(buf, "c&amp;d"));
	CHECK(strstr(buf, "rotate(-90 10.0 10.0)") != NULL);
	CHECK(strstr(buf, "points=\"0.00,0.00 10.00,10.00 20.00,5.00\"") != NULL);
	CHECK(count(buf, "<svg") == 1 && count(buf, "</svg>") == 1);
	free(buf);
}

/* The checker itself rejects what it should. */
static void test_checker(void)
{
	CHECK(!well_formed("<?xml?><a><b></a></b>"));
	CHECK(!well_formed("<?xml?><a>x & y</a>"));
	CHECK(!well_formed("<?xml?><a>"));
	CHECK(well_formed("<?xml?><a><b/>t &amp; u</a>"));
}

static void test_scatter(void)
{
	const double x[] = { 0, 1e-8, 1e-5, NAN }, y[] = { 0.8, 0.7, 0.3, 0.5 };
	const char *names[] = { "huffexp", "gcomp", "tfp:bits=4", "nan" };
	const struct gt_plot_series sr = { NULL, x, y, 4, names };
	struct gt_plot p = { GT_PLOT_SCATTER, "Ratio & RMSE", "RMSE", "ratio", 1, 0, 1,
			     NULL, 0, &sr, 1, 0, 0, NULL };
	char *buf;
	size_t len;

	CHECK_RC(gt_svg_plot(&p, &buf, &len), 0);
	CHECK(well_formed(buf));
	CHECK(strstr(buf, "Ratio &amp; RMSE") != NULL);
	CHECK(count(buf, "<circle") == 3);  /* NaN left out */
	CHECK(strstr(buf, ">0</text>") != NULL); /* the 0 on the log axis */
	CHECK(count(buf, "<polyline") == 1); /* the Pareto front */
	CHECK(strstr(buf, ">tfp:bits=4</text>") != NULL);
	free(buf);
}

static void test_bars_lines(void)
{
	const double c[] = { 300, 500, 20 }, d[] = { 700, 900, 400 };
	const double steps[] = { 1, 20, 100 };
	const char *cats[] = { "huffexp", "gcomp", "zstd:level=19" };
	const struct gt_plot_series sr[] = { { "compress", NULL, c, 3, NULL },
					     { "decompress", NULL, d, 3, NULL } };
	const struct gt_plot_series ln[] = { { "level 0", steps, c, 3, NULL },
					     { "level 1", steps, d, 3, NULL } };
	struct gt_plot p = { GT_PLOT_BARS, "MB/s", NULL, "MB/s", 0, 0, 0, cats, 3,
			     sr, 2, 0, 0, NULL };
	char *buf;
	size_t len;

	CHECK_RC(gt_svg_plot(&p, &buf, &len), 0);
	CHECK(well_formed(buf));
	CHECK(count(buf, "<rect") == 1 + 6 + 2); /* background, bars, legend */
	free(buf);
	p.kind = GT_PLOT_LINES;
	p.series = ln;
	CHECK_RC(gt_svg_plot(&p, &buf, &len), 0);
	CHECK(well_formed(buf));
	CHECK(count(buf, "<polyline") == 2 && count(buf, "<circle") == 6);
	free(buf);
	p.kind = GT_PLOT_BARS;
	p.ncat = 0;
	CHECK_RC(gt_svg_plot(&p, &buf, &len), GT_ERR(INVAL));
	p.nseries = 0;
	CHECK_RC(gt_svg_plot(&p, &buf, &len), GT_ERR(INVAL));
	CHECK(buf == NULL);
}

/* The boxes of the <text> elements in <g class="labels">, from x, y,
 * font-size, text-anchor and the length, GT_SVG_CHAR_EM em a character. */
static size_t label_boxes(const char *svg, double (*b)[4], size_t cap)
{
	const char *g = strstr(svg, "<g class=\"labels\">");
	const char *end = g ? strstr(g, "</g>") : NULL;
	size_t n = 0;

	for (const char *t = g ? strstr(g, "<text ") : NULL; t && t < end && n < cap;
	     t = strstr(t + 1, "<text ")) {
		double x, y, size, w;
		char anchor[8] = "";
		const char *text = strchr(t, '>') + 1;

		CHECK(sscanf(t, "<text x=\"%lf\" y=\"%lf\" font-size=\"%lf\" text-anchor=\"%7[a-z]",
			     &x, &y, &size, anchor) == 4);
		w = GT_SVG_CHAR_EM * size * (double)(strchr(text, '<') - text);
		b[n][0] = !strcmp(anchor, "end") ? x - w : !strcmp(anchor, "middle") ? x - w / 2 : x;
		b[n][1] = y - size;
		b[n][2] = b[n][0] + w;
		b[n][3] = y + 0.25 * size;
		n++;
	}
	return n;
}

/* Crowds of points: every label placed, inside the drawing, none meeting. */
static void test_labels(void)
{
	double x[16], y[16], b[16][4];
	const char *names[16] = { "zstd:level=1", "zstd:level=3", "zstd:level=19", "zlib:level=1",
				  "zlib:level=6", "zlib:level=9", "huffexp", "topk:cf=10",
				  "topk:cf=1000", "dgc:cf=10", "dgc:cf=1000", "randk:cf=100",
				  "redsync:cf=100", "qsgd:levels=3", "terngrad",
				  "the_last_label_at_the_right_edge" };
	const struct gt_plot_series sr = { NULL, x, y, 16, names };
	struct gt_plot p = { GT_PLOT_SCATTER, NULL, NULL, NULL, 1, 0, 1, NULL, 0, &sr, 1, 0, 0, NULL };
	char *buf;
	size_t len, n;

	for (size_t i = 0; i < 16; i++) {
		x[i] = i < 7 ? 0 : i < 15 ? 0.02 + 1e-4 * (double)i : 1;
		y[i] = i < 7 ? 0.92 - 0.001 * (double)i : i < 15 ? 0.7 : 0.5;
	}
	CHECK_RC(gt_svg_plot(&p, &buf, &len), 0);
	CHECK(well_formed(buf));
	n = label_boxes(buf, b, 16);
	CHECK(n == 16);
	for (size_t i = 0; i < n; i++) {
		CHECK(b[i][0] >= 0 && b[i][2] <= 900 && b[i][1] >= 0 && b[i][3] <= 500);
		for (size_t j = i + 1; j < n; j++)
			CHECK(!(b[i][0] < b[j][2] && b[j][0] < b[i][2] && b[i][1] < b[j][3] &&
				b[j][1] < b[i][3]));
	}
	/* no title given: no title drawn, no empty text */
	CHECK(!strstr(buf, "font-size=\"18\"") && !strstr(buf, "\"></text>"));
	free(buf);
}

/* A log axis over 14 decades: a tick at each, a label at every other. */
static void test_decades(void)
{
	const double x[] = { 1e-9, 1e5 }, y[] = { 1, 2 };
	const struct gt_plot_series sr = { NULL, x, y, 2, NULL };
	struct gt_plot p = { GT_PLOT_SCATTER, "t", "x", "y", 1, 0, 0, NULL, 0, &sr, 1, 0, 0, "sub" };
	char *buf;
	size_t len;

	CHECK_RC(gt_svg_plot(&p, &buf, &len), 0);
	CHECK(count(buf, "stroke=\"black\"/>") == 15 + 6 + 2); /* x ticks, y ticks, axes */
	CHECK(strstr(buf, ">1e-09</text>") && strstr(buf, ">1e-07</text>") && !strstr(buf, ">1e-08<"));
	CHECK(strstr(buf, "font-size=\"12\" text-anchor=\"middle\">sub</text>") != NULL);
	free(buf);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_primitives);
	RUN(test_checker);
	RUN(test_scatter);
	RUN(test_bars_lines);
	RUN(test_labels);
	RUN(test_decades);
	return check_done("test_svg");
}
