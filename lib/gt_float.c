/* gt_float.c - dtype names */
#include <string.h>

#include "gt_float.h"
#include "banned.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gtool reads and writes little-endian data in place: big-endian hosts are not supported"
#endif

static const struct {
	const char *name;
	enum gt_dtype dt;
} names[] = {
	{ "f32", GT_DT_F32 },   { "float32", GT_DT_F32 },
	{ "float", GT_DT_F32 }, { "f16", GT_DT_F16 },
	{ "float16", GT_DT_F16 }, { "half", GT_DT_F16 },
	{ "bf16", GT_DT_BF16 }, { "bfloat16", GT_DT_BF16 },
	{ "f64", GT_DT_F64 },   { "float64", GT_DT_F64 },
	{ "double", GT_DT_F64 },
};

const char *gt_dtype_name(enum gt_dtype dt)
{
	switch (dt) {
	case GT_DT_F32: return "f32";
	case GT_DT_F16: return "f16";
	case GT_DT_BF16: return "bf16";
	case GT_DT_F64: return "f64";
	case GT_DT_NONE: break;
	}
	return NULL;
}

enum gt_dtype gt_dtype_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name))
			return names[i].dt;
	return GT_DT_NONE;
}
