"""The ctypes binding of libgtool (api/gtool.h): finding the library, the
structures and the prototypes.  Nothing here computes anything itself."""

import ctypes
import os

SONAME = "libgtool.so.0"
_HERE = os.path.dirname(os.path.abspath(__file__))


class Error(Exception):
    """A libgtool call failed.  str() is the library's message; .code is the
    negative GTOOL_E_* code (or 0 for a check made before any call)."""

    def __init__(self, msg, code=0):
        super().__init__(msg)
        self.code = code


def _candidates():
    """Where libgtool is looked for, in order: next to the package (a copy in
    the package, or the lib/ that `make install` put both under), build/ of
    the source tree the package sits in, then $GTOOL_LIBRARY."""
    c = [os.path.join(_HERE, SONAME)]
    parts = _HERE.split(os.sep)
    if len(parts) > 4 and parts[-4] == "lib" and parts[-3].startswith("python3") \
            and parts[-2] == "dist-packages":
        c.append(os.path.join(os.sep.join(parts[:-3]), SONAME))
    c.append(os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", SONAME))
    env = os.environ.get("GTOOL_LIBRARY")
    if env:
        c.append(env)
    return c


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path), path
        tried.append(path)
    raise ImportError("gtool: libgtool not found (tried %s); build it with make, "
                      "or set GTOOL_LIBRARY to its path" % ", ".join(tried))


MAX_RANK = 32
F32, F16, BF16, F64 = 1, 2, 3, 4
ATTR_INT, ATTR_FLOAT, ATTR_STR = 0, 1, 2
EV_EOF, EV_GROUP, EV_TENSOR, EV_DATA, EV_TENSOR_END = 0, 1, 2, 3, 4
E_DST_TOO_SMALL = -6
FORCE = 1


class ErrBuf(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 256)]


class Info(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_uint),
                ("dims", ctypes.c_uint64 * MAX_RANK), ("count", ctypes.c_uint64)]


class Attr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("n", ctypes.c_size_t),
                ("i", ctypes.POINTER(ctypes.c_int64)), ("f", ctypes.POINTER(ctypes.c_double)),
                ("s", ctypes.c_char_p)]


class Metrics(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("values", "identical", "nan", "inf", "n")] + \
               [(n, ctypes.c_double) for n in ("max_abs", "max_rel", "range", "rmse", "nrmse",
                                               "psnr", "snr", "cosine", "pearson", "gain")]


class Fidelity(ctypes.Structure):
    _fields_ = [("values", ctypes.c_uint64), ("identical", ctypes.c_uint64),
                ("max_ulp", ctypes.c_uint64), ("max_rel", ctypes.c_double),
                ("identical_pct", ctypes.c_double), ("py_values", ctypes.c_uint64),
                ("py_identical", ctypes.c_uint64)]


P = ctypes.c_void_p
S = ctypes.c_char_p
I = ctypes.c_int
Z = ctypes.c_size_t
U64 = ctypes.c_uint64
PP = ctypes.POINTER(ctypes.c_void_p)
PZ = ctypes.POINTER(ctypes.c_size_t)
PE = ctypes.POINTER(ErrBuf)
PI = ctypes.POINTER(Info)
PU64 = ctypes.POINTER(ctypes.c_uint64)
PF = ctypes.POINTER(ctypes.c_float)

# name: (restype, argtypes)
_PROTOS = {
    "gtool_version": (S, []),
    "gtool_strerror": (S, [I]),
    "gtool_free": (None, [P]),
    "gtool_dtype_size": (Z, [I]),
    "gtool_codec_count": (Z, []),
    "gtool_codec_name": (S, [Z]),
    "gtool_codec_check": (I, [S, I, PE]),
    "gtool_optctx_new": (I, [S, PP, PE]),
    "gtool_optctx_free": (None, [P]),
    "gtool_optctx_set": (I, [P, S, ctypes.c_double]),
    "gtool_optctx_set_param": (I, [P, P, Z]),
    "gtool_optctx_set_state": (I, [P, S, P, Z]),
    "gtool_optctx_check": (I, [P]),
    "gtool_optctx_errmsg": (S, [P]),
    "gtool_compress_bound": (Z, [I, U64]),
    "gtool_compress": (I, [S, I, PU64, ctypes.c_uint, P, Z, P, P, Z, PZ, PE]),
    "gtool_compress_alloc": (I, [S, I, PU64, ctypes.c_uint, P, Z, P, PP, PZ, PE]),
    "gtool_decompress_info": (I, [P, Z, PI, PE]),
    "gtool_decompress": (I, [P, Z, P, Z, PZ, PI, PE]),
    "gtool_writer_open_path": (I, [S, I, ctypes.c_uint, PP, PE]),
    "gtool_writer_attr_int": (I, [P, S, P, Z]),
    "gtool_writer_attr_float": (I, [P, S, P, Z]),
    "gtool_writer_attr_str": (I, [P, S, S]),
    "gtool_writer_group": (I, [P, S]),
    "gtool_writer_blocks": (I, [P, ctypes.c_uint32, ctypes.c_uint32]),
    "gtool_writer_table": (I, [P, S]),
    "gtool_writer_begin": (I, [P, S, S, I, PU64, ctypes.c_uint, P]),
    "gtool_writer_write": (I, [P, P, Z]),
    "gtool_writer_end": (I, [P]),
    "gtool_writer_commit": (I, [P]),
    "gtool_writer_bytes": (U64, [P]),
    "gtool_writer_free": (None, [P]),
    "gtool_writer_errmsg": (S, [P]),
    "gtool_reader_open_path": (I, [S, ctypes.c_uint, PP, PE]),
    "gtool_reader_open_mem": (I, [P, Z, ctypes.c_uint, PP, PE]),
    "gtool_reader_free": (None, [P]),
    "gtool_reader_next": (I, [P, ctypes.POINTER(I)]),
    "gtool_reader_name": (S, [P]),
    "gtool_reader_info": (I, [P, PI]),
    "gtool_reader_codec": (I, [P, ctypes.c_char_p, Z]),
    "gtool_reader_nattrs": (Z, [P]),
    "gtool_reader_attr": (I, [P, Z, ctypes.POINTER(Attr)]),
    "gtool_reader_read_tensor": (I, [P, P, Z, PZ]),
    "gtool_reader_errmsg": (S, [P]),
    "gtool_error_metrics": (I, [P, I, P, I, Z, ctypes.POINTER(Metrics), PE]),
    "gtool_update_fidelity": (I, [P, P, P, P, Z, ctypes.POINTER(Fidelity), PE]),
}

