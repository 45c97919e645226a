/* gt_table.h - results as rows under named columns, in the output formats */
#ifndef GT_TABLE_H
#define GT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/gt_error.h"

/* Output formats for data.  TABLE is for people (aligned, rounded);
 * the others carry full precision. */
enum gt_fmt { GT_FMT_TABLE, GT_FMT_CSV, GT_FMT_TSV, GT_FMT_JSON, GT_FMT_MARKDOWN };
/* Parse "table", "csv", "tsv", "json", "markdown"/"md"; -1 when unknown. */
int gt_fmt_parse(const char *s, enum gt_fmt *ret);

/*
 * A table of rows under named columns, written at the end in one of the
 * formats to a stream the front end chooses.  Cells are strings or
 * numbers; numbers are right-aligned for people and written with 17
 * significant digits (JSON: null for NaN/Inf) for machines.  A failed
 * allocation is remembered: every later call is a no-op and
 * gt_table_print reports it.  gt_table_new returns NULL when out of
 * memory; every function takes NULL.  One thread at a time.
 */
struct gt_table;
struct gt_table *gt_table_new(enum gt_fmt fmt);
/* Declare the columns before the first row. */
void gt_table_col(struct gt_table *t, const char *name);
/* Cells are added left to right; a row ends when all columns are filled. */
void gt_table_str(struct gt_table *t, const char *s);
void gt_table_int(struct gt_table *t, long long v);
void gt_table_uint(struct gt_table *t, unsigned long long v);
/* @prec: significant digits shown to people (machines get full precision). */
void gt_table_num(struct gt_table *t, double v, int prec);
/* Percent shown to people with 2 decimals; machines get the fraction x100. */
void gt_table_pct(struct gt_table *t, double pct);
/* No value: null in JSON, @text (NULL: empty) for people and CSV. */
void gt_table_null(struct gt_table *t, const char *text);
/* Text @s that may hold a number ("20", "0.01"): a number when it does
 * (people see @s as it is), else a string, or with @null_else a JSON null
 * that people see as @s (a "mean" or "all" row in a column of steps). */
void gt_table_numstr(struct gt_table *t, const char *s, int null_else);
/* A flag: "yes"/"no" for people, CSV and TSV (as before), true/false in JSON. */
void gt_table_bool(struct gt_table *t, int v);
/* A shape: "128x64" for people and CSV, [128, 64] in JSON (a scalar:
 * "" and []); @text_as, when not NULL, is shown instead of "128x64". */
void gt_table_shape(struct gt_table *t, const uint64_t *dims, size_t ndims,
		    const char *text_as);
/* @return 0, GT_ERR(NOMEM) (nothing written). */
int gt_table_print(const struct gt_table *t, FILE *out);
void gt_table_free(struct gt_table *t);

/* Human-readable byte count: "1.5 MB" (powers of 10); buf >= 16 bytes. */
const char *gt_human_bytes(double bytes, char *buf, size_t len);

#endif
