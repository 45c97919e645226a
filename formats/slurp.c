/* slurp.c - a small file read whole, in a buffer that grows as it fills */
#include <stdio.h>
#include <stdlib.h>

#include "gt_bytes.h"
#include "../lib/banned.h"

/* The buffer's first size: most of what gtool reads whole is smaller. */
#define SLURP_FIRST 4096

int gt_slurp(FILE *f, size_t max, unsigned char **buf_ret, size_t *len_ret)
{
	const size_t lim = max + 1; /* one byte more tells "larger than max" */
	unsigned char *p = NULL;
	size_t cap = 0, len = 0;

	*buf_ret = NULL;
	*len_ret = 0;
	for (;;) {
		size_t got;

		if (len == cap) {
			const size_t want = cap ? (cap > lim / 2 ? lim : 2 * cap)
						: (lim < SLURP_FIRST ? lim : SLURP_FIRST);
			unsigned char *q;

			if (want == cap)
				break; /* lim bytes read */
			q = realloc(p, want);
			if (!q) {
				free(p);
				return GT_ERR(NOMEM);
			}
			p = q;
			cap = want;
		}
		got = fread(p + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		free(p);
		return GT_ERR(IO);
	}
	*buf_ret = p;
	*len_ret = len;
	return 0;
}
