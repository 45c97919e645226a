/* api_util.c - libgtool's version, errors, dtypes, codec list and optimizer context */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_impl.h"
#include "../formats/gt_gtz.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_float.h"
#include "../lib/banned.h"

/* The header's codes are gt_error's, its dtypes gt_float's. */
_Static_assert(GTOOL_E_NOMEM == GT_ERR(NOMEM) && GTOOL_E_INVAL == GT_ERR(INVAL) &&
	       GTOOL_E_IO == GT_ERR(IO) && GTOOL_E_TRUNCATED == GT_ERR(TRUNCATED) &&
	       GTOOL_E_CORRUPT == GT_ERR(CORRUPT) &&
	       GTOOL_E_DST_TOO_SMALL == GT_ERR(DST_TOO_SMALL) &&
	       GTOOL_E_UNSUPPORTED == GT_ERR(UNSUPPORTED) &&
	       GTOOL_E_NOTFOUND == GT_ERR(NOTFOUND) && GTOOL_E_OVERFLOW == GT_ERR(OVERFLOW) &&
	       GTOOL_E_TYPE == GT_ERR(TYPE) && GTOOL_E_EXISTS == GT_ERR(EXISTS),
	       "gtool.h error codes differ from gt_error.h");
_Static_assert((int)GTOOL_F32 == (int)GT_DT_F32 && (int)GTOOL_F16 == (int)GT_DT_F16 &&
	       (int)GTOOL_BF16 == (int)GT_DT_BF16 && (int)GTOOL_F64 == (int)GT_DT_F64,
	       "gtool.h dtypes differ from gt_float.h");

_Static_assert((int)GTOOL_OBJ_DATASET == (int)GT_OBJ_DATASET &&
	       (int)GTOOL_OBJ_HARD == (int)GT_OBJ_HARD && (int)GTOOL_OBJ_SOFT == (int)GT_OBJ_SOFT &&
	       (int)GTOOL_OBJ_EXTERNAL == (int)GT_OBJ_EXTERNAL,
	       "gtool.h object kinds differ from gt_source.h");
_Static_assert((int)GTOOL_EV_OBJECT == (int)GT_GTZ_OBJECT &&
	       (int)GTOOL_EV_TENSOR_END == (int)GT_GTZ_TENSOR_END &&
	       (int)GTOOL_EV_DATA == (int)GT_GTZ_DATA && (int)GTOOL_EV_EOF == (int)GT_GTZ_EOF,
	       "gtool.h events differ from gt_gtz.h");

/* (test_gtool_api compares GTOOL_VERSION_STRING with the Makefile's VERSION) */

GTOOL_API const char *gtool_version(void)
{
	return GTOOL_VERSION_STRING;
}

GTOOL_API unsigned gtool_version_number(void)
{
	return GTOOL_VERSION_NUMBER;
}

GTOOL_API const char *gtool_strerror(int rc)
{
	return rc == 0 ? "success" : gt_strerror(rc);
}

GTOOL_API void gtool_free(void *p)
{
	free(p);
}

GTOOL_API size_t gtool_dtype_size(int dtype)
{
	return dtype < GT_DT_F32 || dtype > GT_DT_MAX ? 0 : gt_dtype_size((enum gt_dtype)dtype);
}

GTOOL_API const char *gtool_dtype_name(int dtype)
{
	return gtool_dtype_size(dtype) ? gt_dtype_name((enum gt_dtype)dtype) : NULL;
}

GTOOL_API size_t gtool_codec_count(void)
{
	return gt_codec_count();
}

GTOOL_API const char *gtool_codec_name(size_t i)
{
	return i < gt_codec_count() ? gt_codec_name(gt_codec_at(i)) : NULL;
}

GTOOL_API int gtool_codec_check(const char *spec, int dtype, struct gtool_errbuf *err)
{
	const struct gt_codec *c;
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	int rc;

	api_err_clear(err);
	if (!spec)
		return api_errf(err, GT_ERR(INVAL), "no codec spec");
	if (!gtool_dtype_size(dtype))
		return api_errf(err, GT_ERR(TYPE), "unknown dtype %d", dtype);
	rc = gt_codec_spec_parse(spec, &c, &p.opts, &d);
	if (rc < 0)
		return api_err(err, rc, &d);
	p.dtype = (enum gt_dtype)dtype;
	rc = gt_codec_new(c, &p, &ctx, &d);
	gt_codec_free(ctx);
	return rc < 0 ? api_err(err, rc, &d) : 0;
}

/* ---- messages -------------------------------------------------------------- */

void api_err_clear(struct gtool_errbuf *err)
{
	if (err)
		err->msg[0] = '\0';
}

int api_msg(char *msg, int rc, const struct gt_diag *d)
{
	snprintf(msg, 256, "%s", d && d->msg[0] ? d->msg : gt_strerror(rc));
	return rc;
}

int api_err(struct gtool_errbuf *err, int rc, const struct gt_diag *d)
{
	if (err)
		api_msg(err->msg, rc, d);
	return rc;
}

int api_errf(struct gtool_errbuf *err, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return rc;
}

int api_count(const uint64_t *dims, unsigned rank, uint64_t *count_ret)
{
	uint64_t n = 1;

	*count_ret = 0;
	if (rank > GTOOL_MAX_RANK || (rank && !dims))
		return GT_ERR(INVAL);
	for (unsigned i = 0; i < rank; i++) {
		if (dims[i] && n > UINT64_MAX / dims[i])
			return GT_ERR(OVERFLOW);
		n *= dims[i];
	}
	*count_ret = n;
	return 0;
}

