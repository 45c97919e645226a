"""Reading and writing .gtz files tensor by tensor (libgtool's streaming
reader and writer)."""

import ctypes

import numpy as np

from . import _lib
from ._lib import Error
from ._arr import NUMPY, as_array, dtype_name, OptContext


def _where(path, msg):
    """"path: msg", unless the library's message names the path already."""
    return msg if msg.startswith(path + ": ") else "%s: %s" % (path, msg)


def _attr_value(a):
    if a.type == _lib.ATTR_STR:
        return ctypes.string_at(a.s, a.n).decode("utf-8", "replace")
    if a.type == _lib.ATTR_INT:
        v = [int(a.i[k]) for k in range(a.n)]
    else:
        v = [float(a.f[k]) for k in range(a.n)]
    return v[0] if len(v) == 1 else v


class Tensor:
    """One tensor of a .gtz file: name ("/step_000100/grad/fc.weight"),
    dtype ("f32", "f16", "bf16", "f64"), shape, attrs (dict), codec (the
    spec it was coded with).  read() decodes its values (bfloat16 as
    uint16); it works while the tensor is the current one of the
    iteration, since the file is read once, in order."""

    def __init__(self, f, name, info, attrs, codec):
        self._file = f
        self.name = name
        self.dtype = dtype_name(info.dtype)
        self.shape = tuple(info.dims[:info.rank])
        self.size = int(info.count)
        self.attrs = attrs
        self.codec = codec
        self._np = NUMPY[info.dtype]

    def read(self):
        return self._file._read(self)

    def __repr__(self):
        return "<gtool.Tensor %s %s %s>" % (self.name, self.dtype, self.shape)


