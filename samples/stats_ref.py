#!/usr/bin/python3
"""Reference statistics for `gtool stats`, computed with numpy from the
committed sample files. Writes tests/fixtures/stats_ref.csv.

    /usr/bin/python3 samples/stats_ref.py        (from the repository root)

Tensors covered (one CSV row each, in this order):
  samples/mlp_sgd.h5  every floating-point dataset (grad, param, state,
                      param_next of every step), in h5py visit order
                      (names sorted byte-wise within each group);
  samples/dtypes.h5   /bf16, /f16, /f32, /f64 (/labels is int64: not a tensor);
                      /bf16 is a uint16 dataset with attribute
                      dtype="bfloat16": each value is the float32 whose bit
                      pattern is (u16 << 16);
  samples/grads.f32   raw little-endian float32, name "grads";
  samples/grads.npy   .npy float32, name "grads".

Columns and their exact definitions. n = number of values; "field" is the
biased exponent FIELD as stored in the bits (f32 and bf16: 8 bits, f16: 5
bits, f64: 11 bits), so zeros and subnormals both have field 0 and Inf/NaN
have the all-ones field:

  file         path relative to the repository root
  name         absolute HDF5 path ("/step_000100/grad/0.weight"), or "grads"
  dtype        f32, f16, bf16 or f64
  values       n
  zeros        count of x == 0 (+0 and -0)
  subnormals   count of field == 0 and mantissa bits != 0
  nan          count of NaN
  inf          count of +Inf and -Inf
  min, max     over the finite values (zeros and subnormals included)
  mean         fsum(x) / n_finite over the finite values, in float64
  std          population standard deviation (ddof=0) over the finite values:
               sqrt(fsum((x - mean)^2) / n_finite), in float64
  mean_abs     fsum(|x|) / n_finite over the finite values, in float64
               (min..mean_abs are "nan" when there is no finite value)
  distinct_exponents  number of distinct field values among all n values
  entropy      -sum over fields present of p*log2(p), p = count(field) / n,
               all n values counted (NaN/Inf included), in bits
  top15        (sum of the 15 largest per-field counts) / n  (1.0 when fewer
               than 16 distinct fields)
  sign         count of values with the sign bit set (NaN and -0 included) / n
  bound_bits   1 + mantissa_bits + entropy; mantissa_bits = 23 (f32), 10 (f16),
               7 (bf16), 52 (f64): the lossless bound of an exponent codec
               that stores sign and mantissa raw, bits per value
  bound_ratio  bound_bits / width, width = 32, 16, 16, 64

Values are converted to float64 exactly before any arithmetic; fsum is
math.fsum (exactly rounded sum). Floats are written with Python repr(): the
shortest decimal that parses back to the same double. A C implementation with
ordinary (pairwise or Kahan or naive) summation agrees to about 1e-12
relative on these files; tests should compare integers exactly and floats
with a relative tolerance (1e-9 is ample), absolute 1e-12 near zero.
"""

import csv
import math
import os
import sys

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# dtype name -> (unsigned view, width, exponent bits, mantissa bits)
LAYOUT = {
    "f16": (np.uint16, 16, 5, 10),
    "bf16": (np.uint16, 16, 8, 7),
    "f32": (np.uint32, 32, 8, 23),
    "f64": (np.uint64, 64, 11, 52),
}

COLUMNS = ["file", "name", "dtype", "values", "zeros", "subnormals", "nan", "inf",
           "min", "max", "mean", "std", "mean_abs", "distinct_exponents", "entropy",
           "top15", "sign", "bound_bits", "bound_ratio"]


def stats(bits, dtype):
    """bits: flat array of the raw bit patterns (unsigned ints) of one tensor."""
    utype, width, ebits, mbits = LAYOUT[dtype]
    bits = np.ascontiguousarray(bits, dtype=utype).ravel()
    n = bits.size
    if dtype == "bf16":
        x = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    else:
        ftype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[dtype]
        x = bits.view(ftype).astype(np.float64)
    b = bits.astype(np.uint64)
    field = (b >> np.uint64(mbits)) & np.uint64((1 << ebits) - 1)
    mant = b & np.uint64((1 << mbits) - 1)
    sign = (b >> np.uint64(width - 1)) & np.uint64(1)

    fin = x[np.isfinite(x)]
    row = {
        "dtype": dtype,
        "values": n,
        "zeros": int(np.count_nonzero(x == 0)),
        "subnormals": int(np.count_nonzero((field == 0) & (mant != 0))),
        "nan": int(np.count_nonzero(np.isnan(x))),
        "inf": int(np.count_nonzero(np.isinf(x))),
    }
    if fin.size:
        mean = math.fsum(fin.tolist()) / fin.size
        row["min"] = float(fin.min())
        row["max"] = float(fin.max())
        row["mean"] = mean
        row["std"] = math.sqrt(math.fsum(((fin - mean) ** 2).tolist()) / fin.size)
        row["mean_abs"] = math.fsum(np.abs(fin).tolist()) / fin.size
    else:
        for k in ("min", "max", "mean", "std", "mean_abs"):
            row[k] = float("nan")
    _, counts = np.unique(field, return_counts=True)
    counts = sorted((int(c) for c in counts), reverse=True)
    row["distinct_exponents"] = len(counts)
    row["entropy"] = math.fsum(-(c / n) * math.log2(c / n) for c in counts) if n else 0.0
    row["entropy"] = row["entropy"] + 0.0  # -0.0 -> 0.0 for a single field
    row["top15"] = sum(counts[:15]) / n if n else 0.0
    row["sign"] = int(sign.sum()) / n if n else 0.0
    row["bound_bits"] = 1 + mbits + row["entropy"]
    row["bound_ratio"] = row["bound_bits"] / width
    return row


def h5_tensors(path):
    """Yield (name, dtype, bits) for every floating-point dataset of an HDF5 file."""
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            tag = obj.attrs.get("dtype")
            if isinstance(tag, bytes):
                tag = tag.decode()
            data = obj[()]
            if tag == "bfloat16" and obj.dtype == np.uint16:
                out.append(("/" + name, "bf16", data))
            elif obj.dtype.kind == "f":
                dt = {2: "f16", 4: "f32", 8: "f64"}[obj.dtype.itemsize]
                utype = LAYOUT[dt][0]
                out.append(("/" + name, dt, data.astype(obj.dtype.newbyteorder("<")).view(utype)))
        f.visititems(visit)
    return out


def main():
    rows = []
    for rel in ("samples/mlp_sgd.h5", "samples/dtypes.h5"):
        for name, dt, bits in h5_tensors(os.path.join(ROOT, rel)):
            rows.append(dict(file=rel, name=name, **stats(bits, dt)))
    raw = np.fromfile(os.path.join(ROOT, "samples/grads.f32"), dtype="<u4")
    rows.append(dict(file="samples/grads.f32", name="grads", **stats(raw, "f32")))
    arr = np.load(os.path.join(ROOT, "samples/grads.npy"))
    assert arr.dtype == np.dtype("<f4")
    rows.append(dict(file="samples/grads.npy", name="grads", **stats(arr.view("<u4"), "f32")))

    out = os.path.join(ROOT, "tests/fixtures/stats_ref.csv")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([repr(r[c]) if isinstance(r[c], float) else r[c] for c in COLUMNS])
    print("wrote %s (%d tensors)" % (os.path.relpath(out, ROOT), len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
