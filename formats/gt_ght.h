/* gt_ght.h - Huffman table files (.ght) written by `gtool huffman build` */
#ifndef GT_GHT_H
#define GT_GHT_H

#include <stdint.h>

#include "../lib/gt_error.h"
#include "../lib/gt_float.h"

/*
 * A .ght file keeps a static exponent table (the bytes of gt_huff_save)
 * and the symbol histogram it was built from, so that `huffman show` can
 * print counts.  Layout, little-endian:
 *   "\x89GHT" | u16 version (1) | u8 dtype | u8 0 | u32 nsyms |
 *   u32 K | K x (u32 symbol | u64 count) | u32 table length | table |
 *   u32 CRC-32 of everything before it
 */
struct gt_ght {
	enum gt_dtype dtype;
	void *table;      /* gt_huff_save bytes, malloc'd */
	size_t table_len;
	uint64_t *hist;   /* nsyms counts, malloc'd */
	unsigned nsyms;
};

/*
 * gt_ght_write - write @t to @path atomically (temporary file + rename);
 * @return 0, GT_ERR(EXISTS) without @force, GT_ERR(IO).
 */
int gt_ght_write(const char *path, int force, const struct gt_ght *t,
		 struct gt_diag *d);
/*
 * gt_ght_read - read and check a .ght file (magic, version, sizes, CRC);
 * the table bytes themselves are checked by gt_huff_load.
 * @return 0, GT_ERR(IO), GT_ERR(CORRUPT), GT_ERR(UNSUPPORTED).
 */
int gt_ght_read(const char *path, struct gt_ght *t, struct gt_diag *d);
void gt_ght_release(struct gt_ght *t);

#endif
