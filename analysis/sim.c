/* sim.c - AQGB's discrete-event simulation of quantized gradient broadcast */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_sim.h"
#include "../lib/gt_rng.h"

#define VALUE_BITS 32 /* gradients are f32, as in the paper */

const struct gt_sim_block gt_sim_resnet50[GT_SIM_RESNET50_BLOCKS] = {
	{ 3000000, 0.419, 0.505 },  /* conv1 - conv4_1 */
	{ 5600000, 0.155, 0.142 },  /* conv4_2 - conv4_6 */
	{ 6000000, 0.165, 0.129 },  /* conv5_1 */
	{ 11000000, 0.261, 0.224 }, /* conv5_2 - fc1000 */
};

struct flow {               /* a chunk from one sender to one receiver */
	double rem, rate;   /* bits left, bits/s */
	int active, frozen;
};

struct xfer {               /* the chunk a sender is broadcasting */
	int active, stage;  /* stage 1 or 2 */
	unsigned block, pending;
	uint64_t round, values;
	double bits, start; /* bits per value; when it started */
};

struct stage2 {             /* a sender's second stage of one round */
	int active;
	uint64_t round;
	unsigned block, chunk;
};

struct worker {
	uint64_t round, rounds_done;
	unsigned seg;           /* 0 .. n-1 forward of block seg, n .. 2n-1 backward */
	int computing;          /* else blocked at seg */
	double seg_end, wait_since;
	double b;               /* payload rate of the last chunk, bits/s */
	struct xfer x;
	struct stage2 s2;
	uint64_t slot_round[2]; /* which round each parity slot holds */
	unsigned nflows;        /* active flows sent or received */
	double t_comp, t_wait, t_overlap, used_bits, used_values;
};

struct sim {
	const struct gt_sim_config *c;
	unsigned m, n;
	double t, carried;
	uint64_t events;
	int dirty;
	struct worker *w;
	struct flow *f;        /* m x m, [sender * m + receiver] */
	double *dur;           /* m x 2n: this round's segment times */
	double *fpm;           /* n + 1: prefix sums of the mean forward times */
	unsigned *choff;       /* n + 1: first chunk of each block */
	/* per sender, parity slot and block: [(s * 2 + p) * n + j] */
	unsigned char *gen;
	uint64_t *sent;
	double *s1_bits;
	unsigned char *lf;     /* per chunk: [(s * 2 + p) * nchunks + chunk] */
	/* per receiver */
	uint64_t *recv;        /* [(w * 2 + p) * n + j] first-stage values in */
	int64_t *fp_round;     /* [w * n + j] data round consumed last, -1 */
	double *fp_start;      /* [w * n + j] when */
	double *cap;           /* 2m link capacities left while filling */
	unsigned *cnt;         /* 2m unfrozen flows per link */
};

static size_t slot(const struct sim *S, unsigned s, uint64_t round, unsigned j)
{
	return ((size_t)s * 2 + (round & 1)) * S->n + j;
}

static uint64_t block_values(const struct sim *S, unsigned j)
{
	return S->c->blocks[j].values;
}

static unsigned nchunks(const struct sim *S)
{
	return S->choff[S->n];
}

/* Values of chunk @c of block @j. */
static uint64_t chunk_values(const struct sim *S, unsigned j, unsigned c)
{
	const uint64_t lo = (uint64_t)c * S->c->chunk, v = block_values(S, j);

	return v - lo < S->c->chunk ? v - lo : S->c->chunk;
}

/* ---- the network: max-min fair rates by progressive filling ---------- */

struct links {
	unsigned m;
	double *cap;   /* 2m: capacity left while filling */
	unsigned *cnt; /* 2m: unfrozen flows per link */
	struct flow *f;
};

static void freeze(struct links *L, unsigned s, unsigned d, double rate)
{
	struct flow *f = &L->f[(size_t)s * L->m + d];

	if (!f->active || f->frozen)
		return;
	f->frozen = 1;
	f->rate = rate;
	L->cap[s] = fmax(0, L->cap[s] - rate);
	L->cap[L->m + d] = fmax(0, L->cap[L->m + d] - rate);
	L->cnt[s]--;
	L->cnt[L->m + d]--;
}

