/*
 * list_gtz.c - list the groups, tensors, other datasets, links and
 * attributes of a .gtz file (as `gtool compress` writes it), and read one
 * tensor.
 *
 *	list_gtz FILE.gtz [TENSOR]
 *
 * Build by hand against an installed libgtool:
 *	cc list_gtz.c -o list_gtz $(pkg-config --cflags --libs gtool)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gtool.h>

static void print_attrs(const struct gtool_reader *r)
{
	for (size_t i = 0; i < gtool_reader_nattrs(r); i++) {
		struct gtool_attr a;

		gtool_reader_attr(r, i, &a);
		printf("    @%s = ", a.name);
		if (a.type == GTOOL_ATTR_STR)
			printf("\"%s\"", a.s);
		for (size_t k = 0; a.type != GTOOL_ATTR_STR && k < a.n && k < 4; k++) {
			if (a.type == GTOOL_ATTR_INT)
				printf("%s%lld", k ? ", " : "", (long long)a.i[k]);
			else
				printf("%s%g", k ? ", " : "", a.f[k]);
		}
		printf("%s\n", a.type != GTOOL_ATTR_STR && a.n > 4 ? ", ..." : "");
	}
}

static void print_tensor(const struct gtool_reader *r)
{
	struct gtool_info info;
	char codec[256];

	gtool_reader_info(r, &info);
	gtool_reader_codec(r, codec, sizeof(codec));
	printf("tensor %s %s [", gtool_reader_name(r), gtool_dtype_name(info.dtype));
	for (unsigned i = 0; i < info.rank; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)info.dims[i]);
	printf("] %s\n", codec);
}

/* A dataset gtool keeps whole (integers, strings, ...) or a link. */
static void print_object(const struct gtool_reader *r)
{
	static const char *const kinds[] = { "dataset", "hard link", "soft link", "external link" };
	struct gtool_object o;

	gtool_reader_object(r, &o);
	if (o.kind == GTOOL_OBJ_DATASET)
		printf("dataset %s %s, %zu bytes\n", o.name, o.type_desc, o.data_len);
	else
		printf("%s %s -> %s%s%s\n", kinds[o.kind], o.name, o.file ? o.file : "",
		       o.file ? ":" : "", o.target);
}

/* Read the tensor that starts here and print its sum (f32 and f64). */
static int read_one(struct gtool_reader *r)
{
	struct gtool_info info;
	size_t len = 0;
	double sum = 0;
	void *v;
	int rc;

	gtool_reader_info(r, &info);
	v = malloc(info.count * gtool_dtype_size(info.dtype) + 1);
	if (!v)
		return GTOOL_E_NOMEM;
	rc = gtool_reader_read_tensor(r, v, info.count * gtool_dtype_size(info.dtype), &len);
	for (size_t i = 0; rc == 0 && i < info.count; i++)
		sum += info.dtype == GTOOL_F32 ? ((const float *)v)[i] :
		       info.dtype == GTOOL_F64 ? ((const double *)v)[i] : 0;
	if (rc == 0)
		printf("read %zu bytes, sum %.9g\n", len, sum);
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	struct gtool_reader *r = NULL;
	struct gtool_errbuf err;
	int ev = GTOOL_EV_GROUP, rc, found = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: list_gtz FILE.gtz [TENSOR]\n");
		return 2;
	}
	rc = gtool_reader_open_path(argv[1], 1, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "list_gtz: %s: %s\n", argv[1], err.msg);
		return 1;
	}
	while (rc == 0 && ev != GTOOL_EV_EOF) {
		rc = gtool_reader_next(r, &ev);
		if (rc < 0 || (ev != GTOOL_EV_GROUP && ev != GTOOL_EV_TENSOR &&
			       ev != GTOOL_EV_OBJECT))
			continue;
		if (ev == GTOOL_EV_GROUP)
			printf("group %s\n", gtool_reader_name(r));
		else if (ev == GTOOL_EV_OBJECT)
			print_object(r);
		else
			print_tensor(r);
		print_attrs(r);
		if (ev == GTOOL_EV_TENSOR && argc > 2 && !strcmp(gtool_reader_name(r), argv[2])) {
			found = 1;
			rc = read_one(r);
		}
	}
	if (rc < 0)
		fprintf(stderr, "list_gtz: %s: %s\n", argv[1], gtool_reader_errmsg(r));
	else if (argc > 2 && !found)
		fprintf(stderr, "list_gtz: %s: no tensor %s\n", argv[1], argv[2]);
	gtool_reader_free(r);
	return rc < 0 || (argc > 2 && !found);
}
