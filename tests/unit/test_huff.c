/* test_huff.c - histograms, both builders, cost, save/load, LUT decoding */
#include "check.h"
#include "../../lib/gt_huff.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/banned.h"

static uint64_t kraft(const struct gt_huff_table *t)
{
	uint64_t k = 0;

	for (unsigned s = 0; s < t->nsyms; s++)
		if (t->len[s])
			k += 1ull << (GT_HUFF_MAXLEN_MAX - t->len[s]);
	return k;
}

static unsigned ncoded(const struct gt_huff_table *t)
{
	unsigned k = 0;

	for (unsigned s = 0; s < t->nsyms; s++)
		k += t->len[s] != 0;
	return k;
}

/*
 * Both LUTs against one filled the plain way (every entry whose low
 * len[s] bits are s's code holds s), and gt_huff_lut_fit() at the
 * longest code's width against gt_huff_lut().
 */
static void check_luts(const struct gt_huff_table *t, const uint16_t *lut)
{
	static uint16_t ref[GT_HUFF_LUT_MAX], fit[GT_HUFF_LUT_MAX];
	const size_t size = (size_t)1 << t->maxlen;
	unsigned bits, longest = 0;

	memset(ref, 0, sizeof(ref));
	for (unsigned s = 0; s < t->nsyms; s++) {
		longest = t->len[s] > longest ? t->len[s] : longest;
		for (size_t i = t->code[s]; t->len[s] && i < size; i += (size_t)1 << t->len[s])
			ref[i] = (uint16_t)(s | t->len[s] << 12);
	}
	CHECK(!memcmp(ref, lut, size * sizeof(*lut)));
	memset(fit, 0xaa, sizeof(fit));
	CHECK_RC(gt_huff_lut_fit(t, fit, GT_HUFF_LUT_MAX, &bits), 0);
	CHECK(bits == longest);
	for (size_t i = 0; i < size; i++)
		CHECK(fit[i & (((size_t)1 << bits) - 1)] == ref[i]);
	if (longest > 1) /* too small a LUT */
		CHECK_RC(gt_huff_lut_fit(t, fit, ((size_t)1 << longest) - 1, &bits),
			 GT_ERR(INVAL));
}

/* Saved, loaded and compared; the LUT decodes every code. */
static void check_table(const struct gt_huff_table *t, unsigned flags)
{
	static uint16_t lut[GT_HUFF_LUT_MAX];
	static struct gt_huff_table u;
	unsigned char buf[GT_HUFF_SAVE_MAX];
	size_t len;

	CHECK(kraft(t) <= 1ull << GT_HUFF_MAXLEN_MAX);
	CHECK_RC(gt_huff_save(t, buf, sizeof(buf), &len), 0);
	CHECK_RC(gt_huff_load(&u, buf, len, flags), 0);
	CHECK(!memcmp(u.len, t->len, sizeof(t->len)));
	CHECK(!memcmp(u.code, t->code, sizeof(t->code)));
	CHECK(u.maxlen == t->maxlen && u.dtype == t->dtype);
	CHECK_RC(gt_huff_lut(t, lut, GT_HUFF_LUT_MAX), 0);
	check_luts(t, lut);
	for (unsigned s = 0; s < t->nsyms; s++) {
		if (!t->len[s])
			continue;
		CHECK(t->len[s] <= t->maxlen);
		CHECK(GT_HUFF_LUT_SYM(lut[t->code[s]]) == s);
		CHECK(GT_HUFF_LUT_LEN(lut[t->code[s]]) == t->len[s]);
	}
	for (size_t j = 1; j < len; j++) /* truncated bytes are rejected */
		CHECK(gt_huff_load(&u, buf, j, flags) < 0);
}

static void build_all(const struct gt_huff_hist *h, unsigned maxlen)
{
	static struct gt_huff_table t;

	for (int m = 0; m < 3; m++) {
		for (unsigned f = 0; f < 2; f++) {
			CHECK_RC(gt_huff_build(&t, h, maxlen, (enum gt_huff_method)m, f), 0);
			check_table(&t, f);
			if (f)
				CHECK(t.len[GT_HUFF_ESC(gt_dtype_exp_bits(h->dtype))] > 0);
		}
	}
}

static void test_degenerate(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	uint64_t bits, esc;

	gt_huff_hist_init(&h, GT_DT_F32);
	for (int m = 0; m < 3; m++) {
		CHECK_RC(gt_huff_build(&t, &h, 12, (enum gt_huff_method)m, 0), 0);
		CHECK(ncoded(&t) == 0);
		CHECK_RC(gt_huff_cost(&t, &h, &bits, &esc), 0);
		CHECK(bits == 0);
	}
	build_all(&h, 12);
	h.count[130] = 1000;
	for (int m = 0; m < 3; m++) {
		CHECK_RC(gt_huff_build(&t, &h, 12, (enum gt_huff_method)m, 0), 0);
		CHECK(ncoded(&t) == 1 && t.len[130] == 1);
		CHECK_RC(gt_huff_cost(&t, &h, &bits, &esc), 0);
		CHECK(bits == 1000 * 25 && esc == 0);
	}
	build_all(&h, 1);
	h.count[7] = 1;
	CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_PM, 0), 0);
	CHECK(t.len[7] == 1 && t.len[130] == 1 && kraft(&t) == 1ull << 15);
	build_all(&h, 1);
	CHECK(gt_huff_build(&t, &h, 0, GT_HUFF_PM, 0) == GT_ERR(INVAL));
	CHECK(gt_huff_build(&t, &h, 16, GT_HUFF_PM, 0) == GT_ERR(INVAL));
}

