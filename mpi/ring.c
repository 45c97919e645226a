/* ring.c - a ring allreduce with per-chunk compression, pipelined, over MPI */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring.h"
#include "../lib/banned.h"

/* A coded message: 2 bytes of block-table length, the table, the chunk. */
#define HDR 2
/* Chunks in flight each way: double buffering. */
#define SLOTS 2

/* Every coded chunk of one partition: chunk k at bytes + k * max_msg. */
struct store {
	unsigned char *bytes;
	size_t *len;
};

struct ring {
	MPI_Comm comm;
	int rank, size, left, right;
	size_t n, chunk, kmax, max_msg;
	double rate;
	struct ring_codec codec;
	const struct rank_grad *ctx;
	struct store st[2];
	float *tmp;                 /* one decoded or received chunk */
	float *raw[SLOTS];          /* codec none: the chunks received */
	/* during a run */
	float *buf;
	struct ring_stats *stats;
	double link_free;
	MPI_Request sreq[SLOTS], rreq[SLOTS];
	double release[SLOTS];
	const void *smsg[SLOTS];
	size_t slen[SLOTS];
};

/* One step of the ring: the partition sent and the one received. */
struct step {
	size_t soff, slen, roff, rlen; /* values */
	size_t ks, kr;                 /* their chunks */
	int tag;
	int reduce;                    /* reduce-scatter: add what arrives */
	int own;                       /* allgather step 0: code the own partition */
	struct store *in, *out;
	size_t produced, posted, sent, received, rposted;
};

static double now(void)
{
	return MPI_Wtime();
}

static size_t part_off(const struct ring *r, int p)
{
	return (size_t)((unsigned long long)r->n * (unsigned)p / (unsigned)r->size);
}

static size_t nchunks(const struct ring *r, size_t len)
{
	return (len + r->chunk - 1) / r->chunk;
}

static int alloc_bufs(struct ring *r)
{
	r->tmp = malloc(r->chunk * sizeof(float));
	for (int s = 0; s < SLOTS; s++)
		r->raw[s] = malloc(r->chunk * sizeof(float));
	if (!r->tmp || !r->raw[0] || !r->raw[1])
		return GT_ERR(NOMEM);
	for (int s = 0; r->codec.enc && s < 2; s++) {
		r->st[s].bytes = malloc(r->kmax * r->max_msg);
		r->st[s].len = calloc(r->kmax, sizeof(size_t));
		if (!r->st[s].bytes || !r->st[s].len)
			return GT_ERR(NOMEM);
	}
	return 0;
}

int ring_new(MPI_Comm comm, size_t n, size_t chunk, double rate,
	     const struct ring_codec *codec, const struct rank_grad *ctx,
	     struct ring **ret)
{
	struct ring *r = calloc(1, sizeof(*r));
	size_t bound;
	int rc = GT_ERR(OVERFLOW);

	*ret = NULL;
	if (!r)
		return GT_ERR(NOMEM);
	r->comm = comm;
	MPI_Comm_rank(comm, &r->rank);
	MPI_Comm_size(comm, &r->size);
	r->left = (r->rank + r->size - 1) % r->size;
	r->right = (r->rank + 1) % r->size;
	r->n = n;
	r->chunk = chunk < 1 ? 1 : chunk;
	r->rate = rate;
	r->codec = *codec;
	r->ctx = ctx;
	r->kmax = nchunks(r, (n + (size_t)r->size - 1) / (size_t)r->size) + 1;
	bound = codec->enc ? gt_codec_bound(codec->enc, r->chunk) : r->chunk * sizeof(float);
	r->max_msg = HDR + GT_CODEC_META_MAX + bound;
	if (bound && r->max_msg <= (size_t)1 << 31 && r->kmax <= SIZE_MAX / r->max_msg)
		rc = alloc_bufs(r);
	if (rc < 0) {
		ring_free(r);
		return rc;
	}
	*ret = r;
	return 0;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	for (int s = 0; s < 2; s++) {
		free(r->st[s].bytes);
		free(r->st[s].len);
		free(r->raw[s]);
	}
	free(r->tmp);
	free(r);
}

/* ---- coding ------------------------------------------------------------ */

