/* gt_bitio.c - slow paths of the bit writer and reader (near the end) */
#include "gt_bitio.h"
#include "banned.h"

void gt_bitw_flush_slow(struct gt_bitw *w)
{
	while (w->nb >= 8) {
		if (w->ptr == w->end) {
			/* drop the bits, remember: close reports it */
			w->overflow = 1;
			w->acc = 0;
			w->nb = 0;
			return;
		}
		*w->ptr++ = (unsigned char)w->acc;
		w->acc >>= 4;
		w->acc >>= 4;
		w->nb -= 8;
	}
}

int gt_bitw_close(struct gt_bitw *w, size_t *len_ret)
{
	gt_bitw_flush_slow(w);
	if (w->nb && !w->overflow) {
		if (w->ptr == w->end) {
			w->overflow = 1;
		} else {
			*w->ptr++ = (unsigned char)w->acc;
			w->acc = 0;
			w->nb = 0;
		}
	}
	*len_ret = (size_t)(w->ptr - w->start);
	return w->overflow ? GT_ERR(DST_TOO_SMALL) : 0;
}

void gt_bitr_refill_slow(struct gt_bitr *r)
{
	while (r->nb <= 56 && r->ptr < r->end) {
		r->acc |= (uint64_t)*r->ptr++ << r->nb;
		r->nb += 8;
	}
	if (r->nb < 56) {
		/* past the end: zeros (acc above nb is already 0), counted */
		r->pad += 56 - r->nb;
		r->nb = 56;
	}
}

int gt_bitr_finish(struct gt_bitr *r)
{
	const int64_t left = gt_bitr_left(r);

	if (left < 0)
		return GT_ERR(TRUNCATED);
	if (left >= 8)
		return GT_ERR(CORRUPT);
	if (left && gt_bitr_get(r, (unsigned)left))
		return GT_ERR(CORRUPT);
	return 0;
}
