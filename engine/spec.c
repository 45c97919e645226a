/* spec.c - codec specs parsed and validated once, and lists of them */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_spec.h"
#include "../formats/gt_ght.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

/* The options of the spec, plus level=N: a malloc'd string or NULL. */
static int with_level(struct gt_spec *s, const char *spec_opts, long level,
		      struct gt_diag *d)
{
	const char *name = gt_codec_name(s->codec);

	if (!level) {
		s->opts = strdup(spec_opts);
	} else if (strcmp(name, "zstd") && strcmp(name, "zlib")) {
		return gt_diag_set(d, GT_ERR(INVAL), "codec %s has no level", name);
	} else if (asprintf(&s->opts, "%s%slevel=%ld", spec_opts, *spec_opts ? "," : "",
			    level) < 0) {
		s->opts = NULL;
	}
	return s->opts ? 0 : gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
}

/* Which dtypes the codec takes at all: a context for each, once. */
static unsigned dtypes_coded(const struct gt_spec *s)
{
	unsigned bits = 1u << GT_DT_F32;

	for (int dt = GT_DT_F32 + 1; dt <= GT_DT_MAX; dt++) {
		const struct gt_codec_params p = { (enum gt_dtype)dt, s->opts, NULL, 0, NULL, 0 };
		struct gt_codec_ctx *ctx = NULL;
		struct gt_diag d = { "" };

		if (gt_codec_new(s->codec, &p, &ctx, &d) != GT_ERR(TYPE))
			bits |= 1u << dt;
		gt_codec_free(ctx);
	}
	return bits;
}

int gt_spec_codes(const struct gt_spec *s, enum gt_dtype dt)
{
	return (s->dtypes >> dt) & 1;
}

int gt_spec_init(struct gt_spec *s, const char *text, long level, struct gt_diag *d)
{
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	const char *spec_opts = "";
	int rc;

	memset(s, 0, sizeof(*s));
	rc = gt_codec_spec_parse(text, &s->codec, &spec_opts, d);
	if (rc < 0)
		return rc;
	rc = with_level(s, spec_opts, level, d);
	if (rc >= 0) {
		s->text = strdup(text);
		if (!s->text)
			rc = gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	p.opts = s->opts;
	if (rc >= 0)
		rc = gt_codec_new(s->codec, &p, &ctx, d);
	if (rc < 0) {
		gt_spec_release(s);
		return rc;
	}
	s->flags = gt_codec_flags(s->codec);
	s->lossless = !!(s->flags & GT_CODEC_LOSSLESS);
	s->whole_block = !!(s->flags & GT_CODEC_WHOLE_BLOCK);
	s->needs_optim = gt_codec_needs_aux(ctx);
	gt_codec_canon(ctx, s->canon, sizeof(s->canon));
	gt_codec_free(ctx);
	s->dtypes = dtypes_coded(s);
	return 0;
}

void gt_spec_release(struct gt_spec *s)
{
	free(s->text);
	free(s->opts);
	free(s->table);
	memset(s, 0, sizeof(*s));
}

int gt_spec_load_table(struct gt_spec *s, const char *path, struct gt_diag *d)
{
	static struct gt_huff_table probe;
	struct gt_ght g;
	struct gt_diag rd = { "" };
	int rc;

	if (!(s->flags & GT_CODEC_TABLE))
		return gt_diag_set(d, GT_ERR(INVAL), "codec %s does not use a Huffman table",
				   gt_codec_name(s->codec));
	rc = gt_ght_read(path, &g, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", path, rd.msg);
	if (gt_huff_load(&probe, g.table, g.table_len, GT_HUFF_STATIC) < 0) {
		gt_ght_release(&g);
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: impossible code table", path);
	}
	free(s->table);
	s->table = g.table;
	s->table_len = g.table_len;
	g.table = NULL;
	gt_ght_release(&g);
	return 0;
}

static int push(struct gt_speclist *l, char *spec)
{
	char **v;

	if (!spec)
		return GT_ERR(NOMEM);
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v) {
		free(spec);
		return GT_ERR(NOMEM);
	}
	l->v = v;
	l->v[l->n++] = spec;
	return 0;
}

int gt_speclist_add(struct gt_speclist *l, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = copy ? 0 : GT_ERR(NOMEM);

	for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && rc >= 0;
	     p = strtok_r(NULL, ",", &save)) {
		char *joined;

		if (l->n && strchr(p, '=') && !strchr(p, ':')) {
			if (asprintf(&joined, "%s,%s", l->v[l->n - 1], p) < 0) {
				rc = GT_ERR(NOMEM);
				break;
			}
			free(l->v[l->n - 1]);
			l->v[l->n - 1] = joined;
			continue;
		}
		rc = push(l, strdup(p));
	}
	free(copy);
	return rc;
}

void gt_speclist_remove(struct gt_speclist *l, size_t i)
{
	free(l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

void gt_speclist_release(struct gt_speclist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const char *const gt_spec_defaults[] = {
	"huffexp", "gcomp", "zstd:level=1", "zstd:level=3", "zstd:level=19",
	"zlib:level=1", "zlib:level=6", "zlib:level=9", "tfp:bits=8", "tfp:bits=4",
	"rangeq:bits=10", "fft:drop=0.85,bits=10", "topk:cf=10", "topk:cf=1000",
	"dgc:cf=10", "dgc:cf=1000", "randk:cf=100", "redsync:cf=100",
	"qsgd:levels=3", "terngrad", NULL,
};

/* 1 when the codec of @spec is registered. */
static int registered(const char *spec)
{
	const size_t len = strcspn(spec, ":");
	char name[64];

	if (len >= sizeof(name))
		return 0;
	memcpy(name, spec, len);
	name[len] = 0;
	return gt_codec_find(name) != NULL;
}

int gt_speclist_defaults(struct gt_speclist *l)
{
	for (size_t i = 0; gt_spec_defaults[i]; i++)
		if (registered(gt_spec_defaults[i]))
			GT_TRY(gt_speclist_add(l, gt_spec_defaults[i]));
	return 0;
}