/* Links 0 .. m-1 are the uplinks, m .. 2m-1 the downlinks, all of
 * capacity @c; the link with the smallest fair share fixes the rate of
 * its flows, until every flow has one. */
static void maxmin(struct links *L, double c)
{
	const unsigned m = L->m;

	for (unsigned l = 0; l < 2 * m; l++) {
		L->cap[l] = c;
		L->cnt[l] = 0;
	}
	for (unsigned s = 0; s < m; s++)
		for (unsigned d = 0; d < m; d++)
			if (L->f[s * m + d].active) {
				L->f[s * m + d].frozen = 0;
				L->cnt[s]++;
				L->cnt[m + d]++;
			}
	for (;;) {
		double best = INFINITY;
		unsigned bl = 0;

		for (unsigned l = 0; l < 2 * m; l++)
			if (L->cnt[l] && L->cap[l] / L->cnt[l] < best) {
				best = L->cap[l] / L->cnt[l];
				bl = l;
			}
		if (isinf(best))
			break;
		for (unsigned k = 0; k < m; k++) {
			if (bl < m)
				freeze(L, bl, k, best);
			else
				freeze(L, k, bl - m, best);
		}
	}
}

static void fill_rates(struct sim *S)
{
	struct links L = { S->m, S->cap, S->cnt, S->f };

	maxmin(&L, S->c->link_bps);
	S->dirty = 0;
}

int gt_sim_maxmin(unsigned m, double link_bps, const unsigned char *active, double *rate)
{
	struct links L = { m, calloc(2 * (size_t)m, sizeof(double)),
			   calloc(2 * (size_t)m, sizeof(unsigned)),
			   calloc((size_t)m * m, sizeof(struct flow)) };
	int rc = 0;

	if (!m || m > GT_SIM_MAX_WORKERS || !(link_bps > 0)) {
		rc = GT_ERR(INVAL);
	} else if (!L.cap || !L.cnt || !L.f) {
		rc = GT_ERR(NOMEM);
	} else {
		for (size_t i = 0; i < (size_t)m * m; i++)
			L.f[i].active = active[i] && i / m != i % m;
		maxmin(&L, link_bps);
		for (size_t i = 0; i < (size_t)m * m; i++)
			rate[i] = L.f[i].active ? L.f[i].rate : 0;
	}
	free(L.cap);
	free(L.cnt);
	free(L.f);
	return rc;
}

/* ---- compute times ------------------------------------------------------ */

/* The factor on iter_time of @w's round @round (mean 1). */
static double round_factor(const struct sim *S, unsigned w, uint64_t round)
{
	struct gt_rng r;
	/* straggler mixture of gt_sim.h: normal U[lo, hi], straggler U[slo, shi] */
	const double lo = 1.33 / 1.5, hi = 1.55 / 1.5, slo = 2.0 / 1.5, shi = 2.67 / 1.5;
	const double p = (1 - (lo + hi) / 2) / ((slo + shi) / 2 - (lo + hi) / 2);
	double u;

	gt_rng_init(&r, S->c->seed, w, round);
	u = gt_rng_unit(&r);
	if (S->c->timing == GT_SIM_UNIFORM)
		return 0.9 + 0.2 * u;
	if (gt_rng_unit(&r) < p)
		return slo + (shi - slo) * u;
	return lo + (hi - lo) * u;
}

static void sample_round(struct sim *S, unsigned w)
{
	const double total = S->c->iter_time * round_factor(S, w, S->w[w].round);
	const double fp = total * S->c->fp_fraction, bp = total - fp;
	double *dur = &S->dur[(size_t)w * 2 * S->n];

	for (unsigned j = 0; j < S->n; j++) {
		dur[j] = fp * S->c->blocks[j].fp_share;
		dur[2 * S->n - 1 - j] = bp * S->c->blocks[j].bp_share;
	}
}

