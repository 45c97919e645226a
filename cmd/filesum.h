/* filesum.h - what compress and decompress say about each file: the
 * summary line on stderr and the --format json report on stdout */
#ifndef GT_FILESUM_H
#define GT_FILESUM_H

#include <stddef.h>
#include <stdint.h>

#include "../engine/gt_table.h"

/* One input of a run, as compress, decompress and decompress -t end it. */
struct gt_filesum {
	const char *input;
	const char *output;      /* NULL: nothing written (-t, or a failure) */
	int ok;
	int unpack;              /* decompress: bytes in are the .gtz's */
	uint64_t raw_bytes;      /* the tensors' values, uncompressed */
	uint64_t gtz_bytes;      /* the .gtz file */
	size_t ntensors;
	double seconds;
	const char *gtz_path;    /* with -v: the .gtz file to list per tensor
				  * (NULL: a pipe, or no .gtz) */
	char *const *patterns;   /* with -v: only these tensors (-d) */
	size_t npatterns;
};

/*
 * gt_filesum_line - "gtool SUB: FILE: N tensors, A -> B (P%)" on stderr,
 * P the .gtz's size over the values', with @what ("OK" for -t) between
 * the name and the counts when not NULL.
 */
void gt_filesum_line(const struct gt_filesum *s, const char *what);

/*
 * The report of a run on standard output, --format FMT: json, an array
 * with one object per input (with -v its tensors too); csv, tsv or
 * markdown, a row per input.  gt_filesum_report_new returns NULL for
 * table, which is the summary lines only.
 */
struct gt_filesum_report;
struct gt_filesum_report *gt_filesum_report_new(enum gt_fmt fmt);
/* Append @s; @verbose: with its tensors (JSON: listed from s->gtz_path). */
void gt_filesum_report_add(struct gt_filesum_report *r, const struct gt_filesum *s,
			   int verbose);
/* Print the report on stdout and free @r (NULL: nothing). 0, or -1 said. */
int gt_filesum_report_print(struct gt_filesum_report *r);
/* The name of @fmt as --format takes it: "json". */
const char *gt_filesum_fmt_name(enum gt_fmt fmt);

#endif
