/* gcomp_opts.c - the gcomp codec's context and options: levels, margin,
 * mode, isa and the Huffman table's (gcomp.c describes what each does) */
#include <math.h>
#include <stdio.h>
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

int gc_new(const struct gt_codec_params *p, const struct gt_kv *kv,
	   size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct gc_ctx *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->eb = gt_dtype_exp_bits(p->dtype);
	c->mb = gt_dtype_man_bits(p->dtype);
	c->width = gt_dtype_size(p->dtype);
	gc_default_levels(p->dtype, c->lev);
	c->isa = (int)gc_isa_detect();
	rc = gc_parse_opts(c, kv, nkv, d);
	if (rc == 0 && p->optim) {
		rc = gt_optim_check(p->optim, "codec gcomp", d);
		if (rc == 0)
			rc = gt_optim_dtype_check(p->optim, p->dtype, "codec gcomp", d);
		c->optim_copy = *p->optim;
		c->optim = &c->optim_copy;
	}
	if (rc == 0 && p->table) {
		c->fixed = 1;
		rc = gt_huff_load(&c->table, p->table, p->table_len, GT_HUFF_STATIC);
		if (rc == 0)
			rc = gc_prepare(c);
		if (rc < 0)
			gt_diag_set(d, rc, "codec gcomp: bad static table for %s",
				    gt_dtype_name(p->dtype));
	}
	if (rc == 0)
		rc = gc_fall_new(c, p, d);
	if (rc < 0) {
		gc_free((struct gt_codec_ctx *)(void *)c);
		return rc;
	}
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

void gc_free(struct gt_codec_ctx *ctx)
{
	if (ctx) {
		gc_scratch_free(gc(ctx));
		gc_fall_free(gc(ctx));
		free(gc(ctx)->codes);
	}
	free(ctx);
}

size_t gc_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct gc_ctx *c = gcc(ctx);

	return (size_t)snprintf(buf, cap, "levels=%u,%u,%u,%u,margin=%ld,mode=%s,maxlen=%u,method=%s",
				c->lev[0], c->lev[1], c->lev[2], c->lev[3], c->margin,
				gc_mode_names[c->mode], c->maxlen, gt_huff_method_name(c->method));
}

void gc_eparams_codes(struct gc_eparams *ep, const uint64_t *enc, const uint32_t *ctab,
		      const uint32_t *wtab, uint32_t wbase, unsigned z0, unsigned z1)
{
	const unsigned z[2] = { z0, z1 };

	for (unsigned s = 0; s < 2; s++) {
		ep->zent[s] = gc_code_entry(enc[z[s]]);
		ep->zc[s] = (uint32_t)(enc[z[s]] >> 40 & 1);
	}
	ep->ctab = ctab;
	ep->wtab = wtab;
	ep->wbase = wbase;
	ep->run_code = enc[GT_HUFF_RUN(8)];
}

void gc_code_table(const uint64_t *enc, uint32_t *ctab, uint32_t *wtab, uint32_t *wbase_ret)
{
	unsigned hi = 0;

	for (unsigned s = 0; s < 256; s++) {
		ctab[s] = gc_code_entry(enc[s]);
		hi = s >= 1 && s <= 254 && !(enc[s] >> 41 & 1) ? s : hi;
	}
	*wbase_ret = hi > 63 ? hi - 63 : 0;
	memcpy(wtab, ctab + *wbase_ret, 64 * sizeof(*wtab));
}
