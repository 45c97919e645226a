/* pair.c - an original A against a reconstruction B: error and update fidelity */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_pair.h"
#include "gt_tensor.h"
#include "../lib/banned.h"

/* Values per read: both files are streamed side by side, never loaded. */
#define BLOCK GT_TENSOR_READ_VALUES
/* Values per optimizer step in the update (eight float arrays of this size). */
#define UBLOCK ((size_t)1 << 18)

static int single_array(const struct gt_source *s)
{
	const enum gt_kind k = gt_source_kind(s);

	return gt_source_count(s) == 1 && (k == GT_KIND_RAW || k == GT_KIND_NPY);
}

int gt_pair_match(const struct gt_pair *p, size_t i, size_t *j, struct gt_diag *d)
{
	const struct gt_source *a = p->a, *b = p->b;
	const struct gt_tensor_info *ta = gt_source_info(a, i), *tb;

	if (gt_source_count(a) == 1 && gt_source_count(b) == 1 &&
	    (single_array(a) || single_array(b))) {
		*j = 0;
	} else if (gt_source_find(b, ta->name, j) < 0) {
		if (!p->missing_ok)
			return gt_diag_set(d, GT_ERR(NOTFOUND), "%s: dataset %s not found",
					   p->b_name, ta->name);
		if (p->verbose)
			gt_notify_send(p->nt, GT_NOTE_INFO, "%s: skipping %s (not in B)",
				       p->b_name, ta->name);
		return 0;
	}
	tb = gt_source_info(b, *j);
	if (tb->dtype == GT_DT_NONE)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: dataset %s is %s, not floating point",
				   p->b_name, tb->name, tb->type_desc);
	if (ta->count != GT_COUNT_UNKNOWN && tb->count != GT_COUNT_UNKNOWN &&
	    ta->count != tb->count)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: %s: %llu values in A, %llu in B",
				   p->b_name, ta->name, (unsigned long long)ta->count,
				   (unsigned long long)tb->count);
	return 1;
}

static int read_block(struct gt_source *s, size_t i, uint64_t first, size_t n,
		      void *buf, size_t *got, struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	const int rc = gt_source_read(s, i, first, n, buf, got, &rd);

	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", gt_source_path(s), rd.msg);
	return 0;
}

/* ---- reconstruction error --------------------------------------------- */

struct bufs {
	void *a, *b;
};

/* Stream tensor @i of A and @j of B side by side into @m. */
static int accumulate(const struct gt_pair *p, size_t i, size_t j,
		      struct gt_metric *m, const struct bufs *buf, struct gt_diag *d)
{
	const enum gt_dtype da = gt_source_info(p->a, i)->dtype;
	const enum gt_dtype db = gt_source_info(p->b, j)->dtype;
	uint64_t ta = 0, tb = 0;
	int end_a = 0, end_b = 0, differ = 0;

	gt_metric_init(m);
	while (!end_a || !end_b) {
		size_t na = 0, nb = 0;

		if (!end_a)
			GT_TRY(read_block(p->a, i, ta, BLOCK, buf->a, &na, d));
		if (!end_b)
			GT_TRY(read_block(p->b, j, tb, BLOCK, buf->b, &nb, d));
		end_a |= !na;
		end_b |= !nb;
		differ |= na != nb;
		if (!differ && na)
			gt_metric_add(m, buf->a, da, buf->b, db, na);
		ta += na;
		tb += nb;
	}
	if (differ) /* a pipe whose length was not known in advance */
		return gt_diag_set(d, GT_ERR(INVAL), "%s: %s: %llu values in A, %llu in B",
				   p->b_name, gt_source_info(p->a, i)->name,
				   (unsigned long long)ta, (unsigned long long)tb);
	return 0;
}

