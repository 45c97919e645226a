"""Arrays and tensors as libgtool takes them, and the optimizer context."""

import ctypes

import numpy as np

from . import _lib
from ._lib import Error

NUMPY = {_lib.F32: np.dtype("<f4"), _lib.F16: np.dtype("<f2"), _lib.F64: np.dtype("<f8"),
         _lib.BF16: np.dtype("<u2")}
_NAMES = {_lib.F32: "f32", _lib.F16: "f16", _lib.BF16: "bf16", _lib.F64: "f64"}
_KINDS = {"f": {4: _lib.F32, 2: _lib.F16, 8: _lib.F64}}


def dtype_name(dt):
    """"f32", "f16", "bf16" or "f64" for a libgtool dtype code."""
    return _NAMES[dt]


def _from_torch(x):
    import torch
    t = x.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16), _lib.BF16
    if t.dtype not in (torch.float32, torch.float16, torch.float64):
        raise Error("cannot code a tensor of %s: gtool takes float32, float16, bfloat16 "
                    "and float64" % str(t.dtype).replace("torch.", ""), -10)
    return t.numpy(), None


def as_array(x, dtype=None):
    """(a C-contiguous little-endian ndarray, libgtool dtype code) for a NumPy
    array, a torch tensor or anything np.asarray takes.  dtype "bf16" marks
    uint16 values as bfloat16 bit patterns; "f32", "f16", "f64" must agree
    with the array's own dtype."""
    dt = None
    if type(x).__module__.split(".")[0] == "torch" and hasattr(x, "detach"):
        x, dt = _from_torch(x)
    a = np.asarray(x)
    if dtype is not None:
        if dtype not in ("f32", "f16", "bf16", "f64"):
            raise Error("unknown dtype %r: one of f32, f16, bf16, f64" % (dtype,), -2)
        want = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "f64": "<f8"}[dtype]
        if a.dtype.newbyteorder("<") != np.dtype(want):
            raise Error("dtype %s needs %s values, not %s" % (dtype, np.dtype(want).name,
                                                              a.dtype.name), -10)
        dt = {"f32": _lib.F32, "f16": _lib.F16, "bf16": _lib.BF16, "f64": _lib.F64}[dtype]
    elif dt is None:
        dt = _KINDS.get(a.dtype.kind, {}).get(a.dtype.itemsize)
        if dt is None:
            hint = " (give dtype=\"bf16\" for bfloat16 bit patterns)" if a.dtype == np.uint16 else ""
            raise Error("cannot code %s values: gtool takes float32, float16, bfloat16 and "
                        "float64%s" % (a.dtype.name, hint), -10)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    if not a.flags.c_contiguous:  # (np.ascontiguousarray would make rank 0 rank 1)
        a = a.copy(order="C")
    return a, dt


def f32(x, what):
    """x as C-contiguous float32 (no conversion from other dtypes)."""
    a, dt = as_array(x)
    if dt != _lib.F32:
        raise Error("%s must be float32, not %s" % (what, dtype_name(dt)), -10)
    return a


class OptContext:
    """The optimizer context of one step, as gcomp and update_fidelity need
    it: the optimizer's name ("sgd", "momentum", "nesterov", "adagrad",
    "rmsprop", "adam", "adamw"), its hyper-parameters (lr, momentum,
    dampening, weight_decay, beta1, beta2 or betas=(b1, b2), eps, alpha,
    lr_decay, nesterov, and step, the 1-based number of this step), the
    parameter before the step and the optimizer state buffers before it
    (momentum_buffer, sum, square_avg, exp_avg, exp_avg_sq), float32, each
    with as many values as the gradient.  The arrays are kept referenced."""

    def __init__(self, optimizer, param=None, state=None, **hparams):
        self.handle = None
        err = _lib.ErrBuf()
        h = ctypes.c_void_p()
        _lib.check(_lib.lib.gtool_optctx_new(str(optimizer).encode(), ctypes.byref(h),
                                             ctypes.byref(err)), err)
        self.handle = h
        self._keep = []
        if "betas" in hparams:
            b1, b2 = hparams.pop("betas")
            hparams.setdefault("beta1", b1)
            hparams.setdefault("beta2", b2)
        for k, v in hparams.items():
            self._call(_lib.lib.gtool_optctx_set, k, float(v), what="hyper-parameter")
        if param is not None:
            a = f32(param, "param")
            self._keep.append(a)
            self._call(_lib.lib.gtool_optctx_set_param, None, a.ctypes.data, a.size)
        for k, v in (state or {}).items():
            if v is None:
                continue
            a = f32(v, "state " + k)
            self._keep.append(a)
            self._call(_lib.lib.gtool_optctx_set_state, k, a.ctypes.data, a.size,
                       what="state buffer")

    def _call(self, fn, name, *args, what=None):
        rc = fn(self.handle, *args) if name is None else fn(self.handle, name.encode(), *args)
        if rc < 0:
            msg = _lib.lib.gtool_optctx_errmsg(self.handle)
            msg = msg.decode() if msg else ""
            if not msg and name is not None:
                msg = "%s %s: %s" % (what, name, _lib.strerror(rc))
            _lib.fail(rc, msg)

    def check(self):
        """Raise Error unless the hyper-parameters are complete and valid."""
        rc = _lib.lib.gtool_optctx_check(self.handle)
        if rc < 0:
            _lib.fail(rc, _lib.lib.gtool_optctx_errmsg(self.handle))

    @staticmethod
    def make(optimizer, param, state, hparams):
        if isinstance(optimizer, OptContext):
            if param is not None or state or hparams:
                raise Error("give param, state and hyper-parameters either in the OptContext "
                            "or as arguments, not both", -2)
            return optimizer
        if optimizer is None:
            if param is not None or state or hparams:
                raise Error("param, state and hyper-parameters (%s) need optimizer="
                            % ", ".join(sorted(hparams) + (["param"] if param is not None
                                                           else [])), -2)
            return None
        return OptContext(optimizer, param, state, **hparams)

    def __del__(self):
        if self.handle:
            _lib.lib.gtool_optctx_free(self.handle)
            self.handle = None