/* Every symbol of every dtype, flat and skewed; escapes at small maxlen. */
static void test_all_symbols(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };

	for (unsigned d = 0; d < 4; d++) {
		gt_huff_hist_init(&h, dts[d]);
		for (unsigned s = 0; s < gt_huff_nsyms(dts[d]); s++)
			h.count[s] = s == GT_HUFF_ESC(gt_dtype_exp_bits(dts[d])) ? 0 : 5;
		build_all(&h, 12);
		build_all(&h, 3);
		CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_PM, 0), 0);
		if (gt_huff_nsyms(dts[d]) <= 4096)
			CHECK(kraft(&t) == 1ull << 15); /* complete */
		for (unsigned s = 0; s < gt_huff_nsyms(dts[d]); s++)
			h.count[s] = (check_rand() % 3 == 0) ? 1ull << (check_rand() % 41) : 0;
		build_all(&h, 12);
		build_all(&h, 5);
	}
}

/* Fibonacci counts: native Huffman codes are as long as the alphabet. */
static void test_fibonacci_gcomp(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t, p;
	uint64_t a = 1, b = 1, bg, bp, eg, ep;
	unsigned nesc = 0;

	gt_huff_hist_init(&h, GT_DT_F32);
	for (unsigned s = 0; s < 58; s++) {
		h.count[s] = a;
		b += a;
		a = b - a;
	}
	CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_GCOMP, 0), 0);
	/* native lengths 57, 57, 56, ..., 1: lengths > 12 are escaped */
	for (unsigned s = 0; s < 58; s++)
		nesc += !t.len[s];
	CHECK(nesc == 46);
	CHECK(t.len[GT_HUFF_ESC(8)] == 12);
	for (unsigned s = 46; s < 58; s++)
		CHECK(t.len[s] == 58 - s);
	check_table(&t, GT_HUFF_STATIC);
	CHECK_RC(gt_huff_cost(&t, &h, &bg, &eg), 0);
	bp = 0;
	for (unsigned s = 0; s < 46; s++)
		bp += h.count[s];
	CHECK(eg == bp);
	CHECK_RC(gt_huff_build(&p, &h, 12, GT_HUFF_PM, 0), 0);
	CHECK_RC(gt_huff_cost(&p, &h, &bp, &ep), 0);
	CHECK(ep == 0 && bp <= bg);
	CHECK(kraft(&p) == 1ull << 15);
	CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_BEST, 0), 0);
	CHECK(!memcmp(t.len, p.len, sizeof(t.len)));
}

/* Brute force: the cheapest lengths 1..L over m symbols, Kraft <= 1. */
static uint64_t brute(const uint64_t *w, unsigned m, unsigned L, unsigned *len,
		      unsigned i, uint64_t kr)
{
	uint64_t best = UINT64_MAX;

	if (i == m)
		return 0;
	for (unsigned l = 1; l <= L; l++) {
		const uint64_t k = kr + (1ull << (L - l));
		uint64_t c;

		if (k > (1ull << L))
			continue;
		len[i] = l;
		c = brute(w, m, L, len, i + 1, k);
		if (c != UINT64_MAX && c + w[i] * l < best)
			best = c + w[i] * l;
	}
	return best;
}

static void test_pm_optimal(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	uint64_t w[7];
	unsigned len[7];

	for (int round = 0; round < 300; round++) {
		const unsigned m = 2 + (unsigned)(check_rand() % 6);
		unsigned L = 1;
		uint64_t cost = 0;

		while ((1u << L) < m)
			L++;
		L += (unsigned)(check_rand() % 3);
		gt_huff_hist_init(&h, GT_DT_F16);
		for (unsigned j = 0; j < m; j++) {
			w[j] = 1 + check_rand() % (round & 1 ? 1000 : 1u << (check_rand() % 30));
			h.count[3 * j] = w[j];
		}
		CHECK_RC(gt_huff_build(&t, &h, L, GT_HUFF_PM, 0), 0);
		for (unsigned j = 0; j < m; j++)
			cost += w[j] * t.len[3 * j];
		CHECK(cost == brute(w, m, L, len, 0, 0));
		CHECK(t.len[GT_HUFF_ESC(5)] == 0);
	}
}

/* PM with more symbols than 2^maxlen escapes the rarest. */
static void test_pm_escape(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	uint64_t bits, esc;

	gt_huff_hist_init(&h, GT_DT_F16);
	for (unsigned s = 0; s < 32; s++)
		h.count[s] = 100 + s;
	CHECK_RC(gt_huff_build(&t, &h, 3, GT_HUFF_PM, 0), 0);
	CHECK(t.len[GT_HUFF_ESC(5)] > 0);
	for (unsigned s = 0; s < 32; s++)
		CHECK(!!t.len[s] == (s >= 25));
	CHECK_RC(gt_huff_cost(&t, &h, &bits, &esc), 0);
	CHECK(esc == 25 * 100 + 300);
}