int gt_pair_metrics(const struct gt_pair *p,
		    void (*row)(void *arg, const char *name, const struct gt_metric *m),
		    void *arg, struct gt_metric *total, struct gt_diag *d)
{
	struct gt_metric m;
	const struct bufs buf = { malloc(BLOCK * 8), malloc(BLOCK * 8) };
	int rc = buf.a && buf.b ? 0 : gt_diag_set(d, GT_ERR(NOMEM), "out of memory");

	gt_metric_init(total);
	for (size_t i = 0; i < gt_source_count(p->a) && rc >= 0; i++) {
		size_t j;

		if (!p->sel[i])
			continue;
		rc = gt_pair_match(p, i, &j, d);
		if (rc <= 0)
			continue;
		rc = accumulate(p, i, j, &m, &buf, d);
		if (rc < 0)
			break;
		if (row)
			row(arg, gt_source_info(p->a, i)->name, &m);
		gt_metric_merge(total, &m);
	}
	free(buf.a);
	free(buf.b);
	return rc < 0 ? rc : 0;
}

/* ---- update fidelity -------------------------------------------------- */

/* Source indexes of what one gradient's step needs; -1: absent. */
struct step_io {
	struct gt_source *src[6];
	long idx[6];
};
enum { IO_G, IO_GHAT, IO_PARAM, IO_S0, IO_S1, IO_NEXT, IO_N };

/* UBLOCK values each: floats, or doubles for an f64 trace */
struct ubufs {
	void *v[IO_N];
	void *out_g, *out_ghat;
	void *scratch;
};

/* Values [@first, @first + @n) of tensor @i of @src as doubles (f64 steps). */
static int read_f64(struct gt_source *src, size_t i, uint64_t first, size_t n,
		    double *dst, void *scratch, struct gt_diag *d)
{
	const enum gt_dtype dt = gt_source_info(src, i)->dtype;
	size_t got = 0;

	GT_TRY(read_block(src, i, first, n, dt == GT_DT_F64 ? (void *)dst : scratch, &got, d));
	if (got != n)
		return gt_diag_set(d, GT_ERR(TRUNCATED), "%s: %s: unexpected end of data",
				   gt_source_path(src), gt_source_info(src, i)->name);
	if (dt != GT_DT_F64)
		for (size_t k = 0; k < n; k++)
			dst[k] = gt_fp_get(scratch, dt, k);
	return 0;
}

/* Apply the step of @st with g and with ĝ over @n values, block by block,
 * in the dtype of the gradient g (PyTorch steps a parameter in its own). */
static int run_steps(const struct gt_trace_step *st, const struct step_io *io,
		     uint64_t n, const struct ubufs *u, struct gt_fidelity *f,
		     struct gt_diag *d)
{
	const enum gt_dtype dt = gt_source_info(io->src[IO_G], (size_t)io->idx[IO_G])->dtype;
	struct gt_diag od = { "" };
	char where[256];

	snprintf(where, sizeof(where), "step %s", st->group);
	if (gt_optim_dtype_check(&st->optim, dt, where, &od) < 0)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "%s: %s",
				   gt_source_path(io->src[IO_G]), od.msg);
	gt_fidelity_init(f);
	for (uint64_t first = 0; first < n; first += UBLOCK) {
		const size_t len = n - first < UBLOCK ? (size_t)(n - first) : UBLOCK;
		const struct gt_fidelity_io fio = {
			u->v[IO_G], u->v[IO_GHAT], u->v[IO_PARAM],
			io->idx[IO_S0] >= 0 ? u->v[IO_S0] : NULL,
			io->idx[IO_S1] >= 0 ? u->v[IO_S1] : NULL,
			io->idx[IO_NEXT] >= 0 ? u->v[IO_NEXT] : NULL,
			u->out_g, u->out_ghat,
		};
		int rc;

		for (int r = 0; r < IO_N; r++) {
			if (io->idx[r] < 0)
				continue;
			if (dt == GT_DT_F64)
				GT_TRY(read_f64(io->src[r], (size_t)io->idx[r], first, len,
						u->v[r], u->scratch, d));
			else
				GT_TRY(gt_tensor_read_f32(io->src[r], (size_t)io->idx[r], first,
							  len, u->v[r], u->scratch, d));
		}
		rc = gt_fidelity_block_dt(f, &st->optim, dt, first, n, len, &fio);
		if (rc < 0)
			return gt_diag_set(d, rc, "%s: step %s: %s", gt_source_path(io->src[IO_G]),
					   st->group, gt_strerror(rc));
	}
	return 0;
}

