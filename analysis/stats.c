/* stats.c - streaming statistics: counts, exponent histogram, moments */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_stats.h"
#include "../lib/banned.h"

/*
 * Values are taken in chunks that stay in L1: pass A (per dtype) reads the
 * bits, counts the histogram, zeros, NaN and signs, and packs the finite
 * values as doubles; pass B and C take the mean and the squared deviations
 * of the chunk; the chunk is then merged into the accumulator (Chan et al.).
 */
#define CHUNK 1024
/* Values per flush of the 32-bit local histograms (4 copies, no overflow). */
#define SUPER ((size_t)1 << 28)
/*
 * A chunk whose largest |x| reaches 2^SCALE_FROM is scaled by 2^-e, e its
 * exponent, before its sums are taken: unscaled, 2^64 squares stay below
 * 2^(2 * 440 + 64) < DBL_MAX, and scaled values are below 2.  Only f64
 * gets there; the scaling by a power of two is exact but for values far
 * below the largest (those underflow, an error below 2^-1000 relative).
 */
#define SCALE_FROM 440

/* Local counters of one gt_stats_add() call. */
struct pass {
	uint32_t h[4][GT_STATS_MAX_BINS]; /* 4 copies: no store-forwarding chain */
	uint64_t zeros, nan, negative;
};

int gt_stats_init(struct gt_stats *s, enum gt_dtype dt)
{
	memset(s, 0, sizeof(*s));
	if (!gt_dtype_size(dt))
		return GT_ERR(TYPE);
	s->dtype = dt;
	s->min = NAN;
	s->max = NAN;
	return 0;
}

size_t gt_stats_nbins(const struct gt_stats *s)
{
	if (s->mixed || !gt_dtype_size(s->dtype))
		return 0;
	return (size_t)1 << gt_dtype_exp_bits(s->dtype);
}

static void kahan_add(double *sum, double *c, double x)
{
	const double y = x - *c;
	const double t = *sum + y;

	*c = (t - *sum) - y;
	*sum = t;
}

/* Scale @s's moments from 2^s->scale to 2^e (e >= s->scale). */
static void rescale(struct gt_stats *s, int e)
{
	const int k = s->scale - e;

	if (!k)
		return;
	s->mean = ldexp(s->mean, k);
	s->m2 = ldexp(s->m2, 2 * k);
	s->sum_abs = ldexp(s->sum_abs, k);
	s->sum_abs_c = ldexp(s->sum_abs_c, k);
	s->scale = e;
}

/* Fold the moments of one chunk (n > 0; mean, sum |x| in units of 2^e, m2
 * of 2^2e; min, max) into @s. */
static void fold(struct gt_stats *s, uint64_t n, int e, double mean, double m2,
		 double mn, double mx, double sum_abs)
{
	const uint64_t na = s->finite, nt = na + n;
	double delta;

	if (!na)
		s->scale = e;
	if (e > s->scale)
		rescale(s, e);
	if (e < s->scale) {
		mean = ldexp(mean, e - s->scale);
		m2 = ldexp(m2, 2 * (e - s->scale));
		sum_abs = ldexp(sum_abs, e - s->scale);
	}
	delta = mean - s->mean;
	if (!na) {
		s->mean = mean;
		s->m2 = m2;
		s->min = mn;
		s->max = mx;
	} else {
		s->mean += delta * ((double)n / (double)nt);
		s->m2 += m2 + delta * delta * ((double)na * (double)n / (double)nt);
		if (mn < s->min)
			s->min = mn;
		if (mx > s->max)
			s->max = mx;
	}
	s->finite = nt;
	kahan_add(&s->sum_abs, &s->sum_abs_c, sum_abs);
}

/* The chunk's scale exponent: 0 below 2^SCALE_FROM, and scaled in place. */
static int chunk_scale(double *x, size_t m, double mn, double mx)
{
	const double big = fabs(mn) > fabs(mx) ? fabs(mn) : fabs(mx);
	int e;

	if (big < ldexp(1.0, SCALE_FROM))
		return 0;
	e = ilogb(big);
	for (size_t i = 0; i < m; i++)
		x[i] = ldexp(x[i], -e);
	return e;
}

/* Pass B: sum, sum of |x|, min and max of the m > 0 values at @x. */
static void pass_b(const double *x, size_t m, double r[4])
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0, a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	double mn0 = x[0], mn1 = x[0], mx0 = x[0], mx1 = x[0];
	size_t i;

	for (i = 0; i + 4 <= m; i += 4) {
		s0 += x[i];
		s1 += x[i + 1];
		s2 += x[i + 2];
		s3 += x[i + 3];
		a0 += fabs(x[i]);
		a1 += fabs(x[i + 1]);
		a2 += fabs(x[i + 2]);
		a3 += fabs(x[i + 3]);
		mn0 = x[i] < mn0 ? x[i] : mn0;
		mx0 = x[i] > mx0 ? x[i] : mx0;
		mn1 = x[i + 1] < mn1 ? x[i + 1] : mn1;
		mx1 = x[i + 1] > mx1 ? x[i + 1] : mx1;
		mn0 = x[i + 2] < mn0 ? x[i + 2] : mn0;
		mx0 = x[i + 2] > mx0 ? x[i + 2] : mx0;
		mn1 = x[i + 3] < mn1 ? x[i + 3] : mn1;
		mx1 = x[i + 3] > mx1 ? x[i + 3] : mx1;
	}
	for (; i < m; i++) {
		s0 += x[i];
		a0 += fabs(x[i]);
		mn0 = x[i] < mn0 ? x[i] : mn0;
		mx0 = x[i] > mx0 ? x[i] : mx0;
	}
	r[0] = (s0 + s1) + (s2 + s3);
	r[1] = (a0 + a1) + (a2 + a3);
	r[2] = mn0 < mn1 ? mn0 : mn1;
	r[3] = mx0 > mx1 ? mx0 : mx1;
}