/* A slow reference tokenizer for gt_huff_hist(). */
static void ref_hist(struct gt_huff_hist *h, const float *v, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t u;
		size_t l = 0;

		memcpy(&u, &v[i], 4);
		if (!u) {
			uint32_t z = 0;

			while (i + l < n && (memcpy(&z, &v[i + l], 4), z == 0))
				l++;
			if (l >= GT_HUFF_RUN_MIN) {
				h->count[GT_HUFF_RUN(8)]++;
				h->run_zeros += l;
				h->run_bits += gt_huff_run_bits(l);
				i += l;
				continue;
			}
		}
		if (u & 0x7fffffffu)
			h->count[(u >> 23) & 0xff]++;
		else
			h->count[256 + (u >> 31)]++;
		i++;
	}
	h->n += n;
}

static void test_hist(void)
{
	static struct gt_huff_hist a, b;
	const size_t n = 20000;
	float *v = malloc(n * sizeof(*v));

	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < n; i++) {
			const uint64_t r = check_rand();

			v[i] = (r % 4 == 0) ? 0.0f : (float)((double)(r >> 20) * 1e-12);
			if (r % 97 == 0)
				v[i] = -0.0f;
		}
		for (int k = 0; k < 10; k++) { /* runs of all sorts of length */
			const size_t at = check_rand() % n;
			const size_t l = check_rand() % 200;

			for (size_t j = at; j < at + l && j < n; j++)
				v[j] = 0.0f;
		}
		gt_huff_hist_init(&a, GT_DT_F32);
		gt_huff_hist_init(&b, GT_DT_F32);
		gt_huff_hist(&a, v, n - (size_t)round);
		ref_hist(&b, v, n - (size_t)round);
		CHECK(!memcmp(&a, &b, sizeof(a)));
	}
	free(v);
}

/* f32 histogram fast path (quads, 8-value look-ahead) at every length
 * 0..70 with runs of 6..10 zeros at every offset, ending the input too. */
static void test_hist_edges(void)
{
	static struct gt_huff_hist a, b;
	float v[80];

	for (size_t n = 0; n <= 70; n++) {
		for (size_t at = 0; at <= n; at++) {
			for (size_t l = 6; l <= 10; l++) {
				for (size_t i = 0; i < n; i++) {
					const uint64_t r = check_rand();

					v[i] = (r % 3 == 0) ? 0.0f : (float)((double)(r >> 20) * 1e-12);
					if (r % 29 == 0)
						v[i] = -0.0f;
				}
				for (size_t j = at; j < at + l && j < n; j++)
					v[j] = 0.0f;
				gt_huff_hist_init(&a, GT_DT_F32);
				gt_huff_hist_init(&b, GT_DT_F32);
				gt_huff_hist(&a, v, n);
				ref_hist(&b, v, n);
				CHECK(!memcmp(&a, &b, sizeof(a)));
			}
		}
	}
}

/* ---- the f32 histogram on every instruction set ------------------------ */

/* A value of every kind: ±0.0, subnormals, Inf/NaN, any exponent, and
 * (@band > 0) normals with exponent fields within @band of 120. */
static uint32_t any_value(unsigned band)
{
	const uint64_t r = check_rand();
	const uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)(r >> 8) & 0x7fffffu;

	switch (r % 10) {
	case 0:
	case 1:
		return 0;
	case 2:
		return 0x80000000u;
	case 3:
		return sign | (man ? man : 1);               /* subnormal */
	case 4:
		return sign | 0x7f800000u | (r % 3 ? man : 0); /* NaN, Inf */
	default:
		if (band)
			return sign | (120 - band + (uint32_t)(r >> 32) % (2 * band + 1)) << 23 | man;
		return (uint32_t)(r >> 32);
	}
}

/* gt_huff_hist_isa() of @v on every usable isa against ref_hist(),
 * twice into one histogram (the counts add up). */
static int same_hist_all(const uint32_t *v, size_t n)
{
	static struct gt_huff_hist a, b;
	int ok = 1;

	gt_huff_hist_init(&b, GT_DT_F32);
	ref_hist(&b, (const float *)(const void *)v, n);
	for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa))
			continue;
		gt_huff_hist_init(&a, GT_DT_F32);
		gt_huff_hist_isa(&a, v, n, (enum gt_isa)isa);
		ok &= !memcmp(&a, &b, sizeof(a));
		gt_huff_hist_isa(&a, v, n, (enum gt_isa)isa);
		ok &= a.n == 2 * b.n && a.run_zeros == 2 * b.run_zeros &&
		      a.run_bits == 2 * b.run_bits;
		for (unsigned s = 0; s < 260; s++)
			ok &= a.count[s] == 2 * b.count[s];
	}
	return ok;
}

/* Every n from 0 to 300, values of every kind, with and without runs. */
static void test_hist_isa_small(void)
{
	uint32_t v[300];

	CHECK(gt_isa_usable(GT_ISA_PORTABLE));
	for (size_t n = 0; n <= 300; n++) {
		for (int round = 0; round < 6; round++) {
			for (size_t i = 0; i < n; i++)
				v[i] = any_value(round & 1 ? 6 : 0);
			for (int k = 0; round >= 2 && n && k < round; k++) {
				const size_t at = check_rand() % n, l = 1 + check_rand() % 40;

				for (size_t j = at; j < at + l && j < n; j++)
					v[j] = 0;
			}
			CHECK(same_hist_all(v, n));
		}
	}
}

