/* memload.c - a file's tensors held in memory, with compress's coding of each */
#include <stdlib.h>
#include <string.h>

#include "gt_memload.h"
#include "gt_tensor.h"
#include "../lib/banned.h"

struct fill {
	unsigned char *dst;
	size_t width, done;
};

static int append(void *arg, const void *data, size_t n)
{
	struct fill *f = arg;

	memcpy(f->dst + f->done * f->width, data, n * f->width);
	f->done += n;
	return 0;
}

static int load_tensor(struct gt_memload *m, size_t i, void *buf, struct gt_diag *d)
{
	const struct gt_tensor_info *t = gt_source_info(m->src, i);
	const size_t w = gt_dtype_size(t->dtype);
	struct fill f = { NULL, w, 0 };

	if (t->count == GT_COUNT_UNKNOWN)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: %s: the length must be known (not a pipe)",
				   m->path, t->name);
	f.dst = malloc((size_t)t->count * w + 1);
	if (!f.dst)
		return gt_diag_set(d, GT_ERR(NOMEM), "%s: %s: out of memory", m->path, t->name);
	m->idx[m->n] = i;
	m->data[m->n++] = f.dst;
	GT_TRY(gt_tensor_stream(m->src, i, buf, GT_TENSOR_READ_VALUES, append, &f, d));
	if (f.done != t->count)
		return gt_diag_set(d, GT_ERR(TRUNCATED), "%s: %s: unexpected end of data",
				   m->path, t->name);
	m->bytes += t->count * w;
	m->values += t->count;
	return 0;
}

/* The per-tensor arrays, for up to @cnt tensors. */
static int alloc_arrays(struct gt_memload *m, size_t cnt)
{
	m->idx = calloc(cnt + 1, sizeof(*m->idx));
	m->data = calloc(cnt + 1, sizeof(*m->data));
	m->aux = calloc(cnt + 1, sizeof(*m->aux));
	m->aux64 = calloc(cnt + 1, sizeof(*m->aux64));
	m->optim = calloc(cnt + 1, sizeof(*m->optim));
	m->aux_done = calloc(cnt + 1, 1);
	m->in = calloc(cnt + 1, sizeof(*m->in));
	return m->idx && m->data && m->aux && m->aux64 && m->optim && m->aux_done && m->in
	       ? 0 : GT_ERR(NOMEM);
}

