/* load.c - one rank's gradient and its optimizer context, from a trace or array */
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "../front/msg.h"
#include "../engine/gt_optctx.h"
#include "../engine/gt_tensor.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/banned.h"

/* Where tensor values are appended, converted to f32. */
struct sink {
	float *dst;
	enum gt_dtype dt;
	size_t at;
};

static int append(void *arg, const void *data, size_t n)
{
	struct sink *s = arg;

	for (size_t v = 0; v < n; v++)
		s->dst[s->at + v] = (float)gt_fp_get(data, s->dt, v);
	s->at += n;
	return 0;
}

/* Append tensor @i of @src (count values, known) to rg->g. */
static int read_grad(struct rank_grad *rg, struct gt_source *src, size_t i, void *buf)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	struct sink s = { NULL, t->dtype, rg->n };
	struct gt_diag d = { "" };

	if (t->count == GT_COUNT_UNKNOWN || t->count > (SIZE_MAX / 4 - rg->n) / 8)
		return gt_error("%s: %s: size unknown or too large", gt_source_path(src), t->name);
	rg->g = xrealloc(rg->g, (rg->n + (size_t)t->count) * sizeof(float));
	s.dst = rg->g;
	if (gt_tensor_stream(src, i, buf, GT_TENSOR_READ_VALUES, append, &s, &d) < 0)
		return gt_error("%s", d.msg);
	if (s.at - rg->n != t->count)
		return gt_error("%s: %s: short read", gt_source_path(src), t->name);
	rg->n = s.at;
	rg->ntensors++;
	return 0;
}

/* The step index to use: @skip steps after step number @step. */
static int pick_step(struct rank_grad *rg, const struct gt_trace *tr, const char *path,
		     long step, size_t skip, size_t *si)
{
	const size_t ns = gt_trace_nsteps(tr);
	size_t base = 0;

	if (step) {
		while (base < ns && gt_trace_step(tr, base)->step != step)
			base++;
		if (base == ns)
			return gt_error("%s: no step %ld in the trace", path, step);
	}
	*si = (base + skip) % ns;
	rg->wrapped = base + skip >= ns;
	return 0;
}

/* Copy the context of @n values at @at; a state present for some
 * tensors and absent for others cannot be one vector. */
static int add_ctx(struct rank_grad *rg, const struct gt_codec_aux *aux, size_t at,
		   size_t n, size_t total, const char *path)
{
	if (!rg->param)
		rg->param = xmalloc(total * sizeof(float));
	memcpy(rg->param + at, aux->param, n * sizeof(float));
	for (int k = 0; k < 2; k++) {
		if (at == 0 && aux->state[k])
			rg->state[k] = xmalloc(total * sizeof(float));
		if (!aux->state[k] != !rg->state[k])
			return gt_error("%s: step %ld: state buffer %s only for some tensors",
					path, rg->step, gt_optim_state_name(rg->optim.kind, k));
		if (aux->state[k])
			memcpy(rg->state[k] + at, aux->state[k], n * sizeof(float));
	}
	return 0;
}

/* The step's gradients with their parameter and state. */
static int load_step(struct rank_grad *rg, struct gt_source *src, struct gt_optctx *c,
		     const struct gt_trace_step *st, void *buf)
{
	static const struct gt_optflags none;
	const char *path = gt_source_path(src);
	struct gt_diag d = { "" };
	size_t total = 0;

	rg->step = st->step;
	for (size_t k = 0; k < st->n_grads; k++)
		total += (size_t)gt_source_info(src, st->grads[k])->count;
	for (size_t k = 0; k < st->n_grads; k++) {
		struct gt_codec_aux aux;
		const size_t at = rg->n;

		GT_TRY(read_grad(rg, src, st->grads[k], buf));
		if (gt_optctx_resolve(c, &none, src, path, st->grads[k], &d) < 0)
			return gt_error("%s", d.msg);
		if (!k)
			rg->optim = c->optim;
		if (gt_optctx_read(c, 0, rg->n - at, &aux, &d) < 0)
			return gt_error("%s", d.msg);
		GT_TRY(add_ctx(rg, &aux, at, rg->n - at, total, path));
	}
	if (!rg->n)
		return gt_error("%s: step %ld has no gradients", path, rg->step);
	return 0;
}

/* The largest gradient of the trace: the context buffers' size. */
static size_t largest(struct gt_source *src)
{
	size_t m = 1;

	for (size_t i = 0; i < gt_source_count(src); i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);

		if (t->dtype != GT_DT_NONE && t->count != GT_COUNT_UNKNOWN && t->count > m)
			m = (size_t)t->count;
	}
	return m;
}

/* A file that is not a trace: every float tensor, no context. */
static int load_all(struct rank_grad *rg, struct gt_source *src, void *buf)
{
	unsigned char *sel = xcalloc(gt_source_count(src) + 1, 1);
	struct gt_diag d = { "" };
	int rc = gt_tensor_select(src, NULL, 0, GT_SKIP_SILENT, NULL, sel, &d);

	if (rc < 0)
		gt_error("%s", d.msg);
	for (size_t i = 0; rc >= 0 && i < gt_source_count(src); i++)
		if (sel[i])
			rc = read_grad(rg, src, i, buf);
	free(sel);
	if (rc >= 0 && !rg->n)
		rc = gt_error("%s: no float values", gt_source_path(src));
	return rc < 0 ? -1 : 0;
}

int rank_grad_load(struct rank_grad *rg, const char *path, long step, size_t skip)
{
	static const struct gt_optflags none;
	struct gt_source *src = NULL;
	struct gt_optctx c;
	struct gt_diag d = { "" };
	void *buf = xmalloc(GT_TENSOR_READ_VALUES * 8);
	int rc;

	memset(rg, 0, sizeof(*rg));
	memset(&c, 0, sizeof(c));
	rg->step = -1;
	rc = gt_source_open(path, NULL, &src, &d);
	if (rc < 0) {
		rc = gt_error("%s: %s", path, *d.msg ? d.msg : gt_strerror(rc));
	} else {
		rc = gt_optctx_open(&c, &none, src, path, largest(src), &d);
		if (rc < 0)
			gt_error("%s", d.msg);
		if (rc >= 0 && c.trace) {
			size_t si = 0;

			rc = pick_step(rg, c.trace, path, step, skip, &si);
			if (rc >= 0)
				rc = load_step(rg, src, &c, gt_trace_step(c.trace, si), buf);
		} else if (rc >= 0) {
			rc = step ? gt_error("%s: --step needs a trace with step groups", path)
				  : load_all(rg, src, buf);
		}
	}
	gt_optctx_close(&c);
	gt_source_free(src);
	free(buf);
	return rc < 0 ? -1 : 0;
}

static float *tile_one(float *a, size_t n, size_t k)
{
	if (!a)
		return NULL;
	a = xrealloc(a, n * k * sizeof(float));
	for (size_t r = 1; r < k; r++)
		memcpy(a + r * n, a, n * sizeof(float));
	return a;
}

void rank_grad_tile(struct rank_grad *rg, size_t k)
{
	if (k <= 1)
		return;
	rg->g = tile_one(rg->g, rg->n, k);
	rg->param = tile_one(rg->param, rg->n, k);
	for (int s = 0; s < 2; s++)
		rg->state[s] = tile_one(rg->state[s], rg->n, k);
	rg->n *= k;
}

void rank_grad_release(struct rank_grad *rg)
{
	free(rg->g);
	free(rg->param);
	free(rg->state[0]);
	free(rg->state[1]);
	memset(rg, 0, sizeof(*rg));
}
