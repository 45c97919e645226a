/* util.c - option parsing, tables and small helpers for cmd/ */
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

#include "msg.h"
#include "util.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_source.h"
#include "../lib/banned.h"

int gt_parse_int(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*ret = v;
	return 0;
}

int gt_parse_double(const char *s, double min, double max, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return -1;
	*ret = v;
	return 0;
}

int gt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	v <<= shift;
	if (v < min || v > max)
		return -1;
	*ret = v;
	return 0;
}

int gt_parse_rate(const char *s, double *ret)
{
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1e3; end++; break;
	case 'M': mul = 1e6; end++; break;
	case 'g': case 'G': mul = 1e9; end++; break;
	case 't': case 'T': mul = 1e12; end++; break;
	default: break;
	}
	if (!strcmp(end, "bps") || !strcmp(end, "bit/s") || !strcmp(end, "b/s"))
		end += strlen(end);
	v *= mul;
	if (*end || v > 1e15)
		return -1;
	*ret = v;
	return 0;
}

int gt_fmt_parse(const char *s, enum gt_fmt *ret)
{
	static const struct { const char *name; enum gt_fmt fmt; } fmts[] = {
		{ "table", GT_FMT_TABLE }, { "csv", GT_FMT_CSV },
		{ "tsv", GT_FMT_TSV },     { "json", GT_FMT_JSON },
		{ "markdown", GT_FMT_MARKDOWN }, { "md", GT_FMT_MARKDOWN },
	};

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (!strcmp(s, fmts[i].name)) {
			*ret = fmts[i].fmt;
			return 0;
		}
	}
	return -1;
}

/* ---- tables ---------------------------------------------------------- */

struct cell {
	char *text;   /* what people see */
	char *exact;  /* what machines see (NULL: same as text) */
	int numeric;
	int null;     /* JSON null (NaN, Inf) */
};

struct gt_table {
	enum gt_fmt fmt;
	char **cols;
	size_t ncols;
	struct cell *cells;
	size_t ncells, alloc;
};

struct gt_table *gt_table_new(enum gt_fmt fmt)
{
	struct gt_table *t = xcalloc(1, sizeof(*t));

	t->fmt = fmt;
	return t;
}

void gt_table_col(struct gt_table *t, const char *name)
{
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
	t->cols[t->ncols++] = xstrdup(name);
}

static void add_cell(struct gt_table *t, char *text, char *exact, int numeric,
		     int null)
{
	if (t->ncells == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 64;
		t->cells = xrealloc(t->cells, t->alloc * sizeof(*t->cells));
	}
	t->cells[t->ncells].text = text;
	t->cells[t->ncells].exact = exact;
	t->cells[t->ncells].numeric = numeric;
	t->cells[t->ncells].null = null;
	t->ncells++;
}

static char *fmt_dup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_dup(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		gt_die("out of memory");
	va_end(ap);
	return s;
}

void gt_table_str(struct gt_table *t, const char *s)
{
	add_cell(t, xstrdup(s ? s : ""), NULL, 0, 0);
}

void gt_table_int(struct gt_table *t, long long v)
{
	add_cell(t, fmt_dup("%lld", v), NULL, 1, 0);
}

void gt_table_uint(struct gt_table *t, unsigned long long v)
{
	add_cell(t, fmt_dup("%llu", v), NULL, 1, 0);
}

void gt_table_num(struct gt_table *t, double v, int prec)
{
	if (isnan(v))
		add_cell(t, xstrdup("nan"), NULL, 1, 1);
	else if (isinf(v))
		add_cell(t, xstrdup(v > 0 ? "inf" : "-inf"), NULL, 1, 1);
	else
		add_cell(t, fmt_dup("%.*g", prec, v), fmt_dup("%.17g", v), 1, 0);
}

void gt_table_pct(struct gt_table *t, double pct)
{
	if (!isfinite(pct))
		gt_table_num(t, pct, 4);
	else
		add_cell(t, fmt_dup("%.2f", pct), fmt_dup("%.17g", pct), 1, 0);
}