/* Pass B and C over the m > 0 finite values of a chunk (scaled in place
 * when they are large). */
static void moments(struct gt_stats *s, double *x, size_t m)
{
	double r[4], q0 = 0, q1 = 0, c0 = 0, c1 = 0, mean, mn, mx;
	size_t i;
	int e;

	pass_b(x, m, r);
	mn = r[2];
	mx = r[3];
	e = chunk_scale(x, m, mn, mx);
	if (e)
		pass_b(x, m, r); /* the sums again, on the scaled values */
	mean = r[0] / (double)m;
	/* corrected two-pass: M2 = sum d^2 - (sum d)^2 / m */
	for (i = 0; i + 2 <= m; i += 2) {
		const double d0 = x[i] - mean, d1 = x[i + 1] - mean;

		q0 += d0 * d0;
		q1 += d1 * d1;
		c0 += d0;
		c1 += d1;
	}
	if (i < m) {
		const double d0 = x[i] - mean;

		q0 += d0 * d0;
		c0 += d0;
	}
	c0 += c1;
	fold(s, m, e, mean + c0 / (double)m, (q0 + q1) - c0 * c0 / (double)m, mn, mx, r[1]);
}

/* Pass A for f32: the tight loop (integer bit tests, 4 histograms). */
static size_t chunk_f32(struct pass *p, const unsigned char *src, size_t n,
			double *d)
{
	uint64_t zeros = 0, nan = 0, neg = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		float f;
		uint32_t e;

		memcpy(&u, src + 4 * i, 4);
		memcpy(&f, &u, 4);
		e = (u >> 23) & 0xffu;
		p->h[i & 3][e]++;
		neg += u >> 31;
		zeros += (u << 1) == 0;
		nan += (u << 1) > 0xff000000u;
		d[m] = f;
		m += e != 0xffu;
	}
	p->zeros += zeros;
	p->nan += nan;
	p->negative += neg;
	return m;
}

static size_t chunk_f64(struct pass *p, const unsigned char *src, size_t n,
			double *d)
{
	uint64_t zeros = 0, nan = 0, neg = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		double f;
		uint32_t e;

		memcpy(&u, src + 8 * i, 8);
		memcpy(&f, &u, 8);
		e = (uint32_t)(u >> 52) & 0x7ffu;
		p->h[i & 3][e]++;
		neg += u >> 63;
		zeros += (u << 1) == 0;
		nan += (u << 1) > UINT64_C(0xffe0000000000000);
		d[m] = f;
		m += e != 0x7ffu;
	}
	p->zeros += zeros;
	p->nan += nan;
	p->negative += neg;
	return m;
}

/* f16 and bf16: 16-bit patterns, converted exactly through float. */
static size_t chunk_16(struct pass *p, const unsigned char *src, size_t n,
		       double *d, enum gt_dtype dt)
{
	const unsigned mb = gt_dtype_man_bits(dt);
	const uint32_t emax = (1u << gt_dtype_exp_bits(dt)) - 1u;
	const uint32_t inf = emax << mb;
	uint64_t zeros = 0, nan = 0, neg = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint16_t u;
		uint32_t e, a;

		memcpy(&u, src + 2 * i, 2);
		e = ((uint32_t)u >> mb) & emax;
		a = u & 0x7fffu;
		p->h[i & 3][e]++;
		neg += (uint32_t)u >> 15;
		zeros += a == 0;
		nan += a > inf;
		d[m] = dt == GT_DT_F16 ? gt_f16_to_f32(u) : gt_bf16_to_f32(u);
		m += e != emax;
	}
	p->zeros += zeros;
	p->nan += nan;
	p->negative += neg;
	return m;
}

