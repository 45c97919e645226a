/* fuzz_gcomp_enc.c - gcomp's encoder on arbitrary values and optimizer
 * settings: isa=avx512 and isa=avx2 (where the CPU has them) must write
 * the bytes of isa=scalar, the reference, and what it writes must decode.
 *
 * Input: 8 header bytes, then values as quadruples of float32 bit patterns
 * (g, θ, state 0, state 1: any pattern, NaN and Inf included).
 *	0  optimizer kind (SGD .. AdamW)
 *	1  mode (full, multi-quant, exact, single-quant, zero-prune), margin
 *	2  bit 0: weight decay; bit 1: no state (a first step); bit 2: ε = 0
 *	3  lr 2^-(0..39); 4  weight decay 2^-(0..29)
 *	5  β2 = α = 1 - 2^-(1..45); 6  ε 2^-(0..59); 7  step t 1..256
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>

#include "../../lib/gt_codec.h"
#include "../../lib/gt_optim.h"

/* Whether huffexp codes the @n values @g (one block, one chunk) in fewer
 * than @bytes bytes: gcomp's choice allows none. */
static int huffexp_below(const float *g, size_t n, size_t bytes)
{
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	unsigned char *buf = malloc(GT_CODEC_META_MAX + 16 * n + 1024);
	size_t ml = 0, len = 0;
	int below = 0;

	if (buf && gt_codec_new(gt_codec_find("huffexp"), &p, &ctx, &d) == 0 &&
	    gt_codec_block_begin(ctx, g, n, buf, GT_CODEC_META_MAX, &ml) == 0 &&
	    gt_codec_block_load(ctx, buf, ml) == 0 &&
	    gt_codec_encode(ctx, g, n, buf + ml, 16 * n + 1024, &len) == 0)
		below = ml + len < bytes;
	gt_codec_free(ctx);
	free(buf);
	return below;
}

/* Whether a fresh context given the block's meta (@b, @meta bytes) codes
 * the chunk in the @len bytes after it, as the context that chose the
 * block did (which may have kept its levels, or its bytes, since). */
static int same_fresh(const char *opts, const struct gt_optim *o, float *const v[4],
		      size_t n, int states, const unsigned char *b, size_t meta, size_t len)
{
	struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, o, 0 };
	const struct gt_codec_aux aux = { .param = v[1],
					  .state = { states ? v[2] : NULL, states ? v[3] : NULL } };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	unsigned char *out = malloc(16 * n + 1024);
	size_t got = 0;
	int same = 0;

	if (out && gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d) == 0 &&
	    gt_codec_block_load(ctx, b, meta) == 0 &&
	    gt_codec_encode_aux(ctx, v[0], n, &aux, out, 16 * n + 1024, &got) == 0)
		same = got == len && !memcmp(out, b + meta, len);
	gt_codec_free(ctx);
	free(out);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_VALUES 4096

static const char *const modes[] = { "full", "multi-quant", "exact", "single-quant",
				     "zero-prune" };

static void optim_of(const uint8_t *h, struct gt_optim *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = (enum gt_optim_kind)(GT_OPT_SGD + h[0] % 7);
	o->have = ~0u;
	o->lr = ldexp(1.0, -(h[3] % 40));
	o->weight_decay = h[2] & 1 ? ldexp(1.0, -(h[4] % 30)) : 0;
	o->momentum = o->kind == GT_OPT_MOMENTUM || o->kind == GT_OPT_NESTEROV ? 0.9 : 0;
	o->dampening = o->kind == GT_OPT_MOMENTUM ? 0.1 : 0;
	o->beta1 = 0.9;
	o->beta2 = 1 - ldexp(1.0, -(1 + h[5] % 45));
	o->alpha = o->beta2;
	o->eps = h[2] & 4 ? 0 : ldexp(1.0, -(h[6] % 60));
	o->lr_decay = 0.01;
	o->t = 1 + h[7];
}

/* gcomp:@opts on the @n values (block meta, then one chunk) into @out;
 * the coder's return code, or 1 when it cannot be made (isa). */
