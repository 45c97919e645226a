/* dump_grads.c - every f32 gradient of the given traces, concatenated as raw
 * f32 on stdout and repeated until at least MiB mebibytes: the real data
 * `make bench` measures on.  usage: dump_grads MIB TRACE.h5... */
#include <stdio.h>
#include <stdlib.h>

#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"

static int dump_file(const char *path, FILE *out, size_t *bytes)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d;
	static float buf[1 << 16];
	int rc = gt_source_open(path, NULL, &s, &d);

	if (rc >= 0)
		rc = gt_trace_open(s, &tr, &d);
	for (size_t k = 0; rc >= 0 && k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		for (size_t g = 0; g < st->n_grads; g++) {
			const size_t i = st->grads[g];
			uint64_t at = 0;
			size_t got = 1;

			if (gt_source_info(s, i)->dtype != GT_DT_F32)
				continue;
			while (rc >= 0 && got) {
				rc = gt_source_read(s, i, at, 1 << 16, buf, &got, &d);
				if (rc >= 0 && fwrite(buf, 4, got, out) != got)
					rc = -1;
				at += got;
				*bytes += got * 4;
			}
		}
	}
	if (rc < 0)
		fprintf(stderr, "dump_grads: %s: %s\n", path, d.msg);
	gt_trace_free(tr);
	gt_source_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	const size_t want = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) << 20 : 0;
	size_t bytes = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: dump_grads MIB TRACE.h5...\n");
		return 2;
	}
	do {
		const size_t before = bytes;

		for (int a = 2; a < argc; a++)
			if (dump_file(argv[a], stdout, &bytes) < 0)
				return 1;
		if (bytes == before)
			return 1;
	} while (bytes < want);
	return fflush(stdout) ? 1 : 0;
}