/* When @w would end this round's backward pass if it waited no more. */
static double bp_end_est(const struct sim *S, unsigned w)
{
	const struct worker *k = &S->w[w];
	const double *dur = &S->dur[(size_t)w * 2 * S->n];
	double t = k->computing ? k->seg_end : S->t;

	for (unsigned g = k->seg + (k->computing ? 1 : 0); g < 2 * S->n; g++)
		t += dur[g];
	return t;
}

/* ---- estimates for the second stage -------------------------------------- */

/* When every first-stage value of @round should have gone out, were the
 * rest sent at qbar at each sender's last rate. */
static double stage1_end_est(const struct sim *S, uint64_t round)
{
	double end = S->t;

	for (unsigned s = 0; s < S->m; s++) {
		const struct worker *k = &S->w[s];
		double pend = 0, start;

		for (unsigned j = 0; j < S->n; j++) {
			const size_t i = slot(S, s, round, j);
			const int have = k->slot_round[round & 1] == round && S->gen[i];

			pend += (double)(block_values(S, j) - (have ? S->sent[i] : 0));
		}
		if (pend <= 0)
			continue;
		start = k->round == round ? fmax(S->t, bp_end_est(S, s)) : S->t;
		end = fmax(end, start + pend * ceil(VALUE_BITS * S->c->qbar) / k->b);
	}
	return end;
}

/* §4.3.2: the latest estimate over the workers of when the forward pass
 * of block @j that consumes @round's data starts. */
static double fp_deadline(const struct sim *S, uint64_t round, unsigned j)
{
	const double t1 = stage1_end_est(S, round);
	double dl = -INFINITY;

	for (unsigned w = 0; w < S->m; w++) {
		const struct worker *k = &S->w[w];
		const size_t i = (size_t)w * S->n + j;
		double e;

		if (S->fp_round[i] >= (int64_t)round)
			e = S->fp_start[i];
		else if (k->round == round + 1 && k->computing)
			e = k->seg_end + S->fpm[j] - S->fpm[k->seg + 1];
		else if (k->round == round + 1)
			e = fmax(S->t, t1) + S->fpm[j] - S->fpm[k->seg];
		else
			e = fmax(bp_end_est(S, w), t1) + S->fpm[j];
		dl = fmax(dl, e);
	}
	return dl;
}

/* ---- senders ---------------------------------------------------------------- */

static void start_xfer(struct sim *S, unsigned s, int stage, uint64_t round,
		       unsigned block, uint64_t values, unsigned bits)
{
	struct worker *k = &S->w[s];

	k->x = (struct xfer){ 1, stage, block, S->m - 1, round, values, bits, S->t };
	for (unsigned d = 0; d < S->m; d++) {
		struct flow *f = &S->f[(size_t)s * S->m + d];

		if (d == s)
			continue;
		f->active = 1;
		f->rem = (double)values * bits;
		f->rate = 0;
		S->w[d].nflows++;
		k->nflows++;
	}
	S->dirty = 1;
}

/* The parity slot with first-stage values left, the older round first;
 * -1 when none. */
static int pending_slot(const struct sim *S, unsigned s, unsigned *block_ret)
{
	const struct worker *k = &S->w[s];
	int best = -1;

	for (int p = 0; p < 2; p++) {
		for (unsigned j = 0; j < S->n; j++) {
			const size_t i = ((size_t)s * 2 + (unsigned)p) * S->n + j;

			if (!S->gen[i] || S->sent[i] == block_values(S, j))
				continue;
			/* last come, first served: the lowest block is the newest */
			if (best < 0 || k->slot_round[p] < k->slot_round[best]) {
				best = p;
				*block_ret = j;
			}
			break;
		}
	}
	return best;
}