/* Code @m values at global offset @off into @dst; *@len_ret bytes. */
static int encode(struct ring *r, size_t off, size_t m, unsigned char *dst,
		  size_t *len_ret)
{
	const float *src = r->buf + off;
	struct gt_codec_aux aux = { .param = NULL }; /* f32: no 64-bit arrays */
	const double t0 = now();
	size_t ml = 0, pl = 0;
	int rc;

	rc = gt_codec_block_begin(r->codec.enc, src, m, dst + HDR, GT_CODEC_META_MAX, &ml);
	if (rc >= 0)
		rc = gt_codec_block_load(r->codec.enc, dst + HDR, ml);
	if (rc >= 0 && r->codec.aux) {
		aux.param = r->ctx->param + off;
		for (int k = 0; k < 2; k++)
			aux.state[k] = r->ctx->state[k] ? r->ctx->state[k] + off : NULL;
	}
	if (rc >= 0)
		rc = gt_codec_encode_aux(r->codec.enc, src, m, r->codec.aux ? &aux : NULL,
					 dst + HDR + ml, r->max_msg - HDR - ml, &pl);
	dst[0] = (unsigned char)(ml & 0xff);
	dst[1] = (unsigned char)(ml >> 8);
	*len_ret = HDR + ml + pl;
	r->stats->compress += now() - t0;
	return rc;
}

/* Decode message @msg (@len bytes) of @m values into @dst. */
static int decode(struct ring *r, const unsigned char *msg, size_t len, size_t m,
		  float *dst)
{
	const double t0 = now();
	size_t ml;
	int rc;

	if (len < HDR)
		return GT_ERR(TRUNCATED);
	ml = (size_t)msg[0] | (size_t)msg[1] << 8;
	if (ml > len - HDR)
		return GT_ERR(TRUNCATED);
	rc = gt_codec_block_load(r->codec.dec, msg + HDR, ml);
	if (rc >= 0)
		rc = gt_codec_decode(r->codec.dec, msg + HDR + ml, len - HDR - ml, dst, m);
	r->stats->decompress += now() - t0;
	return rc;
}

static void reduce(struct ring *r, float *dst, const float *src, size_t m)
{
	const double t0 = now();

	for (size_t i = 0; i < m; i++)
		dst[i] += src[i];
	r->stats->reduce += now() - t0;
}

/* ---- one step ---------------------------------------------------------- */

static size_t chunk_len(const struct ring *r, size_t len, size_t k)
{
	return len - k * r->chunk < r->chunk ? len - k * r->chunk : r->chunk;
}

/* Step @g of 2 (P - 1): reduce-scatter steps first, then allgather. */
static void setup_step(struct ring *r, struct step *io, int g)
{
	const int p = r->size, rs = g < p - 1, s = rs ? g : g - (p - 1);
	const int sp = ((rs ? r->rank - s : r->rank + 1 - s) + 2 * p) % p;
	const int rp = ((rs ? r->rank - s - 1 : r->rank - s) + 2 * p) % p;

	memset(io, 0, sizeof(*io));
	io->soff = part_off(r, sp);
	io->slen = part_off(r, sp + 1) - io->soff;
	io->roff = part_off(r, rp);
	io->rlen = part_off(r, rp + 1) - io->roff;
	io->ks = nchunks(r, io->slen);
	io->kr = nchunks(r, io->rlen);
	io->tag = g;
	io->reduce = rs;
	io->own = !rs && s == 0;
	io->in = &r->st[g % 2];
	io->out = &r->st[(g + 1) % 2];
}

/* Make chunk @k's message: raw floats, coded, or relayed as received. */
static int produce(struct ring *r, struct step *io, size_t k)
{
	const size_t off = io->soff + k * r->chunk, m = chunk_len(r, io->slen, k);
	const int s = (int)(k % SLOTS);
	size_t len = 0;
	int rc = 0;

	if (!r->codec.enc) {
		r->smsg[s] = r->buf + off;
		len = m * sizeof(float);
	} else if (!io->reduce && !io->own) {
		r->smsg[s] = io->out->bytes + k * r->max_msg;
		len = io->out->len[k];
	} else {
		unsigned char *dst = io->out->bytes + k * r->max_msg;

		rc = encode(r, off, m, dst, &len);
		io->out->len[k] = len;
		r->smsg[s] = dst;
		/* the owner keeps what the others will decode */
		if (rc >= 0 && io->own && !r->codec.lossless)
			rc = decode(r, dst, len, m, r->buf + off);
	}
	r->slen[s] = len;
	r->stats->bytes += len;
	r->stats->messages++;
	r->release[s] = 0;
	if (r->rate > 0) {
		const double t = now();

		r->link_free = (r->link_free > t ? r->link_free : t) + (double)len / r->rate;
		r->release[s] = r->link_free;
	}
	return rc;
}

static int post_send(struct ring *r, const struct step *io, size_t k)
{
	const int s = (int)(k % SLOTS);

	return MPI_Isend(r->smsg[s], (int)r->slen[s], MPI_BYTE, r->right, io->tag,
			 r->comm, &r->sreq[s]) == MPI_SUCCESS ? 0 : GT_ERR(IO);
}

