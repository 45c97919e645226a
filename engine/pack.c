/* pack.c - the compress driver: tensors of a source into a .gtz file, or an HDF5 file with filter 400 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gt_pack.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_h5filter.h"
#include "../formats/gt_hdf5.h"
#include "../formats/gt_sink.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

struct blob {
	void *p;
	size_t len;
};

struct job {
	const struct gt_pack_opts *o;
	struct gt_diag *d;
	struct gt_optctx ctx;    /* -c gcomp: where each gradient's context is */
	struct gt_source *src;
	struct gt_gtz_writer *w;
	struct gt_sink *sink;    /* HDF5 output instead of w */
	struct blob *tables;     /* --table-refresh: per tensor, or NULL */
	struct blob *owned;      /* the refreshed tables, to free */
	size_t nowned;
	void *buf;
	size_t buf_values;
	uint64_t in_bytes;
	size_t ntensors;
};

struct feed {
	struct job *j;
	unsigned width;
	uint64_t values;
	int aux;                 /* read the optimizer context alongside */
};

static void count_bytes(struct job *j, uint64_t n)
{
	j->in_bytes += n;
	if (j->o->ev.bytes)
		j->o->ev.bytes(j->o->ev.arg, n);
}

static int feed_block(void *arg, const void *data, size_t n)
{
	struct feed *f = arg;
	struct gt_codec_aux aux;
	struct gt_diag d = { "" };
	int rc;

	if (f->aux)
		GT_TRY(gt_optctx_read(&f->j->ctx, f->values, n, &aux, f->j->d));
	rc = gt_gtz_write_aux(f->j->w, data, f->aux ? &aux : NULL, n, &d);
	if (rc < 0)
		return gt_diag_set(f->j->d, rc, "%s: %s", f->j->o->output, d.msg);
	f->values += n;
	count_bytes(f->j, n * f->width);
	return 0;
}

struct in_place {
	struct feed *f;
	size_t i;
};

/*
 * The writer's reading thread calls this for each block in turn: read
 * straight into it (a full block unless the data ends).
 */
static int fill_block(void *arg, void *dst, size_t cap, size_t *got_ret)
{
	struct in_place *p = arg;
	struct feed *f = p->f;
	struct job *j = f->j;
	struct gt_diag d = { "" };
	size_t got = 0, n;
	int rc;

	do {
		rc = gt_source_read(j->src, p->i, f->values + got, cap - got,
				    (char *)dst + got * f->width, &n, &d);
		if (rc < 0) {
			gt_diag_set(j->d, rc, "%s: %s", j->o->input, d.msg);
			return GT_ERR(IO);
		}
		got += n;
	} while (n && got < cap);
	f->values += got;
	count_bytes(j, got * f->width);
	*got_ret = got;
	return 0;
}

/* Tensor @i straight into the writer's blocks: read, coded and written
 * at once, each by threads of its own. */
static int read_in_place(struct feed *f, size_t i)
{
	struct in_place p = { f, i };
	struct job *j = f->j;
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct gt_diag d = { "" };
	size_t got;
	int rc;

	*j->d->msg = '\0';
	rc = gt_gtz_write_from(j->w, fill_block, &p, &d);
	if (rc == GT_ERR(IO) && !*d.msg && *j->d->msg)
		return rc;    /* fill_block said what */
	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	/* a known count was read whole: more values would be an error */
	if (t->count != GT_COUNT_UNKNOWN &&
	    gt_source_read(j->src, i, f->values, 1, j->buf, &got, &d) >= 0 && got)
		return gt_diag_set(j->d, GT_ERR(CORRUPT), "%s: more values than the tensor holds",
				   j->o->input);
	return 0;
}

/* How tensor @i is coded: gt_optctx_coding decides (compare and bench
 * ask it too). */
