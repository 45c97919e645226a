/* sink.c - the gt_sink dispatcher: kinds, call order, counts, temporary file and rename */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "fdpipe.h"
#include "gt_hdf5.h"
#include "sink_impl.h"
#include "source_impl.h"
#include "../lib/banned.h"

/* The sink of kind @k; NULL for none, or (@d set) HDF5's that cannot be
 * loaded. */
static const struct gt_sink_ops *ops_of(enum gt_kind k, struct gt_diag *d)
{
	const struct gt_hdf5_api *h;

	switch (k) {
	case GT_KIND_HDF5:
		h = gt_hdf5(d);
		return h ? h->sink_ops : NULL;
	case GT_KIND_NPY: return &gt_npy_sink_ops;
	case GT_KIND_RAW: return &gt_raw_sink_ops;
	case GT_KIND_GTZ:
	case GT_KIND_AUTO: break;
	}
	return NULL;
}

static int open_target(struct gt_sink *s, struct gt_diag *d)
{
	int fd = -1;

	if (s->to_stdout) {
		if (s->ops->uses_file) {
			s->f = stdout;
			gt_fdpipe_widen(STDOUT_FILENO, GT_PIPE_BYTES);
		}
		return 0;
	}
	GT_TRY(gt_atomic_create(&s->at, s->path, s->force, &fd, d));
	s->tmp = s->at.tmp;
	if (!s->ops->uses_file) {
		close(fd);
		if (s->at.direct)
			return gt_diag_set(d, GT_ERR(INVAL), "%s: HDF5 output must be a regular file",
					   s->path);
		return 0;
	}
	s->f = fdopen(fd, "wb");
	if (!s->f) {
		close(fd);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	return 0;
}

static int open_sink(const char *path, const struct gt_sink_opts *o, int v110,
		     struct gt_sink **sink_ret, struct gt_diag *d)
{
	const int to_stdout = !strcmp(path, "-");
	enum gt_kind k = o ? o->kind : GT_KIND_AUTO;
	const struct gt_sink_ops *ops;
	struct gt_diag why = { "" };
	struct gt_sink *s;
	int rc;

	*sink_ret = NULL;
	if (k == GT_KIND_AUTO && strlen(path) > 4 && !strcasecmp(path + strlen(path) - 4, ".npz"))
		return gt_diag_set(d, GT_ERR(INVAL), "%s: .npz archives are read, not written; "
				   "use .npy or .h5", path);
	if (k == GT_KIND_AUTO)
		k = to_stdout ? GT_KIND_RAW : gt_kind_from_name(path);
	if (k == GT_KIND_GTZ)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: .gtz files are written by the container API",
				   path);
	ops = ops_of(k, &why);
	if (!ops && *why.msg)
		return gt_diag_set(d, GT_ERR(IO), "%s: %s", path, why.msg);
	if (!ops)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "cannot tell the output format of '%s': use --out-format", path);
	s = calloc(1, sizeof(*s));
	if (!s)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	s->ops = ops;
	s->kind = k;
	s->to_stdout = to_stdout;
	s->force = o ? o->force : 0;
	s->v110_index = v110;
	s->path = strdup(path);
	if (!s->path) {
		free(s);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	rc = open_target(s, d);
	if (rc >= 0 && s->ops->open)
		rc = s->ops->open(s, d);
	if (rc < 0) {
		gt_sink_free(s);
		return rc;
	}
	*sink_ret = s;
	return 0;
}

int gt_sink_open(const char *path, const struct gt_sink_opts *o,
		 struct gt_sink **sink_ret, struct gt_diag *d)
{
	return open_sink(path, o, 0, sink_ret, d);
}

int gt_sink_open_v110(const char *path, const struct gt_sink_opts *o,
		      struct gt_sink **sink_ret, struct gt_diag *d)
{
	return open_sink(path, o, 1, sink_ret, d);
}

