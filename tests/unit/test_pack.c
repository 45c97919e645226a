/* test_pack.c - engine/gt_pack.h: a source into a .gtz file and back */
#include <unistd.h>

#include "check.h"
#include "../../engine/gt_pack.h"

static char dir[] = "/tmp/test_pack.XXXXXX";

/* Every value of every tensor of @a equals, bit for bit, that of @b. */
static int same_values(const char *a_path, const char *b_path)
{
	const struct gt_source_opts gtz = { GT_KIND_GTZ, GT_DT_NONE, 0 };
	struct gt_source *a = NULL, *b = NULL;
	struct gt_diag d = { "" };
	int same = gt_source_open(a_path, NULL, &a, &d) >= 0 &&
		   gt_source_open(b_path, &gtz, &b, &d) >= 0;

	for (size_t i = 0; same && i < gt_source_count(a); i++) {
		const struct gt_tensor_info *t = gt_source_info(a, i);
		const size_t w = gt_dtype_size(t->dtype);
		size_t j, ga = 0, gb = 0;
		unsigned char *va, *vb;

		if (t->dtype == GT_DT_NONE)
			continue;
		if (gt_source_find(b, t->name, &j) < 0) {
			same = 0;
			break;
		}
		va = malloc(t->count * w + 1);
		vb = malloc(t->count * w + 1);
		same = va && vb &&
		       gt_source_read(a, i, 0, t->count, va, &ga, &d) >= 0 &&
		       gt_source_read(b, j, 0, t->count, vb, &gb, &d) >= 0 &&
		       ga == t->count && gb == t->count && !memcmp(va, vb, t->count * w);
		free(va);
		free(vb);
	}
	gt_source_free(a);
	gt_source_free(b);
	return same;
}

struct counts {
	uint64_t total, bytes;
	size_t tensors, warnings;
};

static void on_start(void *arg, uint64_t total) { ((struct counts *)arg)->total = total; }
static void on_bytes(void *arg, uint64_t n) { ((struct counts *)arg)->bytes += n; }
static void on_tensor(void *arg, const char *name, uint64_t values, const char *codec)
{
	(void)name;
	(void)values;
	(void)codec;
	((struct counts *)arg)->tensors++;
}

static void on_note(void *arg, enum gt_note kind, const char *msg)
{
	(void)msg;
	if (kind == GT_NOTE_WARN)
		((struct counts *)arg)->warnings++;
}

/* Lossless codecs give the values back; the events add up. */
static void test_lossless(void)
{
	static const char *const specs[] = { "huffexp", "zstd:level=3", "raw" };
	static const char *const inputs[] = { "samples/dtypes.h5", "samples/grads.npy" };
	char out[64];

	snprintf(out, sizeof(out), "%s/x.gtz", dir);
	for (size_t s = 0; s < 3; s++) {
		for (size_t f = 0; f < 2; f++) {
			struct gt_spec spec;
			struct gt_diag d = { "" };
			struct counts c = { 0, 0, 0, 0 };
			const struct gt_notify nt = { on_note, &c };
			struct gt_pack_opts o = { 0 };
			struct gt_pack_result r = { 0, 0, 0 };

			CHECK_RC(gt_spec_init(&spec, specs[s], 0, &d), 0);
			o.input = inputs[f];
			o.output = out;
			o.spec = &spec;
			o.threads = 2;
			o.force = 1;
			o.nt = &nt;
			o.ev = (struct gt_pack_events){ .start = on_start, .bytes = on_bytes,
							  .tensor = on_tensor, .arg = &c };
			CHECK_RC(gt_pack_file(&o, &r, &d), 0);
			CHECK(r.in_bytes == c.bytes && c.bytes == c.total && c.total > 0);
			CHECK(r.ntensors == c.tensors && c.tensors == (f ? 1u : 4u));
			CHECK(c.warnings == 0); /* dtypes.h5's /labels is kept whole */
			CHECK(r.out_bytes > 0);
			CHECK(same_values(inputs[f], out));
			gt_spec_release(&spec);
		}
	}
	unlink(out);
}

/* An error names the file and leaves no output behind. */
static void test_errors(void)
{
	struct gt_spec spec;
	struct gt_diag d = { "" };
	struct gt_pack_opts o = { 0 };
	char out[64];

	snprintf(out, sizeof(out), "%s/y.gtz", dir);
	CHECK_RC(gt_spec_init(&spec, "huffexp", 0, &d), 0);
	o.input = "samples/grads.npy";
	o.output = out;
	o.spec = &spec;
	o.threads = 1;
	o.table_refresh = 2;
	CHECK(gt_pack_file(&o, NULL, &d) < 0);
	CHECK(!strcmp(d.msg, "samples/grads.npy: --table-refresh needs a trace with step groups"));
	CHECK(access(out, F_OK) < 0);
	o.table_refresh = 0;
	o.input = "samples/no-such-file.h5";
	CHECK(gt_pack_file(&o, NULL, &d) < 0);
	CHECK(!strncmp(d.msg, "samples/no-such-file.h5: ", 25));
	CHECK(access(out, F_OK) < 0);
	gt_spec_release(&spec);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	if (!mkdtemp(dir))
		return 1;
	RUN(test_lossless);
	RUN(test_errors);
	rmdir(dir);
	return check_done("test_pack");
}