static int coding_of(struct job *j, size_t i, struct gt_gtz_coding *c, int *aux)
{
	const struct gt_pack_opts *o = j->o;
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct gt_coding plan;

	memset(c, 0, sizeof(*c));
	c->params.dtype = t->dtype;
	if (t->rank >= 2 && t->dims[0] && t->count != GT_COUNT_UNKNOWN)
		c->params.row_len = (size_t)(t->count / t->dims[0]);
	c->params.table = o->spec->table;
	c->params.table_len = o->spec->table_len;
	if (j->tables) {
		c->params.table = j->tables[i].p;
		c->params.table_len = j->tables[i].len;
	}
	c->block_values = (uint32_t)o->block_values;
	c->chunk_values = (uint32_t)o->chunk_values;
	GT_TRY(gt_optctx_coding(&j->ctx, &o->of, j->src, o->input, i, o->spec, o->nt,
				&plan, j->d));
	c->codec = plan.codec;
	c->params.opts = plan.opts;
	c->params.optim = plan.optim;
	*aux = plan.optim != NULL;
	return 0;
}

/* One tensor: plan its coding, then stream it through the writer. */
static int pack_tensor(struct job *j, size_t i)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct feed f = { j, gt_dtype_size(t->dtype), 0, 0 };
	struct gt_gtz_coding c;
	struct gt_diag d = { "" };
	int rc;

	GT_TRY(coding_of(j, i, &c, &f.aux));
	rc = gt_gtz_begin(j->w, t, &c, &d);
	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", j->o->input, d.msg);
	if (f.aux)
		GT_TRY(gt_tensor_stream(j->src, i, j->buf, j->buf_values, feed_block, &f, j->d));
	else
		GT_TRY(read_in_place(&f, i));
	rc = gt_gtz_end(j->w, &d);
	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	if (j->o->ev.tensor)
		j->o->ev.tensor(j->o->ev.arg, t->name, f.values, gt_codec_name(c.codec));
	j->ntensors++;
	return 0;
}

/* The selected float tensors, and their bytes for the progress line.  -d
 * may name any dataset: non-float ones are kept whole, as objects
 * (keep_object), not coded here. */
static int select_tensors(struct job *j, unsigned char *sel, uint64_t *bytes)
{
	const struct gt_pack_opts *o = j->o;
	const size_t n = gt_source_count(j->src);

	for (size_t p = 0; p < o->ndatasets; p++) {
		size_t hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += (size_t)gt_tensor_match(gt_source_info(j->src, i)->name,
							&o->datasets[p], 1);
		if (!hits)
			return gt_diag_set(j->d, GT_ERR(NOTFOUND), "%s: dataset %s not found",
					   o->input, o->datasets[p]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct gt_tensor_info *t = gt_source_info(j->src, i);

		sel[i] = t->dtype != GT_DT_NONE &&
			 gt_tensor_match(t->name, o->datasets, o->ndatasets);
		if ((o->grads_only && !gt_optctx_is_grad(&j->ctx, i)) || t->same_as)
			sel[i] = 0; /* a second name is stored as a link */
		if (sel[i] && t->count != GT_COUNT_UNKNOWN)
			*bytes += t->count * gt_dtype_size(t->dtype);
	}
	return 0;
}

/* What the input holds that cannot be kept: an error, or with
 * lossy_metadata a warning. */
static int check_lost(const struct job *j)
{
	const struct gt_pack_opts *o = j->o;
	const size_t n = gt_source_nlost(j->src);

	for (size_t i = 0; i < n; i++) {
		const char *what = gt_source_lost(j->src, i);

		if (o->lossy_metadata)
			gt_notify_send(o->nt, GT_NOTE_WARN, "%s: %s: not kept", o->input, what);
		else if (i + 1 < n)
			gt_notify_send(o->nt, GT_NOTE_ERROR, "%s: %s (--lossy-metadata to go "
				       "on without it)", o->input, what);
		else
			return gt_diag_set(j->d, GT_ERR(INVAL), "%s: %s (--lossy-metadata "
					   "to go on without it)", o->input, what);
	}
	return 0;
}

/* Links and non-float datasets: all of them, or those -d selects. */
static int keep_object(void *arg, const struct gt_object *obj)
{
	const struct job *j = arg;
	const struct gt_pack_opts *o = j->o;
	size_t t;

	if (o->grads_only)
		return 0;
	if (!o->ndatasets)
		return 1;
	if (!gt_tensor_match(obj->name, o->datasets, o->ndatasets))
		return 0;
	return obj->kind != GT_OBJ_HARD || gt_tensor_match(obj->target, o->datasets,
							   o->ndatasets) ||
	       gt_source_find(j->src, obj->target, &t) < 0;
}

static int add_hist(void *arg, const void *data, size_t n)
{
	gt_huff_hist(arg, data, n);
	return 0;
}

/* Add the values of tensor @i to @h. */
static int hist_tensor(struct job *j, size_t i, struct gt_huff_hist *h)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);

	if (t->dtype != h->dtype)
		return gt_diag_set(j->d, GT_ERR(INVAL),
				   "%s: %s: --table-refresh needs gradients of one dtype",
				   j->o->input, t->name);
	return gt_tensor_stream(j->src, i, j->buf, j->buf_values, add_hist, h, j->d);
}