/*
 * Runs of +0.0 of every length 1..40 at every alignment to 64 values
 * and around the end of the first chunk (GT_HUFF_CHUNK values), between
 * -0.0 (not part of a run) or other values; two runs one value apart;
 * inputs that end in a run.
 */
static void test_hist_isa_runs(void)
{
	const size_t ns[] = { 100, 1100, 2100 };
	uint32_t *v = malloc(2100 * sizeof(*v));

	for (unsigned t = 0; t < 3; t++) {
		const size_t n = ns[t];

		for (size_t l = 1; l <= 40; l++) {
			for (size_t at = 0; at + l <= n && at < 1100; at++) {
				if (at >= 64 && (at < 1024 - 48 || at > 1024 + 16))
					continue;
				for (size_t i = 0; i < n; i++)
					v[i] = any_value(3);
				for (size_t i = 0; i < n; i++)
					v[i] = v[i] ? v[i] : 0x80000000u; /* no other +0.0 */
				for (size_t j = at; j < at + l; j++)
					v[j] = 0;
				if (l & 1 && at + 2 * l + 1 <= n) /* a second run right after */
					for (size_t j = at + l + 1; j < at + 2 * l + 1; j++)
						v[j] = 0;
				CHECK(same_hist_all(v, n));
				CHECK(same_hist_all(v, at + l)); /* ends in the run */
			}
		}
	}
	free(v);
}

/*
 * Large inputs: runs longer than a chunk, across chunks and to the end;
 * all +0.0; a range of exponent fields that grows on both sides from one
 * chunk to the next; every exponent field.
 */
static void test_hist_isa_large(void)
{
	const size_t n = 70000;
	uint32_t *v = malloc(n * sizeof(*v));

	for (int round = 0; round < 8; round++) {
		for (size_t i = 0; i < n; i++)
			v[i] = any_value(round < 4 ? 1 + (unsigned)(i / 700) % 100 : 0);
		for (int k = 0; k < 20; k++) {
			const size_t at = check_rand() % n, l = check_rand() % (round & 1 ? 5000 : 300);

			for (size_t j = at; j < at + l && j < n; j++)
				v[j] = 0;
		}
		CHECK(same_hist_all(v, n - (size_t)round * 7));
	}
	memset(v, 0, n * sizeof(*v));
	CHECK(same_hist_all(v, n));
	CHECK(same_hist_all(v, 1030));
	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)(i % 512) << 23 | (uint32_t)(i % 7);
	CHECK(same_hist_all(v, n));
	free(v);
}

/* ---- tables: the same bytes as before ----------------------------------- */

