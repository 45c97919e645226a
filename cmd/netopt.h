/* netopt.h - link speeds and lists of them for the network-model commands */
#ifndef GT_NETOPT_H
#define GT_NETOPT_H

#include <stddef.h>

/*
 * gt_parse_rate - a link speed in bits per second: a positive number with
 * an optional decimal suffix k, M, G or T (10^3 ... 10^12) and an optional
 * "bit/s", "b/s" or "bps" after it: "2.5G", "10G", "100M", "1e9".
 * @return 0, -1 when @s is not one (or not in (0, 1e15]).
 */
int gt_parse_rate(const char *s, double *bps_ret);

/* The same rate as people write it: "2.5G", "100M", "1.2T", "950". */
const char *gt_rate_name(double bps, char *buf, size_t len);

/*
 * gt_parse_rate_list / gt_parse_count_list - a comma-separated list of
 * rates, or of whole numbers in [@min, @max]: "10G,56G,100G", "4,16,128".
 * At most @cap items; *@n_ret the count.  @return 0, -1 on a bad item,
 * an empty item or more than @cap items.
 */
int gt_parse_rate_list(const char *s, double *v, size_t cap, size_t *n_ret);
int gt_parse_count_list(const char *s, long min, long max, long *v, size_t cap,
			size_t *n_ret);

#endif
