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

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_primitives);
	RUN(test_checker);
	RUN(test_scatter);
	RUN(test_bars_lines);
	return check_done("test_svg");
}
