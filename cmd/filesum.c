/* filesum.c - what compress and decompress say about each file: the
 * summary line on stderr and the --format json report on stdout */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "filesum.h"
#include "../front/msg.h"
#include "../engine/gt_table.h"
#include "../engine/gt_tensor.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_source.h"
#include "../lib/banned.h"

struct gt_filesum_report {
	enum gt_fmt fmt;
	json_t *files;          /* json */
	struct gt_table *t;     /* csv, tsv, markdown */
};

static const char *const columns[] = {
	"input", "output", "ok", "bytes_in", "bytes_out", "ratio", "seconds", "mb_per_s", "ntensors",
};

static double ratio(const struct gt_filesum *s)
{
	return s->raw_bytes ? (double)s->gtz_bytes / (double)s->raw_bytes : 0.0;
}

void gt_filesum_line(const struct gt_filesum *s, const char *what)
{
	char a[32], b[32];
	const uint64_t in = s->unpack ? s->gtz_bytes : s->raw_bytes;
	const uint64_t out = s->unpack ? s->raw_bytes : s->gtz_bytes;

	fprintf(stderr, "%s: %s: %s%s%zu tensor%s, %s -> %s (%.2f%%)\n", gt_msg_prefix(),
		s->input, what ? what : "", what ? ", " : "", s->ntensors,
		s->ntensors == 1 ? "" : "s", gt_human_bytes((double)in, a, sizeof(a)),
		gt_human_bytes((double)out, b, sizeof(b)), 100.0 * ratio(s));
}

struct gt_filesum_report *gt_filesum_report_new(enum gt_fmt fmt)
{
	struct gt_filesum_report *r;

	if (fmt == GT_FMT_TABLE)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->fmt = fmt;
	if (fmt == GT_FMT_JSON)
		r->files = json_array();
	else
		r->t = gt_table_new(fmt);
	if (!r->files && !r->t)
		gt_die("out of memory");
	for (size_t k = 0; r->t && k < sizeof(columns) / sizeof(columns[0]); k++)
		gt_table_col(r->t, columns[k]);
	return r;
}

static void set(json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		gt_die("out of memory");
}

static json_t *tensor_json(const struct gt_tensor_info *t, const struct gt_gtz_meta *m)
{
	json_t *o = json_object(), *shape = json_array();

	if (!o || !shape)
		gt_die("out of memory");
	for (unsigned k = 0; k < t->rank; k++)
		if (json_array_append_new(shape, json_integer((json_int_t)t->dims[k])) < 0)
			gt_die("out of memory");
	set(o, "name", json_string(t->name));
	set(o, "dtype", json_string(gt_dtype_name(t->dtype)));
	set(o, "shape", shape);
	set(o, "values", json_integer((json_int_t)t->count));
	set(o, "bytes", json_integer((json_int_t)(t->count * gt_dtype_size(t->dtype))));
	set(o, "codec", json_string(m->codec));
	set(o, "stored_bytes", json_integer((json_int_t)m->stored_bytes));
	return o;
}

/* The float tensors of the .gtz file @s->gtz_path that -d selected; an
 * empty array when the file cannot be listed (it was just written or read
 * whole, so only a race with another program gets there). */
static json_t *tensors_json(const struct gt_filesum *s)
{
	const struct gt_source_opts so = { GT_KIND_GTZ, GT_DT_NONE, 0 };
	struct gt_source *src = NULL;
	struct gt_diag d = { "" };
	json_t *a = json_array();

	if (!a)
		gt_die("out of memory");
	if (gt_source_open(s->gtz_path, &so, &src, &d) < 0)
		return a;
	for (size_t i = 0; i < gt_source_count(src); i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);
		struct gt_gtz_meta m;

		if (t->dtype == GT_DT_NONE || !gt_tensor_match(t->name, s->patterns, s->npatterns) ||
		    gt_gtz_source_meta(src, i, &m) < 0)
			continue;
		if (json_array_append_new(a, tensor_json(t, &m)) < 0)
			gt_die("out of memory");
	}
	gt_source_free(src);
	return a;
}

static double mb_per_s(const struct gt_filesum *s)
{
	return s->seconds > 0 ? (double)s->raw_bytes / 1e6 / s->seconds : 0.0;
}

/* A row of the csv, tsv or markdown report; a failed input has no numbers. */
static void add_row(struct gt_table *t, const struct gt_filesum *s)
{
	gt_table_str(t, s->input);
	gt_table_str(t, s->output ? s->output : "");
	gt_table_str(t, s->ok ? "yes" : "no");
	gt_table_uint(t, s->ok ? (s->unpack ? s->gtz_bytes : s->raw_bytes) : 0);
	gt_table_uint(t, s->ok ? (s->unpack ? s->raw_bytes : s->gtz_bytes) : 0);
	gt_table_num(t, s->ok ? ratio(s) : 0.0, 4);
	gt_table_num(t, s->ok ? s->seconds : 0.0, 3);
	gt_table_num(t, s->ok ? mb_per_s(s) : 0.0, 4);
	gt_table_uint(t, s->ok ? s->ntensors : 0);
}

void gt_filesum_report_add(struct gt_filesum_report *r, const struct gt_filesum *s,
			   int verbose)
{
	json_t *o;

	if (r->t) {
		add_row(r->t, s);
		return;
	}
	o = json_object();

	if (!o)
		gt_die("out of memory");
	set(o, "input", json_string(s->input));
	set(o, "output", s->output ? json_string(s->output) : json_null());
	set(o, "ok", json_boolean(s->ok));
	if (s->ok) {
		set(o, "bytes_in", json_integer((json_int_t)(s->unpack ? s->gtz_bytes : s->raw_bytes)));
		set(o, "bytes_out", json_integer((json_int_t)(s->unpack ? s->raw_bytes : s->gtz_bytes)));
		set(o, "ratio", json_real(ratio(s)));
		set(o, "seconds", json_real(s->seconds));
		set(o, "mb_per_s", json_real(mb_per_s(s)));
		set(o, "ntensors", json_integer((json_int_t)s->ntensors));
		if (verbose && s->gtz_path)
			set(o, "tensors", tensors_json(s));
	}
	if (json_array_append_new(r->files, o) < 0)
		gt_die("out of memory");
}

int gt_filesum_report_print(struct gt_filesum_report *r)
{
	int rc = 0;

	if (!r)
		return 0;
	if (r->t) {
		rc = gt_table_print(r->t, stdout);
		gt_table_free(r->t);
	} else {
		json_dumpf(r->files, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
		fputc('\n', stdout);
		json_decref(r->files);
	}
	free(r);
	return rc < 0 ? gt_error("%s", gt_strerror(rc)) : 0;
}

const char *gt_filesum_fmt_name(enum gt_fmt fmt)
{
	switch (fmt) {
	case GT_FMT_CSV: return "csv";
	case GT_FMT_TSV: return "tsv";
	case GT_FMT_JSON: return "json";
	case GT_FMT_MARKDOWN: return "markdown";
	case GT_FMT_TABLE: break;
	}
	return "table";
}
