/* sparse_impl.h - the context and calls topk, randk, dgc and redsync share */
#ifndef GT_SPARSE_IMPL_H
#define GT_SPARSE_IMPL_H

#include "../codec_impl.h"
#include "../gt_sparse.h"

/* Every sparsifier's context: its options, scratch, and where the chunk
 * sits (gt_codec_seek) for the seeded ones. */
struct sp_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	struct gt_sparse_opts o;
	struct gt_sparse_work w;
	uint64_t stream, pos;
};

static inline struct sp_ctx *sp_of(struct gt_codec_ctx *ctx)
{
	return (struct sp_ctx *)(void *)ctx;
}

/* A context for codec @name accepting @accept (gt_sparse_opts_parse). */
int sp_new(const struct gt_codec_params *p, const struct gt_kv *kv, size_t nkv,
	   const char *name, unsigned accept, struct gt_codec_ctx **ctx_ret,
	   struct gt_diag *d);
void sp_free(struct gt_codec_ctx *ctx);
size_t sp_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap);
size_t sp_bound(const struct gt_codec_ctx *ctx, size_t n);
int sp_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
	      void *dst, size_t n);
void sp_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos);
/* Pack the @k positions in the context's w.idx. */
int sp_pack(struct sp_ctx *c, const void *src, size_t n, size_t k, void *dst,
	    size_t dst_cap, size_t *dst_len_ret);

#endif
