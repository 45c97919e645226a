/* test_table.c - result tables: typed cells (shape, flag, no value) in every format */
#include <math.h>

#include "check.h"
#include "../../engine/gt_table.h"

/* One row of every cell kind, printed in @fmt; returns a malloc'd string. */
static char *one_row(enum gt_fmt fmt)
{
	static const uint64_t dims[] = { 128, 64 };
	struct gt_table *t = gt_table_new(fmt);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gt_table_col(t, "name");
	gt_table_col(t, "shape");
	gt_table_col(t, "scalar");
	gt_table_col(t, "lossless");
	gt_table_col(t, "lossy");
	gt_table_col(t, "psnr");
	gt_table_col(t, "values");
	gt_table_col(t, "nan");
	gt_table_str(t, "a,b");
	gt_table_shape(t, dims, 2, NULL);
	gt_table_shape(t, NULL, 0, "scalar");
	gt_table_bool(t, 1);
	gt_table_bool(t, 0);
	gt_table_null(t, NULL);
	gt_table_uint(t, 8192);
	gt_table_num(t, NAN, 4);
	CHECK_RC(gt_table_print(t, f), 0);
	fclose(f);
	gt_table_free(t);
	return buf;
}

static void test_json_types(void)
{
	char *s = one_row(GT_FMT_JSON);

	CHECK(!strcmp(s, "[\n  {\"name\": \"a,b\", \"shape\": [128, 64], \"scalar\": [], "
		      "\"lossless\": true, \"lossy\": false, \"psnr\": null, "
		      "\"values\": 8192, \"nan\": null}\n]\n"));
	free(s);
}

static void test_csv_text(void)
{
	char *s = one_row(GT_FMT_CSV);

	CHECK(!strcmp(s, "name,shape,scalar,lossless,lossy,psnr,values,nan\n"
		      "\"a,b\",128x64,scalar,yes,no,,8192,nan\n"));
	free(s);
}

static void test_table_for_people(void)
{
	char *s = one_row(GT_FMT_TABLE);

	CHECK(strstr(s, "a,b   128x64  scalar  yes       no") != NULL);
	free(s);
}

/* Every function takes a NULL table (what gt_table_new gives when out of memory). */
static void test_null_table(void)
{
	static const uint64_t dims[] = { 3 };

	gt_table_bool(NULL, 1);
	gt_table_null(NULL, NULL);
	gt_table_shape(NULL, dims, 1, NULL);
	CHECK_RC(gt_table_print(NULL, stdout), GT_ERR(NOMEM));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_json_types);
	RUN(test_csv_text);
	RUN(test_table_for_people);
	RUN(test_null_table);
	return check_done("test_table");
}
