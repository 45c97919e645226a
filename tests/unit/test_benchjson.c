/* test_bench.c - unit tests of formats/benchjson.c (gtool bench JSON reader) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../formats/gt_benchjson.h"
#include "../../lib/banned.h"

#define ROW(extra) "{\"codec\": \"zstd\", \"options\": \"level=3\", \"spec\": \"zstd:level=3\", " \
	"\"threads\": 2, \"direction\": \"decompress\", \"repeat\": 7, \"bytes\": 123456, " \
	"\"ratio\": 0.71, \"mbps_median\": 296.1, \"mbps_min\": 280.0, \"mbps_max\": 301.2, " \
	"\"peak_rss_mib\": 38.2" extra "}"

static int parse(const char *s, struct gt_bench_row **rows, size_t *n, struct gt_diag *d)
{
	return gt_bench_parse(s, strlen(s), rows, n, d);
}

static void test_valid(void)
{
	struct gt_bench_row *rows;
	struct gt_diag d;
	size_t n;

	CHECK_RC(parse("[" ROW("") ", " ROW(", \"future\": [1, {}]") "]", &rows, &n, &d), 0);
	CHECK(n == 2);
	CHECK(!strcmp(rows[0].codec, "zstd") && !strcmp(rows[0].options, "level=3"));
	CHECK(!strcmp(rows[1].spec, "zstd:level=3"));
	CHECK(rows[0].threads == 2 && rows[0].repeat == 7 && rows[0].bytes == 123456);
	CHECK(rows[0].direction == GT_BENCH_DECOMPRESS);
	CHECK(fabs(rows[0].ratio - 0.71) < 1e-15 && fabs(rows[0].mbps_median - 296.1) < 1e-12);
	CHECK(fabs(rows[0].mbps_min - 280) < 1e-12 && fabs(rows[0].mbps_max - 301.2) < 1e-12);
	CHECK(fabs(rows[0].peak_rss_mib - 38.2) < 1e-12);
	free(rows);
	CHECK_RC(parse(" [ ] \n", &rows, &n, &d), 0);
	CHECK(n == 0 && rows == NULL);
}

struct bad {
	const char *text, *msg;
};

static void test_invalid(void)
{
	static const struct bad cases[] = {
		{ "", "line 1 column 0: '[' or '{' expected near end of file" },
		{ "{}", "not a JSON array of bench results" },
		{ "[1]", "entry 1 is not an object" },
		{ "[" ROW("") ", 2]", "entry 2 is not an object" },
		{ "[{\"codec\": 3}]", "entry 1: \"codec\" is not a string" },
		{ "[{\"codec\": \"a\", \"options\": \"\"}]", "entry 1: \"spec\" is missing" },
		{ "[" ROW(", \"ratio\": 1") "]", NULL }, /* duplicate key */
		{ "[{\"codec\":\"z\",\"options\":\"\",\"spec\":\"z\",\"threads\":0}]",
		  "entry 1: \"threads\" is out of range (1 to 4096)" },
		{ "[{\"codec\":\"z\",\"options\":\"\",\"spec\":\"z\",\"threads\":1.0}]",
		  "entry 1: \"threads\" is not an integer" },
		{ "[{\"codec\":\"z\",\"options\":\"\",\"spec\":\"z\",\"threads\":1,"
		  "\"direction\":\"both\"}]",
		  "entry 1: \"direction\" is neither compress nor decompress" },
		{ "[{\"codec\":\"a\\u0000b\"}]", NULL }, /* Jansson refuses NUL */
		{ "[" ROW("") "] x", NULL },
	};
	struct gt_bench_row *rows;
	struct gt_diag d;
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d.msg[0] = 0;
		CHECK_RC(parse(cases[i].text, &rows, &n, &d), GT_ERR(CORRUPT));
		CHECK(rows == NULL && n == 0);
		if (cases[i].msg && strcmp(d.msg, cases[i].msg)) {
			fprintf(stderr, "case %zu: got '%s'\n", i, d.msg);
			CHECK(0);
		}
		CHECK(d.msg[0]);
	}
}

/* A row with a field out of its range, one field at a time. */
static void test_ranges(void)
{
	static const char *const fields[] = {
		"\"ratio\": 0", "\"ratio\": -0.5", "\"mbps_median\": 0", "\"repeat\": 0",
		"\"bytes\": -3", "\"peak_rss_mib\": -1", "\"mbps_min\": 400",
		"\"ratio\": 1e400",
	};
	char text[1024];
	struct gt_bench_row *rows;
	struct gt_diag d;
	size_t n;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		/* the same key twice is a duplicate: replace it in the text */
		const char *row = ROW(""), *key_end = strchr(fields[i], ':');
		const char *at, *next;
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(key_end - fields[i]), fields[i]);
		at = strstr(row, key);
		CHECK(at != NULL);
		next = strchr(strchr(at, ':'), ',');
		snprintf(text, sizeof(text), "[%.*s%s%s]", (int)(at - row), row, fields[i],
			 next ? next : "}");
		CHECK(gt_bench_parse(text, strlen(text), &rows, &n, &d) < 0);
	}
}

static void test_size_limit(void)
{
	const size_t len = GT_BENCH_MAX_BYTES + 1;
	char *big = malloc(len);
	struct gt_bench_row *rows;
	struct gt_diag d;
	size_t n;

	memset(big, ' ', len);
	big[0] = '[';
	big[len - 1] = ']';
	CHECK_RC(gt_bench_parse(big, len, &rows, &n, &d), GT_ERR(OVERFLOW));
	free(big);
	CHECK_RC(gt_bench_read("/nonexistent/bench.json", &rows, &n, &d), GT_ERR(IO));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_valid);
	RUN(test_invalid);
	RUN(test_ranges);
	RUN(test_size_limit);
	return check_done("test_bench");
}
