/* complete.c - `gtool __complete`: what the bash, zsh and fish completions
 * offer, read from the argp tables, the codec registry and the optimizer
 * and Huffman method names, so no script keeps a list of its own */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "util.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_float.h"
#include "../lib/gt_huff.h"
#include "../lib/gt_optim.h"
#include "../lib/banned.h"

/* What the shell is to complete by itself; printed alone on a line. */
#define WANT_FILES "@files"
#define WANT_DIRS "@dirs"

/* Print @prefix@word when @word starts with @part. */
static void offer(const char *prefix, const char *word, const char *part, const char *suffix)
{
	if (!strncmp(word, part, strlen(part)))
		printf("%s%s%s\n", prefix, word, suffix);
}

/* ---- options ------------------------------------------------------------ */

/* Option @name (long) or @key (short, when @name is NULL) of @a or of
 * its children, or NULL. */
static const struct argp_option *find_option(const struct argp *a, const char *name,
					     size_t len, int key)
{
	const struct argp_option *found = NULL;

	for (const struct argp_option *o = a->options; o && (o->name || o->key || o->doc); o++) {
		if (name && o->name && strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
		if (!name && key && o->key == key)
			return o;
	}
	for (const struct argp_child *ch = a->children; !found && ch && ch->argp; ch++)
		found = find_option(ch->argp, name, len, key);
	return found;
}

/* An option with an argument inherits it from the entry it aliases,
 * which comes before it in the same table. */
static const char *option_arg(const struct argp_option *o)
{
	while (!o->arg && (o->flags & OPTION_ALIAS))
		o--;
	return o->arg;
}

/* The long options of @a and of its children, one per line. */
static void print_options(const struct argp *a, const char *part)
{
	for (const struct argp_option *o = a->options; o && (o->name || o->key || o->doc); o++) {
		if (o->name && !(o->flags & OPTION_HIDDEN)) {
			char opt[80];

			snprintf(opt, sizeof(opt), "--%s", o->name);
			offer("", opt, part, o->arg ? "=" : "");
		}
	}
	for (const struct argp_child *ch = a->children; ch && ch->argp; ch++)
		print_options(ch->argp, part);
}

/* The options of @a, one per line as "--long[=]\t-s\tdoc" for zsh and fish. */
static void describe_options(const struct argp *a)
{
	for (const struct argp_option *o = a->options; o && (o->name || o->key || o->doc); o++) {
		const int is_short = o->key > ' ' && o->key < 127;
		const char *doc = o->doc ? o->doc : "";

		if ((o->flags & OPTION_HIDDEN) || (!o->name && !is_short))
			continue;
		printf("%s%s%s\t", o->name ? "--" : "", o->name ? o->name : "",
		       o->name && o->arg ? "=" : "");
		if (is_short)
			printf("-%c", o->key);
		printf("\t%.*s\n", (int)strcspn(doc, "\n"), doc);
	}
	for (const struct argp_child *ch = a->children; ch && ch->argp; ch++)
		describe_options(ch->argp);
}

/* ---- values ------------------------------------------------------------- */

/* -c: codec names, or after NAME: the keys of that codec.  @list: a
 * comma-separated list of codecs (compare -c a,b). */
static void codec_values(const char *prefix, const char *text, int list)
{
	const char *colon = strrchr(text, ':');
	const char *comma = strrchr(text, ',');
	const char *part = comma && (!colon || comma > colon) ? comma + 1 : colon ? colon + 1 : text;
	char head[512];

	snprintf(head, sizeof(head), "%s%.*s", prefix, (int)(part - text), text);
	if (colon && !strchr(part, '=')) {
		const char *name = colon;
		char cname[64], *keys, *k, *save = NULL;
		const struct gt_codec *c;

		while (name > text && name[-1] != ',')
			name--;
		snprintf(cname, sizeof(cname), "%.*s", (int)(colon - name), name);
		c = gt_codec_find(cname);
		keys = c ? gt_codec_keys(c, ' ') : NULL;
		for (k = keys ? strtok_r(keys, " ", &save) : NULL; k; k = strtok_r(NULL, " ", &save))
			offer(head, k, part, "=");
		free(keys);
	}
	if ((!colon || (list && comma > colon)) && !strchr(part, '='))
		for (size_t i = 0; i < gt_codec_count(); i++)
			offer(head, gt_codec_name(gt_codec_at(i)), part, "");
}

static void list_values(const char *prefix, const char *const *v, const char *part)
{
	for (; *v; v++)
		offer(prefix, *v, part, "");
}

/* Names from a name function over [first, last]. */
static void named_values(const char *prefix, const char *(*name)(int), int first, int last,
			 const char *part)
{
	for (int k = first; k <= last; k++)
		if (name(k))
			offer(prefix, name(k), part, "");
}

static const char *dtype_name(int k) { return gt_dtype_name((enum gt_dtype)k); }
static const char *optim_name(int k) { return gt_optim_name((enum gt_optim_kind)k); }
static const char *method_name(int k) { return gt_huff_method_name((enum gt_huff_method)k); }

/* The values of option @o of command @cmd that start with @text. */
static void option_values(const char *cmd, const struct argp_option *o, const char *arg,
			  const char *prefix, const char *text)
{
	static const char *const fmts[] = { "table", "csv", "tsv", "json", NULL };
	static const char *const kinds[] = { "hdf5", "npy", "raw", NULL };
	const char *name = o->name ? o->name : "";

	if (!strcmp(name, "format")) {
		list_values(prefix, fmts, text);
		if (o->doc && strstr(o->doc, "markdown"))
			offer(prefix, "markdown", text, "");
	} else if (!strcmp(name, "in-format") || !strcmp(name, "out-format")) {
		list_values(prefix, kinds, text);
	} else if (!strcmp(name, "codec") || !strcmp(name, "codecs")) {
		codec_values(prefix, text, !strcmp(arg, "LIST"));
	} else if (!strncmp(name, "dtype", 5)) {
		named_values(prefix, dtype_name, GT_DT_F32, GT_DT_F64, text);
	} else if (!strcmp(name, "optimizer")) {
		named_values(prefix, optim_name, GT_OPT_SGD, GT_OPT_ADAMW, text);
	} else if (!strcmp(name, "method")) {
		named_values(prefix, method_name, GT_HUFF_GCOMP, GT_HUFF_BEST, text);
	} else if (!strcmp(name, "by") && !strcmp(cmd, "hist")) {
		list_values(prefix, hist_by_values, text);
	} else if (strstr(arg, "DIR")) {
		puts(WANT_DIRS);
	} else if (strstr(arg, "FILE") || strstr(arg, ".json")) {
		puts(WANT_FILES);
	}
}

/* ---- the words of a command line ---------------------------------------- */

struct line {
	const char *cmd;               /* the subcommand; NULL before it */
	const struct argp *argp;
	const struct argp_option *pending; /* the previous word wants a value */
	size_t npos;                   /* positional words so far */
	int only_pos;                  /* after "--" */
};

/* Walk the short option cluster @w ("-qT4", "-o"). */
static void short_cluster(struct line *l, const char *w)
{
	for (const char *p = w + 1; *p; p++) {
		const struct argp_option *o = find_option(l->argp, NULL, 0, (unsigned char)*p);

		if (o && option_arg(o)) {
			if (!p[1])
				l->pending = o;
			return;
		}
	}
}

/* One finished word of the command's part of the line. */
static void take_word(struct line *l, const char *w)
{
	if (l->pending) {
		l->pending = NULL;
	} else if (l->only_pos || w[0] != '-' || !w[1]) {
		l->npos++;
	} else if (!strcmp(w, "--")) {
		l->only_pos = 1;
	} else if (w[1] == '-') {
		const size_t len = strcspn(w + 2, "=");
		const struct argp_option *o = find_option(l->argp, w + 2, len, 0);

		if (o && option_arg(o) && !w[2 + len])
			l->pending = o;
	} else {
		short_cluster(l, w);
	}
}

/* A positional word: help takes a command, huffman an action, the rest files. */
static void positional(const struct line *l, const char *cur)
{
	const char *doc = l->argp->args_doc ? l->argp->args_doc : "";

	if (!strcmp(l->cmd, "help")) {
		for (size_t i = 0; gt_command_name(i); i++)
			offer("", gt_command_name(i), cur, "");
	} else if (!strcmp(l->cmd, "huffman") && !l->npos) {
		for (const char *p = doc; *p; p += strcspn(p, "\n"), p += !!*p) {
			char action[32];

			snprintf(action, sizeof(action), "%.*s", (int)strcspn(p, " \n"), p);
			offer("", action, cur, "");
		}
	} else if (strstr(doc, "FILE") || strstr(doc, "TRACE") || strstr(doc, "A B")) {
		puts(WANT_FILES);
	}
}

/* The current word @cur of the command's part of the line. */
static void complete_word(const struct line *l, const char *cur)
{
	if (l->pending) {
		option_values(l->cmd, l->pending, option_arg(l->pending), "", cur);
	} else if (!l->only_pos && !strncmp(cur, "--", 2) && strchr(cur, '=')) {
		const size_t len = strcspn(cur + 2, "=");
		const struct argp_option *o = find_option(l->argp, cur + 2, len, 0);
		char prefix[96];

		snprintf(prefix, sizeof(prefix), "%.*s", (int)len + 3, cur);
		if (o && option_arg(o))
			option_values(l->cmd, o, option_arg(o), prefix, cur + len + 3);
	} else if (!l->only_pos && cur[0] == '-' && cur[1]) {
		print_options(l->argp, cur);
		offer("", "--help", cur, "");
		offer("", "--usage", cur, "");
	} else {
		positional(l, cur);
	}
}

/* `__complete --line WORD...`: the words after gtool, the last one the
 * word being completed ("" for a new one). */
static int complete_line(int n, char **w)
{
	static const char *const top[] = { "--help", "--usage", "--version", "--list-commands", NULL };
	struct line l = { 0 };
	int i = 0;

	if (n < 1)
		return 2;
	while (i < n - 1 && w[i][0] == '-')
		i++;
	if (i == n - 1) {
		if (w[i][0] == '-')
			list_values("", top, w[i]);
		else
			for (size_t k = 0; gt_command_name(k); k++)
				offer("", gt_command_name(k), w[i], "");
		return 0;
	}
	l.cmd = w[i];
	l.argp = gt_command_argp(l.cmd);
	if (!l.argp)
		return 1;
	for (i++; i < n - 1; i++)
		take_word(&l, w[i]);
	complete_word(&l, w[n - 1]);
	return 0;
}

/*
 * gtool __complete               the commands, one per line
 * gtool __complete CMD           CMD's long options ("--format=": takes a value)
 * gtool __complete --describe CMD  "--long[=]\t-s\tdoc" per option (zsh, fish)
 * gtool __complete --codecs      the codec names
 * gtool __complete --line W...   the candidates for the last word W of the
 *                                line "gtool W...": whole words, or @files /
 *                                @dirs for the shell's own file completion
 */
int gt_complete(int argc, char **argv)
{
	const struct argp *a;

	if (argc < 2) {
		for (size_t i = 0; gt_command_name(i); i++)
			puts(gt_command_name(i));
		return 0;
	}
	if (!strcmp(argv[1], "--line"))
		return complete_line(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--codecs")) {
		for (size_t i = 0; i < gt_codec_count(); i++)
			puts(gt_codec_name(gt_codec_at(i)));
		return 0;
	}
	if (!strcmp(argv[1], "--describe")) {
		a = argc > 2 ? gt_command_argp(argv[2]) : NULL;
		if (a)
			describe_options(a);
		return a ? 0 : 1;
	}
	a = gt_command_argp(argv[1]);
	if (!a)
		return 1;
	print_options(a, "");
	puts("--help");
	puts("--usage");
	return 0;
}
