/* netopt.c - link speeds and lists of them for the network-model commands */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netopt.h"
#include "util.h"
#include "../lib/banned.h"

int gt_parse_rate(const char *s, double *bps_ret)
{
	static const char *const units[] = { "", "bit/s", "b/s", "bps" };
	char *end;
	double v, mult = 1;
	size_t u;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'G': case 'g': mult = 1e9; end++; break;
	case 'T': case 't': mult = 1e12; end++; break;
	default: break;
	}
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (!strcmp(end, units[u]))
			break;
	if (u == sizeof(units) / sizeof(units[0]))
		return -1;
	v *= mult;
	if (!(v > 0 && v <= 1e15))
		return -1;
	*bps_ret = v;
	return 0;
}

const char *gt_rate_name(double bps, char *buf, size_t len)
{
	static const struct { double mult; const char *suffix; } steps[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (bps >= steps[i].mult) {
			snprintf(buf, len, "%.4g%s", bps / steps[i].mult, steps[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%.4g", bps);
	return buf;
}

/* Split @s at commas into a malloc'd copy; each item is handed to @fn. */
static int each_item(const char *s, size_t cap, size_t *n_ret,
		     int (*fn)(const char *item, size_t i, void *arg), void *arg)
{
	char *copy = xstrdup(s), *p = copy;
	size_t n = 0;
	int rc = 0;

	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = 0;
		if (!*p || n == cap || fn(p, n, arg) < 0) {
			rc = -1;
			break;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	*n_ret = n;
	return rc;
}

static int rate_item(const char *item, size_t i, void *arg)
{
	return gt_parse_rate(item, (double *)arg + i);
}

int gt_parse_rate_list(const char *s, double *v, size_t cap, size_t *n_ret)
{
	return each_item(s, cap, n_ret, rate_item, v);
}

struct count_arg {
	long min, max, *v;
};

static int count_item(const char *item, size_t i, void *arg)
{
	const struct count_arg *c = arg;

	return gt_parse_int(item, c->min, c->max, c->v + i);
}

int gt_parse_count_list(const char *s, long min, long max, long *v, size_t cap,
			size_t *n_ret)
{
	struct count_arg c = { min, max, v };

	return each_item(s, cap, n_ret, count_item, &c);
}
