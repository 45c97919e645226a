/* allreduce.c - build/gtool-mpi: `gtool allreduce` under mpirun, one process per rank */
#include <argp.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "load.h"
#include "ring.h"
#include "../analysis/gt_metric.h"
#include "../front/msg.h"
#include "../engine/gt_allreduce.h"
#include "../engine/gt_spec.h"
#include "../engine/gt_table.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_optim.h"
#include "../lib/banned.h"

#define GT_STR_(x) #x
#define GT_STR(x) GT_STR_(x)

/* default visibility: argp in libc reads it, and every object is built
 * -fvisibility=hidden, which would keep it from libc (no --version) */
__attribute__((visibility("default")))
const char *argp_program_version = "gtool " GT_STR(GT_VERSION);

#define MPI_LABEL "MPI_Allreduce"

/* One row of the output: a codec on the ring, or MPI_Allreduce. */
struct row {
	const char *label;
	int is_mpi;
	struct ring_codec codec;
	struct ring *ring;
	/* per timed run, over the ranks: max total, mean of the parts */
	double *total, *compress, *decompress, *reduce;
	double bytes;               /* mean per rank */
	int agree;                  /* every rank holds the same result */
	struct gt_metric err;       /* rank 0: the result against the f64 sum */
	int have_fid;
	uint64_t fid_identical, fid_ulp;
};

struct job {
	const struct gt_allreduce_opts *o;
	int rank, size;
	struct rank_grad rg;
	struct row *rows;
	size_t nrows;
	float *work;
	double *exact, *abssum;     /* rank 0 */
	float *gref, *ghat, *pref, *phat; /* rank 0, update fidelity */
	long *steps;                /* rank 0: each rank's step */
	int wrapped;
};

/* Every rank says whether it is fine; 1 when all are. */
static int all_ok(int ok)
{
	int all = 0;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all;
}

/* Agree on @ok; when a rank failed, rank 0 says which ones (they said why). */
static int agree(const struct job *j, int ok, const char *what)
{
	int *oks = j->rank ? NULL : xmalloc((size_t)j->size * sizeof(int));
	char list[256] = "";
	size_t len = 0;
	int failed = 0;

	MPI_Gather(&ok, 1, MPI_INT, oks, 1, MPI_INT, 0, MPI_COMM_WORLD);
	for (int r = 0; !j->rank && r < j->size; r++) {
		if (oks[r])
			continue;
		if (len < sizeof(list) - 16)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
						failed ? ", " : "", r);
		failed++;
	}
	if (failed)
		fprintf(stderr, "gtool allreduce: %s failed on %d of %d ranks (rank%s %s); "
			"no allreduce run\n", what, failed, j->size, failed > 1 ? "s" : "", list);
	free(oks);
	return all_ok(ok);
}

/* ---- setup -------------------------------------------------------------- */

static int load(struct job *j)
{
	const struct gt_allreduce_opts *o = j->o;
	char path[PATH_MAX];
	const char *p = o->input;

	if (o->per_rank) {
		if (gt_allreduce_rank_path(o->per_rank, j->rank, path, sizeof(path)) < 0)
			return gt_error("--per-rank %s: bad pattern", o->per_rank);
		p = path;
	}
	GT_TRY(rank_grad_load(&j->rg, p, o->step, o->per_rank ? 0 : (size_t)j->rank));
	if (j->rg.n > (size_t)INT_MAX / (size_t)(o->tile ? o->tile : 1))
		return gt_error("%s: %zu values: MPI_Allreduce takes at most %d", p,
				j->rg.n * (size_t)o->tile, INT_MAX);
	rank_grad_tile(&j->rg, (size_t)(o->tile ? o->tile : 1));
	return 0;
}