/* The table built from the histogram of the last window of steps. */
static int window_table(struct job *j, const struct gt_huff_hist *h, struct blob *b)
{
	struct gt_huff_table *t = calloc(1, sizeof(*t));
	struct blob *owned = realloc(j->owned, (j->nowned + 1) * sizeof(*j->owned));
	size_t len = 0;
	int rc = GT_ERR(NOMEM);

	if (owned)
		j->owned = owned;
	b->p = malloc(GT_HUFF_SAVE_MAX);
	if (t && owned && b->p) {
		rc = gt_huff_build(t, h, GT_HUFF_MAXLEN_DEFAULT, GT_HUFF_BEST, GT_HUFF_STATIC);
		if (rc >= 0)
			rc = gt_huff_save(t, b->p, GT_HUFF_SAVE_MAX, &len);
	}
	free(t);
	b->len = len;
	if (owned)
		j->owned[j->nowned++] = *b;
	else
		free(b->p);
	return rc < 0 ? gt_diag_set(j->d, rc, "cannot build a refreshed table: %s",
				    gt_strerror(rc)) : 0;
}

/* One step of --table-refresh: a new table at each window's start, and
 * this step's gradients into the histogram of the next. */
static int refresh_step(struct job *j, const unsigned char *sel, const struct gt_trace_step *st,
			size_t s, struct gt_huff_hist *h, struct blob *cur, int *have)
{
	if (s && s % (size_t)j->o->table_refresh == 0) {
		if (*have)
			GT_TRY(window_table(j, h, cur));
		*have = 0;
	}
	for (size_t k = 0; k < st->n_grads; k++) {
		const size_t i = st->grads[k];

		if (!sel[i])
			continue;
		if (!(*have)++)
			gt_huff_hist_init(h, gt_source_info(j->src, i)->dtype);
		j->tables[i] = *cur;
		GT_TRY(hist_tensor(j, i, h));
	}
	return 0;
}

/*
 * --table-refresh N (the GComp paper's periodic update, §4.4): the
 * gradients of steps [kN, (k+1)N) are coded with a static table built from
 * those of steps [(k-1)N, kN); the first N steps use --table, or a table of
 * each block's own when there is none.  Other tensors keep per-block tables.
 */
static int refresh_tables(struct job *j, const unsigned char *sel)
{
	const struct gt_spec *spec = j->o->spec;
	const size_t n = gt_source_count(j->src);
	struct gt_huff_hist *h = calloc(1, sizeof(*h));
	struct blob cur = { spec->table, spec->table_len };
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	int rc = gt_trace_open(j->src, &tr, &d), have = 0;

	if (rc < 0 || !gt_trace_nsteps(tr))
		rc = gt_diag_set(j->d, GT_ERR(INVAL), "%s: --table-refresh needs a trace with step groups",
				 j->o->input);
	j->tables = calloc(n ? n : 1, sizeof(*j->tables));
	if (rc >= 0 && (!h || !j->tables))
		rc = gt_diag_set(j->d, GT_ERR(NOMEM), "out of memory");
	for (size_t s = 0; rc >= 0 && s < gt_trace_nsteps(tr); s++)
		rc = refresh_step(j, sel, gt_trace_step(tr, s), s, h, &cur, &have);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (!j->tables[i].p && spec->table)
			j->tables[i] = (struct blob){ spec->table, spec->table_len };
	gt_trace_free(tr);
	free(h);
	return rc;
}

/* ---- HDF5 output: filter 400 on each float dataset ---------------------- */

/* gt_h5filter_cd() through the HDF5 support, which may have to load. */
static int filter_cd(const struct gt_codec *c, const char *opts, unsigned *cd, size_t *n_ret,
		     struct gt_diag *d)
{
	const struct gt_hdf5_api *h = gt_hdf5(d);

