/* raw.c - flat little-endian arrays: the raw source and sink, and value streams */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink_impl.h"
#include "source_impl.h"
#include "stream_impl.h"
#include "../lib/banned.h"

/* ---- value streams (raw and .npy) ------------------------------------- */

void gt_stream_init(struct gt_stream *st, FILE *f, unsigned size)
{
	struct stat sb;
	const int fd = fileno(f);

	memset(st, 0, sizeof(*st));
	st->f = f;
	st->size = size;
	st->fd = -1;
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		st->fd = fd;
}

void gt_stream_close(struct gt_stream *st)
{
	if (st->f && st->f != stdin)
		fclose(st->f);
	st->f = NULL;
}

char *gt_stream_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	const size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);

	return strndup(base, len);
}

/* pread exactly @len bytes (less only at the end of the file). */
static int pread_all(int fd, void *dst, size_t len, uint64_t off, size_t *got_ret)
{
	size_t got = 0;

	while (got < len) {
		const ssize_t r = pread(fd, (char *)dst + got, len - got,
					(off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return GT_ERR(IO);
		if (!r)
			break;
		got += (size_t)r;
	}
	*got_ret = got;
	return 0;
}

static int read_regular(struct gt_stream *st, const struct gt_tensor_info *t,
			uint64_t first, size_t n, void *dst, size_t *n_ret,
			struct gt_diag *d)
{
	const size_t m = t->count - first < n ? (size_t)(t->count - first) : n;
	size_t got;

	if (pread_all(st->fd, dst, m * st->size, st->off + first * st->size, &got) < 0)
		return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
	if (got != m * st->size)
		return gt_diag_set(d, GT_ERR(TRUNCATED),
				   "data ends after %" PRIu64 " of %" PRIu64 " values",
				   first + got / st->size, t->count);
	*n_ret = m;
	return 0;
}

static int read_pipe(struct gt_stream *st, struct gt_tensor_info *t, size_t n,
		     void *dst, size_t *n_ret, struct gt_diag *d)
{
	const int known = t->count != GT_COUNT_UNKNOWN;
	const size_t m = known && t->count - st->pos < n ? (size_t)(t->count - st->pos) : n;
	const size_t got = st->seen_eof ? 0 : fread(dst, 1, m * st->size, st->f);

	if (got < m * st->size) {
		if (ferror(st->f))
			return gt_diag_set(d, GT_ERR(IO), "read error");
		st->seen_eof = 1;
	}
	if (known && got < m * st->size)
		return gt_diag_set(d, GT_ERR(TRUNCATED),
				   "data ends after %" PRIu64 " of %" PRIu64 " values",
				   st->pos + got / st->size, t->count);
	if (got % st->size)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "size %" PRIu64 " is not a multiple of %u bytes (%s)",
				   st->pos * st->size + got, st->size, gt_dtype_name(t->dtype));
	if (!known && st->seen_eof && !st->pos && !got)
		return gt_diag_set(d, GT_ERR(INVAL), "empty input");
	st->pos += got / st->size;
	if (!known && st->seen_eof)
		t->count = st->pos;
	*n_ret = got / st->size;
	return 0;
}

int gt_stream_read(struct gt_stream *st, struct gt_tensor_info *t,
		   uint64_t first, size_t n, void *dst, size_t *n_ret,
		   struct gt_diag *d)
{
	*n_ret = 0;
	if (n > SIZE_MAX / st->size)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "read of %zu values is too large", n);
	if (st->fd >= 0)
		return first >= t->count ? 0 : read_regular(st, t, first, n, dst, n_ret, d);
	if (first != st->pos)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "a pipe must be read in order: value %" PRIu64
				   " requested at %" PRIu64, first, st->pos);
	if (t->count != GT_COUNT_UNKNOWN && first >= t->count)
		return 0;
	return read_pipe(st, t, n, dst, n_ret, d);
}

/* ---- raw source ------------------------------------------------------- */

static int raw_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		    void *dst, size_t *n_ret, struct gt_diag *d)
{
	return gt_stream_read(s->priv, &s->tensors[i], first, n, dst, n_ret, d);
}

static void raw_close(struct gt_source *s)
{
	if (s->priv)
		gt_stream_close(s->priv);
	free(s->priv);
	s->priv = NULL;
}

static const struct gt_source_ops raw_ops = { raw_read, raw_close };

