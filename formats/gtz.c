/* gtz.c - placeholder until the container lands */
#include "source_impl.h"

int gt_gtz_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	(void)s;
	fclose(f);
	return gt_diag_set(d, GT_ERR(UNSUPPORTED), ".gtz reading is not built yet");
}