/* Stage 1 width: fixed, or AQGB's max(q1, qbar) in whole bits. */
static unsigned stage1_bits(const struct sim *S, unsigned s)
{
	const struct worker *k = &S->w[s];
	const unsigned lo = (unsigned)ceil(VALUE_BITS * S->c->qbar - 1e-9);
	double u = 0, q = 0;
	unsigned bits;

	if (S->c->scheme == GT_SIM_FIXED)
		return S->c->bits;
	for (size_t i = (size_t)s * 2 * S->n; i < ((size_t)s * 2 + 2) * S->n; i++)
		if (S->gen[i])
			u += (double)(block_values(S, (unsigned)(i % S->n)) - S->sent[i]) * VALUE_BITS;
	/* more blocks to come this round: meet the next one's arrival */
	if (k->computing && k->seg >= S->n && u > 0)
		q = k->b * (k->seg_end - S->t) / u;
	bits = (unsigned)ceil(VALUE_BITS * fmin(1, q) - 1e-9);
	return bits < lo ? lo : bits;
}

static int stage1_next(struct sim *S, unsigned s)
{
	unsigned j = 0, bits, c;
	const int p = pending_slot(S, s, &j);
	size_t i;
	uint64_t v;

	if (p < 0)
		return 0;
	i = ((size_t)s * 2 + (unsigned)p) * S->n + j;
	c = (unsigned)(S->sent[i] / S->c->chunk);
	v = chunk_values(S, j, c);
	bits = stage1_bits(S, s);
	S->lf[((size_t)s * 2 + (unsigned)p) * nchunks(S) + S->choff[j] + c] = (unsigned char)bits;
	S->sent[i] += v;
	S->s1_bits[i] += (double)v * bits;
	start_xfer(S, s, 1, S->w[s].slot_round[p], j, v, bits);
	return 1;
}

/* Bits of block @j's chunks from @c on still to send in stage 2. */
static double stage2_left(const struct sim *S, unsigned s, uint64_t round,
			  unsigned j, unsigned c)
{
	const unsigned char *lf = &S->lf[((size_t)s * 2 + (round & 1)) * nchunks(S) + S->choff[j]];
	double u = 0;

	for (unsigned k = c; k < S->choff[j + 1] - S->choff[j]; k++)
		u += (double)chunk_values(S, j, k) * (VALUE_BITS - lf[k]);
	return u;
}

static int stage2_next(struct sim *S, unsigned s)
{
	struct worker *k = &S->w[s];
	struct stage2 *s2 = &k->s2;

	while (s2->active && s2->block < S->n) {
		const unsigned j = s2->block, c = s2->chunk;
		const double u = c < S->choff[j + 1] - S->choff[j] ?
			stage2_left(S, s, s2->round, j, c) : 0;
		const double dl = u > 0 ? fp_deadline(S, s2->round, j) : 0;
		unsigned left, bits;

		if (u <= 0 || dl <= S->t) {
			s2->block++;
			s2->chunk = 0;
			continue;
		}
		left = VALUE_BITS - S->lf[((size_t)s * 2 + (s2->round & 1)) * nchunks(S) +
					  S->choff[j] + c];
		s2->chunk++;
		if (!left)
			continue;
		bits = (unsigned)ceil(fmin(1, fmax(S->c->qbar, k->b * (dl - S->t) / u)) * left - 1e-9);
		start_xfer(S, s, 2, s2->round, j, chunk_values(S, j, c), bits ? bits : 1);
		return 1;
	}
	s2->active = 0;
	return 0;
}

static void next_xfer(struct sim *S, unsigned s)
{
	if (S->w[s].x.active)
		return;
	if (stage1_next(S, s)) {
		S->w[s].s2.active = 0; /* new gradients preempt the refinement */
		return;
	}
	stage2_next(S, s);
}

/* Every first-stage value of @s's @round is out. */
static int stage1_done(const struct sim *S, unsigned s, uint64_t round)
{
	if (S->w[s].slot_round[round & 1] != round)
		return 0;
	for (unsigned j = 0; j < S->n; j++) {
		const size_t i = slot(S, s, round, j);

		if (!S->gen[i] || S->sent[i] != block_values(S, j))
			return 0;
	}
	return 1;
}