/* Every rank must hold as many values; rank 0 learns each rank's step. */
static int check_sizes(struct job *j)
{
	unsigned long long n = j->rg.n, lo = 0, hi = 0;
	long step = j->rg.step;

	MPI_Allreduce(&n, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&n, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&j->rg.wrapped, &j->wrapped, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!j->rank)
		j->steps = xmalloc((size_t)j->size * sizeof(long));
	MPI_Gather(&step, 1, MPI_LONG, j->steps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (lo != hi) {
		if (!j->rank)
			fprintf(stderr, "gtool allreduce: the ranks hold different numbers of "
				"values (%llu to %llu): they must reduce the same model\n", lo, hi);
		return -1;
	}
	return 0;
}

/* Row @r for spec @spec: "none" is the ring without a codec. */
static int setup_row(struct job *j, struct row *r, const char *spec)
{
	struct gt_codec_params p = { GT_DT_F32, "", NULL, 0, NULL, 0 };
	struct gt_spec s = { 0 };
	struct gt_diag d = { "" };
	int rc = 0;

	r->label = spec;
	if (strcmp(spec, "none")) {
		if (gt_spec_init(&s, spec, 0, &d) < 0)
			return gt_error("%s", d.msg);
		p.opts = s.opts;
		p.optim = j->rg.param ? &j->rg.optim : NULL;
		if (gt_codec_new(s.codec, &p, &r->codec.enc, &d) < 0 ||
		    gt_codec_new(s.codec, &p, &r->codec.dec, &d) < 0)
			rc = gt_error("codec %s: %s", spec, d.msg);
		r->codec.aux = s.needs_optim;
		r->codec.lossless = s.lossless;
		gt_spec_release(&s);
		if (rc < 0)
			return rc;
		if (r->codec.aux && !j->rg.param)
			return gt_error("codec %s needs the optimizer context: a trace with the "
					"parameter (and state) of every gradient", spec);
	}
	if (ring_new(MPI_COMM_WORLD, j->rg.n, (size_t)j->o->chunk, j->o->rate / 8,
		     &r->codec, &j->rg, &r->ring) < 0)
		return gt_error("codec %s: out of memory for %zu values", spec, j->rg.n);
	return 0;
}

static void alloc_row(struct row *r, long repeat)
{
	r->total = xcalloc((size_t)repeat, sizeof(double));
	r->compress = xcalloc((size_t)repeat, sizeof(double));
	r->decompress = xcalloc((size_t)repeat, sizeof(double));
	r->reduce = xcalloc((size_t)repeat, sizeof(double));
}

/* none first (the normalization), the codecs, MPI_Allreduce last. */
static int setup_rows(struct job *j)
{
	const struct gt_allreduce_opts *o = j->o;

	j->rows = xcalloc(o->codecs.n + 2, sizeof(*j->rows));
	GT_TRY(setup_row(j, &j->rows[j->nrows++], "none"));
	for (size_t i = 0; i < o->codecs.n; i++)
		if (strcmp(o->codecs.v[i], "none"))
			GT_TRY(setup_row(j, &j->rows[j->nrows++], o->codecs.v[i]));
	j->rows[j->nrows].label = MPI_LABEL;
	j->rows[j->nrows++].is_mpi = 1;
	for (size_t i = 0; i < j->nrows; i++)
		alloc_row(&j->rows[i], o->repeat);
	return 0;
}

/* Rank 0: the f64 sum and the sum of magnitudes of the ranks' gradients,
 * and the reference gradient of the update fidelity. */
static void reference(struct job *j)
{
	const size_t n = j->rg.n;
	double *x = xmalloc(n * sizeof(double));

	if (!j->rank) {
		j->exact = xmalloc(n * sizeof(double));
		j->abssum = xmalloc(n * sizeof(double));
	}
	for (size_t i = 0; i < n; i++)
		x[i] = j->rg.g[i];
	MPI_Reduce(x, j->exact, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	for (size_t i = 0; i < n; i++)
		x[i] = fabs(x[i]);
	MPI_Reduce(x, j->abssum, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	free(x);
	if (j->rank || !j->rg.param)
		return;
	j->gref = xmalloc(n * sizeof(float));
	j->ghat = xmalloc(n * sizeof(float));
	j->pref = xmalloc(n * sizeof(float));
	j->phat = xmalloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		j->gref[i] = (float)(j->exact[i] / j->size);
	if (gt_optim_step(&j->rg.optim, n, j->gref, j->rg.param, j->rg.state[0],
			  j->rg.state[1], j->pref, NULL, NULL) < 0) {
		free(j->gref);
		j->gref = NULL;
	}
}

/* ---- runs --------------------------------------------------------------- */

/* One allreduce of the rank's gradient with row @r; an error mid-way
 * aborts every rank (the ring cannot go on without this one). */
static void run_once(struct job *j, struct row *r, struct ring_stats *st)
{
	struct gt_diag d = { "" };

	memcpy(j->work, j->rg.g, j->rg.n * sizeof(float));
	memset(st, 0, sizeof(*st));
	MPI_Barrier(MPI_COMM_WORLD);
	if (r->is_mpi) {
		const double t0 = MPI_Wtime();

		MPI_Allreduce(MPI_IN_PLACE, j->work, (int)j->rg.n, MPI_FLOAT, MPI_SUM,
			      MPI_COMM_WORLD);
		st->total = MPI_Wtime() - t0;
		return;
	}
	if (ring_run(r->ring, j->work, st, &d) < 0) {
		gt_error("codec %s: %s", r->label, d.msg);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* Rank 0 gets the slowest rank's time and the mean of the rest. */
static void collect(const struct job *j, struct row *r, const struct ring_stats *st,
		    long rep)
{
	const double part[4] = { st->compress, st->decompress, st->reduce, (double)st->bytes };
	double sum[4] = { 0, 0, 0, 0 }, max = 0;

	MPI_Reduce(&st->total, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(part, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (j->rank)
		return;
	r->total[rep] = max;
	r->compress[rep] = sum[0] / j->size;
	r->decompress[rep] = sum[1] / j->size;
	r->reduce[rep] = sum[2] / j->size;
	r->bytes = r->is_mpi ? NAN : sum[3] / j->size;
}

static uint64_t fnv1a(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* Whether every rank holds the same result, and (rank 0) its error. */
static void evaluate(struct job *j, struct row *r)
{
	const size_t n = j->rg.n;
	const uint64_t h = fnv1a(j->work, n * sizeof(float));
	uint64_t lo = 0, hi = 0;

	MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	r->agree = lo == hi;
	if (j->rank)
		return;
	gt_metric_init(&r->err);
	gt_metric_add(&r->err, j->exact, GT_DT_F64, j->work, GT_DT_F32, n);
	if (!j->gref)
		return;
	for (size_t i = 0; i < n; i++)
		j->ghat[i] = j->work[i] / (float)j->size;
	if (gt_optim_step(&j->rg.optim, n, j->ghat, j->rg.param, j->rg.state[0],
			  j->rg.state[1], j->phat, NULL, NULL) < 0)
		return;
	gt_optim_compare(n, j->pref, j->phat, &r->fid_identical, &r->fid_ulp, NULL);
	r->have_fid = 1;
}

/* --dump: rank 0 writes @n values of @size bytes at @p to DIR/NAME. */
static void dump(const struct job *j, const char *name, const void *p, size_t size)
{
	char *path = NULL;
	FILE *f;

	if (j->rank || !j->o->dump)
		return;
	if (asprintf(&path, "%s/%s", j->o->dump, name) < 0)
		gt_die("out of memory");
	for (char *c = path + strlen(j->o->dump) + 1; *c; c++)
		if (*c == '/' || *c == ':' || *c == ',')
			*c = '_';
	f = fopen(path, "wb");
	if (!f || fwrite(p, size, j->rg.n, f) != j->rg.n || fclose(f)) {
		gt_error_errno("%s", path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	free(path);
}

/* Run 0 is the warm-up: its result gives the errors; runs 1..repeat are timed. */
static void run_all(struct job *j)
{
	struct ring_stats st;

	j->work = xmalloc(j->rg.n * sizeof(float));
	for (long rep = 0; rep <= j->o->repeat; rep++) {
		for (size_t i = 0; i < j->nrows; i++) {
			struct row *r = &j->rows[i];
			char name[300];

			run_once(j, r, &st);
			if (rep) {
				collect(j, r, &st, rep - 1);
				continue;
			}
			evaluate(j, r);
			snprintf(name, sizeof(name), "%s.f32", r->label);
			dump(j, name, j->work, sizeof(float));
		}
	}
	dump(j, "exact.f64", j->exact, sizeof(double));
	dump(j, "abssum.f64", j->abssum, sizeof(double));
}

/* ---- output ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n values (sorted in place). */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void columns(struct gt_table *t, int machine)
{
	static const char *const people[] = {
		"codec", "time_ms", "min_ms", "max_ms", "bytes_per_rank", "size_ratio",
		"compress_ms", "transfer_ms", "decompress_ms", "reduce_ms", "normalized",
		"max_abs", "rmse", "update_identical_pct", "update_max_ulp", "same_on_ranks",
	};

	for (size_t i = 0; i < sizeof(people) / sizeof(people[0]); i++) {
		gt_table_col(t, people[i]);
		if (machine && i == 0) {
			gt_table_col(t, "ranks");
			gt_table_col(t, "values");
			gt_table_col(t, "link_bps");
		}
	}
}

static void row_out(const struct job *j, struct gt_table *t, struct row *r,
		    double none_time, double none_bytes, int machine)
{
	const size_t k = (size_t)j->o->repeat;
	const double tm = median(r->total, k), c = median(r->compress, k);
	const double dc = median(r->decompress, k), rd = median(r->reduce, k);
	struct gt_metric_result m;

	gt_metric_derive(&r->err, &m);
	gt_table_str(t, r->label);
	if (machine) {
		gt_table_int(t, j->size);
		gt_table_uint(t, j->rg.n);
		gt_table_num(t, r->is_mpi ? 0 : j->o->rate, 6);
	}
	gt_table_num(t, tm * 1e3, 4);
	gt_table_num(t, r->total[0] * 1e3, 4);
	gt_table_num(t, r->total[k - 1] * 1e3, 4);
	gt_table_num(t, r->bytes, 10);
	gt_table_num(t, r->bytes / none_bytes, 4);
	gt_table_num(t, c * 1e3, 4);
	gt_table_num(t, (tm - c - dc - rd) * 1e3, 4);
	gt_table_num(t, dc * 1e3, 4);
	gt_table_num(t, rd * 1e3, 4);
	gt_table_num(t, tm / none_time, 4);
	gt_table_num(t, r->err.max_abs, 4);
	gt_table_num(t, m.rmse, 4);
	if (r->have_fid)
		gt_table_pct(t, 100.0 * (double)r->fid_identical / (double)j->rg.n);
	else
		gt_table_num(t, NAN, 4);
	gt_table_num(t, r->have_fid ? (double)r->fid_ulp : NAN, 6);
	gt_table_bool(t, r->agree);
}

/* The line above a table for people: what was reduced, over what link. */
static void note(const struct job *j)
{
	const struct gt_allreduce_opts *o = j->o;
	char bytes[32];

	printf("%d ranks x %zu values (%s) per rank", j->size, j->rg.n,
	       gt_human_bytes((double)j->rg.n * 4, bytes, sizeof(bytes)));
	if (j->steps[0] >= 0) {
		printf(", steps");
		for (int r = 0; r < j->size && r < 16; r++)
			printf("%s %ld", r ? "," : "", j->steps[r]);
		printf("%s", j->size > 16 ? ", ..." : "");
	}
	if (o->tile > 1)
		printf(", tiled x%ld", o->tile);
	if (o->rate > 0)
		printf("; link %s bit/s per rank, paced (MPI_Allreduce is not)", o->rate_arg);
	else
		printf("; link: loopback speed, not paced (--rate paces)");
	printf("; median of %ld runs\n", o->repeat);
}

static void print_rows(struct job *j)
{
	const int machine = j->o->fmt != GT_FMT_TABLE && j->o->fmt != GT_FMT_MARKDOWN;
	struct gt_table *t = gt_table_new(j->o->fmt);
	double none_time;

	columns(t, machine);
	none_time = median(j->rows[0].total, (size_t)j->o->repeat);
	for (size_t i = 0; i < j->nrows; i++)
		row_out(j, t, &j->rows[i], none_time, j->rows[0].bytes, machine);
	if (!machine)
		note(j);
	gt_table_print(t, stdout);
	gt_table_free(t);
}

/* ---- main --------------------------------------------------------------- */

static void release(struct job *j)
{
	for (size_t i = 0; i < j->nrows; i++) {
		struct row *r = &j->rows[i];

		ring_free(r->ring);
		gt_codec_free(r->codec.enc);
		gt_codec_free(r->codec.dec);
		free(r->total);
		free(r->compress);
		free(r->decompress);
		free(r->reduce);
	}
	free(j->rows);
	rank_grad_release(&j->rg);
	free(j->work);
	free(j->exact);
	free(j->abssum);
	free(j->gref);
	free(j->ghat);
	free(j->pref);
	free(j->phat);
	free(j->steps);
}

static int run(struct job *j)
{
	if (!agree(j, load(j) >= 0, "reading the gradient"))
		return 1;
	if (!all_ok(check_sizes(j) >= 0))
		return 1;
	if (!j->rank && j->wrapped && !j->o->quiet)
		gt_warn("the trace has fewer steps than ranks from --step on: the step "
			"index wraps around, some ranks hold the same gradient");
	if (!agree(j, setup_rows(j) >= 0, "setting up the codecs"))
		return 1;
	reference(j);
	run_all(j);
	if (!j->rank)
		print_rows(j);
	return 0;
}

int main(int argc, char **argv)
{
	static char prefix[64], name[] = "gtool allreduce";
	struct gt_allreduce_opts o = { 0 };
	struct job j = { 0 };
	int rc;

	argv[0] = name;
	argp_err_exit_status = 2;
	gt_msg_set_prefix("gtool allreduce");
	if (argp_parse(&gt_allreduce_argp, argc, argv, 0, NULL, &o))
		return 2;
	if (!o.repeat)
		o.repeat = 5;
	if (!o.chunk)
		o.chunk = GT_ALLREDUCE_CHUNK;
	if (!o.tile)
		o.tile = 1;
	gt_msg_set_quiet(o.quiet);
	/* paced sends sleep for tens of microseconds: the default 50 us timer
	 * slack would stretch every one of them */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j.size);
	snprintf(prefix, sizeof(prefix), "gtool allreduce: rank %d", j.rank);
	gt_msg_set_prefix(prefix);
	j.o = &o;
	rc = run(&j);
	release(&j);
	gt_allreduce_release(&o);
	if (fflush(stdout) || ferror(stdout)) {
		gt_error("write error on standard output");
		rc = 1;
	}
	MPI_Finalize();
	return rc;
}
