/* test_codec_bytes.c - the bytes of tfp, rangeq and fft are the format's:
 * digests of their chunks (and of the values decoded from them) on
 * samples/grads.f32 and on seeded wide data, recorded with the original
 * serial-bit-writer implementation (commit df722f7), so that the fast paths
 * cannot change a stream; each instruction set's loops (gt_isa.h) that this
 * CPU runs must give them.  --print prints the table instead of checking it. */
#include <math.h>

#include "check.h"
#include "../../lib/gt_codec.h"

#define MAXN 8200

static float grads[MAXN], wide[MAXN], back[MAXN];
static unsigned char buf[8 * 0x10000];

/* Chunk lengths: every tail of a group of 8 and the long runs. */
static const size_t lens[] = { 0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33,
			       63, 64, 65, 100, 1000, 1027, 4096, 8192, 8197 };

struct golden {
	const char *spec;   /* codec:opts */
	const char *dtype;  /* f32 unless named */
	uint64_t enc, dec;  /* digests of the chunks and of the decoded values */
};

#include "codec_bytes.h"

static size_t read_grads(float *x)
{
	FILE *f = fopen("samples/grads.f32", "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(x, sizeof(float), MAXN, f);
	fclose(f);
	return n;
}

/* Seeded (not the clock's seed): every exponent, both signs, NaN
 * payloads, Inf, zeros, subnormals and the FP16 edges. */
static void fill_wide(float *x, size_t n)
{
	static const uint32_t edge[] = {
		0x7fc00000u, 0x7f800001u, 0xffa00005u, 0x7f800000u, 0xff800000u,
		0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x477fe000u,
		0x477fefffu, 0x477ff000u, 0x47800000u, 0xc7800001u, 0x38800000u,
		0x387fffffu, 0x33800000u, 0x337fffffu, 0x7f7fffffu, 0x3f800000u,
	};
	uint64_t s = 0x5eed;

	for (size_t i = 0; i < n; i++) {
		uint64_t z = (s += UINT64_C(0x9e3779b97f4a7c15));
		uint32_t u;

		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		z ^= z >> 31;
		if (z % 16 == 0)
			u = edge[(z >> 8) % (sizeof(edge) / sizeof(edge[0]))];
		else if (z % 16 < 8) /* gradient-like: |x| in [2^-30, 2^2) */
			u = ((uint32_t)(z >> 32) & 0x80ffffffu) | (uint32_t)(97 + (z >> 24) % 32) << 23;
		else
			u = (uint32_t)(z >> 32);
		memcpy(&x[i], &u, 4);
	}
}

/* The digests of @spec over both inputs and every length of lens[]. */
static int digest(const char *spec, const char *dtype, enum gt_isa isa, uint64_t *enc,
		  uint64_t *dec)
{
	const char *colon = strchr(spec, ':');
	char name[32];
	const struct gt_codec_params p = { dtype ? gt_dtype_from_name(dtype) : GT_DT_F32,
					   colon ? colon + 1 : "", NULL, 0, NULL, 0 };
	const size_t w = gt_dtype_size(p.dtype);
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;

	snprintf(name, sizeof(name), "%.*s", (int)(colon ? colon - spec : (long)strlen(spec)), spec);
	if (gt_codec_new(gt_codec_find(name), &p, &ctx, &d) < 0) {
		fprintf(stderr, "%s: %s\n", spec, d.msg);
		return -1;
	}
	gt_codec_set_isa(ctx, isa);
	*enc = *dec = UINT64_C(0xcbf29ce484222325);
	for (int in = 0; in < 2; in++) {
		const float *x = in ? wide : grads;

		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			const size_t n = lens[l] * 4 / w < MAXN ? lens[l] * 4 / w : MAXN;
			size_t len = 0;

			gt_codec_seek(ctx, (uint64_t)in, (uint64_t)l * 1000);
			if (gt_codec_encode(ctx, x, n, buf, sizeof(buf), &len) < 0 ||
			    gt_codec_decode(ctx, buf, len, back, n) < 0) {
				gt_codec_free(ctx);
				return -1;
			}
			*enc = check_fnv(check_fnv(*enc, &len, sizeof(len)), buf, len);
			*dec = check_fnv(*dec, back, n * w);
		}
	}
	gt_codec_free(ctx);
	return 0;
}