lib, path = _load()
for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def strerror(rc):
    return lib.gtool_strerror(rc).decode()


def fail(rc, msg=None):
    """Raise Error for return code rc with the library's message msg (bytes
    or str), else the code's own message."""
    if isinstance(msg, bytes):
        msg = msg.decode("utf-8", "replace")
    raise Error(msg or strerror(rc), rc)


def check(rc, err=None):
    """rc from a call without a context: raise Error unless rc >= 0."""
    if rc < 0:
        fail(rc, err.msg if err is not None else None)
    return rc


# bytes_of(cap, fill): a bytes object that fill(address, cap) -> length writes
# into.  On CPython the bytes object itself is the buffer (made uninitialized,
# then shrunk in place to the length), so a large result is never copied;
# elsewhere a bytearray is filled and copied.
try:
    _api = ctypes.pythonapi
    _bytes_new = _api.PyBytes_FromStringAndSize
    _bytes_new.restype = ctypes.py_object
    _bytes_new.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    _bytes_ptr = _api.PyBytes_AsString
    _bytes_ptr.restype = ctypes.c_void_p
    _bytes_ptr.argtypes = [ctypes.py_object]
    _bytes_resize = _api._PyBytes_Resize
    _bytes_resize.restype = ctypes.c_int
    _bytes_resize.argtypes = [ctypes.POINTER(ctypes.py_object), ctypes.c_ssize_t]
except (AttributeError, OSError):
    _bytes_new = None

# A large result is asked to be backed by transparent huge pages, as NumPy
# does for its own arrays of 4 MiB and more (numpy's _set_madvise_hugepage
# switches both): its first touch then faults once per 2 MiB instead of
# once per 4 KiB page.
HUGE_MIN = 1 << 22
MADV_HUGEPAGE = 14
_PAGE = 4096
try:
    import sys as _sys
    if not _sys.platform.startswith("linux"):
        raise OSError("no madvise")
    import mmap as _mmap
    _PAGE = _mmap.PAGESIZE
    _madvise = ctypes.CDLL(None).madvise
    _madvise.restype = ctypes.c_int
    _madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
except (AttributeError, OSError):
    _madvise = None


def _huge_wanted():
    if _madvise is None:
        return False
    try:
        import numpy.core.multiarray as ma
        return bool(ma._get_madvise_hugepage())
    except (ImportError, AttributeError):
        return True


def advise_huge(addr, n):
    """madvise(MADV_HUGEPAGE) on the whole pages inside [addr, addr + n)
    when n >= HUGE_MIN; True when it was asked.  Advice only: a kernel
    without transparent huge pages, or one that refuses, changes nothing."""
    if n < HUGE_MIN or not _huge_wanted():
        return False
    start = (addr + _PAGE - 1) & ~(_PAGE - 1)
    end = (addr + n) & ~(_PAGE - 1)
    return end > start and _madvise(start, end - start, MADV_HUGEPAGE) == 0


def bytes_of(cap, fill):
    if cap == 0:
        raise Error("size overflow", -9)
    if _bytes_new is None:
        buf = bytearray(cap)
        n = fill(ctypes.addressof((ctypes.c_char * cap).from_buffer(buf)), cap)
        return bytes(memoryview(buf)[:n])
    cell = ctypes.py_object(_bytes_new(None, cap))  # the only reference: resizable
    addr = _bytes_ptr(cell.value)
    advise_huge(addr, cap)
    n = fill(addr, cap)
    if n != cap:
        _bytes_resize(ctypes.byref(cell), n)
    return cell.value
