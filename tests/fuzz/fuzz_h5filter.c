/* fuzz_h5filter.c - the HDF5 filter's decode entry on arbitrary chunks,
 * encode-decode round trips of arbitrary values, its CRC-32 against zlib's */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/h5z_gtool.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cd_values the input's first byte picks: codec id, dtype, codec option */
static const unsigned configs[][3] = {
	{ 3, GT_DT_F32, 0 }, { 3, GT_DT_F64, 0 }, { 3, GT_DT_F16, 0 }, { 3, GT_DT_BF16, 0 },
	{ 2, GT_DT_F32, 0 }, { 1, GT_DT_F64, 0 }, { 5, GT_DT_F32, 16 }, { 5, GT_DT_BF16, 8 },
	{ 6, GT_DT_F32, 10 }, { 4, GT_DT_F32, 2 }, { 4, GT_DT_F32, 4 }, { 4, GT_DT_F16, 4 },
};
#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

/* Run the filter on a copy of @src in an HDF5 buffer; frees what it gets. */
static size_t run(unsigned flags, const unsigned *cd, const void *src, size_t n,
		  void **out_ret)
{
	size_t cap = n ? n : 1, len;
	void *buf = H5allocate_memory(cap, 0);

	*out_ret = NULL;
	if (!buf)
		return 0;
	if (n)
		memcpy(buf, src, n);
	len = gt_h5z_filter(flags, GT_H5Z_CD_OPTS + 1, cd, n, &cap, &buf);
	if (!len) {
		H5free_memory(buf);
		return 0;
	}
	*out_ret = buf;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	unsigned cd[GT_H5Z_CD_OPTS + 1];
	const unsigned *c;
	void *out = NULL, *back = NULL;
	size_t len, blen;

	if (!quiet) {
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
		quiet = 1;
	}
	if (size < 1)
		return 0;
	/* ISA-L's CRC-32 is zlib's, at every length and alignment */
	for (size_t off = 0; off < 3 && off < size; off++)
		if (gt_crc32(data[0], data + off, size - off) !=
		    (uint32_t)crc32_z(data[0], data + off, size - off))
			abort();
	c = configs[data[0] % NCONFIGS];
	/* bit 7: the chunk's value count unknown (0), as before set_local */
	cd[GT_H5Z_CD_VERSION] = GT_H5Z_LAYOUT;
	cd[GT_H5Z_CD_CODEC] = c[0];
	cd[GT_H5Z_CD_DTYPE] = c[1];
	cd[GT_H5Z_CD_CHUNK] = data[0] & 0x80 ? 0 : 1000;
	cd[GT_H5Z_CD_OPTS] = c[2];
	len = run(H5Z_FLAG_REVERSE, cd, data + 1, size - 1, &out);
	H5free_memory(out);
	/* the same bytes as values: code them, decode, compare when lossless */
	cd[GT_H5Z_CD_CHUNK] = 0;
	len = run(0, cd, data + 1, size - 1, &out);
	if (len) {
		blen = run(H5Z_FLAG_REVERSE, cd, out, len, &back);
		if (!blen || blen != size - 1 ||
		    ((gt_codec_flags(gt_codec_by_id(c[0])) & GT_CODEC_LOSSLESS) &&
		     memcmp(back, data + 1, blen)))
			abort();
	}
	H5free_memory(out);
	H5free_memory(back);
	return 0;
}
