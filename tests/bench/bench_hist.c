/* bench_hist.c - one-thread speed of the f32 exponent histogram and of the
 * per-block table work (build, save, cost, resolve) on a trace's tensors */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gt_bitio.h"
#include "gt_codec.h"
#include "gt_huff.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"

/*
 * usage: bench_hist [--repeat N] [--method gcomp|pm|best] [--values N]
 *	[--enc-words] [--build-only] TRACE.h5
 *
 * Every f32 gradient tensor of the trace is one block, as gcomp and
 * huffexp code it; with --values, the blocks are copied (to fresh
 * memory) until there are at least N values, as bench_codec does, so
 * that the histogram reads them from memory, not from the cache.  Prints the median of N runs (default 11) over all
 * blocks: the histogram with each instruction set this CPU has (ns per
 * value), and gt_huff_build (maxlen 12) + gt_huff_save + gt_huff_cost +
 * gt_huff_resolve of every symbol, as the codecs do per block (us per
 * block; --enc-words: gt_huff_enc_words instead), and a checksum of the saved tables (the same before and after
 * a change that must not change them).  --build-only: gt_huff_build
 * alone is timed (its lengths and codes are still summed).
 */

#define MAX_SEGS 8192

struct seg {
	float *v;
	size_t n;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t load(const char *path, struct seg *sg)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	size_t ns = 0;

	if (gt_source_open(path, NULL, &s, &d) < 0 || gt_trace_open(s, &tr, &d) < 0) {
		fprintf(stderr, "bench_hist: %s: %s\n", path, d.msg);
		exit(1);
	}
	for (size_t k = 0; k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		for (size_t g = 0; g < st->n_grads && ns < MAX_SEGS; g++) {
			const struct gt_tensor_info *ti = gt_source_info(s, st->grads[g]);
			size_t got = 0;

			if (ti->dtype != GT_DT_F32 || !ti->count)
				continue;
			sg[ns].n = (size_t)ti->count;
			sg[ns].v = malloc(sg[ns].n * sizeof(float));
			if (!sg[ns].v || gt_source_read(s, st->grads[g], 0, sg[ns].n, sg[ns].v,
							&got, &d) < 0 || got != sg[ns].n) {
				fprintf(stderr, "bench_hist: %s: cannot read a tensor\n", path);
				exit(1);
			}
			ns++;
		}
	}
	gt_trace_free(tr);
	gt_source_free(s);
	return ns;
}

static double time_hist(const struct seg *sg, size_t ns, enum gt_isa isa,
			struct gt_huff_hist *h)
{
	const double t0 = now();

	for (size_t j = 0; j < ns; j++) {
		gt_huff_hist_init(&h[j], GT_DT_F32);
		gt_huff_hist_isa(&h[j], sg[j].v, sg[j].n, isa);
	}
	return now() - t0;
}

/* gt_huff_build of every block; *@sum_ret: a checksum of the tables. */
static double time_builds(const struct gt_huff_hist *h, size_t ns,
			  enum gt_huff_method method, uint64_t *sum_ret)
{
	static struct gt_huff_table t;
	uint64_t sum = 0;
	double el = 0;

	for (size_t j = 0; j < ns; j++) {
		const double t0 = now();

		if (gt_huff_build(&t, &h[j], 12, method, 0) < 0)
			exit(1);
		el += now() - t0;
		for (unsigned s = 0; s < t.nsyms; s++)
			sum = sum * 31 + (t.len[s] | (uint64_t)t.code[s] << 8);
	}
	*sum_ret = sum;
	return el;
}

/* The table work of every block; *@sum_ret: a checksum of the bytes. */
static double time_tables(const struct gt_huff_hist *h, size_t ns,
			  enum gt_huff_method method, int enc_words, uint64_t *sum_ret)
{
	static struct gt_huff_table t;
	static uint64_t enc[GT_HUFF_NSYM_MAX];
	unsigned char buf[GT_HUFF_SAVE_MAX];
	uint64_t sum = 0, bits, esc;
	const double t0 = now();