	return h ? h->filter_cd(c ? gt_codec_name(c) : "", opts, cd, n_ret, d) : GT_ERR(IO);
}

int gt_pack_h5_check(const struct gt_pack_opts *o, struct gt_diag *d)
{
	unsigned cd[GT_H5FILTER_CD_MAX];
	size_t n;

	if (o->table_refresh || o->spec->table)
		return gt_diag_set(d, GT_ERR(INVAL), "--table and --table-refresh are for .gtz "
				   "output: the HDF5 filter codes each chunk with a table of its own");
	if (o->spec->needs_optim)
		return gt_diag_set(d, GT_ERR(INVAL), "the HDF5 filter refuses %s: it needs the "
				   "optimizer's parameters and state, which a filter never sees: "
				   "use mode single-quant or zero-prune", o->spec->text);
	return filter_cd(o->spec->codec, o->spec->opts, cd, &n, d);
}

static int sink_block(void *arg, const void *data, size_t n)
{
	struct feed *f = arg;
	struct gt_diag d = { "" };
	const int rc = gt_sink_write(f->j->sink, data, n, &d);

	if (rc < 0)
		return gt_diag_set(f->j->d, rc, "%s: %s", f->j->o->output, d.msg);
	f->values += n;
	count_bytes(f->j, n * f->width);
	return 0;
}

/* Tensor @i as a dataset with filter 400 and the codec its plan gives. */
static int h5_tensor(struct job *j, size_t i)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct feed f = { j, gt_dtype_size(t->dtype), 0, 0 };
	unsigned cd[GT_H5FILTER_CD_MAX];
	struct gt_coding plan;
	struct gt_diag d = { "" };
	size_t n;
	int rc;

	GT_TRY(gt_optctx_coding(&j->ctx, &j->o->of, j->src, j->o->input, i, j->o->spec,
				j->o->nt, &plan, j->d));
	rc = filter_cd(plan.codec, plan.opts, cd, &n, &d);
	if (rc >= 0)
		rc = gt_sink_set_filter(j->sink, cd, n);
	if (rc >= 0)
		rc = gt_sink_begin(j->sink, t, &d);
	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	GT_TRY(gt_tensor_stream(j->src, i, j->buf, j->buf_values, sink_block, &f, j->d));
	rc = gt_sink_end(j->sink, &d);
	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	if (j->o->ev.tensor)
		j->o->ev.tensor(j->o->ev.arg, t->name, f.values, gt_codec_name(plan.codec));
	j->ntensors++;
	return 0;
}

/* Non-float datasets whole, then links (their targets exist by then). */
static int h5_objects(struct job *j)
{
	struct gt_diag d = { "" };

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < gt_source_nobjects(j->src); i++) {
			const struct gt_object *o = gt_source_object(j->src, i);
			struct gt_object c = *o;
			int rc;

			if ((o->kind == GT_OBJ_DATASET) != !pass || !keep_object(j, o))
				continue;
			if (!pass && gt_source_read_object(j->src, i, &c.blob, &d) < 0)
				return gt_diag_set(j->d, GT_ERR(IO), "%s: %s", j->o->input, d.msg);
			rc = gt_sink_object(j->sink, &c, &d);
			if (!pass)
				gt_blob_release(&c.blob);
			if (rc < 0)
				return gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
		}
	}
	return 0;
}

/* The .gtz writer's objects: a write error names the output, a read error
 * the input. */
static int gtz_objects(struct job *j)
{
	struct gt_diag d = { "" };
	const int rc = gt_gtz_write_objects(j->w, j->src, keep_object, j, &d);

	if (rc < 0)
		gt_diag_set(j->d, rc, "%s: %s", d.msg[0] == 'w' ? j->o->output : j->o->input,
			    d.msg);
	return rc;
}

/*
 * Groups, the selected tensors, the other objects, then the commit, into
 * the .gtz writer or (j->sink) the filtered HDF5 file: the order and the
 * selection are the same for both.
 */
