/* h5filter.c - gtool's own HDF5 filter, built in: files written with filter
 * 400 read without the plugin on HDF5_PLUGIN_PATH; a codec spec as its
 * cd_values and back */
#include <errno.h>

#define GT_H5Z_BUILTIN /* no H5PL entry points: this is no plugin */
#include "../plugins/h5z_gtool.c"
#include "gt_h5filter.h"

int gt_h5filter_register(void)
{
	return H5Zregister(&gt_h5z_class) < 0 ? GT_ERR(IO) : 0;
}

/* The value of option @o given as @val, as one cd_value. */
static int opt_value(const struct cd_opt *o, const char *val, unsigned *v, struct gt_diag *d)
{
	char *end;
	long x;

	if (o->kind == OPT_NAME) {
		for (unsigned k = 0; k < o->nnames; k++)
			if (!strcmp(o->names[k], val)) {
				*v = k + 1;
				return 0;
			}
		return gt_diag_set(d, GT_ERR(INVAL), "%s=%s", o->key, val);
	}
	errno = 0;
	x = strtol(val, &end, 10);
	if (errno || end == val || *end || x < INT32_MIN || x > INT32_MAX ||
	    (o->kind == OPT_NUM && x < 0))
		return gt_diag_set(d, GT_ERR(INVAL), "%s=%s", o->key, val);
	*v = (unsigned)(uint32_t)(int32_t)x;
	return 0;
}

/* One "key=value" of @opts into @cd, or why the filter cannot take it. */
static int put_pair(const struct cd_codec *cc, const char *pair, unsigned *cd, struct gt_diag *d)
{
	const char *eq = strchr(pair, '=');
	const size_t klen = eq ? (size_t)(eq - pair) : strlen(pair);

	for (size_t k = 0; k < GT_H5Z_OPTS_MAX && cc->opt[k].key; k++)
		if (eq && strlen(cc->opt[k].key) == klen && !strncmp(cc->opt[k].key, pair, klen))
			return opt_value(&cc->opt[k], eq + 1, &cd[GT_H5Z_CD_OPTS + k], d);
	return gt_diag_set(d, GT_ERR(INVAL), "%s", pair);
}

int gt_h5filter_cd(const struct gt_codec *c, const char *opts, unsigned *cd, size_t *n_ret,
		   struct gt_diag *d)
{
	const struct cd_codec *cc = cd_codec_of(c);
	struct gt_diag why = { "" };
	struct gt_codec_ctx *ctx = NULL;
	struct setup s;
	char *copy, *save = NULL;
	size_t n = GT_H5Z_CD_OPTS;
	int rc = 0;

	if (!cc)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "codec %s is not offered by the HDF5 "
				   "filter (it has huffexp, zstd, zlib, tfp, rangeq and gcomp)",
				   c ? gt_codec_name(c) : "?");
	memset(cd, 0, GT_H5Z_CD_MAX * sizeof(*cd));
	cd[GT_H5Z_CD_VERSION] = GT_H5Z_LAYOUT;
	cd[GT_H5Z_CD_CODEC] = gt_codec_id(c);
	copy = strdup(opts ? opts : "");
	if (!copy)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	for (char *p = strtok_r(copy, ",", &save); p && rc >= 0; p = strtok_r(NULL, ",", &save))
		rc = put_pair(cc, p, cd, &why);
	free(copy);
	if (rc < 0)
		return gt_diag_set(d, rc, "codec %s option %s is not offered by the HDF5 filter",
				   cc->name, why.msg);
	while (n < GT_H5Z_CD_MAX && cc->opt[n - GT_H5Z_CD_OPTS].key)
		n++;
	/* what the filter would say at set_local, said now: gcomp's modes
	 * that need the optimizer context, an option out of range */
	rc = parse_cd(n, cd, &s, &why);
	s.dtype = GT_DT_F32;
	if (rc >= 0)
		rc = make_ctx(&s, &ctx, &why);
	gt_codec_free(ctx);
	if (rc < 0)
		return gt_diag_set(d, rc, "the HDF5 filter refuses %s: %s", cc->name,
				   *why.msg ? why.msg : gt_strerror(rc));
	*n_ret = n;
	return 0;
}

int gt_h5filter_spec(const unsigned *cd, size_t n, char *buf, size_t len)
{
	struct setup s;
	struct gt_diag d = { "" };

	if (parse_cd(n, cd, &s, &d) < 0)
		return GT_ERR(UNSUPPORTED);
	snprintf(buf, len, "%s%s%s", gt_codec_name(s.codec), *s.opts ? ":" : "", s.opts);
	return 0;
}

_Static_assert(GT_H5FILTER_CD_MAX == GT_H5Z_CD_MAX, "cd_values room");
