/* trace.c - the trace layout of TRACE.md: step groups, their tensors and optimizer */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gt_trace.h"
#include "source_impl.h"
#include "../lib/banned.h"

struct gt_trace {
	const struct gt_source *src;
	struct gt_trace_step *steps;
	size_t n;
};

/* ---- hyper-parameters ------------------------------------------------- */


/* The step's attribute, else the root's. */
static const struct gt_attr *lookup(const struct gt_attrs *step,
				    const struct gt_attrs *root, const char *name)
{
	const struct gt_attr *a = gt_attrs_find(step, name);

	return a ? a : root ? gt_attrs_find(root, name) : NULL;
}

/* Element @k of a numeric attribute holding exactly @n values. */
static int number(const struct gt_attr *a, size_t n, size_t k, double *v)
{
	if (!a || a->n != n || (a->type != GT_ATTR_INT && a->type != GT_ATTR_FLOAT))
		return 0;
	*v = a->type == GT_ATTR_INT ? (double)a->i[k] : a->f[k];
	return 1;
}

static int truthy(const struct gt_attr *a)
{
	double v;

	if (a && a->type == GT_ATTR_STR)
		return !strcasecmp(a->s, "true") || !strcmp(a->s, "1");
	return number(a, 1, 0, &v) && (v > 0 || v < 0);
}

/* beta1, beta2: the step's own (betaN, then betas), else the root's. */
static void read_betas(struct gt_optim *o, const struct gt_attrs *step,
		       const struct gt_attrs *root)
{
	const struct gt_attrs *const levels[2] = { step, root };

	for (int k = 0; k < 2; k++) {
		const unsigned bit = k ? GT_HP_BETA2 : GT_HP_BETA1;
		double *const dst = k ? &o->beta2 : &o->beta1;

		for (int l = 0; l < 2 && !(o->have & bit); l++) {
			if (!levels[l])
				continue;
			if (number(gt_attrs_find(levels[l], k ? "beta2" : "beta1"), 1, 0, dst) ||
			    number(gt_attrs_find(levels[l], "betas"), 2, (size_t)k, dst))
				o->have |= bit;
		}
	}
}

static void read_optim(struct gt_optim *o, const struct gt_attrs *step,
		       const struct gt_attrs *root, const struct gt_optim_hp **text)
{
	const struct gt_attr *name = lookup(step, root, "optimizer");

	memset(o, 0, sizeof(*o));
	*text = NULL;
	for (size_t k = 0; k < GT_OPTIM_NHP; k++) {
		const struct gt_optim_hp *h = &gt_optim_hps[k];
		const struct gt_attr *a = lookup(step, root, h->name);
		double v;

		if (a && a->type == GT_ATTR_STR && !*text)
			*text = h;
		if (h->bit == GT_HP_BETA1 || h->bit == GT_HP_BETA2)
			continue;
		if (number(a, 1, 0, &v))
			gt_optim_hp_set(o, h, v);
	}
	read_betas(o, step, root);
	if (name && name->type == GT_ATTR_STR)
		o->kind = gt_optim_parse(name->s);
	o->nesterov = truthy(lookup(step, root, "nesterov"));
	o->amsgrad = truthy(lookup(step, root, "amsgrad"));
	o->centered = truthy(lookup(step, root, "centered"));
	o->maximize = truthy(lookup(step, root, "maximize"));
	if (o->kind == GT_OPT_SGD && o->nesterov)
		o->kind = GT_OPT_NESTEROV;
	else if (o->kind == GT_OPT_SGD && (o->momentum > 0 || o->momentum < 0))
		o->kind = GT_OPT_MOMENTUM;
}

/* ---- steps ------------------------------------------------------------ */

/* "/step_<digits>" at the root: its number, else -1. */
static long step_number(const char *group)
{
	const char *p = group;
	char *end;
	long v;

	if (strncmp(p, "/step_", 6) || p[6] < '0' || p[6] > '9')
		return -1;
	errno = 0;
	v = strtol(p + 6, &end, 10);
	return errno || *end ? -1 : v;
}

static int cmp_steps(const void *a, const void *b)
{
	const struct gt_trace_step *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->group, y->group);
}