int api_check_len(int dtype, uint64_t count, size_t len, struct gt_diag *d)
{
	const size_t size = gtool_dtype_size(dtype);

	if (!size)
		return gt_diag_set(d, GT_ERR(TYPE), "unknown dtype %d", dtype);
	if (count > SIZE_MAX / size || count * size != len)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "%zu bytes for %llu values of %s: expected %llu", len,
				   (unsigned long long)count, gt_dtype_name((enum gt_dtype)dtype),
				   (unsigned long long)count * size);
	return 0;
}

/* ---- optimizer context ------------------------------------------------------ */

GTOOL_API int gtool_optctx_new(const char *optimizer, struct gtool_optctx **ctx_ret,
			       struct gtool_errbuf *err)
{
	enum gt_optim_kind k;
	struct gtool_optctx *c;

	api_err_clear(err);
	if (!ctx_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the context");
	*ctx_ret = NULL;
	if (!optimizer)
		return api_errf(err, GT_ERR(INVAL), "no optimizer name");
	k = gt_optim_parse(optimizer);
	if (k == GT_OPT_NONE)
		return api_errf(err, GT_ERR(NOTFOUND), "unknown optimizer '%s'", optimizer);
	c = calloc(1, sizeof(*c));
	if (!c)
		return api_errf(err, GT_ERR(NOMEM), "out of memory");
	c->o.kind = k;
	c->o.nesterov = k == GT_OPT_NESTEROV;
	*ctx_ret = c;
	return 0;
}

GTOOL_API void gtool_optctx_free(struct gtool_optctx *ctx)
{
	free(ctx);
}

static int ctx_fail(struct gtool_optctx *c, int rc, const char *what, const char *name)
{
	snprintf(c->msg, sizeof(c->msg), "%s '%s'", what, name ? name : "(null)");
	return rc;
}

GTOOL_API int gtool_optctx_set(struct gtool_optctx *ctx, const char *name, double value)
{
	if (!ctx)
		return GT_ERR(INVAL);
	if (!name)
		return ctx_fail(ctx, GT_ERR(INVAL), "bad hyper-parameter", name);
	if (isnan(value))
		return ctx_fail(ctx, GT_ERR(INVAL), "NaN for hyper-parameter", name);
	if (!strcmp(name, "step")) {
		if (!(value >= 1 && value <= 1e15) || floor(value) < value)
			return ctx_fail(ctx, GT_ERR(INVAL), "step must be a positive integer, not", "step");
		ctx->o.t = (long)value;
		return 0;
	}
	if (!strcmp(name, "nesterov")) {
		ctx->o.nesterov = value < 0 || value > 0;
		return 0;
	}
	for (int i = 0; i < GT_OPTIM_NHP; i++)
		if (!strcmp(name, gt_optim_hps[i].name)) {
			gt_optim_hp_set(&ctx->o, &gt_optim_hps[i], value);
			return 0;
		}
	return ctx_fail(ctx, GT_ERR(NOTFOUND), "unknown hyper-parameter", name);
}

GTOOL_API int gtool_optctx_set_param(struct gtool_optctx *ctx, const float *param, size_t n)
{
	if (!ctx)
		return GT_ERR(INVAL);
	if (!param && n)
		return ctx_fail(ctx, GT_ERR(INVAL), "NULL array for", "param");
	ctx->param = param;
	ctx->n_param = n;
	return 0;
}

GTOOL_API int gtool_optctx_set_state(struct gtool_optctx *ctx, const char *name,
				     const float *state, size_t n)
{
	if (!ctx)
		return GT_ERR(INVAL);
	if (!name || (!state && n))
		return ctx_fail(ctx, GT_ERR(INVAL), "bad state buffer", name);
	for (int i = 0; i < gt_optim_nstates(ctx->o.kind); i++)
		if (!strcmp(name, gt_optim_state_name(ctx->o.kind, i))) {
			ctx->state[i] = state;
			ctx->n_state[i] = n;
			return 0;
		}
	snprintf(ctx->msg, sizeof(ctx->msg), "optimizer %s keeps no state buffer '%s'",
		 gt_optim_name(ctx->o.kind), name);
	return GT_ERR(NOTFOUND);
}

/*
 * After the first step an optimizer's state buffers exist (PyTorch makes
 * them at step 1), so a buffer missing at step t > 1 is a context left
 * incomplete, not an initial state: refuse it rather than step from zeros.
 */
int api_optctx_states(const struct gtool_optctx *c, struct gt_diag *d)
{
	if (c->o.t <= 1)
		return 0;
	for (int i = 0; i < gt_optim_nstates(c->o.kind); i++)
		if (!c->state[i])
			return gt_diag_set(d, GT_ERR(INVAL), "optimizer %s at step %ld needs its "
					   "state '%s' (the buffer before the step)",
					   gt_optim_name(c->o.kind), c->o.t,
					   gt_optim_state_name(c->o.kind, i));
	return 0;
}

GTOOL_API int gtool_optctx_check(struct gtool_optctx *ctx)
{
	struct gt_diag d = { "" };
	int rc;

	if (!ctx)
		return GT_ERR(INVAL);
	rc = gt_optim_check(&ctx->o, "optimizer context", &d);
	if (rc >= 0)
		rc = api_optctx_states(ctx, &d);
	return rc < 0 ? api_msg(ctx->msg, rc, &d) : 0;
}

GTOOL_API const char *gtool_optctx_errmsg(const struct gtool_optctx *ctx)
{
	return ctx ? ctx->msg : "no context";
}
