"""h5rich.py FILE - one HDF5 file with what users' files commonly hold besides
float datasets, for the round-trip tests: typed attributes (string arrays,
2-D, complex, enums, bools, uint64 above 2^63, big-endian, compound, null),
null, scalar and zero-size datasets, non-float datasets, hard, soft and
external links."""
import sys
import h5py, numpy as np
p = sys.argv[1]
with h5py.File(p, "w") as f:
    f.attrs["layer_names"] = np.array([b"dense", b"dense_1", b"out"], dtype="S7")
    f.attrs.create("vnames", ["a", "bé", "c"], dtype=h5py.string_dtype("utf-8"))
    f.attrs.create("anames", [b"x", b"yy"], dtype=h5py.string_dtype("ascii"))
    f.attrs["m2"] = np.arange(6, dtype="f4").reshape(2, 3)
    f.attrs["cplx"] = np.complex128(1.5 - 2j)
    f.attrs["flag"] = np.bool_(True)
    f.attrs["flags"] = np.array([True, False])
    f.attrs["big"] = np.uint64(2**63 + 5)
    f.attrs["be"] = np.array([1, 2], dtype=">i4")
    f.attrs.create("color", 1, dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1}, basetype="i2"))
    f.attrs["title"] = "run é"
    f.attrs["fixed"] = np.bytes_(b"abc")
    f.attrs["lr"] = 0.001
    f.attrs["none"] = h5py.Empty("f8")
    f.attrs["rec"] = np.array([(1, 2.5)], dtype=[("a", "i4"), ("b", "f8")])
    g = f.create_group("grad")
    w = g.create_dataset("w", data=np.arange(12, dtype="f4").reshape(3, 4) / 3)
    w.attrs["unit"] = "1"
    g.create_dataset("b", data=np.float64(2.5))
    f.create_dataset("e", data=h5py.Empty("f4"))
    f.create_dataset("z", data=np.zeros((0, 3), dtype="f4"))
    f.create_dataset("s", data=np.float32(7))
    lab = f.create_dataset("labels", data=np.arange(100, dtype="i8"))
    lab.attrs["classes"] = np.array([b"cat", b"dog"])
    f.create_dataset("mask", data=np.array([True, False, True]))
    f.create_dataset("u8", data=np.arange(5, dtype="u1"))
    f.create_dataset("fs", data=np.array([b"ab", b"cde"], dtype="S3"))
    f.create_dataset("vs", data=["x", "yz", ""], dtype=h5py.string_dtype())
    f.create_dataset("recs", data=np.array([(1, 2.0), (3, 4.0)], dtype=[("i", "<i4"), ("x", "<f8")]))
    f.create_dataset("en", data=np.array([0, 1, 1], dtype="i1"),
                     dtype=h5py.enum_dtype({"OFF": 0, "ON": 1}, basetype="i1"))
    f.create_dataset("ebig", data=np.array([1], dtype=">u2"))
    f["b"] = f["grad/w"]
    f["g2"] = f["grad"]
    f["lab2"] = f["labels"]
    f["soft"] = h5py.SoftLink("/grad/w")
    f["dang"] = h5py.SoftLink("/nowhere")
    f["ext"] = h5py.ExternalLink("other.h5", "/x")
