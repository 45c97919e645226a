/* filelist.h - the inputs of compress and decompress: several files,
 * folders walked with -r, and the output name of each */
#ifndef GT_FILELIST_H
#define GT_FILELIST_H

#include <stddef.h>

/* The files one run works on, in the order given (a folder's files sorted
 * by name), and the outputs written so far. */
struct gt_filelist {
	char **paths;           /* malloc'd, freed by gt_filelist_release */
	size_t n;
	size_t failed;          /* inputs that could not be listed (said on stderr) */
	char **outs;            /* outputs claimed by gt_filelist_claim */
	size_t nouts;
};

/*
 * gt_filelist_add - add @path: a file (or "-") as it is; a folder with
 * @recursive: every regular file below it (a link to one too), nested
 * folders included, each folder's entries sorted by name; a link to a
 * folder is not followed.  A folder without @recursive, or one that
 * cannot be read, is said on stderr ("DIR: is a folder; use -r") and
 * counted in l->failed.
 */
void gt_filelist_add(struct gt_filelist *l, const char *path, int recursive);
void gt_filelist_release(struct gt_filelist *l);

/*
 * gt_filelist_claim - record that this run writes @out: 0, or 1 when an
 * earlier input of the run already wrote it (two inputs of the same name
 * in different folders, with -o FOLDER), which the caller reports.
 */
int gt_filelist_claim(struct gt_filelist *l, const char *out);

/* 1 when @path names a folder (a link to one too). */
int gt_is_dir(const char *path);
/* 1 when @name ends in @suffix and is longer than it. */
int gt_has_suffix(const char *name, const char *suffix);
/* @dir "/" the last component of @name (malloc'd); NULL @dir: a copy of @name. */
char *gt_path_in_dir(const char *dir, const char *name);

#endif
