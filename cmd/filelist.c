/* filelist.c - the inputs of compress and decompress: several files,
 * folders walked with -r, and the output name of each */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "filelist.h"
#include "../front/msg.h"
#include "../lib/banned.h"

static void push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

static char *join(const char *dir, const char *name)
{
	const size_t n = strlen(dir);
	char *p;

	if (asprintf(&p, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name) < 0)
		gt_die("out of memory");
	return p;
}

/* The files below @dir, as zstd -r takes them: regular files and links to
 * them; a link to a folder is left alone, so a loop cannot trap the walk. */
static void walk(struct gt_filelist *l, const char *dir)
{
	struct dirent **ents = NULL;
	const int n = scandir(dir, &ents, NULL, alphasort);
	struct stat sb;

	if (n < 0) {
		gt_error_errno("%s", dir);
		l->failed++;
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *p = NULL;

		if (strcmp(name, ".") && strcmp(name, ".."))
			p = join(dir, name);
		if (p && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
			walk(l, p);
		else if (p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
			push(&l->paths, &l->n, p);
		free(p);
		free(ents[i]);
	}
	free(ents);
}

void gt_filelist_add(struct gt_filelist *l, const char *path, int recursive)
{
	if (!strcmp(path, "-") || !gt_is_dir(path)) {
		push(&l->paths, &l->n, path);
	} else if (!recursive) {
		gt_error("%s: is a folder; use -r to take the files in it", path);
		l->failed++;
	} else {
		walk(l, path);
	}
}

void gt_filelist_release(struct gt_filelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	for (size_t i = 0; i < l->nouts; i++)
		free(l->outs[i]);
	free(l->paths);
	free(l->outs);
	memset(l, 0, sizeof(*l));
}

int gt_filelist_claim(struct gt_filelist *l, const char *out)
{
	for (size_t i = 0; i < l->nouts; i++)
		if (!strcmp(l->outs[i], out))
			return 1;
	push(&l->outs, &l->nouts, out);
	return 0;
}

int gt_is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int gt_has_suffix(const char *name, const char *suffix)
{
	const size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

char *gt_path_in_dir(const char *dir, const char *name)
{
	const char *slash = strrchr(name, '/');

	return dir ? join(dir, slash ? slash + 1 : name) : xstrdup(name);
}
