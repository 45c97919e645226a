"""h5tree.py FILE - print everything an HDF5 file holds, one line per fact,
for the round-trip tests: the tree of links (hard, soft, external), every
attribute's and dataset's HDF5 type, shape and bytes.  Storage details
(chunks, filters, object times) are left out: gtool does not keep them."""
import sys

import h5py
import numpy as np


def type_desc(tid):
    """The HDF5 type as h5py sees it: class, size, order, sign, string
    padding and character set, enum members, compound fields."""
    cls = tid.get_class()
    out = ["class=%d" % cls]
    if cls == h5py.h5t.STRING:
        out.append("vlen=%s" % tid.is_variable_str())
        out.append("cset=%d" % tid.get_cset())
        if not tid.is_variable_str():
            out.append("size=%d pad=%d" % (tid.get_size(), tid.get_strpad()))
        return " ".join(out)
    out.append("size=%d" % tid.get_size())
    if cls in (h5py.h5t.INTEGER, h5py.h5t.FLOAT):
        out.append("order=%d" % tid.get_order())
    if cls == h5py.h5t.INTEGER:
        out.append("sign=%d" % tid.get_sign())
    if cls == h5py.h5t.ENUM:
        n = tid.get_nmembers()
        out.append("members=" + ",".join(
            "%s=%d" % (tid.get_member_name(i).decode(), tid.get_member_value(i))
            for i in range(n)))
    if cls == h5py.h5t.COMPOUND:
        out.append("fields=" + ",".join(
            "%s@%d:(%s)" % (tid.get_member_name(i).decode(), tid.get_member_offset(i),
                           type_desc(tid.get_member_type(i)))
            for i in range(tid.get_nmembers())))
    if cls == h5py.h5t.ARRAY:
        out.append("dims=%s of (%s)" % (tid.get_array_dims(), type_desc(tid.get_super())))
    return " ".join(out)


def value_desc(v):
    if isinstance(v, h5py.Empty):
        return "empty"
    a = np.asarray(v)
    if a.dtype.kind == "O":
        return "objects=" + repr([x for x in a.ravel().tolist()])
    return "bytes=" + a.tobytes().hex()


def space_desc(space):
    kind = space.get_simple_extent_type()
    if kind == h5py.h5s.NULL:
        return "null"
    if kind == h5py.h5s.SCALAR:
        return "scalar"
    return "shape=%s" % (space.shape,)


def attrs(path, obj):
    for name in sorted(obj.attrs):
        aid = h5py.h5a.open(obj.id, name.encode())
        print("attr %s:%s %s %s %s" % (path, name, type_desc(aid.get_type()),
                                      space_desc(aid.get_space()),
                                      value_desc(obj.attrs[name])))


def dataset(path, ds):
    tid = ds.id.get_type()
    space = ds.id.get_space()
    if space.get_simple_extent_type() == h5py.h5s.NULL:
        val = "empty"
    else:
        val = value_desc(ds[()])
    print("dataset %s %s %s %s" % (path, type_desc(tid), space_desc(space), val))
    attrs(path, ds)


def walk(f, group, prefix, seen):
    for name in sorted(group):
        path = prefix + name
        link = group.get(name, getlink=True)
        if isinstance(link, h5py.SoftLink):
            print("soft %s -> %s" % (path, link.path))
            continue
        if isinstance(link, h5py.ExternalLink):
            print("external %s -> %s:%s" % (path, link.filename, link.path))
            continue
        obj = group[name]
        first = [p for (o, p) in seen if o == obj]
        if first:
            print("hard %s = %s" % (path, first[0]))
            continue
        seen.append((obj, path))
        if isinstance(obj, h5py.Group):
            print("group %s" % path)
            attrs(path, obj)
            walk(f, obj, path + "/", seen)
        else:
            dataset(path, obj)


def main():
    with h5py.File(sys.argv[1], "r") as f:
        print("group /")
        attrs("/", f)
        walk(f, f, "/", [(f, "/")])


main()