/* A's tensor @role (@buf: state buffer) of gradient @name, checked for size. */
static int find_role(const struct gt_pair *p, const struct gt_trace *tr,
		     size_t k, enum gt_role role, const char *buf, const char *name,
		     uint64_t n, int required, long *idx, struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	const struct gt_tensor_info *t;
	size_t i;
	int rc;

	*idx = -1;
	rc = gt_trace_find(tr, k, role, buf, name, &i, &rd);
	if (rc < 0)
		return required ? gt_diag_set(d, rc, "%s: %s", p->a_name, rd.msg) : 0;
	t = gt_source_info(p->a, i);
	if (t->dtype == GT_DT_NONE)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: dataset %s is %s, not floating point",
				   p->a_name, t->name, t->type_desc);
	if (t->count != n)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: %s: %llu values, the gradient has %llu",
				   p->a_name, t->name, (unsigned long long)t->count,
				   (unsigned long long)n);
	*idx = (long)i;
	return 0;
}

/* Everything the step of gradient @gi (of step @k) reads; 0 = skipped. */
static int step_inputs(const struct gt_pair *p, const struct gt_trace *tr,
		       size_t k, size_t gi, struct step_io *io, struct gt_diag *d)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const struct gt_tensor_info *g = gt_source_info(p->a, gi);
	const char *name = gt_trace_param_name(g->name);
	size_t j;
	int rc;

	for (int r = 0; r < IO_N; r++) {
		io->src[r] = r == IO_GHAT ? p->b : p->a;
		io->idx[r] = -1;
	}
	io->idx[IO_G] = (long)gi;
	rc = gt_pair_match(p, gi, &j, d);
	if (rc <= 0)
		return rc;
	io->idx[IO_GHAT] = (long)j;
	GT_TRY(find_role(p, tr, k, GT_ROLE_PARAM, NULL, name, g->count, 1,
			 &io->idx[IO_PARAM], d));
	GT_TRY(find_role(p, tr, k, GT_ROLE_PARAM_NEXT, NULL, name, g->count, 0,
			 &io->idx[IO_NEXT], d));
	/* a missing buffer is PyTorch's state before its first step */
	for (int s = 0; s < gt_optim_nstates(st->optim.kind); s++)
		GT_TRY(find_role(p, tr, k, GT_ROLE_STATE,
				 gt_optim_state_name(st->optim.kind, s), name,
				 g->count, 0, &io->idx[IO_S0 + s], d));
	return 1;
}

/* Whether any selected gradient of @tr has a param_next: the self-check column. */
static int any_next(const struct gt_trace *tr, const struct gt_pair *p)
{
	for (size_t k = 0; k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		for (size_t g = 0; g < st->n_grads; g++) {
			const char *name = gt_source_info(p->a, st->grads[g])->name;
			size_t i;

			if (p->sel[st->grads[g]] &&
			    !gt_trace_find(tr, k, GT_ROLE_PARAM_NEXT, NULL,
					   gt_trace_param_name(name), &i, NULL))
				return 1;
		}
	}
	return 0;
}

static int ubufs_init(struct ubufs *u)
{
	int ok = 1;

	for (int r = 0; r < IO_N; r++)
		ok &= (u->v[r] = malloc(UBLOCK * sizeof(double))) != NULL;
	u->out_g = malloc(UBLOCK * sizeof(double));
	u->out_ghat = malloc(UBLOCK * sizeof(double));
	u->scratch = malloc(UBLOCK * 8);
	return ok && u->out_g && u->out_ghat && u->scratch ? 0 : GT_ERR(NOMEM);
}