static void xfer_done(struct sim *S, unsigned s)
{
	struct worker *k = &S->w[s];
	const double took = S->t - k->x.start;

	if (took > 0)
		k->b = (double)k->x.values * k->x.bits / took;
	k->x.active = 0;
	if (k->x.stage == 1 && S->c->scheme == GT_SIM_AQGB &&
	    stage1_done(S, s, k->x.round))
		k->s2 = (struct stage2){ 1, k->x.round, 0, 0 };
	next_xfer(S, s);
}

/* ---- receivers ------------------------------------------------------------ */

static void deliver(struct sim *S, unsigned s, unsigned d)
{
	const struct xfer *x = &S->w[s].x;

	if (x->stage == 1)
		S->recv[slot(S, d, x->round, x->block)] += x->values;
	else if (S->fp_round[(size_t)d * S->n + x->block] < (int64_t)x->round)
		S->w[d].used_bits += (double)x->values * x->bits;
}

static void flow_done(struct sim *S, unsigned s, unsigned d)
{
	struct flow *f = &S->f[(size_t)s * S->m + d];

	f->active = 0;
	f->rem = 0;
	S->w[s].nflows--;
	S->w[d].nflows--;
	S->dirty = 1;
	deliver(S, s, d);
	if (!--S->w[s].x.pending)
		xfer_done(S, s);
}

/* Forward pass of block @j in round r >= 1 uses round r - 1's data. */
static void consume(struct sim *S, unsigned w, unsigned j)
{
	struct worker *k = &S->w[w];
	const uint64_t r = k->round - 1;

	for (unsigned s = 0; s < S->m; s++)
		if (s != w)
			k->used_bits += S->s1_bits[slot(S, s, r, j)];
	k->used_values += (double)(S->m - 1) * (double)block_values(S, j);
	S->recv[slot(S, w, r, j)] = 0;
	S->fp_round[(size_t)w * S->n + j] = (int64_t)r;
	S->fp_start[(size_t)w * S->n + j] = S->t;
}

/* ---- compute ------------------------------------------------------------- */

static void try_start(struct sim *S, unsigned w)
{
	struct worker *k = &S->w[w];
	const unsigned j = k->seg;

	if (j < S->n && k->round > 0) {
		if (S->recv[slot(S, w, k->round - 1, j)] <
		    (uint64_t)(S->m - 1) * block_values(S, j)) {
			if (k->computing) {
				k->computing = 0;
				k->wait_since = S->t;
			}
			return;
		}
		consume(S, w, j);
	}
	if (!k->computing)
		k->t_wait += S->t - k->wait_since;
	k->computing = 1;
	k->seg_end = S->t + S->dur[(size_t)w * 2 * S->n + k->seg];
}

/* The backward pass of block @j made its gradient. */
static void generate(struct sim *S, unsigned s, unsigned j)
{
	struct worker *k = &S->w[s];
	const unsigned p = k->round & 1;

	if (j == S->n - 1) {
		const size_t i = slot(S, s, k->round, 0);

		memset(&S->gen[i], 0, S->n);
		memset(&S->sent[i], 0, S->n * sizeof(*S->sent));
		memset(&S->s1_bits[i], 0, S->n * sizeof(*S->s1_bits));
		k->slot_round[p] = k->round;
	}
	S->gen[slot(S, s, k->round, j)] = 1;
	next_xfer(S, s);
}

static void finish_seg(struct sim *S, unsigned w)
{
	struct worker *k = &S->w[w];

	if (k->seg >= S->n)
		generate(S, w, 2 * S->n - 1 - k->seg);
	if (++k->seg == 2 * S->n) {
		k->seg = 0;
		k->round++;
		k->rounds_done++;
		sample_round(S, w);
	}
	try_start(S, w);
}

/* ---- the event loop -------------------------------------------------------- */