static const char *machine_text(const struct cell *c)
{
	return c->exact ? c->exact : c->text;
}

static void print_sv(const struct gt_table *t, FILE *out, char sep)
{
	for (size_t i = 0; i < t->ncells + t->ncols; i++) {
		const char *s = i < t->ncols ? t->cols[i]
					     : machine_text(&t->cells[i - t->ncols]);
		const int last = (i % t->ncols) == t->ncols - 1;

		if (sep == ',' && strpbrk(s, ",\"\n")) {
			fputc('"', out);
			for (const char *p = s; *p; p++) {
				if (*p == '"')
					fputc('"', out);
				fputc(*p, out);
			}
			fputc('"', out);
		} else {
			fputs(s, out);
		}
		fputc(last ? '\n' : sep, out);
	}
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void print_json(const struct gt_table *t, FILE *out)
{
	const size_t nrows = t->ncols ? t->ncells / t->ncols : 0;

	fputs("[\n", out);
	for (size_t r = 0; r < nrows; r++) {
		fputs("  {", out);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct cell *cell = &t->cells[r * t->ncols + c];

			json_string(out, t->cols[c]);
			fputs(": ", out);
			if (cell->null)
				fputs("null", out);
			else if (cell->numeric)
				fputs(machine_text(cell), out);
			else
				json_string(out, cell->text);
			if (c + 1 < t->ncols)
				fputs(", ", out);
		}
		fputs(r + 1 < nrows ? "},\n" : "}\n", out);
	}
	fputs("]\n", out);
}

static void print_aligned(const struct gt_table *t, FILE *out, int markdown)
{
	size_t *w = xcalloc(t->ncols, sizeof(*w));
	int *num = xcalloc(t->ncols, sizeof(*num));

	for (size_t c = 0; c < t->ncols; c++)
		w[c] = strlen(t->cols[c]);
	for (size_t i = 0; i < t->ncells; i++) {
		const size_t c = i % t->ncols, len = strlen(t->cells[i].text);

		if (len > w[c])
			w[c] = len;
		if (t->cells[i].numeric)
			num[c] = 1;
	}
	for (size_t i = 0; i < t->ncells + t->ncols; i++) {
		const size_t c = i % t->ncols;
		const char *s = i < t->ncols ? t->cols[i] : t->cells[i - t->ncols].text;
		const int width = (int)w[c];

		if (markdown)
			fputs(c ? " | " : "| ", out);
		else if (c)
			fputs("  ", out);
		if (num[c])
			fprintf(out, "%*s", width, s);
		else if (c + 1 < t->ncols || markdown)
			fprintf(out, "%-*s", width, s);
		else
			fputs(s, out);
		if (c + 1 == t->ncols)
			fputs(markdown ? " |\n" : "\n", out);
		if (markdown && i == t->ncols - 1) {
			for (size_t k = 0; k < t->ncols; k++) {
				fputs(k ? " | " : "| ", out);
				for (size_t j = 0; j < w[k]; j++)
					fputc(j + 1 == w[k] && num[k] ? ':' : '-', out);
			}
			fputs(" |\n", out);
		}
	}
	free(w);
	free(num);
}

void gt_table_print(const struct gt_table *t, FILE *out)
{
	if (!t->ncols)
		return;
	switch (t->fmt) {
	case GT_FMT_CSV: print_sv(t, out, ','); break;
	case GT_FMT_TSV: print_sv(t, out, '\t'); break;
	case GT_FMT_JSON: print_json(t, out); break;
	case GT_FMT_MARKDOWN: print_aligned(t, out, 1); break;
	case GT_FMT_TABLE: print_aligned(t, out, 0); break;
	}
}

void gt_table_free(struct gt_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	for (size_t i = 0; i < t->ncells; i++) {
		free(t->cells[i].text);
		free(t->cells[i].exact);
	}
	free(t->cols);
	free(t->cells);
	free(t);
}