/* A fixed sequence (not the test's seed: the digest is a constant). */
static uint64_t fixed_rand(uint64_t *st)
{
	uint64_t z = (*st += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Histogram @k of a varied set: few or many symbols, flat, skewed or
 * Fibonacci counts (long codes), huge counts, ±0.0 and runs. */
static void varied_hist(struct gt_huff_hist *h, uint64_t *st)
{
	const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F32, GT_DT_BF16, GT_DT_F16, GT_DT_F64 };
	const enum gt_dtype dt = dts[fixed_rand(st) % 5];
	const unsigned ns = gt_huff_nsyms(dt), eb = gt_dtype_exp_bits(dt);
	const unsigned shape = (unsigned)(fixed_rand(st) % 6);
	unsigned k = (unsigned)(fixed_rand(st) % (shape == 5 ? ns : 70));
	const unsigned base = (unsigned)(fixed_rand(st) % ns);
	uint64_t f0 = 1, f1 = 1;

	gt_huff_hist_init(h, dt);
	for (unsigned j = 0; j < k; j++) {
		const unsigned s = shape == 2 ? (base + j) % ns : (unsigned)(fixed_rand(st) % ns);
		const uint64_t r = fixed_rand(st);
		uint64_t c = 1 + r % 1000;

		if (shape == 1)
			c = 1 + (r % 100000) / (1 + j * j);
		if (shape == 3) {
			c = f0;
			f0 = f1;
			f1 += c;
		}
		if (shape == 4)
			c = r % 4 ? 1 : r >> (20 + r % 40);
		if (s != GT_HUFF_ESC(eb))
			h->count[s] += c;
	}
	if (h->count[GT_HUFF_RUN(eb)]) {
		h->run_zeros = h->count[GT_HUFF_RUN(eb)] * 20;
		h->run_bits = h->count[GT_HUFF_RUN(eb)] * 9;
		if (shape & 1)
			h->count[GT_HUFF_ZERO(eb)] = 0;
	}
	for (unsigned s = 0; s < ns; s++)
		h->n += h->count[s];
}

/* gt_huff_enc_words() against a gt_huff_resolve() of every symbol. */
static void check_enc_words(const struct gt_huff_table *t)
{
	static uint64_t enc[GT_HUFF_NSYM_MAX + 1];
	const unsigned esc = GT_HUFF_ESC(gt_dtype_exp_bits(t->dtype));
	int ok = 1;

	enc[t->nsyms] = 12345; /* not written */
	gt_huff_enc_words(t, enc);
	for (unsigned s = 0; s < t->nsyms; s++) {
		struct gt_huff_sym r;
		uint64_t want = UINT64_C(1) << 41;

		if (s != esc && !gt_huff_resolve(t, s, &r))
			want = r.bits | (uint64_t)r.nbits << 32 | (uint64_t)r.mant << 40;
		ok &= enc[s] == want;
	}
	CHECK(ok && enc[t->nsyms] == 12345);
}

/* Everything the codecs take from a table: saved bytes, lengths, codes,
 * cost and every symbol's resolve. */
static uint64_t table_digest(uint64_t hsh, const struct gt_huff_table *t,
			     const struct gt_huff_hist *h)
{
	unsigned char buf[GT_HUFF_SAVE_MAX];
	uint64_t v[3] = { 0 };
	size_t len = 0;

	CHECK_RC(gt_huff_save(t, buf, sizeof(buf), &len), 0);
	hsh = check_fnv(hsh, buf, len);
	hsh = check_fnv(hsh, t->len, t->nsyms);
	hsh = check_fnv(hsh, t->code, t->nsyms * sizeof(t->code[0]));
	v[0] = (uint64_t)gt_huff_cost(t, h, &v[1], &v[2]);
	hsh = check_fnv(hsh, v, sizeof(v));
	for (unsigned s = 0; s < t->nsyms; s++) {
		struct gt_huff_sym r = { 0, 0, 0, 0 };
		const uint64_t w[2] = { (uint64_t)gt_huff_resolve(t, s, &r),
					r.bits | (uint64_t)r.nbits << 32 |
						(uint64_t)r.mant << 40 | (uint64_t)r.escaped << 41 };

		hsh = check_fnv(hsh, w, sizeof(w));
	}
	hsh = check_fnv(hsh, &(uint64_t){ (uint64_t)gt_huff_runs_used(t) }, 8);
	check_enc_words(t);
	return hsh;
}

/*
 * Tables of 3000 varied histograms, every method, maxlen and flag, hashed
 * (FNV-1a of table_digest()) against the digest the builder of commit
 * d54b436 gives: a faster builder must build the same tables.
 */
static void test_tables_golden(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	uint64_t st = 12345, hsh = UINT64_C(0xcbf29ce484222325);

	for (int c = 0; c < 3000; c++) {
		const unsigned maxlen = 1 + (unsigned)(fixed_rand(&st) % 15);
		const unsigned flags = (unsigned)(fixed_rand(&st) % 3 == 0);
		const int m = (int)(fixed_rand(&st) % 3);

		varied_hist(&h, &st);
		CHECK_RC(gt_huff_build(&t, &h, c % 4 ? 12 : maxlen, (enum gt_huff_method)m, flags), 0);
		hsh = table_digest(hsh, &t, &h);
	}
	CHECK(hsh == UINT64_C(0x8d1d9c13634fde8d));
}

/* ---- a reference package-merge ------------------------------------------ */

#define REF_N 302 /* items: up to 300 symbols and ESC */

struct ref_item {
	uint64_t w;
	unsigned sym;   /* a leaf's symbol */
	int leaf;
	unsigned i;     /* a leaf's index in the sorted items; a package's */
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_item *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

/* The leaves of item @k of level @lev: one more level for each. */
static void ref_select(struct ref_item (*lv)[2 * REF_N], unsigned lev, unsigned k,
		       unsigned *len)
{
	const struct ref_item *x = &lv[lev][k];

	if (x->leaf) {
		len[x->i]++;
		return;
	}
	ref_select(lv, lev + 1, 2 * x->i, len);
	ref_select(lv, lev + 1, 2 * x->i + 1, len);
}

/*
 * Package-merge as the textbook has it, one item at a time: level L is
 * the @n sorted leaves, level k the leaves merged with the packages of
 * two items of level k + 1 (a leaf first on equal weights), and every
 * leaf under the first 2n - 2 items of level 1 gets one more bit.
 */
static void ref_package_merge(const struct ref_item *leaves, unsigned n, unsigned L,
			      unsigned *len)
{
	static struct ref_item lv[GT_HUFF_MAXLEN_MAX + 1][2 * REF_N];
	unsigned cnt = n;

	memcpy(lv[L], leaves, n * sizeof(*leaves));
	for (unsigned j = 0; j < n; j++) {
		lv[L][j].leaf = 1;
		lv[L][j].i = j;
		len[j] = 0;
	}
	for (unsigned lev = L - 1; lev >= 1; lev--) {
		const unsigned np = cnt / 2;
		unsigned a = 0, b = 0, k = 0;

		while (a < n || b < np) {
			const uint64_t pw = b < np ? lv[lev + 1][2 * b].w + lv[lev + 1][2 * b + 1].w : 0;

			if (a < n && (b == np || lv[L][a].w <= pw)) {
				lv[lev][k++] = lv[L][a++];
			} else {
				lv[lev][k].w = pw;
				lv[lev][k].leaf = 0;
				lv[lev][k++].i = b++;
			}
		}
		cnt = k;
	}
	for (unsigned k = 0; k < 2 * n - 2; k++)
		ref_select(lv, 1, k, len);
}

/* The PM lengths gt_huff.h describes for @h (no count of ESC or RUN):
 * present symbols, the rarest escaped when they are more than 2^L. */
static void ref_pm_table(const struct gt_huff_hist *h, unsigned L, unsigned flags,
			 uint8_t *lens)
{
	static struct ref_item it[GT_HUFF_NSYM_MAX + 1];
	unsigned len[REF_N];
	const unsigned esc = GT_HUFF_ESC(gt_dtype_exp_bits(h->dtype));
	const int need = (flags & GT_HUFF_STATIC) != 0;
	unsigned n = 0, skip = 0;
	uint64_t esc_w = 0;

	memset(lens, 0, GT_HUFF_NSYM_MAX);
	for (unsigned s = 0; s < gt_huff_nsyms(h->dtype); s++)
		if (h->count[s]) {
			it[n].w = h->count[s];
			it[n++].sym = s;
		}
	qsort(it, n, sizeof(it[0]), ref_cmp);
	if ((need || n > 1u << L) && n > (1u << L) - 1)
		skip = n - ((1u << L) - 1);
	for (unsigned j = 0; j < skip; j++)
		esc_w += it[j].w;
	memmove(it, it + skip, (n - skip) * sizeof(it[0]));
	n -= skip;
	if (need || skip) {
		it[n].w = esc_w ? esc_w : 1;
		it[n++].sym = esc;
		qsort(it, n, sizeof(it[0]), ref_cmp);
	}
	if (n == 1)
		lens[it[0].sym] = 1;
	if (n < 2)
		return;
	ref_package_merge(it, n, L, len);
	for (unsigned j = 0; j < n; j++)
		lens[it[j].sym] = (uint8_t)len[j];
}

/* Canonical codes of @t's lengths, bit-reversed, the slow way. */
static int codes_canonical(const struct gt_huff_table *t)
{
	unsigned code = 0;
	int ok = 1;

	for (unsigned l = 1; l <= GT_HUFF_MAXLEN_MAX; l++, code <<= 1) {
		for (unsigned s = 0; s < t->nsyms; s++) {
			unsigned r = 0;

			if (t->len[s] != l)
				continue;
			for (unsigned b = 0; b < l; b++)
				r |= (code >> b & 1) << (l - 1 - b);
			ok &= t->code[s] == r;
			code++;
		}
	}
	for (unsigned s = 0; s < t->nsyms; s++)
		ok &= t->len[s] || !t->code[s];
	return ok;
}

/* 2..300 exponent symbols (f64's alphabet past f32's), with weights of
 * one of six shapes, most of them full of ties; total < 2^48 (no
 * rescaling in gather). */
static unsigned ties_hist(struct gt_huff_hist *h)
{
	const unsigned m = 2 + (unsigned)(check_rand() % 299);
	const enum gt_dtype dt = m > 200 ? GT_DT_F64 : m > 24 ? GT_DT_F32 : GT_DT_F16;
	const unsigned ne = 1u << gt_dtype_exp_bits(dt), shape = (unsigned)(check_rand() % 6);
	const unsigned step = 1 + (unsigned)(check_rand() % 3);
	uint64_t f0 = 1, f1 = 1;

	gt_huff_hist_init(h, dt);
	for (unsigned j = 0, s = (unsigned)(check_rand() % ne); j < m; j++) {
		uint64_t c = 7; /* shape 0: all equal */

		while (h->count[s % ne])
			s++;
		if (shape == 1)
			c = 1 + check_rand() % 3;
		else if (shape == 2)
			c = 1 + check_rand() % 1000;
		else if (shape == 3) /* Fibonacci: long native codes */
			c = j < 60 ? f0 : 1 + check_rand() % 5;
		else if (shape == 4)
			c = 1ull << (check_rand() % 8 * step);
		else if (shape == 5)
			c = 1 + (check_rand() >> (26 + check_rand() % 38));
		f1 += f0;
		f0 = f1 - f0;
		h->count[s % ne] = c;
		s += step;
	}
	return m;
}

/*
 * PM against the reference on random histograms, every maxlen, flags
 * random: the same lengths; codes canonical; BEST is PM or GCOMP,
 * whichever costs less (PM on a tie).
 */
static void test_pm_reference(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t, g, b;
	static uint8_t want[GT_HUFF_NSYM_MAX];

	for (int round = 0; round < 3000; round++) {
		const unsigned m = ties_hist(&h);
		const unsigned L = 1 + (unsigned)(round % 15);
		const unsigned flags = (unsigned)(check_rand() % 2);
		uint64_t cp, cg, e;
		int ok;

		ref_pm_table(&h, L, flags, want);
		CHECK_RC(gt_huff_build(&t, &h, L, GT_HUFF_PM, flags), 0);
		ok = !memcmp(t.len, want, t.nsyms);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "round %d: m %u L %u flags %u\n", round, m, L, flags);
		CHECK(codes_canonical(&t));
		CHECK_RC(gt_huff_build(&g, &h, L, GT_HUFF_GCOMP, flags), 0);
		CHECK_RC(gt_huff_build(&b, &h, L, GT_HUFF_BEST, flags), 0);
		CHECK(codes_canonical(&g) && codes_canonical(&b));
		CHECK_RC(gt_huff_cost(&t, &h, &cp, &e), 0);
		CHECK_RC(gt_huff_cost(&g, &h, &cg, &e), 0);
		CHECK(!memcmp(&b, cg < cp ? &g : &t, sizeof(b)));
	}
}

/* BEST when PM escapes the rarest (its items are not GCOMP's, which
 * include every symbol, so the builders share nothing) and GCOMP's table
 * costs less: BEST is GCOMP's. */
static void test_best_skipped(void)
{
	static const uint64_t c[7] = { 29, 23, 20, 65, 3, 4, 153 };
	static struct gt_huff_hist h;
	static struct gt_huff_table p, g, b;
	uint64_t cp, cg, e;

	gt_huff_hist_init(&h, GT_DT_F16);
	memcpy(h.count, c, sizeof(c));
	CHECK_RC(gt_huff_build(&p, &h, 2, GT_HUFF_PM, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_build(&g, &h, 2, GT_HUFF_GCOMP, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_build(&b, &h, 2, GT_HUFF_BEST, GT_HUFF_STATIC), 0);
	for (unsigned s = 0; s < 7; s++) /* the three rarest escaped */
		CHECK(p.len[s] == (s == 0 || s == 3 || s == 6 ? 2 : 0));
	CHECK(p.len[GT_HUFF_ESC(5)] == 2);
	CHECK_RC(gt_huff_cost(&p, &h, &cp, &e), 0);
	CHECK_RC(gt_huff_cost(&g, &h, &cg, &e), 0);
	CHECK(cp == 4111 && cg == 4103);
	CHECK(!memcmp(&b, &g, sizeof(b)));
}

/* Bit-by-bit decoding against the canonical codes vs the LUT. */
static unsigned slow_decode(const struct gt_huff_table *t, struct gt_bitr *r)
{
	unsigned code = 0;

	for (unsigned l = 1; l <= t->maxlen; l++) {
		code |= (unsigned)gt_bitr_get(r, 1) << (l - 1);
		for (unsigned s = 0; s < t->nsyms; s++)
			if (t->len[s] == l && t->code[s] == code)
				return s;
	}
	return ~0u;
}

static void test_lut_vs_slow(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	static uint16_t lut[GT_HUFF_LUT_MAX];
	static unsigned syms[3000];
	static unsigned char buf[3000 * 2 + 8];
	struct gt_bitw w;
	struct gt_bitr r1, r2;
	size_t len;
	unsigned nc = 0, list[GT_HUFF_NSYM_MAX];

	gt_huff_hist_init(&h, GT_DT_F32);
	for (unsigned s = 0; s < 260; s++)
		h.count[s] = check_rand() % 2 ? 1 + (check_rand() % (1u << (s % 20))) : 0;
	CHECK_RC(gt_huff_build(&t, &h, 11, GT_HUFF_GCOMP, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_lut(&t, lut, GT_HUFF_LUT_MAX), 0);
	for (unsigned s = 0; s < t.nsyms; s++)
		if (t.len[s])
			list[nc++] = s;
	gt_bitw_init(&w, buf, sizeof(buf));
	for (int i = 0; i < 3000; i++) {
		syms[i] = list[check_rand() % nc];
		gt_bitw_put(&w, t.code[syms[i]], t.len[syms[i]]);
		gt_bitw_flush(&w);
	}
	CHECK_RC(gt_bitw_close(&w, &len), 0);
	gt_bitr_init(&r1, buf, len);
	gt_bitr_init(&r2, buf, len);
	for (int i = 0; i < 3000; i++) {
		unsigned e;

		gt_bitr_refill(&r1);
		e = lut[gt_bitr_peek(&r1, t.maxlen)];
		gt_bitr_consume(&r1, GT_HUFF_LUT_LEN(e));
		CHECK(GT_HUFF_LUT_SYM(e) == syms[i]);
		CHECK(slow_decode(&t, &r2) == syms[i]);
	}
	CHECK_RC(gt_bitr_finish(&r1), 0);
}

static void test_load_rejects(void)
{
	static struct gt_huff_table t;
	/* version, f32, maxlen 4, k = 3: sym 0 len 1, sym 1 len 1, sym 2 len 1 */
	unsigned char kr[] = { 1, 1, 4, 3, 0, 0x01, 0x01, 0x01 };
	unsigned char ok[] = { 1, 1, 4, 2, 0, 0x01, 0x01 };
	unsigned char toolong[] = { 1, 1, 4, 1, 0, 0x05 };
	unsigned char badsym[] = { 1, 1, 4, 1, 0, 0xf1, 0xff, 0x7f };
	unsigned char badsym2[] = { 1, 1, 4, 1, 0, 0xf1, 0xff, 0x02 }; /* gap 15+127+256 */
	unsigned char baddt[] = { 1, 9, 4, 0, 0 };
	unsigned char badml[] = { 1, 1, 16, 0, 0 };
	unsigned char badver[] = { 2, 1, 4, 0, 0 };
	unsigned char trail[] = { 1, 1, 4, 0, 0, 0 };
	unsigned char zerolen[] = { 1, 1, 4, 1, 0, 0x00 };
	unsigned char esc[] = { 1, 1, 4, 1, 0, 0xf1, 0xf4, 0x01 }; /* sym 259 = ESC */

	CHECK_RC(gt_huff_load(&t, ok, sizeof(ok), 0), 0);
	CHECK_RC(gt_huff_load(&t, ok, sizeof(ok), GT_HUFF_STATIC), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, esc, sizeof(esc), GT_HUFF_STATIC), 0);
	CHECK(t.len[259] == 1);
	CHECK_RC(gt_huff_load(&t, kr, sizeof(kr), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, toolong, sizeof(toolong), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, badsym, sizeof(badsym), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, badsym2, sizeof(badsym2), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, baddt, sizeof(baddt), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, badml, sizeof(badml), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, badver, sizeof(badver), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, trail, sizeof(trail), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, zerolen, sizeof(zerolen), 0), GT_ERR(CORRUPT));
	CHECK_RC(gt_huff_load(&t, ok, 3, 0), GT_ERR(TRUNCATED));
}

/* The multi-symbol table's size by block: none under 512 values, 8, 9
 * and 10 bits for blocks under 4096, 32768 and 65536, the decoder's
 * largest above; never wider than the longest code. */
static void test_mlut_bits(void)
{
	static const struct { size_t n; unsigned bits; } want[] = {
		{ 0, 0 }, { 511, 0 }, { 512, 8 }, { 2048, 8 }, { 4095, 8 }, { 4096, 9 }, { 32767, 9 },
		{ 32768, 10 }, { 65535, 10 }, { 65536, 12 }, { SIZE_MAX, 12 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK(gt_huff_mlut_bits(want[i].n, 15, 12) == want[i].bits);
		CHECK(gt_huff_mlut_bits(want[i].n, 15, 11) == (want[i].bits == 12 ? 11 : want[i].bits));
		CHECK(gt_huff_mlut_bits(want[i].n, 7, 12) == (want[i].bits ? 7 : 0));
	}
}

/* The test's word of a multi-symbol entry: every argument in it. */
static uint64_t test_mword(const void *arg, unsigned s, unsigned k, unsigned nc)
{
	return ((uint64_t)s | (uint64_t)nc << 9 | (uint64_t)(arg != NULL) << 11) << (8 + 17 * k);
}

/* gt_huff_mlut_fill() against decoding each entry code by code with the
 * LUT, for random f32 tables (with ESC, RUN, codes longer than the
 * index), every index width up to 12, with and without the count of
 * exponent codes, and symbols past a limit ending an entry. */
static void test_mlut_fill(void)
{
	static uint64_t got[1u << 12];
	static uint16_t lut[1u << GT_HUFF_MAXLEN_MAX];
	struct gt_huff_mcode mc[GT_HUFF_NZERO(8) + 1];

	for (int t = 0; t < 40; t++) {
		struct gt_huff_hist h;
		struct gt_huff_table tab;
		const unsigned maxsym = t % 3 ? GT_HUFF_NZERO(8) : 200;
		const unsigned nc_at = t % 2 ? 56 : 0;
		unsigned lbits;

		gt_huff_hist_init(&h, GT_DT_F32);
		for (unsigned s = 0; s < gt_huff_nsyms(GT_DT_F32); s++)
			if (check_rand() % 4 == 0)
				h.count[s] = 1 + check_rand() % (1u << (check_rand() % 20));
		h.count[100 + t] += 1000;
		CHECK_RC(gt_huff_build(&tab, &h, 4 + (unsigned)t % 9, GT_HUFF_PM, 0), 0);
		CHECK_RC(gt_huff_lut_fit(&tab, lut, sizeof(lut) / sizeof(lut[0]), &lbits), 0);
		for (unsigned B = 1; B <= 12 && B <= lbits; B++) {
			const unsigned nmc = gt_huff_mcodes(&tab, maxsym, B, mc);

			gt_huff_mlut_fill(got, B, mc, nmc, test_mword, &tab, nc_at);
			for (unsigned x = 0; x < (1u << B); x++) {
				unsigned pos = 0, k = 0, nc = 0;
				uint64_t want = 0;

				while (k < 3) {
					const unsigned e = lut[x >> pos], l = GT_HUFF_LUT_LEN(e);
					const unsigned sym = GT_HUFF_LUT_SYM(e);

					if (!l || l > B - pos || sym > maxsym)
						break;
					want |= test_mword(&tab, sym, k, nc);
					nc += sym < 256;
					pos += l;
					k++;
				}
				if (k)
					want |= pos | k << 6 | (nc_at ? (uint64_t)nc << nc_at : 0);
				CHECK(got[x] == want);
			}
		}
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_mlut_bits);
	RUN(test_mlut_fill);
	RUN(test_degenerate);
	RUN(test_all_symbols);
	RUN(test_fibonacci_gcomp);
	RUN(test_pm_optimal);
	RUN(test_pm_escape);
	RUN(test_hist);
	RUN(test_hist_edges);
	RUN(test_hist_isa_small);
	RUN(test_hist_isa_runs);
	RUN(test_hist_isa_large);
	RUN(test_tables_golden);
	RUN(test_pm_reference);
	RUN(test_best_skipped);
	RUN(test_lut_vs_slow);
	RUN(test_load_rejects);
	return check_done("test_huff");
}