/* Time to the next event: a flow ends, a segment ends, or the run. */
static double next_dt(const struct sim *S)
{
	double dt = S->c->duration - S->t;

	for (size_t i = 0; i < (size_t)S->m * S->m; i++)
		if (S->f[i].active && S->f[i].rate > 0)
			dt = fmin(dt, S->f[i].rem / S->f[i].rate);
	for (unsigned w = 0; w < S->m; w++)
		if (S->w[w].computing)
			dt = fmin(dt, S->w[w].seg_end - S->t);
	return dt > 0 ? dt : 0;
}

static void advance(struct sim *S, double dt)
{
	for (size_t i = 0; i < (size_t)S->m * S->m; i++)
		if (S->f[i].active) {
			S->f[i].rem -= S->f[i].rate * dt;
			S->carried += S->f[i].rate * dt;
		}
	for (unsigned w = 0; w < S->m; w++) {
		struct worker *k = &S->w[w];

		if (!k->computing)
			continue;
		k->t_comp += dt;
		if (k->nflows)
			k->t_overlap += dt;
	}
	S->t += dt;
}

static void handle_events(struct sim *S)
{
	const double eps = 1e-12 * fmax(1, S->t);

	for (unsigned s = 0; s < S->m; s++)
		for (unsigned d = 0; d < S->m; d++) {
			const struct flow *f = &S->f[(size_t)s * S->m + d];
			const struct xfer *x = &S->w[s].x;

			if (f->active && f->rem <= 1e-9 * (double)x->values * x->bits + 1e-6)
				flow_done(S, s, d);
		}
	for (unsigned w = 0; w < S->m; w++)
		while (S->w[w].computing && S->w[w].seg_end <= S->t + eps)
			finish_seg(S, w);
	for (unsigned w = 0; w < S->m; w++)
		if (!S->w[w].computing)
			try_start(S, w);
}

static void results(const struct sim *S, struct gt_sim_worker *wr, struct gt_sim_result *r)
{
	double min_overlap = INFINITY, max_wait = 0, bits = 0, values = 0;

	memset(r, 0, sizeof(*r));
	r->rounds = UINT64_MAX;
	for (unsigned w = 0; w < S->m; w++) {
		const struct worker *k = &S->w[w];
		const double wait = k->t_wait + (k->computing ? 0 : S->t - k->wait_since);

		r->rounds = k->rounds_done < r->rounds ? k->rounds_done : r->rounds;
		min_overlap = fmin(min_overlap, k->t_overlap);
		max_wait = fmax(max_wait, wait);
		r->wait_norm += wait / k->t_comp / S->m;
		bits += k->used_bits;
		values += k->used_values;
		if (wr)
			wr[w] = (struct gt_sim_worker){
				k->rounds_done, k->t_comp, wait, k->t_overlap,
				wait > 0 ? k->t_overlap / wait : INFINITY, wait / k->t_comp,
				k->used_values > 0 ? k->used_bits / k->used_values : NAN,
			};
	}
	r->row = max_wait > 0 ? min_overlap / max_wait : INFINITY;
	r->utilization = S->carried / (S->m * S->c->link_bps * S->c->duration);
	r->bits_per_value = values > 0 ? bits / values : NAN;
	r->events = S->events;
}

static void run_loop(struct sim *S)
{
	for (unsigned w = 0; w < S->m; w++) {
		S->w[w].computing = 1;
		S->w[w].b = S->c->link_bps / (S->m - 1);
		S->w[w].slot_round[0] = S->w[w].slot_round[1] = UINT64_MAX;
		sample_round(S, w);
		try_start(S, w);
	}
	while (S->t < S->c->duration) {
		if (S->dirty)
			fill_rates(S);
		advance(S, next_dt(S));
		handle_events(S);
		S->events++;
	}
}