static enum gt_dtype dtype_from_ext(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');

	if (!dot)
		return GT_DT_NONE;
	if (!strcasecmp(dot, ".f32"))
		return GT_DT_F32;
	if (!strcasecmp(dot, ".f16"))
		return GT_DT_F16;
	if (!strcasecmp(dot, ".bf16"))
		return GT_DT_BF16;
	if (!strcasecmp(dot, ".f64"))
		return GT_DT_F64;
	return GT_DT_NONE;
}

/* A regular file: its size gives the count. */
static int raw_size(struct gt_stream *st, struct gt_tensor_info *t, struct gt_diag *d)
{
	struct stat sb;

	if (fstat(st->fd, &sb) < 0)
		return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
	if (!sb.st_size)
		return gt_diag_set(d, GT_ERR(INVAL), "empty file");
	if ((uint64_t)sb.st_size % st->size)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "size %lld is not a multiple of %u bytes (%s)",
				   (long long)sb.st_size, st->size, gt_dtype_name(t->dtype));
	t->count = (uint64_t)sb.st_size / st->size;
	return 0;
}

int gt_raw_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	const int is_stdin = !strcmp(s->path, "-");
	const enum gt_dtype dt = s->opts.dtype != GT_DT_NONE ? s->opts.dtype
			       : is_stdin ? GT_DT_NONE : dtype_from_ext(s->path);
	struct gt_tensor_info *t;
	struct gt_stream *st;

	if (dt == GT_DT_NONE) {
		fclose(f);
		return gt_diag_set(d, GT_ERR(TYPE), "cannot tell the dtype of '%s': use --dtype",
				   s->path);
	}
	st = calloc(1, sizeof(*st));
	s->tensors = calloc(1, sizeof(*s->tensors));
	if (!st || !s->tensors) {
		free(st);
		fclose(f);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	gt_stream_init(st, f, gt_dtype_size(dt));
	s->priv = st;
	s->ops = &raw_ops;
	s->ntensors = 1;
	t = &s->tensors[0];
	t->dtype = dt;
	t->rank = 1;
	t->count = GT_COUNT_UNKNOWN;
	t->name = is_stdin ? strdup("-") : gt_stream_base_name(s->path);
	if (!t->name)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	if (st->fd >= 0)
		GT_TRY(raw_size(st, t, d));
	t->dims[0] = t->count;
	return 0;
}

/* ---- raw sink --------------------------------------------------------- */

int gt_sink_put(struct gt_sink *s, const void *src, size_t len, struct gt_diag *d)
{
	if (len && fwrite(src, 1, len, s->f) != len)
		return gt_diag_set(d, GT_ERR(IO), "write error: %s", strerror(errno));
	return 0;
}

int gt_sink_close_file(struct gt_sink *s, struct gt_diag *d)
{
	FILE *const f = s->f;
	int bad;

	if (!f)
		return 0;
	s->f = NULL;
	bad = fflush(f) != 0 || ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	if (bad)
		return gt_diag_set(d, GT_ERR(IO), "write error: %s", strerror(errno));
	return 0;
}

static int raw_sink_begin(struct gt_sink *s, struct gt_diag *d)
{
	const enum gt_dtype want = s->to_stdout ? GT_DT_NONE : dtype_from_ext(s->path);

	if (want != GT_DT_NONE && want != s->info.dtype)
		return gt_diag_set(d, GT_ERR(TYPE), "%s would hold %s values, not %s",
				   s->path, gt_dtype_name(want),
				   gt_dtype_name(s->info.dtype));
	return 0;
}

static int raw_sink_write(struct gt_sink *s, const void *src, size_t n,
			  struct gt_diag *d)
{
	return gt_sink_put(s, src, n * gt_dtype_size(s->info.dtype), d);
}

static int raw_sink_end(struct gt_sink *s, struct gt_diag *d)
{
	(void)s;
	(void)d;
	return 0;
}

static int raw_sink_commit(struct gt_sink *s, struct gt_diag *d)
{
	return gt_sink_close_file(s, d);
}

const struct gt_sink_ops gt_raw_sink_ops = {
	.begin = raw_sink_begin,
	.write = raw_sink_write,
	.end = raw_sink_end,
	.commit = raw_sink_commit,
	.single = 1,
	.uses_file = 1,
};
