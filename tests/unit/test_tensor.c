/* test_tensor.c - engine/gt_tensor.h: -d selection, its errors and notes */
#include "check.h"
#include "../../engine/gt_tensor.h"

static void test_match(void)
{
	static struct { const char *path; char pattern[32]; int want; } cases[] = {
		{ "/step_000001/grad/fc.weight", "/step_000001/grad/*", 1 },
		{ "/step_000001/grad/fc.weight", "step_000001/grad/*", 1 },  /* no leading '/' */
		{ "/step_000001/grad/fc.weight", "*/grad/*", 1 },
		{ "/step_000001/param/fc.weight", "*/grad/*", 0 },
		{ "/f32", "/f32", 1 },
		{ "/f32", "/f3", 0 },
		{ "grads.f32", "grads.f32", 1 },
	};
	char *p;

	CHECK(gt_tensor_match("/anything", NULL, 0));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = cases[i].pattern;
		CHECK(gt_tensor_match(cases[i].path, &p, 1) == cases[i].want);
	}
}

struct notes {
	size_t n;
	enum gt_note kind;
	char last[512];
};

static void note(void *arg, enum gt_note kind, const char *msg)
{
	struct notes *s = arg;

	s->n++;
	s->kind = kind;
	snprintf(s->last, sizeof(s->last), "%s", msg);
}

/* dtypes.h5: four float datasets and /labels (integers). */
static void test_select(void)
{
	struct gt_source *src = NULL;
	struct gt_diag d = { "" };
	struct notes s = { 0, GT_NOTE_INFO, "" };
	const struct gt_notify nt = { note, &s };
	unsigned char sel[16];
	char nothing[] = "/nothing/*", labels[] = "/labels";
	char *pat[1];
	size_t n = 0, lab;

	CHECK_RC(gt_source_open("samples/dtypes.h5", NULL, &src, &d), 0);
	if (!src)
		return;
	CHECK(gt_source_count(src) < sizeof(sel));
	CHECK_RC(gt_tensor_select(src, NULL, 0, GT_SKIP_WARN, &nt, sel, &d), 0);
	for (size_t i = 0; i < gt_source_count(src); i++)
		n += sel[i];
	CHECK(n == 4);
	CHECK(gt_source_find(src, "/labels", &lab) >= 0 && !sel[lab]);
	CHECK(s.n == 1 && s.kind == GT_NOTE_WARN && strstr(s.last, "skipping /labels") != NULL);
	CHECK_RC(gt_tensor_select(src, NULL, 0, GT_SKIP_NOTE, &nt, sel, &d), 0);
	CHECK(s.n == 2 && s.kind == GT_NOTE_INFO);
	CHECK_RC(gt_tensor_select(src, NULL, 0, GT_SKIP_SILENT, &nt, sel, &d), 0);
	CHECK(s.n == 2);
	pat[0] = nothing;
	CHECK_RC(gt_tensor_select(src, pat, 1, GT_SKIP_SILENT, NULL, sel, &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "samples/dtypes.h5: dataset /nothing/* not found"));
	pat[0] = labels;
	CHECK_RC(gt_tensor_select(src, pat, 1, GT_SKIP_SILENT, NULL, sel, &d), GT_ERR(INVAL));
	CHECK(strstr(d.msg, "dataset /labels is ") && strstr(d.msg, "not floating point"));
	gt_source_free(src);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_match);
	RUN(test_select);
	return check_done("test_tensor");
}