/* One super-block: at most SUPER values, so the 32-bit counters hold. */
static void add_super(struct gt_stats *s, struct pass *p,
		      const unsigned char *src, size_t n)
{
	const size_t size = gt_dtype_size(s->dtype), nbins = gt_stats_nbins(s);
	double d[CHUNK];

	for (size_t k = 0; k < 4; k++)
		memset(p->h[k], 0, nbins * sizeof(p->h[k][0]));
	p->zeros = p->nan = p->negative = 0;
	for (size_t off = 0; off < n; off += CHUNK) {
		const size_t c = n - off < CHUNK ? n - off : CHUNK;
		const unsigned char *q = src + off * size;
		size_t m = 0;

		switch (s->dtype) {
		case GT_DT_F32: m = chunk_f32(p, q, c, d); break;
		case GT_DT_F64: m = chunk_f64(p, q, c, d); break;
		case GT_DT_F16:
		case GT_DT_BF16: m = chunk_16(p, q, c, d, s->dtype); break;
		case GT_DT_NONE: break;
		}
		if (m)
			moments(s, d, m);
	}
	for (size_t e = 0; e < nbins; e++)
		s->hist[e] += (uint64_t)p->h[0][e] + p->h[1][e] + p->h[2][e] +
			      p->h[3][e];
	s->zeros += p->zeros;
	s->nan += p->nan;
	s->negative += p->negative;
	s->values += n;
}

int gt_stats_add(struct gt_stats *s, const void *src, size_t n)
{
	const unsigned char *p = src;
	const size_t size = gt_dtype_size(s->dtype);
	size_t nbins;
	struct pass *ps;

	if (s->mixed || !size)
		return GT_ERR(INVAL);
	if (!n)
		return 0;
	ps = malloc(sizeof(*ps));
	if (!ps)
		return GT_ERR(NOMEM);
	for (size_t off = 0; off < n; off += SUPER) {
		const size_t c = n - off < SUPER ? n - off : SUPER;

		add_super(s, ps, p + off * size, c);
	}
	free(ps);
	/* zero and max fields split into zeros/subnormals and NaN/Inf */
	nbins = gt_stats_nbins(s);
	s->subnormals = s->hist[0] - s->zeros;
	s->inf = s->hist[nbins - 1] - s->nan;
	return 0;
}

void gt_stats_merge(struct gt_stats *a, const struct gt_stats *b)
{
	if (b->finite) {
		const double sum_abs = b->sum_abs - b->sum_abs_c;

		fold(a, b->finite, b->scale, b->mean, b->m2, b->min, b->max, sum_abs);
	}
	if (a->mixed || b->mixed || a->dtype != b->dtype) {
		a->mixed = 1;
		a->dtype = GT_DT_NONE;
		memset(a->hist, 0, sizeof(a->hist));
	} else {
		for (size_t e = 0; e < GT_STATS_MAX_BINS; e++)
			a->hist[e] += b->hist[e];
	}
	a->values += b->values;
	a->zeros += b->zeros;
	a->subnormals += b->subnormals;
	a->nan += b->nan;
	a->inf += b->inf;
	a->negative += b->negative;
}

double gt_stats_entropy(const uint64_t *counts, size_t n)
{
	uint64_t total = 0;
	double h = 0;

	for (size_t i = 0; i < n; i++)
		total += counts[i];
	if (!total)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (counts[i]) {
			const double p = (double)counts[i] / (double)total;

			h -= p * log2(p);
		}
	}
	return h + 0.0; /* no -0 for a single bin */
}

static int cmp_desc(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a < b) - (a > b);
}

double gt_stats_topk_share(const uint64_t *counts, size_t n, size_t k)
{
	uint64_t sorted[GT_STATS_MAX_BINS], total = 0, top = 0;

	if (n > GT_STATS_MAX_BINS)
		return NAN;
	memcpy(sorted, counts, n * sizeof(*counts));
	qsort(sorted, n, sizeof(*sorted), cmp_desc);
	for (size_t i = 0; i < n; i++) {
		total += sorted[i];
		if (i < k)
			top += sorted[i];
	}
	return total ? (double)top / (double)total : 0;
}

void gt_stats_derive(const struct gt_stats *s, struct gt_stats_result *r)
{
	const size_t nbins = gt_stats_nbins(s);
	const double nv = (double)s->values;

	memset(r, 0, sizeof(*r));
	r->min = r->max = r->mean = r->std = r->mean_abs = NAN;
	if (s->finite) {
		r->min = s->min;
		r->max = s->max;
		r->mean = ldexp(s->mean, s->scale);
		r->std = ldexp(sqrt(s->m2 > 0 ? s->m2 / (double)s->finite : 0.0), s->scale);
		r->mean_abs = ldexp((s->sum_abs - s->sum_abs_c) / (double)s->finite, s->scale);
	}
	r->zeros_share = s->values ? (double)s->zeros / nv : 0;
	r->sign = s->values ? (double)s->negative / nv : 0;
	r->entropy = r->top15 = r->bound_bits = r->bound_ratio = NAN;
	if (!nbins)
		return;
	for (size_t e = 0; e < nbins; e++)
		r->distinct += s->hist[e] != 0;
	r->entropy = gt_stats_entropy(s->hist, nbins);
	r->top15 = gt_stats_topk_share(s->hist, nbins, GT_STATS_TOPK);
	r->bound_bits = 1.0 + gt_dtype_man_bits(s->dtype) + r->entropy;
	r->bound_ratio = r->bound_bits / (8.0 * gt_dtype_size(s->dtype));
}
