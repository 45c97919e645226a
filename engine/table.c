/* table.c - rows under named columns, written as an aligned table, CSV,
 * TSV, JSON or markdown to the stream a front end gives */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_table.h"
#include "../lib/banned.h"

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
	char *json;   /* a JSON literal for JSON (an array, true/false), or NULL */
	int numeric;
	int null;     /* JSON null (NaN, Inf, no value) */
};

struct gt_table {
	enum gt_fmt fmt;
	char **cols;
	size_t ncols;
	struct cell *cells;
	size_t ncells, alloc;
	int oom;      /* an allocation failed: print nothing, report NOMEM */
};

struct gt_table *gt_table_new(enum gt_fmt fmt)
{
	struct gt_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fmt = fmt;
	return t;
}

void gt_table_col(struct gt_table *t, const char *name)
{
	char **cols;
	char *copy;

	if (!t || t->oom)
		return;
	cols = realloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
	if (cols)
		t->cols = cols;
	copy = strdup(name);
	if (!cols || !copy) {
		free(copy);
		t->oom = 1;
		return;
	}
	t->cols[t->ncols++] = copy;
}

/* Takes @text, @exact and @json (any may be NULL after a failed
 * allocation; @exact and @json may be NULL by design). */
static void add_cell_json(struct gt_table *t, char *text, char *exact, char *json,
			  int numeric, int null)
{
	struct cell *c;

	if (t && !t->oom && t->ncells == t->alloc) {
		const size_t alloc = t->alloc ? 2 * t->alloc : 64;
		struct cell *cells = realloc(t->cells, alloc * sizeof(*t->cells));

		if (cells) {
			t->cells = cells;
			t->alloc = alloc;
		} else {
			t->oom = 1;
		}
	}
	if (!t || t->oom || !text || (numeric && !null && !exact)) {
		if (t)
			t->oom = 1;
		free(text);
		free(exact);
		free(json);
		return;
	}
	c = &t->cells[t->ncells++];
	c->text = text;
	c->exact = exact;
	c->json = json;
	c->numeric = numeric;
	c->null = null;
}

static void add_cell(struct gt_table *t, char *text, char *exact, int numeric,
		     int null)
{
	add_cell_json(t, text, exact, NULL, numeric, null);
}

static char *fmt_dup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_dup(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

void gt_table_str(struct gt_table *t, const char *s)
{
	add_cell(t, strdup(s ? s : ""), NULL, 0, 0);
}

void gt_table_int(struct gt_table *t, long long v)
{
	add_cell(t, fmt_dup("%lld", v), fmt_dup("%lld", v), 1, 0);
}

void gt_table_uint(struct gt_table *t, unsigned long long v)
{
	add_cell(t, fmt_dup("%llu", v), fmt_dup("%llu", v), 1, 0);
}

void gt_table_num(struct gt_table *t, double v, int prec)
{
	if (isnan(v))
		add_cell(t, strdup("nan"), NULL, 1, 1);
	else if (isinf(v))
		add_cell(t, strdup(v > 0 ? "inf" : "-inf"), NULL, 1, 1);
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

void gt_table_null(struct gt_table *t, const char *text)
{
	add_cell(t, strdup(text ? text : ""), NULL, 0, 1);
}

void gt_table_numstr(struct gt_table *t, const char *s, int null_else)
{
	char *end = NULL;
	const double v = s && *s && !isspace((unsigned char)*s) ? strtod(s, &end) : NAN;

	if (end && !*end && isfinite(v))
		add_cell(t, strdup(s), fmt_dup("%.17g", v), 1, 0);
	else if (null_else)
		gt_table_null(t, s);
	else
		gt_table_str(t, s);
}

void gt_table_bool(struct gt_table *t, int v)
{
	char *json = strdup(v ? "true" : "false");

	if (!json && t)
		t->oom = 1;
	add_cell_json(t, strdup(v ? "yes" : "no"), NULL, json, 0, 0);
}

void gt_table_shape(struct gt_table *t, const uint64_t *dims, size_t ndims,
		    const char *text_as)
{
	char *text = NULL, *json = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *ft = open_memstream(&text, &tlen);
	FILE *fj = open_memstream(&json, &jlen);

	if (ft && fj) {
		fputc('[', fj);
		for (size_t i = 0; i < ndims; i++) {
			fprintf(ft, "%s%llu", i ? "x" : "", (unsigned long long)dims[i]);
			fprintf(fj, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
		}
		fputc(']', fj);
	}
	if (ft)
		fclose(ft);
	if (fj)
		fclose(fj);
	if (text_as) {
		free(text);
		text = strdup(text_as);
	}
	if ((!text || !json) && t)
		t->oom = 1;
	add_cell_json(t, text, NULL, json, 0, 0);
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
			if (cell->json)
				fputs(cell->json, out);
			else if (cell->null)
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

static int print_aligned(const struct gt_table *t, FILE *out, int markdown)
{
	size_t *w = calloc(t->ncols, sizeof(*w));
	int *num = calloc(t->ncols, sizeof(*num));

	if (!w || !num) {
		free(w);
		free(num);
		return GT_ERR(NOMEM);
	}
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
	return 0;
}

int gt_table_print(const struct gt_table *t, FILE *out)
{
	if (!t || t->oom)
		return GT_ERR(NOMEM);
	if (!t->ncols)
		return 0;
	switch (t->fmt) {
	case GT_FMT_CSV: print_sv(t, out, ','); break;
	case GT_FMT_TSV: print_sv(t, out, '\t'); break;
	case GT_FMT_JSON: print_json(t, out); break;
	case GT_FMT_MARKDOWN: return print_aligned(t, out, 1);
	case GT_FMT_TABLE: return print_aligned(t, out, 0);
	}
	return 0;
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
		free(t->cells[i].json);
	}
	free(t->cols);
	free(t->cells);
	free(t);
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
