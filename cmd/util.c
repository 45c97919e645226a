/* util.c - argp value helpers, the progress line and small helpers for cmd/ */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../front/msg.h"
#include "util.h"
#include "../formats/gt_gtz.h"
#include "../lib/gt_codec.h"
#include "../formats/gt_source.h"
#include "../engine/gt_tensor.h"
#include "../lib/banned.h"

int gt_ncores(void)
{
	const long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

double gt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gt_progress_init(struct gt_progress *p, const char *what, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->on = !gt_msg_quiet() && isatty(STDERR_FILENO);
	p->what = what;
	p->total = total;
	p->last = 0; /* the first update shows at once, later ones 5 times a second */
}

void gt_progress_add(struct gt_progress *p, uint64_t n)
{
	double now;

	p->done += n;
	if (!p->on)
		return;
	now = gt_now();
	if (now - p->last < 0.2)
		return;
	p->last = now;
	if (p->total && p->total != UINT64_MAX)
		fprintf(stderr, "\r%s: %s %3.0f%% ", gt_msg_prefix(), p->what,
			100.0 * (double)p->done / (double)p->total);
	else
		fprintf(stderr, "\r%s: %s %llu values ", gt_msg_prefix(), p->what,
			(unsigned long long)p->done);
}

void gt_progress_end(struct gt_progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}

int gt_select_tensors(const struct gt_source *src, char *const *patterns,
		      size_t n, enum gt_skip_report report, unsigned char *sel)
{
	struct gt_diag d = { "" };

	if (gt_tensor_select(src, patterns, n, report, &gt_msg_notify, sel, &d) < 0)
		return gt_error("%s", d.msg);
	return 0;
}

int gt_read_f32(struct gt_source *src, size_t i, uint64_t first, size_t n,
		float *dst, void *scratch)
{
	struct gt_diag d = { "" };

	if (gt_tensor_read_f32(src, i, first, n, dst, scratch, &d) < 0)
		return gt_error("%s", d.msg);
	return 0;
}

int gt_read_tensor(struct gt_source *src, size_t i, void *buf, size_t buf_values,
		   int (*fn)(void *arg, const void *data, size_t n), void *arg)
{
	struct gt_diag d = { "" };

	if (gt_tensor_stream(src, i, buf, buf_values, fn, arg, &d) < 0)
		return *d.msg ? gt_error("%s", d.msg) : -1;
	return 0;
}

void gt_argp_dataset(char ***v, size_t *n, char *arg)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = arg;
}

void gt_argp_input(struct argp_state *state, const char **input, const char *arg)
{
	if (*input)
		argp_error(state, "one input file at a time");
	*input = arg;
}

uint64_t gt_argp_block_size(struct argp_state *state, const char *arg)
{
	uint64_t v = 0;

	if (gt_parse_size(arg, GT_GTZ_CHUNK_MIN, GT_GTZ_BLOCK_MAX, &v) < 0)
		argp_error(state, "invalid block size '%s': expected %u-%u values",
			   arg, GT_GTZ_CHUNK_MIN, GT_GTZ_BLOCK_MAX);
	return v;
}

uint64_t gt_argp_chunk_size(struct argp_state *state, const char *arg)
{
	uint64_t v = 0;

	if (gt_parse_size(arg, GT_GTZ_CHUNK_MIN, GT_GTZ_BLOCK_MAX, &v) < 0)
		argp_error(state, "invalid chunk size '%s'", arg);
	return v;
}

enum gt_dtype gt_argp_dtype(struct argp_state *state, const char *arg)
{
	const enum gt_dtype dt = gt_dtype_from_name(arg);

	if (dt == GT_DT_NONE)
		argp_error(state, "invalid dtype '%s': expected f32, f16, bf16 or f64", arg);
	return dt;
}

enum gt_fmt gt_argp_fmt(struct argp_state *state, const char *arg, int markdown)
{
	enum gt_fmt fmt = GT_FMT_TABLE;

	if (gt_fmt_parse(arg, &fmt) < 0 || (!markdown && fmt == GT_FMT_MARKDOWN))
		argp_error(state, "invalid format '%s': expected table, csv, tsv%s or json",
			   arg, markdown ? ", markdown" : "");
	return fmt;
}

enum gt_kind gt_argp_kind(struct argp_state *state, const char *arg, const char *what)
{
	const enum gt_kind k = gt_kind_parse(arg);

	if (k == GT_KIND_AUTO || k == GT_KIND_GTZ)
		argp_error(state, "unknown %s format '%s': expected hdf5, npy or raw", what, arg);
	return k;
}

void gt_argp_fmt_or_kind(struct argp_state *state, const char *arg, const char *what,
			 enum gt_fmt *fmt, enum gt_kind *kind)
{
	const enum gt_kind k = gt_kind_parse(arg);

	if (k != GT_KIND_AUTO)
		*kind = gt_argp_kind(state, arg, what);
	else
		*fmt = gt_argp_fmt(state, arg, 1);
}

char *gt_codec_keys(const struct gt_codec *c, char sep)
{
	const char *h = gt_codec_help(c);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		gt_die("out of memory");
	while (h && *h) {
		const char *nl = strchrnul(h, '\n');
		const char *eq = memchr(h, '=', (size_t)(nl - h));

		if (*h != ' ' && eq)
			fprintf(f, "%.*s%c", (int)(eq - h), h, sep);
		h = *nl ? nl + 1 : nl;
	}
	if (fclose(f))
		gt_die("out of memory");
	return buf;
}