class File:
    """A .gtz file (a path, or bytes) read tensor by tensor: iterate it for
    Tensor objects.  groups maps each group passed so far ("/",
    "/step_000100") to its attributes; attrs is the root group's."""

    def __init__(self, src, threads=1):
        self._r = None
        self._cur = None
        self.groups = {}
        err = _lib.ErrBuf()
        h = ctypes.c_void_p()
        if isinstance(src, (bytes, bytearray, memoryview)):
            self._mem = np.frombuffer(src, dtype=np.uint8)
            rc = _lib.lib.gtool_reader_open_mem(self._mem.ctypes.data, self._mem.nbytes, threads,
                                                ctypes.byref(h), ctypes.byref(err))
            where = "<bytes>"
        else:
            where = str(src)
            rc = _lib.lib.gtool_reader_open_path(where.encode(), threads, ctypes.byref(h),
                                                 ctypes.byref(err))
        if rc < 0:
            _lib.fail(rc, _where(where, err.msg.decode() or _lib.strerror(rc)))
        self._r = h
        self.path = where

    @property
    def attrs(self):
        return self.groups.get("/", {})

    def _fail(self, rc):
        msg = _lib.lib.gtool_reader_errmsg(self._r)
        _lib.fail(rc, "%s: %s" % (self.path, (msg or b"").decode() or _lib.strerror(rc)))

    def _attrs(self):
        out = {}
        a = _lib.Attr()
        for i in range(_lib.lib.gtool_reader_nattrs(self._r)):
            if _lib.lib.gtool_reader_attr(self._r, i, ctypes.byref(a)) == 0:
                out[a.name.decode()] = _attr_value(a)
        return out

    def _tensor(self):
        inf = _lib.Info()
        rc = _lib.lib.gtool_reader_info(self._r, ctypes.byref(inf))
        if rc < 0:
            self._fail(rc)
        buf = ctypes.create_string_buffer(256)
        n = _lib.lib.gtool_reader_codec(self._r, buf, 256)
        if n >= 256:
            buf = ctypes.create_string_buffer(n + 1)
            _lib.lib.gtool_reader_codec(self._r, buf, n + 1)
        return Tensor(self, _lib.lib.gtool_reader_name(self._r).decode(), inf, self._attrs(),
                      buf.value.decode())

    def __iter__(self):
        return self

    def __next__(self):
        if self._r is None:
            raise StopIteration
        ev = ctypes.c_int()
        while True:
            rc = _lib.lib.gtool_reader_next(self._r, ctypes.byref(ev))
            if rc < 0:
                self._cur = None
                self._fail(rc)
            if ev.value == _lib.EV_EOF:
                self._cur = None
                raise StopIteration
            if ev.value == _lib.EV_GROUP:
                self.groups[_lib.lib.gtool_reader_name(self._r).decode()] = self._attrs()
            elif ev.value == _lib.EV_TENSOR:
                self._cur = self._tensor()
                return self._cur

    def _read(self, t):
        if t is not self._cur:
            raise Error("%s: tensor %s: read() it before moving to the next one (the file is "
                        "read once, in order)" % (self.path, t.name), -2)
        out = np.empty(t.shape, dtype=t._np)
        got = ctypes.c_size_t()
        self._cur = None
        rc = _lib.lib.gtool_reader_read_tensor(self._r, out.ctypes.data, out.nbytes,
                                               ctypes.byref(got))
        if rc < 0:
            self._fail(rc)
        return out

    def close(self):
        if self._r:
            _lib.lib.gtool_reader_free(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def open(path, threads=1):  # noqa: A001  (gtool.open, like builtins.open)
    """A .gtz file (path, or its bytes) to iterate tensor by tensor."""
    return File(path, threads)


def load(path, threads=1):
    """Every tensor of a .gtz file: {name: array}, in file order."""
    with File(path, threads) as f:
        return {t.name: t.read() for t in f}


def _put_attr(w, name, v):
    lib = _lib.lib
    key = name.encode()
    if isinstance(v, str):
        return lib.gtool_writer_attr_str(w, key, v.encode())
    a = np.asarray(v)
    if a.ndim > 1 or a.size == 0 and a.ndim == 1:
        raise Error("attribute %s: a scalar, a string or a non-empty 1-D list" % name, -2)
    if a.dtype.kind in "biu":
        a = np.ascontiguousarray(a.reshape(-1), dtype=np.int64)
        return lib.gtool_writer_attr_int(w, key, a.ctypes.data, a.size)
    if a.dtype.kind == "f":
        a = np.ascontiguousarray(a.reshape(-1), dtype=np.float64)
        return lib.gtool_writer_attr_float(w, key, a.ctypes.data, a.size)
    raise Error("attribute %s: cannot store %s" % (name, a.dtype.name), -2)


class Writer:
    """A .gtz file written tensor by tensor; `gtool decompress` turns it back
    into HDF5.  The file appears (renamed into place) at close(); a Writer
    left by an exception, or garbage-collected unclosed, leaves no file.

        with gtool.Writer("run.gtz") as w:
            w.group("/step_000010", {"optimizer": "adam", "lr": 1e-3})
            w.write("/step_000010/grad/fc.weight", g, codec="huffexp")
    """

    def __init__(self, path, force=False, threads=1, block_size=0, chunk_size=0):
        """block_size, chunk_size: values a block (what a reader decodes at
        once, 64 to 2^24) and a chunk (coded in parallel); 0: 2^20, 2^16."""
        self._w = None
        self.path = str(path)
        err = _lib.ErrBuf()
        h = ctypes.c_void_p()
        rc = _lib.lib.gtool_writer_open_path(self.path.encode(), _lib.FORCE if force else 0,
                                             threads, ctypes.byref(h), ctypes.byref(err))
        if rc < 0:
            _lib.fail(rc, _where(self.path, err.msg.decode() or _lib.strerror(rc)))
        self._w = h
        if block_size or chunk_size:
            self._check(_lib.lib.gtool_writer_blocks(self._w, block_size, chunk_size))

    def _check(self, rc):
        if rc < 0:
            msg = _lib.lib.gtool_writer_errmsg(self._w) if self._w else None
            _lib.fail(rc, "%s: %s" % (self.path, (msg or b"").decode() or _lib.strerror(rc)))

    def _open(self):
        if not self._w:
            raise Error("%s: the writer is closed" % self.path, -2)

    def _attrs(self, attrs):
        for k, v in (attrs or {}).items():
            self._check(_put_attr(self._w, k, v))

    def group(self, name, attrs=None):
        """Record group name ("/" is the root) with its attributes."""
        self._open()
        self._attrs(attrs)
        self._check(_lib.lib.gtool_writer_group(self._w, name.encode()))

    def table(self, ght_path):
        """Code the tensors written after it with the static exponent table of
        a .ght file (`gtool huffman build`), as `gtool compress --table`;
        None goes back to a table per block.  Only huffexp and gcomp take one."""
        self._open()
        self._check(_lib.lib.gtool_writer_table(self._w, None if ght_path is None
                                                else str(ght_path).encode()))

    def write(self, name, x, codec="huffexp", attrs=None, dtype=None, optimizer=None,
              param=None, state=None, **hparams):
        """Write tensor name (x: an array or tensor, as gtool.compress takes
        it) coded with codec; the optimizer context as for gtool.compress."""
        self._open()
        arr, dt = as_array(x, dtype)
        ctx = OptContext.make(optimizer, param, state, hparams)
        self._attrs(attrs)
        dims = (ctypes.c_uint64 * max(arr.ndim, 1))(*arr.shape)
        self._check(_lib.lib.gtool_writer_begin(self._w, name.encode(), codec.encode(), dt, dims,
                                                arr.ndim, ctx.handle if ctx else None))
        self._check(_lib.lib.gtool_writer_write(self._w, arr.ctypes.data, arr.nbytes))
        self._check(_lib.lib.gtool_writer_end(self._w))

    @property
    def bytes_written(self):
        return int(_lib.lib.gtool_writer_bytes(self._w)) if self._w else self._final

    def close(self):
        """Write the index and trailer; the file appears under its name."""
        if self._w:
            try:
                self._check(_lib.lib.gtool_writer_commit(self._w))
                self._final = int(_lib.lib.gtool_writer_bytes(self._w))
            finally:
                self.abort()

    def abort(self):
        """Drop the file (nothing appears under its name)."""
        if self._w:
            _lib.lib.gtool_writer_free(self._w)
            self._w = None

    def __enter__(self):
        return self

    def __exit__(self, etype, *exc):
        if etype is None:
            self.close()
        else:
            self.abort()

    def __del__(self):
        self.abort()


