/* check.h - the unit-test harness: CHECK(), RUN() and a closing count line */
#ifndef GT_CHECK_H
#define GT_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int check_failures, check_passed, check_failed;
static uint64_t check_seed_value;

#define CHECK(expr)                                                           \
	do {                                                                  \
		if (!(expr)) {                                                \
			check_failures++;                                     \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__,\
				__LINE__, #expr);                             \
		}                                                             \
	} while (0)

/* CHECK_RC(call, expected rc) shows both codes on failure. */
#define CHECK_RC(expr, want)                                                  \
	do {                                                                  \
		const int check_rc_ = (expr);                                 \
		if (check_rc_ != (want)) {                                    \
			check_failures++;                                     \
			fprintf(stderr, "%s:%d: %s returned %d, expected %d\n",\
				__FILE__, __LINE__, #expr, check_rc_, (want));\
		}                                                             \
	} while (0)

static inline void check_run(const char *name, void (*fn)(void))
{
	const int before = check_failures;

	fn();
	if (check_failures == before) {
		check_passed++;
	} else {
		check_failed++;
		fprintf(stderr, "FAIL %s\n", name);
	}
}
#define RUN(fn) check_run(#fn, fn)

/*
 * Outputs that must all be byte-identical (one per isa, chunking, ...):
 * the first, @out of @len bytes, becomes @ref (@ref_len; the caller frees
 * it at the end); each later one is checked against it and freed.
 */
#define CHECK_SAME_BYTES(ref, ref_len, out, len)                              \
	do {                                                                  \
		if (!(ref)) {                                                 \
			(ref) = (out);                                        \
			(ref_len) = (len);                                    \
		} else {                                                      \
			CHECK((len) == (ref_len) && !memcmp((out), (ref), (len))); \
			free(out);                                            \
		}                                                             \
	} while (0)

/* FNV-1a over @n bytes at @p from @h: digests of output the tests pin. */
static inline uint64_t check_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * UINT64_C(0x100000001b3);
	return h;
}

/* splitmix64: a small seeded generator; tests print their seed. */
static inline uint64_t check_rand(void)
{
	uint64_t z = (check_seed_value += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* --seed N on the command line, else a seed from the clock; printed. */
static inline void check_init(int argc, char **argv)
{
	check_seed_value = (uint64_t)time(NULL);
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--seed"))
			check_seed_value = strtoull(argv[i + 1], NULL, 0);
	printf("%s: seed = %" PRIu64 "\n", argv[0], check_seed_value);
}

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