struct named {
	const char *name;
	size_t idx;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* The datasets under <group>/grad/, sorted by name. */
static int fill_grads(const struct gt_source *src, struct gt_trace_step *st)
{
	const size_t glen = strlen(st->group);
	const size_t nt = gt_source_count(src);
	struct named *v = malloc((nt ? nt : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < nt; i++) {
		const char *name = gt_source_info(src, i)->name;

		if (!strncmp(name, st->group, glen) && !strncmp(name + glen, "/grad/", 6))
			v[n++] = (struct named){ name, i };
	}
	qsort(v, n, sizeof(*v), cmp_names);
	st->grads = malloc((n ? n : 1) * sizeof(*st->grads));
	if (!st->grads) {
		free(v);
		return GT_ERR(NOMEM);
	}
	for (size_t k = 0; k < n; k++)
		st->grads[k] = v[k].idx;
	st->n_grads = n;
	free(v);
	return 0;
}

static int add_step(struct gt_trace *tr, const struct gt_group_info *g,
		    const struct gt_attrs *root, long num)
{
	struct gt_trace_step *st = &tr->steps[tr->n];
	double v;

	memset(st, 0, sizeof(*st));
	st->group = strdup(g->name);
	if (!st->group)
		return GT_ERR(NOMEM);
	tr->n++;
	st->step = number(gt_attrs_find(&g->attrs, "step"), 1, 0, &v) &&
		   v >= 0 && v < 9.2e18 ? (long)v : num;
	read_optim(&st->optim, &g->attrs, root, &st->text_hp);
	st->optim.t = st->step;
	return fill_grads(tr->src, st);
}

static const struct gt_attrs *root_attrs(const struct gt_source *src)
{
	for (size_t i = 0; i < gt_source_ngroups(src); i++)
		if (!strcmp(gt_source_group(src, i)->name, "/"))
			return &gt_source_group(src, i)->attrs;
	return NULL;
}

int gt_trace_open(const struct gt_source *src, struct gt_trace **tr_ret,
		  struct gt_diag *d)
{
	const struct gt_attrs *root = root_attrs(src);
	struct gt_trace *tr = calloc(1, sizeof(*tr));
	const size_t ng = gt_source_ngroups(src);

	*tr_ret = NULL;
	if (tr)
		tr->steps = calloc(ng ? ng : 1, sizeof(*tr->steps));
	if (!tr || !tr->steps) {
		free(tr);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	tr->src = src;
	for (size_t i = 0; i < ng; i++) {
		const struct gt_group_info *g = gt_source_group(src, i);
		const long num = step_number(g->name);

		if (num >= 0 && add_step(tr, g, root, num) < 0) {
			gt_trace_free(tr);
			return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
		}
	}
	qsort(tr->steps, tr->n, sizeof(*tr->steps), cmp_steps);
	*tr_ret = tr;
	return 0;
}

void gt_trace_free(struct gt_trace *tr)
{
	if (!tr)
		return;
	for (size_t i = 0; i < tr->n; i++) {
		free(tr->steps[i].group);
		free(tr->steps[i].grads);
	}
	free(tr->steps);
	free(tr);
}

int gt_trace_check(const struct gt_trace_step *st, const struct gt_optim *o,
		   struct gt_diag *d)
{
	char where[256];
	const int rc = (snprintf(where, sizeof(where), "step %s", st->group),
			gt_optim_check(o, where, d));

	if (rc == GT_ERR(NOTFOUND) && st->text_hp && !(o->have & st->text_hp->bit))
		return gt_diag_set(d, GT_ERR(TYPE), "attribute %s of %s is a string, "
				   "expected a number", st->text_hp->name, st->group);
	return rc;
}

size_t gt_trace_nsteps(const struct gt_trace *tr)
{
	return tr->n;
}

const struct gt_trace_step *gt_trace_step(const struct gt_trace *tr, size_t i)
{
	return i < tr->n ? &tr->steps[i] : NULL;
}

static const char *role_dir(enum gt_role role)
{
	switch (role) {
	case GT_ROLE_GRAD: return "grad";
	case GT_ROLE_PARAM: return "param";
	case GT_ROLE_STATE: return "state";
	case GT_ROLE_PARAM_NEXT: return "param_next";
	}
	return NULL;
}

int gt_trace_find(const struct gt_trace *tr, size_t step_idx, enum gt_role role,
		  const char *buffer, const char *name, size_t *idx_ret,
		  struct gt_diag *d)
{
	const char *dir = role_dir(role);
	const int state = role == GT_ROLE_STATE;
	char *path;
	int rc;

	if (step_idx >= tr->n || !dir || (state && !buffer))
		return gt_diag_set(d, GT_ERR(INVAL), "bad trace lookup");
	if (asprintf(&path, "%s/%s/%s%s%s", tr->steps[step_idx].group, dir,
		     state ? buffer : "", state ? "/" : "", name) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	rc = gt_source_find(tr->src, path, idx_ret);
	if (rc < 0)
		gt_diag_set(d, GT_ERR(NOTFOUND), "dataset %s not found", path);
	free(path);
	return rc < 0 ? GT_ERR(NOTFOUND) : 0;
}

const char *gt_trace_param_name(const char *dataset)
{
	static const char *const dirs[] = { "grad/", "param/", "param_next/" };
	const char *p = dataset;
	const char *slash;

	while (*p == '/')
		p++;
	slash = strchr(p, '/');
	if (!slash)
		return dataset;
	p = slash + 1;
	for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++)
		if (!strncmp(p, dirs[k], strlen(dirs[k])))
			return p + strlen(dirs[k]);
	if (!strncmp(p, "state/", 6) && strchr(p + 6, '/'))
		return strchr(p + 6, '/') + 1;
	return dataset;
}

long gt_trace_step_of(const struct gt_trace *tr, size_t idx)
{
	const struct gt_tensor_info *t = gt_source_info(tr->src, idx);

	if (!t)
		return -1;
	for (size_t i = 0; i < tr->n; i++) {
		const size_t len = strlen(tr->steps[i].group);

		if (!strncmp(t->name, tr->steps[i].group, len) && t->name[len] == '/')
			return (long)i;
	}
	return -1;
}