static int print_mode;

static void golden_isa(enum gt_isa isa)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		const struct golden *g = &golden[i];
		uint64_t e = 0, dd = 0;

		CHECK_RC(digest(g->spec, g->dtype, isa, &e, &dd), 0);
		if (print_mode) {
			printf("\t{ \"%s\", %s%s%s, UINT64_C(0x%016" PRIx64 "), UINT64_C(0x%016" PRIx64 ") },\n",
			       g->spec, g->dtype ? "\"" : "", g->dtype ? g->dtype : "NULL",
			       g->dtype ? "\"" : "", e, dd);
			continue;
		}
		if (e != g->enc || dd != g->dec)
			fprintf(stderr, "%s %s (%s): digests %016" PRIx64 " %016" PRIx64 " changed\n",
				g->spec, g->dtype ? g->dtype : "f32", gt_isa_name(isa), e, dd);
		CHECK(e == g->enc);
		CHECK(dd == g->dec);
	}
}

/* Each instruction set this CPU runs (the portable loops always). */
static void for_each_isa(const char *what, void (*fn)(enum gt_isa))
{
	for (int isa = GT_ISA_PORTABLE; isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa)) {
			printf("  %s: %s not run (not on this CPU)\n", what,
			       gt_isa_name((enum gt_isa)isa));
			continue;
		}
		fn((enum gt_isa)isa);
		if (print_mode)
			break;
	}
}

static void test_golden(void)
{
	for_each_isa("golden", golden_isa);
}

static struct gt_codec_ctx *make_tfp(const char *opts, enum gt_isa isa)
{
	const struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;

	CHECK_RC(gt_codec_new(gt_codec_find("tfp"), &p, &ctx, &d), 0);
	gt_codec_set_isa(ctx, isa);
	return ctx;
}

/*
 * The branch-free FP16 truncation at its edges: for every FP16 pattern h
 * below Inf, both signs, the largest f32 below the next pattern's value
 * codes as h (bits=16 is FP16 truncated); and every one of the 2^16 codes
 * (Inf and NaN payloads too) decodes as gt_f16_to_f32().
 */
static void f16_edges_isa(enum gt_isa isa)
{
	struct gt_codec_ctx *ctx = make_tfp("bits=16", isa);
	static float x[0x10000];
	static uint16_t code[0x10000];
	size_t len = 0, n = 0;
	int ok = 1;

	for (uint32_t h = 0; h < 0x7c00; h++) {
		const uint32_t below = gt_f32_bits(gt_f16_to_f32((uint16_t)(h + 1))) - 1;

		x[n++] = gt_f32_from_bits(below);
		x[n++] = gt_f32_from_bits(below | 0x80000000u);
	}
	CHECK_RC(gt_codec_encode(ctx, x, n, buf, sizeof(buf), &len), 0);
	for (size_t i = 0; i < n && len == 2 * n; i++) {
		uint16_t c;

		memcpy(&c, buf + 2 * i, 2);
		ok &= c == ((i / 2) | (i & 1) << 15);
	}
	CHECK(len == 2 * n && ok);
	for (uint32_t h = 0; h < 0x10000; h++)
		code[h] = (uint16_t)h;
	CHECK_RC(gt_codec_decode(ctx, code, sizeof(code), x, 0x10000), 0);
	for (uint32_t h = 0; h < 0x10000; h++)
		ok &= gt_f32_bits(x[h]) == gt_f32_bits(gt_f16_to_f32((uint16_t)h));
	CHECK(ok);
	gt_codec_free(ctx);
}

static void test_tfp_f16_edges(void)
{
	for_each_isa("f16 edges", f16_edges_isa);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	for (int i = 1; i < argc; i++)
		print_mode |= !strcmp(argv[i], "--print");
	CHECK(read_grads(grads) == 8192);
	fill_wide(wide, MAXN);
	RUN(test_golden);
	RUN(test_tfp_f16_edges);
	return check_done("test_codec_bytes");
}
