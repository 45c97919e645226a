/* huffexp.c - placeholder until the Huffman exponent codec lands */
#include "../codec_impl.h"

static int hx_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		  size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	(void)p; (void)kv; (void)nkv; (void)ctx_ret;
	return gt_diag_set(d, GT_ERR(UNSUPPORTED), "huffexp is not built yet");
}

const struct gt_codec gt_codec_huffexp = {
	.name = "huffexp", .id = 3, .flags = GT_CODEC_LOSSLESS | GT_CODEC_TABLE,
	.help = "", .ctx_new = hx_new,
};
