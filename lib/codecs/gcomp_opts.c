/* gcomp_opts.c - the gcomp codec's options: levels, margin, mode, isa and
 * the Huffman table's (gcomp.c describes what each does) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcomp_impl.h"
#include "gcomp_simd.h"
#include "../banned.h"

const char *const gc_mode_names[5] = { "full", "single-quant", "multi-quant", "zero-prune",
				       "exact" };

void gc_default_levels(enum gt_dtype dt, unsigned *lev)
{
	static const unsigned f32[4] = { 0, 6, 12, 18 }, bf16[4] = { 0, 2, 4, 6 };
	static const unsigned f16[4] = { 0, 3, 5, 8 }, f64[4] = { 0, 16, 32, 47 };
	const unsigned *s = f32;

	switch (dt) {
	case GT_DT_BF16: s = bf16; break;
	case GT_DT_F16: s = f16; break;
	case GT_DT_F64: s = f64; break;
	case GT_DT_F32:
	case GT_DT_NONE: break;
	}
	memcpy(lev, s, 4 * sizeof(*lev));
}

/* "a,b,c,d": four increasing counts <= M. */
static int parse_levels(const char *val, unsigned mb, unsigned *lev,
			struct gt_diag *d)
{
	const char *p = val;

	for (int i = 0; i < 4; i++) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			goto bad;
		v = strtol(p, &end, 10);
		if (v < 0 || v > (long)mb || (i && (unsigned)v <= lev[i - 1]))
			goto bad;
		lev[i] = (unsigned)v;
		if (*end != (i < 3 ? ',' : '\0'))
			goto bad;
		p = end + 1;
	}
	return 0;
bad:
	return gt_diag_set(d, GT_ERR(INVAL),
			   "codec gcomp: invalid levels '%s': expected four increasing bit counts 0-%u",
			   val, mb);
}

static int parse_name(const struct gt_kv *kv, const char *const *names, int n,
		      const char *expect, int *ret, struct gt_diag *d)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(kv->val, names[i])) {
			*ret = i;
			return 0;
		}
	}
	return gt_diag_set(d, GT_ERR(INVAL), "codec gcomp: invalid %s '%s': expected %s",
			   kv->key, kv->val, expect);
}

/*
 * isa=auto|scalar|avx2|avx512: the kernels of the encoder and the f32
 * decoder (gcomp_simd.h); the bytes are the same, so the option is not
 * part of the canonical form.  auto (the default) takes the best the CPU
 * runs; avx2 on a CPU with AVX-512 runs the AVX2 kernels (to test and
 * measure them there).
 */
static int parse_isa(struct gc_ctx *c, const struct gt_kv *kv, struct gt_diag *d)
{
	/* in the order of enum gc_isa */
	static const char *const names[] = { "scalar", "avx512", "avx2", "auto" };
	int isa = 3;

	GT_TRY(parse_name(kv, names, 4, "auto, scalar, avx2 or avx512", &isa, d));
	if (isa == 3)
		isa = (int)gc_isa_detect();
	else if (!gc_isa_runs((enum gc_isa)isa))
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "codec gcomp: isa %s: not available (CPU or build)", names[isa]);
	c->isa = isa;
	return 0;
}

int gc_parse_opts(struct gc_ctx *c, const struct gt_kv *kv, size_t nkv, struct gt_diag *d)
{
	unsigned maxlen = GT_HUFF_MAXLEN_DEFAULT;
	long margin = 0;
	int method = GT_HUFF_BEST, mode = GC_FULL, rc;

	for (size_t i = 0; i < nkv; i++) {
		rc = gt_kv_huff(&kv[i], "gcomp", &maxlen, &method, d);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		if (!strcmp(kv[i].key, "mode"))
			GT_TRY(parse_name(&kv[i], gc_mode_names, 5,
					  "full, single-quant, multi-quant, zero-prune or exact",
					  &mode, d));
		else if (!strcmp(kv[i].key, "margin"))
			GT_TRY(gt_kv_int(&kv[i], "gcomp", -64, 64, &margin, d));
		else if (!strcmp(kv[i].key, "levels"))
			GT_TRY(parse_levels(kv[i].val, c->mb, c->lev, d));
		else if (!strcmp(kv[i].key, "isa"))
			GT_TRY(parse_isa(c, &kv[i], d));
		else
			return gt_kv_unknown(&kv[i], "gcomp", d);
	}
	c->maxlen = maxlen;
	c->method = (enum gt_huff_method)method;
	c->mode = (enum gc_mode)mode;
	c->margin = margin;
	for (int l = 0; l < 4; l++)
		c->thr[l] = ldexp(1.0, (int)c->lev[l] + (int)margin);
	return 0;
}