static void ubufs_release(struct ubufs *u)
{
	for (int r = 0; r < IO_N; r++)
		free(u->v[r]);
	free(u->out_g);
	free(u->out_ghat);
	free(u->scratch);
}

struct walk {
	const struct gt_pair *p;
	const struct gt_trace *tr;
	const struct ubufs *u;
	void (*row)(void *arg, const struct gt_pair_urow *r, int with_next);
	void *arg;
	int with_next;
	struct gt_fidelity *total;
	const char *optim;
	struct gt_diag *d;
};

/* A step's attributes are checked at its first selected gradient. */
static int check_step(struct walk *w, const struct gt_trace_step *st, const char *name)
{
	struct gt_diag rd = { "" };
	const int rc = gt_trace_check(st, &st->optim, &rd);

	if (rc < 0)
		return gt_diag_set(w->d, rc, "%s: %s", w->p->a_name, rd.msg);
	if (w->optim && strcmp(w->optim, name))
		w->optim = ""; /* the total of several optimizers */
	else if (!w->optim)
		w->optim = name;
	return 0;
}

/* The rows of step @k. */
static int update_step(struct walk *w, size_t k)
{
	const struct gt_trace_step *st = gt_trace_step(w->tr, k);
	const char *name = gt_optim_name(st->optim.kind);
	int checked = 0;

	name = name ? name : "";
	for (size_t g = 0; g < st->n_grads; g++) {
		const size_t gi = st->grads[g];
		struct step_io io;
		struct gt_fidelity f;
		int rc;

		if (!w->p->sel[gi])
			continue;
		if (!checked++)
			GT_TRY(check_step(w, st, name));
		rc = step_inputs(w->p, w->tr, k, gi, &io, w->d);
		if (rc < 0)
			return rc;
		if (!rc)
			continue; /* not in B, missing_ok */
		GT_TRY(run_steps(st, &io, gt_source_info(w->p->a, gi)->count, w->u, &f, w->d));
		if (w->row) {
			const struct gt_pair_urow r = {
				gt_source_info(w->p->a, gi)->name, st, name, &f
			};

			w->row(w->arg, &r, w->with_next);
		}
		gt_fidelity_add(w->total, &f);
	}
	return 0;
}

int gt_pair_update(const struct gt_pair *p,
		   void (*row)(void *arg, const struct gt_pair_urow *r, int with_next),
		   void *arg, struct gt_fidelity *total, const char **optim_ret,
		   struct gt_diag *d)
{
	struct gt_trace *tr = NULL;
	struct gt_diag rd = { "" };
	struct ubufs u = { { NULL }, NULL, NULL, NULL };
	struct walk w = { p, NULL, &u, row, arg, 0, total, NULL, d };
	int rc = 0;

	gt_fidelity_init(total);
	*optim_ret = "";
	if (gt_source_kind(p->a) != GT_KIND_HDF5)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: --update needs a trace with optimizer "
				   "attributes", p->a_name);
	rc = gt_trace_open(p->a, &tr, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", p->a_name, rd.msg);
	if (!gt_trace_nsteps(tr)) {
		gt_trace_free(tr);
		return gt_diag_set(d, GT_ERR(INVAL), "%s: --update needs a trace with optimizer "
				   "attributes", p->a_name);
	}
	w.tr = tr;
	w.with_next = any_next(tr, p);
	if (row)
		row(arg, NULL, w.with_next);
	rc = ubufs_init(&u);
	if (rc < 0)
		gt_diag_set(d, rc, "out of memory");
	for (size_t k = 0; k < gt_trace_nsteps(tr) && rc >= 0; k++)
		rc = update_step(&w, k);
	*optim_ret = w.optim ? w.optim : "";
	ubufs_release(&u);
	gt_trace_free(tr);
	return rc;
}
