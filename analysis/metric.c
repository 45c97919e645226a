/* metric.c - streaming error metrics between an original A and a copy B */
#include <math.h>
#include <string.h>

#include "gt_metric.h"
#include "../lib/banned.h"

/* Finite pairs gathered before the sums of one chunk are taken. */
#define CHUNK 1024

/* Moments of one chunk (or of everything so far), merged by Chan et al. */
struct moments {
	uint64_t n;
	double mean_a, mean_b, m2_a, m2_b, c_ab;
};

static int nonzero(double x)
{
	return x < 0 || x > 0;
}

static void ksum_add(struct gt_metric_sum *k, double x)
{
	const double t = k->s + x;

	/* Neumaier: keep the low-order part of whichever operand is smaller */
	if (fabs(k->s) >= fabs(x))
		k->c += (k->s - t) + x;
	else
		k->c += (x - t) + k->s;
	k->s = t;
}

static void ksum_merge(struct gt_metric_sum *a, const struct gt_metric_sum *b)
{
	a->c += b->c;
	ksum_add(a, b->s);
}

static double ksum_value(const struct gt_metric_sum *k)
{
	return k->s + k->c;
}

void gt_metric_init(struct gt_metric *m)
{
	memset(m, 0, sizeof(*m));
	m->min_a = NAN;
	m->max_a = NAN;
}

/* The parallel update of Chan, Golub and LeVeque for means and co-moments. */
static void moments_merge(struct moments *x, const struct moments *y)
{
	const double n1 = (double)x->n, n2 = (double)y->n, n = n1 + n2;
	double da, db, f;

	if (!y->n)
		return;
	if (!x->n) {
		*x = *y;
		return;
	}
	da = y->mean_a - x->mean_a;
	db = y->mean_b - x->mean_b;
	f = n1 * n2 / n;
	x->mean_a += da * (n2 / n);
	x->mean_b += db * (n2 / n);
	x->m2_a += y->m2_a + da * da * f;
	x->m2_b += y->m2_b + db * db * f;
	x->c_ab += y->c_ab + da * db * f;
	x->n += y->n;
}

static void get_moments(const struct gt_metric *m, struct moments *x)
{
	x->n = m->n;
	x->mean_a = m->mean_a;
	x->mean_b = m->mean_b;
	x->m2_a = m->m2_a;
	x->m2_b = m->m2_b;
	x->c_ab = m->c_ab;
}

static void put_moments(struct gt_metric *m, const struct moments *x)
{
	m->n = x->n;
	m->mean_a = x->mean_a;
	m->mean_b = x->mean_b;
	m->m2_a = x->m2_a;
	m->m2_b = x->m2_b;
	m->c_ab = x->c_ab;
}

/* Sums, extremes and two-pass moments of @n > 0 finite pairs. */
static void add_finite(struct gt_metric *m, const double *a, const double *b,
		       size_t n)
{
	double sa = 0, sb = 0, aa = 0, bb = 0, ab = 0, dd = 0;
	double lo = a[0], hi = a[0], max_abs = m->max_abs, max_rel = m->max_rel;
	double ca = 0, cb = 0, m2a = 0, m2b = 0, cab = 0;
	struct moments x, y;

	if (!m->n) {
		m->shift_a = a[0];
		m->shift_b = b[0];
	}
	for (size_t i = 0; i < n; i++) {
		const double d = a[i] - b[i], ad = fabs(d);

		sa += a[i] - m->shift_a;
		sb += b[i] - m->shift_b;
		aa += a[i] * a[i];
		bb += b[i] * b[i];
		ab += a[i] * b[i];
		dd += d * d;
		lo = a[i] < lo ? a[i] : lo;
		hi = a[i] > hi ? a[i] : hi;
		max_abs = ad > max_abs ? ad : max_abs;
		if (nonzero(a[i]) && ad / fabs(a[i]) > max_rel)
			max_rel = ad / fabs(a[i]);
	}
	y.n = n;
	y.mean_a = sa / (double)n;
	y.mean_b = sb / (double)n;
	for (size_t i = 0; i < n; i++) {
		const double da = (a[i] - m->shift_a) - y.mean_a;
		const double db = (b[i] - m->shift_b) - y.mean_b;

		ca += da;
		cb += db;
		m2a += da * da;
		m2b += db * db;
		cab += da * db;
	}
	/* the corrected two-pass formula: removes the rounding of the mean */
	y.m2_a = fmax(0, m2a - ca * ca / (double)n);
	y.m2_b = fmax(0, m2b - cb * cb / (double)n);
	y.c_ab = cab - ca * cb / (double)n;
	/* and the mean itself: ca / n is what its rounding left out */
	y.mean_a += ca / (double)n;
	y.mean_b += cb / (double)n;
	get_moments(m, &x);
	moments_merge(&x, &y);
	put_moments(m, &x);
	ksum_add(&m->aa, aa);
	ksum_add(&m->bb, bb);
	ksum_add(&m->ab, ab);
	ksum_add(&m->dd, dd);
	if (isnan(m->min_a) || lo < m->min_a)
		m->min_a = lo;
	if (isnan(m->max_a) || hi > m->max_a)
		m->max_a = hi;
	m->max_abs = max_abs;
	m->max_rel = max_rel;
}