static int valid(const struct gt_sim_config *c)
{
	double fp = 0, bp = 0;
	uint64_t chunks = 0;

	if (c->workers < 2 || c->workers > GT_SIM_MAX_WORKERS || !(c->link_bps > 0) ||
	    !(c->iter_time > 0) || !(c->fp_fraction > 0 && c->fp_fraction < 1) ||
	    !(c->duration > 0) || !c->blocks || !c->nblocks ||
	    c->nblocks > GT_SIM_MAX_BLOCKS || !c->chunk ||
	    !isfinite(c->link_bps + c->iter_time + c->duration) ||
	    (c->timing != GT_SIM_UNIFORM && c->timing != GT_SIM_STRAGGLER))
		return 0;
	if (c->scheme == GT_SIM_FIXED ? c->bits < 1 || c->bits > VALUE_BITS :
	    c->scheme != GT_SIM_AQGB || !(c->qbar > 0 && c->qbar <= 1))
		return 0;
	for (size_t j = 0; j < c->nblocks; j++) {
		const struct gt_sim_block *b = &c->blocks[j];

		if (!b->values || b->values > ((uint64_t)1 << 40) ||
		    !(b->fp_share >= 0) || !(b->bp_share >= 0))
			return 0;
		chunks += (b->values + c->chunk - 1) / c->chunk;
		fp += b->fp_share;
		bp += b->bp_share;
	}
	return chunks <= GT_SIM_MAX_CHUNKS && fabs(fp - 1) < 1e-6 && fabs(bp - 1) < 1e-6;
}

static void sim_free(struct sim *S)
{
	free(S->w);
	free(S->f);
	free(S->dur);
	free(S->fpm);
	free(S->choff);
	free(S->gen);
	free(S->sent);
	free(S->s1_bits);
	free(S->lf);
	free(S->recv);
	free(S->fp_round);
	free(S->fp_start);
	free(S->cap);
	free(S->cnt);
}

static int sim_alloc(struct sim *S)
{
	const size_t m = S->m, n = S->n, sl = m * 2 * n;

	S->choff = calloc(n + 1, sizeof(*S->choff));
	S->fpm = calloc(n + 1, sizeof(*S->fpm));
	if (!S->choff || !S->fpm)
		return GT_ERR(NOMEM);
	for (unsigned j = 0; j < n; j++) {
		S->choff[j + 1] = S->choff[j] + (unsigned)((block_values(S, j) + S->c->chunk - 1) /
							   S->c->chunk);
		S->fpm[j + 1] = S->fpm[j] + S->c->iter_time * S->c->fp_fraction *
			S->c->blocks[j].fp_share;
	}
	S->w = calloc(m, sizeof(*S->w));
	S->f = calloc(m * m, sizeof(*S->f));
	S->dur = calloc(m * 2 * n, sizeof(*S->dur));
	S->gen = calloc(sl, 1);
	S->sent = calloc(sl, sizeof(*S->sent));
	S->s1_bits = calloc(sl, sizeof(*S->s1_bits));
	S->lf = calloc(m * 2 * nchunks(S), 1);
	S->recv = calloc(sl, sizeof(*S->recv));
	S->fp_round = malloc(m * n * sizeof(*S->fp_round));
	S->fp_start = calloc(m * n, sizeof(*S->fp_start));
	S->cap = calloc(2 * m, sizeof(*S->cap));
	S->cnt = calloc(2 * m, sizeof(*S->cnt));
	if (!S->w || !S->f || !S->dur || !S->gen || !S->sent || !S->s1_bits || !S->lf ||
	    !S->recv || !S->fp_round || !S->fp_start || !S->cap || !S->cnt)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < m * n; i++)
		S->fp_round[i] = -1;
	return 0;
}

int gt_sim_run(const struct gt_sim_config *c, struct gt_sim_worker *w,
	       struct gt_sim_result *r)
{
	struct sim S;
	int rc;

	if (!valid(c))
		return GT_ERR(INVAL);
	memset(&S, 0, sizeof(S));
	S.c = c;
	S.m = c->workers;
	S.n = (unsigned)c->nblocks;
	rc = sim_alloc(&S);
	if (rc >= 0) {
		run_loop(&S);
		results(&S, w, r);
	}
	sim_free(&S);
	return rc;
}
