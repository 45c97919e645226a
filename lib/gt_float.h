/* gt_float.h - dtypes and float field access (sign, exponent, mantissa) */
#ifndef GT_FLOAT_H
#define GT_FLOAT_H

/*
 * Everything here is static inline and free of libc calls beyond memcpy,
 * so that CUDA files can include it too: GT_HD marks the functions as
 * __host__ __device__ under nvcc.
 */
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GT_HD __host__ __device__
#else
#define GT_HD
#endif

/* Stable numeric ids: they are written into .gtz files. */
enum gt_dtype {
	GT_DT_NONE = 0, /* not a float type gtool can read */
	GT_DT_F32 = 1,
	GT_DT_F16 = 2,
	GT_DT_BF16 = 3,
	GT_DT_F64 = 4,
};
#define GT_DT_MAX 4

/* Width in bytes, 0 for GT_DT_NONE. */
static inline GT_HD unsigned gt_dtype_size(enum gt_dtype dt)
{
	switch (dt) {
	case GT_DT_F32: return 4;
	case GT_DT_F16: return 2;
	case GT_DT_BF16: return 2;
	case GT_DT_F64: return 8;
	case GT_DT_NONE: break;
	}
	return 0;
}

/* Exponent field width in bits: 8 (f32, bf16), 5 (f16), 11 (f64). */
static inline GT_HD unsigned gt_dtype_exp_bits(enum gt_dtype dt)
{
	switch (dt) {
	case GT_DT_F32: return 8;
	case GT_DT_F16: return 5;
	case GT_DT_BF16: return 8;
	case GT_DT_F64: return 11;
	case GT_DT_NONE: break;
	}
	return 0;
}

/* Mantissa (fraction) field width in bits: 23, 10, 7, 52. */
static inline GT_HD unsigned gt_dtype_man_bits(enum gt_dtype dt)
{
	switch (dt) {
	case GT_DT_F32: return 23;
	case GT_DT_F16: return 10;
	case GT_DT_BF16: return 7;
	case GT_DT_F64: return 52;
	case GT_DT_NONE: break;
	}
	return 0;
}

/* Exponent bias: 127, 15, 127, 1023. */
static inline GT_HD int gt_dtype_bias(enum gt_dtype dt)
{
	return (1 << (gt_dtype_exp_bits(dt) - 1)) - 1;
}

/* Lower-case name ("f32"), or NULL for GT_DT_NONE and unknown ids. */
const char *gt_dtype_name(enum gt_dtype dt);

/* Parse "f32", "float32", "f16", "float16", "half", "bf16", "bfloat16",
 * "f64", "float64", "double"; GT_DT_NONE when unknown. */
enum gt_dtype gt_dtype_from_name(const char *name);

/* ---- bit patterns ---------------------------------------------------- */

static inline GT_HD uint32_t gt_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline GT_HD float gt_f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline GT_HD uint64_t gt_f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline GT_HD double gt_f64_from_bits(uint64_t u)
{
	double f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Load value i of a little-endian array of dtype @dt as its raw bit
 * pattern, right-aligned in a uint64_t.  gtool only runs on little-endian
 * hosts (checked at build time in gt_float.c).
 */
static inline GT_HD uint64_t gt_fp_load(const void *base, enum gt_dtype dt,
					size_t i)
{
	const unsigned char *p = (const unsigned char *)base;

	switch (dt) {
	case GT_DT_F32: {
		uint32_t u;
		memcpy(&u, p + 4 * i, 4);
		return u;
	}
	case GT_DT_F16:
	case GT_DT_BF16: {
		uint16_t u;
		memcpy(&u, p + 2 * i, 2);
		return u;
	}
	case GT_DT_F64: {
		uint64_t u;
		memcpy(&u, p + 8 * i, 8);
		return u;
	}
	case GT_DT_NONE: break;
	}
	return 0;
}

static inline GT_HD void gt_fp_store(void *base, enum gt_dtype dt, size_t i,
				     uint64_t bits)
{
	unsigned char *p = (unsigned char *)base;

	switch (dt) {
	case GT_DT_F32: {
		const uint32_t u = (uint32_t)bits;
		memcpy(p + 4 * i, &u, 4);
		break;
	}
	case GT_DT_F16:
	case GT_DT_BF16: {
		const uint16_t u = (uint16_t)bits;
		memcpy(p + 2 * i, &u, 2);
		break;
	}
	case GT_DT_F64:
		memcpy(p + 8 * i, &bits, 8);
		break;
	case GT_DT_NONE: break;
	}
}

/* Fields of a bit pattern of dtype @dt. */
static inline GT_HD unsigned gt_fp_sign(uint64_t bits, enum gt_dtype dt)
{
	return (unsigned)(bits >> (8 * gt_dtype_size(dt) - 1)) & 1u;
}

static inline GT_HD unsigned gt_fp_exp(uint64_t bits, enum gt_dtype dt)
{
	return (unsigned)(bits >> gt_dtype_man_bits(dt)) &
	       ((1u << gt_dtype_exp_bits(dt)) - 1u);
}

static inline GT_HD uint64_t gt_fp_man(uint64_t bits, enum gt_dtype dt)
{
	return bits & ((UINT64_C(1) << gt_dtype_man_bits(dt)) - 1u);
}

static inline GT_HD uint64_t gt_fp_make(unsigned sign, unsigned exp,
					uint64_t man, enum gt_dtype dt)
{
	const unsigned mb = gt_dtype_man_bits(dt);

	return ((uint64_t)sign << (mb + gt_dtype_exp_bits(dt))) |
	       ((uint64_t)exp << mb) | man;
}

/* ---- conversion to double, exact for every dtype ---------------------- */

/* IEEE binary16 to float, exact (every f16 is representable). */
static inline GT_HD float gt_f16_to_f32(uint16_t h)
{
	const uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;

	if (exp == 0x1f)
		return gt_f32_from_bits(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		if (man == 0)
			return gt_f32_from_bits(sign);
		/* subnormal: normalise into an f32 exponent */
		exp = 127 - 15 + 1;
		while (!(man & 0x400u)) {
			man <<= 1;
			exp--;
		}
		man &= 0x3ffu;
		return gt_f32_from_bits(sign | (exp << 23) | (man << 13));
	}
	return gt_f32_from_bits(sign | ((exp + 127 - 15) << 23) | (man << 13));
}

static inline GT_HD float gt_bf16_to_f32(uint16_t b)
{
	return gt_f32_from_bits((uint32_t)b << 16);
}

/* Value i of an array of dtype @dt, as a double (exact). */
static inline GT_HD double gt_fp_get(const void *base, enum gt_dtype dt,
				     size_t i)
{
	const uint64_t u = gt_fp_load(base, dt, i);

	switch (dt) {
	case GT_DT_F32: return gt_f32_from_bits((uint32_t)u);
	case GT_DT_F16: return gt_f16_to_f32((uint16_t)u);
	case GT_DT_BF16: return gt_bf16_to_f32((uint16_t)u);
	case GT_DT_F64: return gt_f64_from_bits(u);
	case GT_DT_NONE: break;
	}
	return 0.0;
}

#endif
