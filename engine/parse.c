/* parse.c - checked parsing of option values: numbers, sizes, rates */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_parse.h"
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

int gt_parse_threads(const char *s, unsigned *ret)
{
	long v;

	if (gt_parse_int(s, 0, 1024, &v) < 0)
		return -1;
	*ret = (unsigned)v;
	return 0;
}

/* 1 when @p has glob characters: it may match many datasets, or none. */
