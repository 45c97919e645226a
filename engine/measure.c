/* measure.c - codec throughput on data in memory, median and spread */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "gt_measure.h"
#include "../analysis/gt_bench.h"
#include "../lib/banned.h"

struct rows {
	struct gt_bench_row *v;
	size_t n, cap;
};

/*
 * Peak RSS per codec spec.  getrusage's ru_maxrss is a high-water mark of
 * the whole process (and of exited threads), so a small codec measured
 * after a big one would report the big one's peak.  Linux (>= 4.0) resets
 * the mark that /proc/self/status shows as VmHWM to the current RSS when
 * "5" is written to /proc/self/clear_refs; malloc_trim first hands the
 * previous codec's freed memory back, so that the current RSS is the data
 * held in memory.  Without /proc the mark is ru_maxrss, never reset.
 */
static int peak_rss_reset(void)
{
	FILE *f;
	int ok;

	malloc_trim(0);
	f = fopen("/proc/self/clear_refs", "w");
	if (!f)
		return 0;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok;
}

static double peak_rss_mib(int was_reset)
{
	struct rusage ru;
	char line[128];
	long kib = -1;
	FILE *f = was_reset ? fopen("/proc/self/status", "r") : NULL;

	while (f && kib < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) != 1)
			kib = -1;
	if (f)
		fclose(f);
	if (kib >= 0)
		return (double)kib / 1024.0;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

static int add_row(struct rows *rs, const struct gt_spec *s, unsigned threads,
		   enum gt_bench_dir dir, const struct gt_bench_result *r, double *secs,
		   unsigned repeat, double peak_mib)
{
	struct gt_bench_row *row;
	double med, lo, hi;

	if (rs->n == rs->cap) {
		const size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct gt_bench_row *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return GT_ERR(NOMEM);
		rs->v = v;
		rs->cap = cap;
	}
	row = &rs->v[rs->n++];
	memset(row, 0, sizeof(*row));
	gt_bench_spread(secs, repeat, &med, &lo, &hi);
	snprintf(row->codec, sizeof(row->codec), "%s", gt_codec_name(s->codec));
	snprintf(row->options, sizeof(row->options), "%s", s->opts);
	snprintf(row->spec, sizeof(row->spec), "%s", s->text);
	row->threads = threads;
	row->direction = dir;
	row->repeat = repeat;
	row->bytes = r->bytes;
	row->ratio = r->bytes ? (double)r->coded / (double)r->bytes : 0;
	/* the median time is the median rate; the fastest run is the max */
	row->mbps_median = gt_bench_mbps(r->bytes, med);
	row->mbps_min = gt_bench_mbps(r->bytes, hi);
	row->mbps_max = gt_bench_mbps(r->bytes, lo);
	row->peak_rss_mib = peak_mib;
	return 0;
}

static int measure_spec(const struct gt_measure_opts *o, struct gt_memload *m,
			const struct gt_spec *s, struct rows *rs, struct gt_diag *d)
{
	const struct gt_bench_input *in;
	double *cs = calloc(o->repeat, sizeof(double));
	double *ds = calloc(o->repeat, sizeof(double));
	const int reset = peak_rss_reset();
	int rc = cs && ds ? gt_memload_inputs(m, s, &in, d) : GT_ERR(NOMEM);

	for (size_t t = 0; t < o->nthreads && rc >= 0; t++) {
		const struct gt_bench_opts bo = { o->threads[t], o->repeat, o->warmup, 0, 0 };
		struct gt_bench_result r = { 0, 0, cs, ds };
		struct gt_diag bd = { "" };
		double peak;

		rc = gt_bench_run(in, m->n, &bo, &r, &bd);
		if (rc < 0) {
			gt_diag_set(d, rc, "%s: %s: %s", o->input, s->text, bd.msg);
			break;
		}
		peak = peak_rss_mib(reset);
		rc = add_row(rs, s, o->threads[t], GT_BENCH_COMPRESS, &r, cs, o->repeat, peak);
		if (rc >= 0)
			rc = add_row(rs, s, o->threads[t], GT_BENCH_DECOMPRESS, &r, ds, o->repeat,
				     peak);
	}
	if (rc == GT_ERR(NOMEM))
		gt_diag_set(d, rc, "out of memory");
	free(cs);
	free(ds);
	return rc;
}

int gt_measure_run(const struct gt_measure_opts *o, struct gt_bench_row **rows_ret,
		   size_t *n_ret, struct gt_diag *d)
{
	struct gt_memload m;
	struct rows rs = { NULL, 0, 0 };
	int rc = gt_memload_open(&m, o->input, &o->src, 0, d);

	m.nt = o->nt;
	if (rc >= 0)
		rc = gt_memload_usable(o->specs, &m, o->defaults, o->nt, d);
	for (size_t i = 0; i < o->specs->n && rc >= 0; i++) {
		struct gt_spec s;

		rc = gt_spec_init(&s, o->specs->v[i], 0, d);
		if (rc >= 0)
			rc = measure_spec(o, &m, &s, &rs, d);
		gt_spec_release(&s);
	}
	gt_memload_close(&m);
	if (rc < 0) {
		free(rs.v);
		return rc;
	}
	*rows_ret = rs.v;
	*n_ret = rs.n;
	return 0;
}
