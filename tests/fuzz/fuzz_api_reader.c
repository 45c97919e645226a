/* fuzz_api_reader.c - the streaming .gtz reader of the public API on arbitrary bytes */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../api/gtool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input in pieces of 1 to 13 bytes, so records straddle every read. */
struct feed {
	const uint8_t *p;
	size_t len, pos;
};

static int feed_read(void *arg, void *dst, size_t cap, size_t *len_ret)
{
	struct feed *f = arg;
	size_t k = 1 + (f->pos * 7) % 13;

	k = k < cap ? k : cap;
	k = k < f->len - f->pos ? k : f->len - f->pos;
	memcpy(dst, f->p + f->pos, k);
	f->pos += k;
	*len_ret = k;
	return 0;
}

/* Every accessor on every event; nothing may crash. */
static void walk(struct gtool_reader *r)
{
	int ev = GTOOL_EV_GROUP;
	char codec[64];

	while (gtool_reader_next(r, &ev) == 0 && ev != GTOOL_EV_EOF) {
		struct gtool_info info;
		struct gtool_attr a;
		struct gtool_object o;
		const void *p;
		size_t len;
		uint64_t first;

		(void)gtool_reader_name(r);
		(void)gtool_reader_info(r, &info);
		(void)gtool_reader_codec(r, codec, sizeof(codec));
		for (size_t i = 0; i < gtool_reader_nattrs(r); i++)
			if (gtool_reader_attr(r, i, &a) == 0 && a.type == GTOOL_ATTR_STR &&
			    a.s[a.n] != '\0')
				abort(); /* strings end in a NUL, inside their buffer */
		if (gtool_reader_data(r, &p, &len, &first) == 0 && len && !p)
			abort();
		if (gtool_reader_object(r, &o) == 0 && o.data_len && !o.data)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gtool_reader *r = NULL;
	struct feed f = { data, size, 0 };
	unsigned char buf[1024];
	size_t len;
	int ev = GTOOL_EV_GROUP;

	if (gtool_reader_open_mem(data, size, 2, &r, NULL) == 0)
		walk(r);
	gtool_reader_free(r);
	r = NULL;
	if (gtool_reader_open_cb(feed_read, &f, 1, &r, NULL) == 0)
		while (gtool_reader_next(r, &ev) == 0 && ev != GTOOL_EV_EOF)
			if (ev == GTOOL_EV_TENSOR)
				(void)gtool_reader_read_tensor(r, buf, sizeof(buf), &len);
	gtool_reader_free(r);
	return 0;
}