int gt_sink_group(struct gt_sink *s, const struct gt_group_info *g,
		  struct gt_diag *d)
{
	if (s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "group %s inside tensor %s",
				   g->name, s->info.name);
	return s->ops->group ? s->ops->group(s, g, d) : 0;
}

int gt_sink_object(struct gt_sink *s, const struct gt_object *o, struct gt_diag *d)
{
	if (s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "object %s inside tensor %s",
				   o->name, s->info.name);
	return s->ops->object ? s->ops->object(s, o, d) : 0;
}

int gt_sink_set_filter(struct gt_sink *s, const unsigned *cd, size_t n)
{
	if (n > sizeof(s->filter_cd) / sizeof(s->filter_cd[0]))
		return GT_ERR(INVAL);
	if (n)
		memcpy(s->filter_cd, cd, n * sizeof(*cd));
	s->filter_n = n;
	return 0;
}

int gt_sink_begin(struct gt_sink *s, const struct gt_tensor_info *t,
		  struct gt_diag *d)
{
	if (s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "tensor %s begun before %s ended",
				   t->name, s->info.name);
	if (s->ops->single && s->ntensors)
		return gt_diag_set(d, GT_ERR(INVAL), "%s holds one tensor only: cannot add %s",
				   s->path, t->name);
	if (gt_dtype_size(t->dtype) == 0 || t->rank > GT_MAX_RANK)
		return gt_diag_set(d, GT_ERR(TYPE), "tensor %s has no float dtype", t->name);
	gt_tensor_info_release(&s->info);
	s->info = *t;
	s->info.attrs.v = NULL;
	s->info.attrs.n = 0;
	s->info.name = strdup(t->name);
	if (!s->info.name || gt_attrs_copy(&s->info.attrs, &t->attrs) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	s->written = 0;
	GT_TRY(s->ops->begin(s, d));
	s->in_tensor = 1;
	s->ntensors++;
	return 0;
}

int gt_sink_write(struct gt_sink *s, const void *src, size_t n,
		  struct gt_diag *d)
{
	if (!s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "write outside a tensor");
	if (s->info.count != GT_COUNT_UNKNOWN && n > s->info.count - s->written)
		return gt_diag_set(d, GT_ERR(CORRUPT), "tensor %s: more than %" PRIu64 " values",
				   s->info.name, s->info.count);
	if (!n)
		return 0;
	GT_TRY(s->ops->write(s, src, n, d));
	s->written += n;
	return 0;
}

int gt_sink_end(struct gt_sink *s, struct gt_diag *d)
{
	if (!s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "end outside a tensor");
	if (s->info.count != GT_COUNT_UNKNOWN && s->written != s->info.count)
		return gt_diag_set(d, GT_ERR(CORRUPT),
				   "tensor %s: %" PRIu64 " values written, %" PRIu64 " expected",
				   s->info.name, s->written, s->info.count);
	s->in_tensor = 0;
	return s->ops->end(s, d);
}

int gt_sink_commit(struct gt_sink *s, struct gt_diag *d)
{
	if (s->in_tensor)
		return gt_diag_set(d, GT_ERR(INVAL), "tensor %s not ended", s->info.name);
	if (s->committed)
		return 0;
	if (s->ops->single && !s->ntensors)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: no tensor written", s->path);
	GT_TRY(s->ops->commit(s, d));
	if (s->tmp)
		GT_TRY(gt_atomic_commit(&s->at, d));
	s->committed = 1;
	return 0;
}

void gt_sink_free(struct gt_sink *s)
{
	if (!s)
		return;
	if (s->ops->close)
		s->ops->close(s);
	if (s->f && s->f != stdout)
		fclose(s->f);
	gt_atomic_release(&s->at);
	free(s->path);
	gt_tensor_info_release(&s->info);
	free(s);
}

const char *gt_sink_tmp_path(const struct gt_sink *s)
{
	return s && !s->to_stdout ? gt_atomic_tmp_path(&s->at) : NULL;
}
