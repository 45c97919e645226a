"""gtool: the gradient codecs, .gtz files and error metrics of libgtool, for
NumPy arrays and PyTorch tensors.

    import numpy as np, gtool
    blob = gtool.compress(grad, codec="huffexp")      # array in, bytes out
    back = gtool.decompress(blob)                     # bytes in, array out
    blob = gtool.compress(grad, codec="gcomp", optimizer="adam", lr=1e-3, step=10,
                          param=p, state={"exp_avg": m, "exp_avg_sq": v})
    for t in gtool.open("run.gtz"):
        print(t.name, t.dtype, t.shape, t.attrs); a = t.read()
    gtool.error(a, b)                                 # the columns of `gtool error`

Values are float32, float16 and float64 arrays, or bfloat16 given as a torch
tensor or as a uint16 array with dtype="bf16" (bfloat16 comes back as uint16
bit patterns: gtool.torch.to_torch() makes a tensor of it).  Arrays that are
not C-contiguous or not little-endian are copied first, never misread.

Everything is done by libgtool (api/gtool.h) through ctypes; errors raise
gtool.Error with the library's message.  See python/README.md.
"""

import ctypes

import numpy as np

from . import _lib
from ._lib import Error
from ._io import open, load, Writer, Tensor, File  # noqa: F401  (public names)
from . import _arr
from ._arr import as_array, dtype_name, OptContext  # noqa: F401

__version__ = _lib.lib.gtool_version().decode()
library_path = _lib.path

__all__ = ["compress", "decompress", "info", "codecs", "error", "update_fidelity",
           "open", "load", "Writer", "Tensor", "File", "OptContext", "Error",
           "__version__"]


def codecs():
    """The names of libgtool's codecs (as `gtool --list-codecs`)."""
    n = _lib.lib.gtool_codec_count()
    return [_lib.lib.gtool_codec_name(i).decode() for i in range(n)]


def _dims(shape):
    return (ctypes.c_uint64 * max(len(shape), 1))(*shape)


def compress(x, codec="huffexp", dtype=None, optimizer=None, param=None, state=None,
             **hparams):
    """Compress the array or tensor x with the codec spec `codec`
    ("huffexp", "zstd:level=3", "gcomp:margin=1", ...) into a .gtz blob
    (bytes) that keeps the dtype and shape; `gtool decompress` reads it too.

    dtype="bf16" marks a uint16 array as bfloat16 bit patterns.  gcomp needs
    the optimizer context of the step: optimizer (a name such as "adam", or
    an OptContext), its hyper-parameters as keywords (lr=, step=, betas=,
    ...), the parameter before the step (param) and the optimizer state
    before it (state: {"exp_avg": m, ...}), each with as many values as x.
    """
    arr, dt = as_array(x, dtype)
    ctx = OptContext.make(optimizer, param, state, hparams)
    spec = codec.encode()
    dims = _dims(arr.shape)
    err = _lib.ErrBuf()
    n = ctypes.c_size_t()

    def fill(ptr, cap):
        _lib.check(_lib.lib.gtool_compress(spec, dt, dims, arr.ndim, arr.ctypes.data, arr.nbytes,
                                           ctx.handle if ctx is not None else None, ptr, cap,
                                           ctypes.byref(n), ctypes.byref(err)), err)
        return n.value

    return _lib.bytes_of(_lib.lib.gtool_compress_bound(dt, arr.size), fill)


def _blob(blob):
    """(object to keep alive, address, length) of a blob; bytes (what
    compress() returns) is passed as it is, without a NumPy view."""
    if type(blob) is bytes:
        return blob, blob, len(blob)
    b = np.frombuffer(blob, dtype=np.uint8)
    return b, b.ctypes.data, b.nbytes


def _info(ptr, n):
    inf = _lib.Info()
    err = _lib.ErrBuf()
    _lib.check(_lib.lib.gtool_decompress_info(ptr, n, ctypes.byref(inf), ctypes.byref(err)),
               err)
    return inf


