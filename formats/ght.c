/* ght.c - Huffman table files: a static table and the histogram behind it */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/gt_crc.h"
#include "gt_bytes.h"
#include "gt_ght.h"
#include "gt_sink.h"
#include "../lib/banned.h"

static const unsigned char ght_magic[4] = { 0x89, 'G', 'H', 'T' };
#define GHT_VERSION 1
#define GHT_MAX (16u << 20)
#define GHT_SYMS_MAX 4096u

static int encode(const struct gt_ght *t, struct gt_buf *b)
{
	uint32_t k = 0;

	gt_buf_put(b, ght_magic, 4);
	gt_buf_u16(b, GHT_VERSION);
	gt_buf_u8(b, t->dtype);
	gt_buf_u8(b, 0);
	gt_buf_u32(b, t->nsyms);
	for (unsigned s = 0; s < t->nsyms; s++)
		k += t->hist[s] != 0;
	gt_buf_u32(b, k);
	for (unsigned s = 0; s < t->nsyms; s++) {
		if (!t->hist[s])
			continue;
		gt_buf_u32(b, s);
		gt_buf_u64(b, t->hist[s]);
	}
	gt_buf_u32(b, (uint32_t)t->table_len);
	gt_buf_put(b, t->table, t->table_len);
	if (!b->err)
		gt_buf_u32(b, gt_crc32(0, b->p, b->len));
	return b->err;
}

int gt_ght_write(const char *path, int force, const struct gt_ght *t,
		 struct gt_diag *d)
{
	struct gt_buf b = { 0 };
	int rc = encode(t, &b);

	if (rc < 0)
		rc = gt_diag_set(d, rc, "%s", gt_strerror(rc));
	else
		rc = gt_write_file(path, force, b.p, b.len, d);
	gt_buf_release(&b);
	return rc;
}

static int decode(const unsigned char *p, size_t len, struct gt_ght *t,
		  struct gt_diag *d)
{
	struct gt_cur c = { p, p + len - 4, 0 };
	const unsigned char *magic = gt_cur_bytes(&c, 4);
	const unsigned version = gt_cur_u16(&c);
	uint32_t k, tlen;
	const unsigned char *tb;

	if (!magic || memcmp(magic, ght_magic, 4))
		return gt_diag_set(d, GT_ERR(CORRUPT), "not a Huffman table file");
	if (version != GHT_VERSION)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "table file version %u is not supported",
				   version);
	t->dtype = (enum gt_dtype)gt_cur_u8(&c);
	(void)gt_cur_u8(&c);
	t->nsyms = gt_cur_u32(&c);
	k = gt_cur_u32(&c);
	if (c.err || !gt_dtype_size(t->dtype) || t->dtype > GT_DT_MAX ||
	    t->nsyms > GHT_SYMS_MAX || k > t->nsyms)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad table file header");
	t->hist = calloc(t->nsyms ? t->nsyms : 1, sizeof(*t->hist));
	if (!t->hist)
		return GT_ERR(NOMEM);
	for (uint32_t i = 0; i < k; i++) {
		const uint32_t s = gt_cur_u32(&c);
		const uint64_t n = gt_cur_u64(&c);

		if (c.err || s >= t->nsyms || !n || t->hist[s])
			return gt_diag_set(d, GT_ERR(CORRUPT), "bad histogram entry %u", i);
		t->hist[s] = n;
	}
	tlen = gt_cur_u32(&c);
	tb = gt_cur_bytes(&c, tlen);
	if (!tb || c.p != c.end)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad table length");
	t->table = malloc(tlen ? tlen : 1);
	if (!t->table)
		return GT_ERR(NOMEM);
	memcpy(t->table, tb, tlen);
	t->table_len = tlen;
	return 0;
}

int gt_ght_read(const char *path, struct gt_ght *t, struct gt_diag *d)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t len = 0;
	uint32_t crc;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!f)
		return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
	rc = gt_slurp(f, GHT_MAX, &p, &len);
	if (rc < 0)
		rc = gt_diag_set(d, rc, rc == GT_ERR(NOMEM) ? "out of memory" : "read error");
	else if (len > GHT_MAX || len < 16)
		rc = gt_diag_set(d, GT_ERR(CORRUPT), len < 16 ? "not a Huffman table file"
				 : "table file too large");
	else
		rc = 0;
	fclose(f);
	if (rc >= 0) {
		crc = (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 |
		      (uint32_t)p[len - 2] << 16 | (uint32_t)p[len - 1] << 24;
		if (memcmp(p, ght_magic, 4))
			rc = gt_diag_set(d, GT_ERR(CORRUPT), "not a Huffman table file");
		else if (crc != gt_crc32(0, p, len - 4))
			rc = gt_diag_set(d, GT_ERR(CORRUPT), "CRC mismatch");
		else
			rc = decode(p, len, t, d);
	}
	free(p);
	if (rc < 0)
		gt_ght_release(t);
	return rc;
}

void gt_ght_release(struct gt_ght *t)
{
	free(t->table);
	free(t->hist);
	t->table = NULL;
	t->hist = NULL;
}
