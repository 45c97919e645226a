/* memload.c - a file's tensors held in memory, with compress's coding of each */
#include <stdlib.h>
#include <string.h>

#include "memload.h"
#include "msg.h"
#include "util.h"
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

static int load_tensor(struct gt_memload *m, size_t i, void *buf)
{
	const struct gt_tensor_info *t = gt_source_info(m->src, i);
	const size_t w = gt_dtype_size(t->dtype);
	struct fill f = { NULL, w, 0 };

	if (t->count == GT_COUNT_UNKNOWN)
		return gt_error("%s: %s: the length must be known (not a pipe)",
				m->path, t->name);
	f.dst = xmalloc((size_t)t->count * w + 1);
	m->idx[m->n] = i;
	m->data[m->n++] = f.dst;
	if (gt_read_tensor(m->src, i, buf, GT_READ_VALUES, append, &f) < 0)
		return -1;
	if (f.done != t->count)
		return gt_error("%s: %s: unexpected end of data", m->path, t->name);
	m->bytes += t->count * w;
	m->values += t->count;
	return 0;
}

int gt_memload_open(struct gt_memload *m, const char *path,
		    const struct gt_source_opts *so, int grads_only)
{
	struct gt_diag d = { "" };
	size_t cnt, maxn = 1;
	unsigned char *sel;
	void *buf;
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	if (gt_source_open(path, so, &m->src, &d) < 0)
		return gt_error("%s: %s", path, d.msg);
	cnt = gt_source_count(m->src);
	sel = xcalloc(cnt + 1, 1);
	rc = gt_select_tensors(m->src, NULL, 0, GT_SKIP_SILENT, sel);
	m->idx = xcalloc(cnt + 1, sizeof(*m->idx));
	m->data = xcalloc(cnt + 1, sizeof(*m->data));
	m->aux = xcalloc(cnt + 1, sizeof(*m->aux));
	m->aux64 = xcalloc(cnt + 1, sizeof(*m->aux64));
	m->optim = xcalloc(cnt + 1, sizeof(*m->optim));
	m->aux_done = xcalloc(cnt + 1, 1);
	m->in = xcalloc(cnt + 1, sizeof(*m->in));
	for (size_t i = 0; i < cnt; i++)
		if (sel[i] && gt_source_info(m->src, i)->count > maxn)
			maxn = (size_t)gt_source_info(m->src, i)->count;
	if (rc >= 0)
		rc = gt_optctx_open(&m->ctx, &m->of, m->src, path, maxn);
	buf = xmalloc(GT_READ_VALUES * 8);
	for (size_t i = 0; i < cnt && rc >= 0; i++)
		if (sel[i] && (!grads_only || gt_optctx_is_grad(&m->ctx, i)))
			rc = load_tensor(m, i, buf);
	free(buf);
	free(sel);
	return rc < 0 ? -1 : 0;
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

int gt_memload_spec(const char *spec, const struct gt_codec **c_ret,
		    const char **opts_ret, int *needs_optim_ret)
{
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };

	if (gt_codec_spec_parse(spec, c_ret, opts_ret, &d) < 0)
		return gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
	p.opts = *opts_ret;
	if (gt_codec_new(*c_ret, &p, &ctx, &d) < 0)
		return gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
	*needs_optim_ret = gt_codec_needs_aux(ctx);
	gt_codec_free(ctx);
	return 0;
}

/* The optimizer context of tensor number @k (resolved in m->ctx): copied
 * out of the context's buffers, once. */
static int load_aux(struct gt_memload *m, size_t k)
{
	const size_t n = (size_t)gt_source_info(m->src, m->idx[k])->count;
	struct gt_codec_aux a;

	if (m->aux_done[k])
		return 0;
	if (gt_optctx_read(&m->ctx, 0, n, &a) < 0)
		return -1;
	m->optim[k] = m->ctx.optim;
	for (int r = 0; r < 3; r++) {
		const float *p = r ? a.state[r - 1] : a.param;
		const double *p64 = r ? a.state64[r - 1] : a.param64;

		if (p64) {
			m->aux64[k][r] = xmalloc(n * sizeof(double) + 1);
			memcpy(m->aux64[k][r], p64, n * sizeof(double));
		}
		if (!p)
			continue;
		m->aux[k][r] = xmalloc(n * sizeof(float) + 1);
		memcpy(m->aux[k][r], p, n * sizeof(float));
	}
	m->aux_done[k] = 1;
	return 0;
}

int gt_memload_inputs(struct gt_memload *m, const struct gt_codec *codec,
		      const char *opts, int needs_optim,
		      const struct gt_bench_input **in_ret)
{
	for (size_t k = 0; k < m->n; k++) {
		const struct gt_tensor_info *t = gt_source_info(m->src, m->idx[k]);
		struct gt_bench_input *in = &m->in[k];
		int own, aux;

		memset(in, 0, sizeof(*in));
		if (gt_optctx_coding(&m->ctx, &m->of, m->src, m->path, m->idx[k], codec,
				     needs_optim, &in->codec, &own, &aux) < 0)
			return -1;
		in->data = m->data[k];
		in->n = (size_t)t->count;
		in->dtype = t->dtype;
		in->opts = own ? opts : "";
		if (!aux)
			continue;
		if (load_aux(m, k) < 0)
			return -1;
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

const char *const gt_memload_defaults[] = {
	"huffexp", "gcomp", "zstd:level=1", "zstd:level=3", "zstd:level=19",
	"zlib:level=1", "zlib:level=6", "zlib:level=9", "tfp:bits=8", "tfp:bits=4",
	"rangeq:bits=10", "fft:drop=0.85,bits=10", "topk:cf=10", "topk:cf=1000",
	"dgc:cf=10", "dgc:cf=1000", "randk:cf=100", "redsync:cf=100",
	"qsgd:levels=3", "terngrad", NULL,
};

/* 1 when the codec of @spec is registered. */
static int registered(const char *spec)
{
	const size_t len = strcspn(spec, ":");
	char name[64];

	if (len >= sizeof(name))
		return 0;
	memcpy(name, spec, len);
	name[len] = 0;
	return gt_codec_find(name) != NULL;
}

void gt_speclist_add(struct gt_speclist *l, const char *list)
{
	gt_spec_split(&l->v, &l->n, list);
}

void gt_speclist_defaults(struct gt_speclist *l)
{
	for (size_t i = 0; gt_memload_defaults[i]; i++)
		if (registered(gt_memload_defaults[i]))
			gt_speclist_add(l, gt_memload_defaults[i]);
}

void gt_speclist_release(struct gt_speclist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int gt_speclist_usable(struct gt_speclist *l, const struct gt_memload *m, int defaults)
{
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct gt_codec *c;
		const char *opts;
		int needs = 0;

		if (gt_memload_spec(l->v[i], &c, &opts, &needs) < 0)
			return -1;
		if (needs && !(m->ctx.trace && gt_trace_nsteps(m->ctx.trace))) {
			if (!defaults) {
				rc = gt_error("%s: %s needs the optimizer context of a trace "
					      "(modes single-quant and zero-prune need none)",
					      m->path, l->v[i]);
			} else {
				gt_warn("%s: skipping %s: not a trace, no optimizer context",
					m->path, l->v[i]);
			}
			free(l->v[i]);
			continue;
		}
		l->v[k++] = l->v[i];
	}
	l->n = k;
	return rc;
}