def info(blob):
    """(dtype name, shape) of the tensor in a blob, from its headers."""
    _, ptr, n = _blob(blob)
    inf = _info(ptr, n)
    return dtype_name(inf.dtype), tuple(inf.dims[:inf.rank])


def decompress(blob, out=None):
    """The array in a blob from compress() (or a one-tensor .gtz from the CLI),
    with its dtype and shape; bfloat16 as uint16.  `out`, a C-contiguous
    array of the right dtype and size, is filled instead of a new one."""
    keep, ptr, n = _blob(blob)
    inf = _info(ptr, n)
    shape = tuple(inf.dims[:inf.rank])
    npdt = _arr.NUMPY[inf.dtype]
    if out is None:
        out = np.empty(shape, dtype=npdt)
    elif (out.dtype != npdt or out.size != inf.count or not out.flags.c_contiguous
          or not out.flags.writeable):
        raise Error("decompress: out must be a writable C-contiguous %s array of %d values"
                    % (np.dtype(npdt).name, inf.count))
    err = _lib.ErrBuf()
    got = ctypes.c_size_t()
    _lib.check(_lib.lib.gtool_decompress(ptr, n, out.ctypes.data, out.nbytes, ctypes.byref(got),
                                         None, ctypes.byref(err)), err)
    del keep
    return out


_COLUMNS = ("values", "identical", "identical_pct", "nan", "inf", "max_abs", "max_rel", "range",
            "rmse", "nrmse", "psnr", "snr", "cosine", "pearson", "gain")


def error(a, b, dtype_a=None, dtype_b=None):
    """The metrics of `gtool error` between the original a and its copy b
    (same number of values, any float dtypes): a dict with its columns
    values, identical, identical_pct, nan, inf, max_abs, max_rel, range,
    rmse, nrmse, psnr, snr, cosine, pearson, gain (NaN where undefined)."""
    xa, da = as_array(a, dtype_a)
    xb, db = as_array(b, dtype_b)
    if xa.size != xb.size:
        raise Error("error: a has %d values, b has %d" % (xa.size, xb.size), -2)
    m = _lib.Metrics()
    err = _lib.ErrBuf()
    _lib.check(_lib.lib.gtool_error_metrics(xa.ctypes.data, da, xb.ctypes.data, db, xa.size,
                                            ctypes.byref(m), ctypes.byref(err)), err)
    r = {k: getattr(m, k) for k in _COLUMNS if k != "identical_pct"}
    r["identical_pct"] = 100.0 * m.identical / m.values if m.values else float("nan")
    return {k: r[k] for k in _COLUMNS}


def update_fidelity(g, ghat, optimizer, param, state=None, next=None, **hparams):
    """Update fidelity, as `gtool error --update` reports it for one tensor:
    step param once with g and once with ghat (float32, bit for bit as
    PyTorch does) and compare.  `next` is PyTorch's own new parameter.
    Returns a dict: values, identical, identical_pct, max_ulp (None when a
    pair differs by a NaN), max_rel, and with next py_values, py_identical
    and pytorch_identical_pct."""
    ctx = OptContext.make(optimizer, param, state, hparams)
    xg = _arr.f32(g, "g")
    xh = _arr.f32(ghat, "ghat")
    xn = _arr.f32(next, "next") if next is not None else None
    if xh.size != xg.size or (xn is not None and xn.size != xg.size):
        raise Error("update_fidelity: g, ghat and next must have as many values", -2)
    f = _lib.Fidelity()
    err = _lib.ErrBuf()
    _lib.check(_lib.lib.gtool_update_fidelity(ctx.handle, xg.ctypes.data, xh.ctypes.data,
                                               xn.ctypes.data if xn is not None else None,
                                               xg.size, ctypes.byref(f), ctypes.byref(err)), err)
    r = {"values": f.values, "identical": f.identical, "identical_pct": f.identical_pct,
         "max_ulp": None if f.max_ulp == 2**64 - 1 else f.max_ulp, "max_rel": f.max_rel}
    if xn is not None:
        r.update(py_values=f.py_values, py_identical=f.py_identical,
                 pytorch_identical_pct=(100.0 * f.py_identical / f.py_values
                                        if f.py_values else float("nan")))
    return r