int gt_select_match(const char *path, char *const *patterns, size_t n)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const char *p = patterns[i];

		if (!fnmatch(p, path, 0))
			return 1;
		/* "grad/fc.weight" selects "/grad/fc.weight" too */
		if (*path == '/' && *p != '/' && !fnmatch(p, path + 1, 0))
			return 1;
	}
	return 0;
}

int gt_ncores(void)
{
	const long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

const char *gt_human_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	size_t u = 0;

	while (bytes >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
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
	p->last = gt_now();
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

int gt_parse_threads(const char *s, unsigned *ret)
{
	long v;

	if (gt_parse_int(s, 1, 1024, &v) < 0)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

/* 1 when @p has glob characters: it may match many datasets, or none. */
static int is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

int gt_select_tensors(const struct gt_source *src, char *const *patterns,
		      size_t n, enum gt_skip_report report, unsigned char *sel)
{
	const char *path = gt_source_path(src);
	const size_t count = gt_source_count(src);

	for (size_t p = 0; p < n; p++) {
		size_t hits = 0;

		for (size_t i = 0; i < count; i++) {
			const struct gt_tensor_info *t = gt_source_info(src, i);

			if (!gt_select_match(t->name, &patterns[p], 1))
				continue;
			hits++;
			if (t->dtype == GT_DT_NONE && !is_glob(patterns[p]))
				return gt_error("%s: dataset %s is %s, not floating point",
						path, t->name, t->type_desc);
		}
		if (!hits)
			return gt_error("%s: dataset %s not found", path, patterns[p]);
	}
	for (size_t i = 0; i < count; i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);
		const int match = gt_select_match(t->name, patterns, n);

		sel[i] = match && t->dtype != GT_DT_NONE;
		if (!match || sel[i])
			continue;
		if (report == GT_SKIP_WARN)
			gt_warn("%s: skipping %s: %s data is not compressed", path,
				t->name, t->type_desc);
		else if (report == GT_SKIP_NOTE)
			fprintf(stderr, "%s: %s: skipping %s (%s)\n", gt_msg_prefix(),
				path, t->name, t->type_desc);
	}
	return 0;
}

int gt_read_f32(struct gt_source *src, size_t i, uint64_t first, size_t n,
		float *dst, void *scratch)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	void *raw = t->dtype == GT_DT_F32 ? (void *)dst
		  : scratch ? scratch : xmalloc(n * gt_dtype_size(t->dtype) + 1);
	struct gt_diag d = { "" };
	size_t got = 0;
	int rc = gt_source_read(src, i, first, n, raw, &got, &d);

	if (rc < 0)
		gt_error("%s: %s", gt_source_path(src), d.msg);
	else if (got != n)
		rc = gt_error("%s: %s: unexpected end of data", gt_source_path(src), t->name);
	if (rc >= 0 && t->dtype != GT_DT_F32)
		for (size_t k = 0; k < n; k++)
			dst[k] = (float)gt_fp_get(raw, t->dtype, k);
	if (raw != dst && raw != scratch)
		free(raw);
	return rc < 0 ? -1 : 0;
}

int gt_read_tensor(struct gt_source *src, size_t i, void *buf, size_t buf_values,
		   int (*fn)(void *arg, const void *data, size_t n), void *arg)
{
	struct gt_diag d = { "" };
	uint64_t first = 0;
	size_t got;

	do {
		if (gt_source_read(src, i, first, buf_values, buf, &got, &d) < 0)
			return gt_error("%s: %s", gt_source_path(src), d.msg);
		if (got && fn(arg, buf, got) < 0)
			return -1;
		first += got;
	} while (got);
	return 0;
}

void gt_spec_split(char ***v, size_t *n, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *joined;

		if (*n && strchr(p, '=') && !strchr(p, ':')) {
			if (asprintf(&joined, "%s,%s", (*v)[*n - 1], p) < 0)
				gt_die("out of memory");
			free((*v)[*n - 1]);
			(*v)[*n - 1] = joined;
			continue;
		}
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = xstrdup(p);
	}
	free(copy);
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
