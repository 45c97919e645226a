/* api_metric.c - libgtool's error metrics and update fidelity (analysis/metric, fidelity) */
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "../analysis/gt_fidelity.h"
#include "../analysis/gt_metric.h"
#include "../lib/banned.h"

GTOOL_API int gtool_error_metrics(const void *a, int dta, const void *b, int dtb, size_t n,
				  struct gtool_metrics *m, struct gtool_errbuf *err)
{
	struct gt_metric acc;
	struct gt_metric_result r;

	api_err_clear(err);
	if (!m || ((!a || !b) && n))
		return api_errf(err, GT_ERR(INVAL), "NULL array or result");
	if (!gtool_dtype_size(dta) || !gtool_dtype_size(dtb))
		return api_errf(err, GT_ERR(INVAL), "unknown dtype");
	gt_metric_init(&acc);
	if (n)
		GT_TRY(gt_metric_add(&acc, a, (enum gt_dtype)dta, b, (enum gt_dtype)dtb, n));
	gt_metric_derive(&acc, &r);
	memset(m, 0, sizeof(*m));
	m->values = acc.values;
	m->identical = acc.identical;
	m->nan = acc.nan;
	m->inf = acc.inf;
	m->n = acc.n;
	m->max_abs = acc.max_abs;
	m->max_rel = acc.max_rel;
	m->range = r.range;
	m->rmse = r.rmse;
	m->nrmse = r.nrmse;
	m->psnr = r.psnr;
	m->snr = r.snr;
	m->cosine = r.cosine;
	m->pearson = r.pearson;
	m->gain = r.gain;
	return 0;
}

/* Blocks of this many values keep the two scratch parameters in cache. */
#define FID_BLOCK 65536

static int fidelity_run(const struct gtool_optctx *opt, const float *g, const float *ghat,
			const float *next, size_t n, float *scratch, struct gt_fidelity *f)
{
	for (size_t at = 0; at < n; at += FID_BLOCK) {
		const size_t k = n - at < FID_BLOCK ? n - at : FID_BLOCK;
		const struct gt_fidelity_io io = {
			.g = g + at, .ghat = ghat + at, .param = opt->param + at,
			.s0 = opt->state[0] ? opt->state[0] + at : NULL,
			.s1 = opt->state[1] ? opt->state[1] + at : NULL,
			.next = next ? next + at : NULL,
			.out_g = scratch, .out_ghat = scratch + FID_BLOCK,
		};

		GT_TRY(gt_fidelity_block(f, &opt->o, k, &io));
	}
	return 0;
}

GTOOL_API int gtool_update_fidelity(const struct gtool_optctx *opt, const float *g,
				    const float *ghat, const float *next, size_t n,
				    struct gtool_fidelity *f, struct gtool_errbuf *err)
{
	struct gt_diag d = { "" };
	struct gt_fidelity acc;
	float *scratch;
	int rc;

	api_err_clear(err);
	if (!opt || !f || ((!g || !ghat) && n))
		return api_errf(err, GT_ERR(INVAL), "NULL context, array or result");
	if (n && (!opt->param || opt->n_param != n || (opt->state[0] && opt->n_state[0] != n) ||
		  (opt->state[1] && opt->n_state[1] != n)))
		return api_errf(err, GT_ERR(INVAL),
				"the context's param and state must hold %zu values", n);
	rc = gt_optim_check(&opt->o, "optimizer context", &d);
	if (rc >= 0)
		rc = api_optctx_states(opt, &d);
	if (rc < 0)
		return api_err(err, rc, &d);
	gt_fidelity_init(&acc);
	scratch = malloc(2 * FID_BLOCK * sizeof(*scratch));
	if (!scratch)
		return api_errf(err, GT_ERR(NOMEM), "out of memory");
	rc = fidelity_run(opt, g, ghat, next, n, scratch, &acc);
	free(scratch);
	if (rc < 0)
		return api_errf(err, rc, "optimizer step: %s", gt_strerror(rc));
	memset(f, 0, sizeof(*f));
	f->values = acc.values;
	f->identical = acc.identical;
	f->max_ulp = acc.max_ulp;
	f->max_rel = acc.max_rel;
	f->identical_pct = gt_fidelity_pct(&acc);
	f->py_values = acc.py_values;
	f->py_identical = acc.py_identical;
	return 0;
}
