/* fuzz_api_decompress.c - gtool_decompress (public API) on arbitrary bytes */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../api/gtool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char out[4096];
	struct gtool_errbuf err;
	struct gtool_info info;
	void *p = NULL;
	size_t len = 0;

	/* into a fixed buffer: fits, or DST_TOO_SMALL, or a decoding error */
	if (gtool_decompress(data, size, out, sizeof(out), &len, &info, &err) == 0 &&
	    len != info.count * gtool_dtype_size(info.dtype))
		abort();
	/* into an exact allocation, once the header says how much */
	if (gtool_decompress_info(data, size, &info, &err) == 0 &&
	    info.count * gtool_dtype_size(info.dtype) <= (1u << 26) &&
	    gtool_decompress_alloc(data, size, &p, &len, NULL, &err) == 0 &&
	    len != info.count * gtool_dtype_size(info.dtype))
		abort();
	gtool_free(p);
	return 0;
}