static int post_recv(struct ring *r, const struct step *io, size_t k)
{
	const int s = (int)(k % SLOTS);
	const size_t m = chunk_len(r, io->rlen, k);
	void *dst = io->in->bytes + k * r->max_msg;
	size_t cap = r->max_msg;

	if (!r->codec.enc) {
		dst = io->reduce ? r->raw[s] : r->buf + io->roff + k * r->chunk;
		cap = m * sizeof(float);
	}
	return MPI_Irecv(dst, (int)cap, MPI_BYTE, r->left, io->tag, r->comm,
			 &r->rreq[s]) == MPI_SUCCESS ? 0 : GT_ERR(IO);
}

/* Chunk @k arrived (@len bytes): decode it, add it or keep it. */
static int consume(struct ring *r, struct step *io, size_t k, size_t len)
{
	const size_t off = io->roff + k * r->chunk, m = chunk_len(r, io->rlen, k);
	const unsigned char *msg;

	if (!r->codec.enc) {
		if (len != m * sizeof(float))
			return GT_ERR(TRUNCATED);
		if (io->reduce)
			reduce(r, r->buf + off, r->raw[k % SLOTS], m);
		return 0;
	}
	msg = io->in->bytes + k * r->max_msg;
	io->in->len[k] = len;
	if (!io->reduce)
		return decode(r, msg, len, m, r->buf + off);
	GT_TRY(decode(r, msg, len, m, r->tmp));
	reduce(r, r->buf + off, r->tmp, m);
	return 0;
}

/*
 * Nothing to do: sleep toward the next paced send, else a few
 * microseconds.  Sleeping rather than spinning leaves the core to the
 * ranks that are coding, which matters when ranks share cores.
 */
static void idle(const struct ring *r, const struct step *io)
{
	double gap = 5e-6;

	if (io->posted < io->produced) {
		const double until = r->release[io->posted % SLOTS] - now();

		if (until > 20e-6)
			gap = (until < 200e-6 ? until : 200e-6) * 0.5;
	}
	nanosleep(&(const struct timespec){ 0, (long)(gap * 1e9) }, NULL);
}

/* Test the oldest receive; consume it and post the next when it is in. */
static int poll_recv(struct ring *r, struct step *io, int *progress)
{
	MPI_Status status;
	int flag = 0, count = 0;
	const size_t k = io->received;

	if (MPI_Test(&r->rreq[k % SLOTS], &flag, &status) != MPI_SUCCESS)
		return GT_ERR(IO);
	if (!flag)
		return 0;
	*progress = 1;
	MPI_Get_count(&status, MPI_BYTE, &count);
	GT_TRY(consume(r, io, k, (size_t)count));
	io->received++;
	return io->rposted < io->kr ? post_recv(r, io, io->rposted++) : 0;
}

static int run_step(struct ring *r, struct step *io)
{
	int rc = 0;

	while (rc >= 0 && io->rposted < io->kr && io->rposted < SLOTS)
		rc = post_recv(r, io, io->rposted++);
	while (rc >= 0 && (io->sent < io->ks || io->received < io->kr)) {
		int progress = 0, flag = 0;

		if (io->produced < io->ks && io->produced < io->sent + SLOTS) {
			rc = produce(r, io, io->produced++);
			progress = 1;
		}
		if (rc >= 0 && io->posted < io->produced &&
		    now() >= r->release[io->posted % SLOTS]) {
			rc = post_send(r, io, io->posted++);
			progress = 1;
		}
		if (rc >= 0 && io->sent < io->posted) {
			if (MPI_Test(&r->sreq[io->sent % SLOTS], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				rc = GT_ERR(IO);
			io->sent += flag != 0;
			progress |= flag;
		}
		if (rc >= 0 && io->received < io->kr)
			rc = poll_recv(r, io, &progress);
		if (rc >= 0 && !progress)
			idle(r, io);
	}
	return rc;
}

int ring_run(struct ring *r, float *buf, struct ring_stats *st, struct gt_diag *d)
{
	const double t0 = now();

	memset(st, 0, sizeof(*st));
	r->buf = buf;
	r->stats = st;
	r->link_free = 0;
	for (int g = 0; g < 2 * (r->size - 1); g++) {
		struct step io;
		int rc;

		setup_step(r, &io, g);
		rc = run_step(r, &io);
		if (rc < 0) {
			snprintf(d->msg, sizeof(d->msg), "%s step %d: chunk %zu from rank %d: %s",
				 g < r->size - 1 ? "reduce-scatter" : "allgather",
				 g < r->size - 1 ? g + 1 : g - r->size + 2, io.received,
				 r->left, gt_strerror(rc));
			return rc;
		}
	}
	st->total = now() - t0;
	return 0;
}