static int encode(const char *opts, const struct gt_optim *o, float *const v[4], size_t n,
		  int states, unsigned char *out, size_t cap, size_t *len, size_t *meta)
{
	struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, o, 0 };
	const struct gt_codec_aux aux = { .param = v[1],
					  .state = { states ? v[2] : NULL, states ? v[3] : NULL } };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	size_t ml = 0;
	int rc;

	if (gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d) < 0)
		return 1;
	/* with the context: the block may fall back to huffexp's coding */
	rc = gt_codec_block_begin_aux(ctx, v[0], n, &aux, out, GT_CODEC_META_MAX, &ml);
	if (rc == 0)
		rc = gt_codec_block_load(ctx, out, ml);
	if (rc == 0)
		rc = gt_codec_encode_aux(ctx, v[0], n, &aux, out + ml, cap - ml, len);
	*meta = ml;
	gt_codec_free(ctx);
	return rc;
}

/* The chunk after @meta bytes of block meta decodes (levels need no
 * optimizer). */
static int decodes(const char *mode, const unsigned char *buf, size_t meta, size_t len,
		   size_t n)
{
	char opts[64];
	struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	float *back = malloc(n * sizeof(float) + 1);
	int rc = -1;

	snprintf(opts, sizeof(opts), "mode=%s", mode);
	if (back && gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d) == 0 &&
	    gt_codec_block_load(ctx, buf, meta) == 0)
		rc = gt_codec_decode(ctx, buf + meta, len, back, n);
	gt_codec_free(ctx);
	free(back);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t n = size < 8 ? 0 : (size - 8) / 16 < MAX_VALUES ? (size - 8) / 16 : MAX_VALUES;
	const char *mode;
	struct gt_optim o;
	struct gt_diag d = { "" };
	float *v[4];
	static const char *const isas[3] = { "scalar", "avx512", "avx2" };
	unsigned char *b[3];
	size_t cap, len[3] = { 0, 0, 0 }, meta[3] = { 0, 0, 0 };
	char opts[3][96];
	int rc[3], margin;

	if (!n)
		return 0;
	optim_of(data, &o);
	if (gt_optim_check(&o, NULL, &d) < 0)
		return 0;
	mode = modes[data[1] % 5];
	margin = data[1] / 5 % 9 - 4;
	for (int k = 0; k < 4; k++) {
		v[k] = malloc(n * sizeof(float));
		for (size_t i = 0; v[k] && i < n; i++)
			memcpy(v[k] + i, data + 8 + 16 * i + 4 * k, 4);
	}
	cap = GT_CODEC_META_MAX + 16 * n + 1024;
	for (int k = 0; k < 3; k++)
		b[k] = malloc(cap);
	if (v[0] && v[1] && v[2] && v[3] && b[0] && b[1] && b[2]) {
		for (int k = 0; k < 3; k++) {
			snprintf(opts[k], sizeof(opts[k]), "mode=%s,margin=%d,isa=%s", mode, margin,
				 isas[k]);
			rc[k] = encode(opts[k], &o, v, n, !(data[2] & 2), b[k], cap, &len[k],
				       &meta[k]);
		}
		/* each vector isa where the CPU has it: the reference's result */
		for (int k = 1; k < 3; k++)
			if (rc[k] != 1 && (rc[k] != rc[0] || (rc[0] == 0 &&
			    (len[0] != len[k] || meta[0] != meta[k] ||
			     memcmp(b[0], b[k], meta[0] + len[0])))))
				abort();
		if (rc[0] == 0 && decodes(mode, b[0], meta[0], len[0], n) != 0)
			abort();
		/* never larger than huffexp; the bytes of a context that codes
		 * the chunk afresh */
		if (rc[0] == 0 && (huffexp_below(v[0], n, meta[0] + len[0]) ||
				   !same_fresh(opts[0], &o, v, n, !(data[2] & 2), b[0], meta[0],
					       len[0])))
			abort();
	}
	for (int k = 0; k < 4; k++)
		free(v[k]);
	for (int k = 0; k < 3; k++)
		free(b[k]);
	return 0;
}