/* Classify one pair; finite ones are appended to @fa/@fb at *@k. */
static inline void pair(struct gt_metric *m, double va, double vb,
			double *fa, double *fb, size_t *k)
{
	if (isnan(va) || isnan(vb)) {
		m->nan++;
	} else if (isinf(va) || isinf(vb)) {
		m->inf++;
	} else {
		fa[*k] = va;
		fb[*k] = vb;
		++*k;
	}
}

int gt_metric_add(struct gt_metric *m, const void *a, enum gt_dtype dta,
		  const void *b, enum gt_dtype dtb, size_t n)
{
	const int same = dta == dtb, f32 = same && dta == GT_DT_F32;
	double fa[CHUNK], fb[CHUNK];

	if (!gt_dtype_size(dta) || !gt_dtype_size(dtb))
		return GT_ERR(INVAL);
	for (size_t first = 0; first < n; first += CHUNK) {
		const size_t len = n - first < CHUNK ? n - first : CHUNK;
		size_t k = 0;

		for (size_t i = first; i < first + len; i++) {
			if (f32) {
				const uint32_t ua = (uint32_t)gt_fp_load(a, GT_DT_F32, i);
				const uint32_t ub = (uint32_t)gt_fp_load(b, GT_DT_F32, i);

				m->identical += ua == ub;
				pair(m, gt_f32_from_bits(ua), gt_f32_from_bits(ub), fa, fb, &k);
			} else {
				const double va = gt_fp_get(a, dta, i);
				const double vb = gt_fp_get(b, dtb, i);

				if (same)
					m->identical += gt_fp_load(a, dta, i) == gt_fp_load(b, dtb, i);
				else
					m->identical += gt_f64_bits(va) == gt_f64_bits(vb);
				pair(m, va, vb, fa, fb, &k);
			}
		}
		m->values += len;
		if (k)
			add_finite(m, fa, fb, k);
	}
	return 0;
}

void gt_metric_merge(struct gt_metric *a, const struct gt_metric *b)
{
	struct moments x, y;

	a->values += b->values;
	a->identical += b->identical;
	a->nan += b->nan;
	a->inf += b->inf;
	if (!b->n)
		return;
	if (isnan(a->min_a) || b->min_a < a->min_a)
		a->min_a = b->min_a;
	if (isnan(a->max_a) || b->max_a > a->max_a)
		a->max_a = b->max_a;
	a->max_abs = b->max_abs > a->max_abs ? b->max_abs : a->max_abs;
	a->max_rel = b->max_rel > a->max_rel ? b->max_rel : a->max_rel;
	if (!a->n) {
		a->shift_a = b->shift_a;
		a->shift_b = b->shift_b;
	}
	get_moments(a, &x);
	get_moments(b, &y);
	/* b's means, measured from a's shifts */
	y.mean_a += b->shift_a - a->shift_a;
	y.mean_b += b->shift_b - a->shift_b;
	moments_merge(&x, &y);
	put_moments(a, &x);
	ksum_merge(&a->aa, &b->aa);
	ksum_merge(&a->bb, &b->bb);
	ksum_merge(&a->ab, &b->ab);
	ksum_merge(&a->dd, &b->dd);
}

/* x / y, NaN when y is 0 (instead of an infinity or 0/0). */
static double ratio(double x, double y)
{
	return nonzero(y) ? x / y : NAN;
}

/*
 * sqrt(x y) for x, y >= 0: sqrt of the product when it neither overflows
 * nor underflows, so that x == y gives x exactly and a cosine of identical
 * data is exactly 1.
 */
static double root_product(double x, double y)
{
	const double p = x * y;

	return isnormal(p) ? sqrt(p) : sqrt(x) * sqrt(y);
}

/* A cosine or correlation is in [-1, 1]; rounding must not leave it. */
static double clamp1(double x)
{
	return x > 1 ? 1 : x < -1 ? -1 : x;
}

void gt_metric_derive(const struct gt_metric *m, struct gt_metric_result *r)
{
	const double aa = ksum_value(&m->aa), bb = ksum_value(&m->bb);
	const double ab = ksum_value(&m->ab), dd = ksum_value(&m->dd);

	if (!m->n) {
		r->range = r->rmse = r->nrmse = r->psnr = r->snr = NAN;
		r->cosine = r->pearson = r->gain = NAN;
		return;
	}
	r->range = m->max_a - m->min_a;
	r->rmse = sqrt(dd / (double)m->n);
	if (!nonzero(dd)) {
		r->nrmse = 0;
		r->psnr = r->snr = INFINITY;
	} else {
		/* a zero range or signal gives +-Inf here, on purpose */
		r->nrmse = r->rmse / r->range;
		r->psnr = 20 * log10(r->range / r->rmse);
		r->snr = 10 * log10(aa / dd);
	}
	r->cosine = clamp1(ratio(ab, root_product(aa, bb)));
	r->pearson = clamp1(ratio(m->c_ab, root_product(m->m2_a, m->m2_b)));
	r->gain = ratio(bb, aa);
}
