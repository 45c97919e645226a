/* gt_parse.h - checked parsing of option values, for every front end */
#ifndef GT_PARSE_H
#define GT_PARSE_H

#include <stdint.h>

/* Checked number parsing: whole string, range inclusive; -1 on error. */
int gt_parse_int(const char *s, long min, long max, long *ret);
int gt_parse_double(const char *s, double min, double max, double *ret);
/* A count with an optional binary suffix: "1M" = 2^20, "64K", "4G". */
int gt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/*
 * A link speed in bits per second: "10G" (10^10), "2.5G", "100M", "56k",
 * "1e9", with an optional "bps", "bit/s" or "b/s"; powers of ten, as
 * networks count (M is mega: there is no milli-bit).  -1 when not a
 * number in (0, 1e15].
 */
int gt_parse_rate(const char *s, double *ret);

/* Parse -T: "N" (0-1024); 0 means all cores (each caller counts them). */
int gt_parse_threads(const char *s, unsigned *ret);

#endif