static int write_all(struct job *j)
{
	const size_t n = gt_source_count(j->src);
	unsigned char *sel = calloc(n ? n : 1, 1);
	uint64_t total = 0;
	struct gt_diag d = { "" };
	int rc = sel ? check_lost(j) : gt_diag_set(j->d, GT_ERR(NOMEM), "out of memory");

	if (rc >= 0)
		rc = select_tensors(j, sel, &total);
	for (size_t g = 0; rc >= 0 && g < gt_source_ngroups(j->src); g++) {
		const struct gt_group_info *gi = gt_source_group(j->src, g);

		rc = j->sink ? gt_sink_group(j->sink, gi, &d) : gt_gtz_write_group(j->w, gi, &d);
		if (rc < 0)
			gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	}
	if (rc >= 0 && j->o->table_refresh) /* .gtz only: gt_pack_h5_check */
		rc = refresh_tables(j, sel);
	if (rc >= 0 && j->o->ev.start)
		j->o->ev.start(j->o->ev.arg, total);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (sel[i])
			rc = j->sink ? h5_tensor(j, i) : pack_tensor(j, i);
	if (rc >= 0)
		rc = j->sink ? h5_objects(j) : gtz_objects(j);
	if (rc >= 0) {
		rc = j->sink ? gt_sink_commit(j->sink, &d) : gt_gtz_writer_commit(j->w, &d);
		if (rc < 0)
			gt_diag_set(j->d, rc, "%s: %s", j->o->output, d.msg);
	}
	free(sel);
	return rc;
}

/* HDF5 output is chosen by the output's name, as decompress does. */
int gt_pack_output_is_h5(const char *output)
{
	return strcmp(output, "-") && gt_kind_from_name(output) == GT_KIND_HDF5;
}

static int open_output(struct job *j)
{
	const struct gt_pack_opts *o = j->o;
	const struct gt_sink_opts so = { GT_KIND_HDF5, o->force };
	struct gt_diag d = { "" };
	int rc;

	if (!gt_pack_output_is_h5(o->output)) {
		rc = gt_gtz_writer_open(o->output, o->force, o->threads, &j->w, &d);
		return rc < 0 ? gt_diag_set(j->d, rc, "%s", d.msg) : 0;
	}
	GT_TRY(gt_pack_h5_check(o, j->d));
	rc = gt_sink_open_v110(o->output, &so, &j->sink, &d);
	return rc < 0 ? gt_diag_set(j->d, rc, "%s", d.msg) : 0;
}

/* Input, optimizer context and output, in that order. */
static int open_files(struct job *j)
{
	const struct gt_pack_opts *o = j->o;
	struct gt_diag d = { "" };
	int rc = gt_source_open(o->input, &o->src, &j->src, &d);

	if (rc < 0)
		return gt_diag_set(j->d, rc, "%s: %s", o->input, d.msg);
	j->buf_values = o->block_values ? (size_t)o->block_values : GT_GTZ_BLOCK_DEFAULT;
	GT_TRY(gt_optctx_open(&j->ctx, &o->of, j->src, o->input, j->buf_values, j->d));
	if (o->grads_only && !j->ctx.trace)
		return gt_diag_set(j->d, GT_ERR(INVAL), "%s: --grads-only needs a trace with step groups",
				   o->input);
	GT_TRY(open_output(j));
	if (o->ev.tmpfile)
		o->ev.tmpfile(o->ev.arg, j->w ? gt_gtz_writer_tmp_path(j->w)
					      : gt_sink_tmp_path(j->sink));
	j->buf = malloc(j->buf_values * 8);
	return j->buf ? 0 : gt_diag_set(j->d, GT_ERR(NOMEM), "out of memory");
}

static uint64_t file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : (uint64_t)st.st_size;
}

int gt_pack_file(const struct gt_pack_opts *o, struct gt_pack_result *r, struct gt_diag *d)
{
	struct job j = { 0 };
	int rc;

	j.o = o;
	j.d = d;
	rc = open_files(&j);
	if (rc >= 0)
		rc = write_all(&j);
	if (rc >= 0 && r) {
		r->in_bytes = j.in_bytes;
		r->out_bytes = j.sink ? file_bytes(o->output) : gt_gtz_writer_bytes(j.w);
		r->ntensors = j.ntensors;
	}
	gt_gtz_writer_free(j.w);
	gt_sink_free(j.sink);
	gt_optctx_close(&j.ctx);
	gt_source_free(j.src);
	free(j.buf);
	for (size_t i = 0; i < j.nowned; i++)
		free(j.owned[i].p);
	free(j.owned);
	free(j.tables);
	return rc < 0 ? rc : 0;
}