	for (size_t j = 0; j < ns; j++) {
		struct gt_huff_sym r;
		size_t len = 0;

		if (gt_huff_build(&t, &h[j], 12, method, 0) < 0 ||
		    gt_huff_save(&t, buf, sizeof(buf), &len) < 0)
			exit(1);
		gt_huff_cost(&t, &h[j], &bits, &esc);
		if (enc_words) {
			gt_huff_enc_words(&t, enc);
			for (unsigned s = 0; s < t.nsyms; s++)
				sum += (uint32_t)enc[s] ^ (enc[s] >> 32 & 0xff);
		} else {
			for (unsigned s = 0; s < t.nsyms; s++) {
				enc[s] = UINT64_C(1) << 41;
				if (s != GT_HUFF_ESC(8) && !gt_huff_resolve(&t, s, &r))
					enc[s] = r.bits | (uint64_t)r.nbits << 32 |
						 (uint64_t)r.mant << 40;
				sum += (uint32_t)enc[s] ^ (enc[s] >> 32 & 0xff);
			}
		}
		for (size_t k = 0; k < len; k++)
			sum = sum * 31 + buf[k];
		sum += bits;
	}
	*sum_ret = sum;
	return now() - t0;
}

int main(int argc, char **argv)
{
	static struct seg sg[MAX_SEGS];
	static double t[101];
	struct gt_huff_hist *h;
	enum gt_huff_method method = GT_HUFF_BEST;
	int reps = 11, a = 1, enc_words = 0, build_only = 0;
	size_t ns, nv = 0, want = 0;
	uint64_t sum = 0;

	for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		if (!strcmp(argv[a], "--enc-words")) {
			enc_words = 1;
			a--;
		} else if (!strcmp(argv[a], "--build-only")) {
			build_only = 1;
			a--;
		} else if (!strcmp(argv[a], "--repeat"))
			reps = atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--values"))
			want = (size_t)atol(argv[a + 1]);
		else if (!strcmp(argv[a], "--method"))
			method = (enum gt_huff_method)gt_huff_method_parse(argv[a + 1]);
	}
	if (a != argc - 1 || reps < 1 || reps > 101 || (int)method < 0) {
		fprintf(stderr, "usage: bench_hist [--repeat N] [--method M] [--values N] "
			"[--enc-words] [--build-only] TRACE.h5\n");
		return 2;
	}
	ns = load(argv[a], sg);
	for (size_t j = 0; j < ns; j++)
		nv += sg[j].n;
	for (size_t j = 0, ns0 = ns; nv < want && ns < MAX_SEGS; j = (j + 1) % ns0) {
		sg[ns].n = sg[j].n;
		sg[ns].v = malloc(sg[j].n * sizeof(float));
		if (!sg[ns].v)
			return 1;
		memcpy(sg[ns].v, sg[j].v, sg[j].n * sizeof(float));
		nv += sg[ns++].n;
	}
	h = malloc(ns * sizeof(*h));
	if (!h)
		return 1;
	printf("%s: %zu blocks, %zu values (%.0f a block)\n", argv[a], ns, nv,
	       (double)nv / (double)ns);
	for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa))
			continue;
		for (int r = 0; r < reps; r++)
			t[r] = time_hist(sg, ns, (enum gt_isa)isa, h);
		qsort(t, (size_t)reps, sizeof(t[0]), cmp_d);
		printf("hist %-8s %6.3f ns/value\n", gt_isa_name((enum gt_isa)isa),
		       t[reps / 2] * 1e9 / (double)nv);
	}
	for (int r = 0; r < reps; r++)
		t[r] = build_only ? time_builds(h, ns, method, &sum)
				  : time_tables(h, ns, method, enc_words, &sum);
	qsort(t, (size_t)reps, sizeof(t[0]), cmp_d);
	printf("%s %s%s: %.3f us/block (checksum %016llx)\n",
	       build_only ? "builds" : "tables", gt_huff_method_name(method),
	       enc_words && !build_only ? " (enc_words)" : "", t[reps / 2] * 1e6 / (double)ns,
	       (unsigned long long)sum);
	return 0;
}