int gt_memload_open(struct gt_memload *m, const char *path,
		    const struct gt_source_opts *so, int grads_only, struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	size_t cnt, maxn = 1;
	unsigned char *sel = NULL;
	void *buf = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	rc = gt_source_open(path, so, &m->src, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", path, rd.msg);
	cnt = gt_source_count(m->src);
	sel = calloc(cnt + 1, 1);
	buf = malloc(GT_TENSOR_READ_VALUES * 8);
	rc = sel && buf ? alloc_arrays(m, cnt) : GT_ERR(NOMEM);
	if (rc < 0)
		gt_diag_set(d, rc, "out of memory");
	if (rc >= 0)
		rc = gt_tensor_select(m->src, NULL, 0, GT_SKIP_SILENT, NULL, sel, d);
	for (size_t i = 0; rc >= 0 && i < cnt; i++)
		if (sel[i] && gt_source_info(m->src, i)->count > maxn)
			maxn = (size_t)gt_source_info(m->src, i)->count;
	if (rc >= 0)
		rc = gt_optctx_open(&m->ctx, &m->of, m->src, path, maxn, d);
	for (size_t i = 0; i < cnt && rc >= 0; i++)
		if (sel[i] && (!grads_only || gt_optctx_is_grad(&m->ctx, i)))
			rc = load_tensor(m, i, buf, d);
	free(buf);
	free(sel);
	return rc < 0 ? rc : 0;
}

void gt_memload_close(struct gt_memload *m)
{
	for (size_t k = 0; k < m->n; k++) {
		free(m->data[k]);
		for (int r = 0; r < 3; r++) {
			free(m->aux[k][r]);
			free(m->aux64[k][r]);
		}
	}
	gt_optctx_close(&m->ctx);
	gt_source_free(m->src);
	free(m->idx);
	free(m->data);
	free(m->aux);
	free(m->aux64);
	free(m->optim);
	free(m->aux_done);
	free(m->in);
	memset(m, 0, sizeof(*m));
}

/* The optimizer context of tensor number @k (resolved in m->ctx): copied
 * out of the context's buffers, once. */
static int load_aux(struct gt_memload *m, size_t k, struct gt_diag *d)
{
	const size_t n = (size_t)gt_source_info(m->src, m->idx[k])->count;
	struct gt_codec_aux a;

	if (m->aux_done[k])
		return 0;
	GT_TRY(gt_optctx_read(&m->ctx, 0, n, &a, d));
	m->optim[k] = m->ctx.optim;
	for (int r = 0; r < 3; r++) {
		const float *p = r ? a.state[r - 1] : a.param;
		const double *p64 = r ? a.state64[r - 1] : a.param64;

		if (p64) {
			m->aux64[k][r] = malloc(n * sizeof(double) + 1);
			if (!m->aux64[k][r])
				return gt_diag_set(d, GT_ERR(NOMEM), "%s: out of memory", m->path);
			memcpy(m->aux64[k][r], p64, n * sizeof(double));
		}
		if (!p)
			continue;
		m->aux[k][r] = malloc(n * sizeof(float) + 1);
		if (!m->aux[k][r])
			return gt_diag_set(d, GT_ERR(NOMEM), "%s: out of memory", m->path);
		memcpy(m->aux[k][r], p, n * sizeof(float));
	}
	m->aux_done[k] = 1;
	return 0;
}

int gt_memload_inputs(struct gt_memload *m, const struct gt_spec *spec,
		      const struct gt_bench_input **in_ret, struct gt_diag *d)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct gt_tensor_info *t = gt_source_info(m->src, m->idx[k]);
		struct gt_bench_input *in = &m->in[k];
		struct gt_coding c;

		memset(in, 0, sizeof(*in));
		GT_TRY(gt_optctx_coding(&m->ctx, &m->of, m->src, m->path, m->idx[k], spec,
					m->nt, &c, d));
		in->codec = c.codec;
		in->data = m->data[k];
		in->n = (size_t)t->count;
		in->dtype = t->dtype;
		in->opts = c.opts;
		if (!c.optim)
			continue;
		GT_TRY(load_aux(m, k, d));
		in->optim = &m->optim[k];
		in->aux.param = m->aux[k][0];
		in->aux.state[0] = m->aux[k][1];
		in->aux.state[1] = m->aux[k][2];
		in->aux.param64 = m->aux64[k][0];
		in->aux.state64[0] = m->aux64[k][1];
		in->aux.state64[1] = m->aux64[k][2];
	}
	*in_ret = m->in;
	return 0;
}

int gt_memload_is_trace(const struct gt_memload *m)
{
	return m->ctx.trace && gt_trace_nsteps(m->ctx.trace);
}

int gt_memload_usable(struct gt_speclist *l, const struct gt_memload *m, int defaults,
		      const struct gt_notify *nt, struct gt_diag *d)
{
	int rc = 0;

	for (size_t i = 0; i < l->n; ) {
		struct gt_spec s;
		int needs;

		GT_TRY(gt_spec_init(&s, l->v[i], 0, d));
		needs = s.needs_optim;
		gt_spec_release(&s);
		if (!needs || gt_memload_is_trace(m)) {
			i++;
			continue;
		}
		if (!defaults)
			rc = gt_diag_set(d, GT_ERR(INVAL),
					 "%s: %s needs the optimizer context of a trace "
					 "(modes single-quant and zero-prune need none)",
					 m->path, l->v[i]);
		else
			gt_notify_send(nt, GT_NOTE_WARN,
				       "%s: skipping %s: not a trace, no optimizer context",
				       m->path, l->v[i]);
		gt_speclist_remove(l, i);
	}
	return rc;
}
