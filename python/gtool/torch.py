"""gtool in a PyTorch training loop.

    from gtool.torch import TraceWriter, ddp_comm_hook

    tw = TraceWriter("run.h5", model, optimizer, steps=[1, 10, 100])
    for step in range(1, n + 1):
        ...; loss.backward()
        tw.before_step(step); optimizer.step(); tw.after_step(step)
    tw.close()

    state, hook = ddp_comm_hook(codec="gcomp", optimizer=optimizer)
    ddp_model.register_comm_hook(state, hook)

TraceWriter writes the trace layout of gtool-format(5) (formats/TRACE.md),
the same files samples/make_traces.py makes, into HDF5 (h5py) or straight
into a .gtz with any codec.  ddp_comm_hook is in gtool/ddp.py.
"""

import numpy as np
import torch

from . import _io
from ._arr import OptContext
from ._lib import Error

__all__ = ["TraceWriter", "ddp_comm_hook", "to_torch", "optimizer_kind", "optimizer_hparams",
           "optimizer_context"]

def to_torch(a, dtype=None):
    """A torch tensor of the array a from gtool (sharing its memory);
    dtype="bf16" reads uint16 values as bfloat16 bit patterns."""
    if dtype == "bf16":
        if a.dtype != np.uint16:
            raise Error("bf16 needs uint16 bit patterns, not %s" % a.dtype.name, -10)
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


# ---- optimizers --------------------------------------------------------------

_KINDS = {torch.optim.SGD: "sgd", torch.optim.Adagrad: "adagrad",
          torch.optim.RMSprop: "rmsprop", torch.optim.Adam: "adam", torch.optim.AdamW: "adamw"}
# the hyper-parameters each update rule reads (formats/TRACE.md)
_USES = {"sgd": ("lr", "weight_decay"),
         "momentum": ("lr", "momentum", "dampening", "weight_decay"),
         "nesterov": ("lr", "momentum", "dampening", "weight_decay"),
         "adagrad": ("lr", "eps", "weight_decay", "lr_decay"),
         "rmsprop": ("lr", "alpha", "eps", "weight_decay", "momentum"),
         "adam": ("lr", "eps", "weight_decay"), "adamw": ("lr", "eps", "weight_decay")}


def _group(optimizer):
    if len(optimizer.param_groups) != 1:
        raise Error("gtool.torch: only optimizers with one param group are supported "
                    "(this one has %d)" % len(optimizer.param_groups), -7)
    return optimizer.param_groups[0]


def optimizer_kind(optimizer):
    """gtool's name of a torch optimizer's update rule: sgd, momentum,
    nesterov, adagrad, rmsprop, adam or adamw; Error for others and for
    options gtool's step does not model (amsgrad, centered, maximize)."""
    kind = _KINDS.get(type(optimizer))
    if kind is None:
        raise Error("gtool.torch: optimizer %s is not supported (SGD, Adagrad, RMSprop, Adam, "
                    "AdamW)" % type(optimizer).__name__, -7)
    g = _group(optimizer)
    for flag in ("amsgrad", "centered", "maximize"):
        if g.get(flag):
            raise Error("gtool.torch: %s with %s=True is not supported"
                        % (type(optimizer).__name__, flag), -7)
    if kind == "rmsprop" and g.get("momentum", 0):
        raise Error("gtool.torch: RMSprop with momentum is not supported", -7)
    if kind == "sgd" and g.get("momentum", 0):
        kind = "nesterov" if g.get("nesterov") else "momentum"
    return kind


def optimizer_hparams(optimizer, step):
    """(kind, hyper-parameters) of the coming optimizer.step(), step number
    `step` (1-based), as OptContext takes them."""
    kind = optimizer_kind(optimizer)
    g = _group(optimizer)
    hp = {k: float(g[k]) for k in _USES[kind] if isinstance(g.get(k), (int, float))}
    if "betas" in g and kind in ("adam", "adamw"):
        hp["beta1"], hp["beta2"] = (float(b) for b in g["betas"])
    hp["step"] = float(step)
    return kind, hp


def optimizer_context(optimizer, p, step):
    """The OptContext of parameter p for the coming optimizer.step(), which
    is step number `step` (1-based): hyper-parameters from the param group,
    p and its state buffers as they are before the step (borrowed: valid
    until the step changes them)."""
    kind, hp = optimizer_hparams(optimizer, step)
    state = {k: v.detach() for k, v in optimizer.state.get(p, {}).items()
             if k != "step" and torch.is_tensor(v) and v.shape == p.shape}
    return OptContext(kind, param=p.detach(), state=state, **hp)


def _hyper(optimizer):
    """The param group's hyper-parameters as trace attributes: flags as int64
    0/1, numbers as float64, betas as a two-element float64 array."""
    hyper = {}
    for key, val in _group(optimizer).items():
        if key == "params" or val is None:
            continue
        if isinstance(val, bool):
            hyper[key] = np.int64(val)
        elif isinstance(val, (int, float)):
            hyper[key] = np.float64(val)
        elif isinstance(val, (tuple, list)) and all(isinstance(v, (int, float)) for v in val):
            hyper[key] = np.asarray(val, dtype=np.float64)
    return hyper


def _differs(root, val):
    return root is None or np.shape(root) != np.shape(val) or np.any(np.asarray(root) != val)


# ---- the trace writer -------------------------------------------------------------

class _H5Sink:
    def __init__(self, path, force, f=None):
        import h5py
        self.owned = f is None
        self.f = f if f is not None else h5py.File(path, "w" if force else "w-",
                                                   libver="earliest", track_order=False)

    def root_attrs(self, attrs):
        for k, v in attrs.items():
            self.f.attrs[k] = v

    def root_attr(self, key):
        return self.f.attrs.get(key)

    def group(self, name, attrs):
        g = self.f if name == "/" else self.f.create_group(name)
        for k, v in attrs.items():
            g.attrs[k] = v

    def tensor(self, name, t, kind, ctx):
        t = t.detach().cpu()
        if t.dtype == torch.bfloat16:
            ds = self.f.create_dataset(name, data=t.view(torch.int16).numpy().view(np.uint16),
                                       track_times=False)
            ds.attrs["dtype"] = "bfloat16"
        else:
            self.f.create_dataset(name, data=t.numpy(), track_times=False)

    def close(self, ok):
        if self.owned:
            self.f.close()


class _GtzSink:
    def __init__(self, path, force, codec, threads):
        self.w = _io.Writer(path, force=force, threads=threads)
        self.codec = codec
        self.pending = {}
        self.root = None

    def root_attrs(self, attrs):
        if self.root is not None:
            raise Error("%s: root attributes must come before the first step in a .gtz trace"
                        % self.w.path, -2)
        self.pending.update(attrs)

    def root_attr(self, key):
        return (self.root or {}).get(key)

    def group(self, name, attrs):
        if name == "/":  # once, first: the file is written in order
            self.root = dict(self.pending, **attrs)
            attrs = self.root
        self.w.group(name, attrs)

    def tensor(self, name, t, kind, ctx):
        if kind == "grad":
            self.w.write("/" + name, t, codec=self.codec, optimizer=ctx)
        else:
            self.w.write("/" + name, t, codec="huffexp")

    def close(self, ok):
        self.w.close() if ok else self.w.abort()


class TraceWriter:
    """Record chosen steps of a training loop in gtool's trace layout.

    path       "run.h5" (HDF5 through h5py) or "run.gtz" (.gtz through
               libgtool; gradients coded with `codec`, everything else
               losslessly with huffexp, as `gtool compress` does a trace),
               or an h5py.File opened for writing (left open at close())
    model      the torch.nn.Module: named_parameters() give the names
    optimizer  torch.optim SGD (momentum, dampening, nesterov, weight
               decay), Adagrad, RMSprop, Adam or AdamW, one param group
    steps      the step numbers to record (None: every step)
    codec      for .gtz: any codec spec; gcomp gets each gradient's
               optimizer context (param and state before the step)
    attrs      attributes for the root group (model, dataset, ...)

    Call before_step(step) after loss.backward() and before
    optimizer.step(), after_step(step) after it; step is 1-based, the
    number of optimizer.step() calls including this one.  Each recorded
    step becomes /step_NNNNNN with grad/<name>, param/<name>,
    state/<buffer>/<name> (before the step) and param_next/<name>, the
    attribute step and every hyper-parameter that differs from the root's.
    The root gets the optimizer's name and hyper-parameters at the first
    recorded step.  Use it as a context manager or call close().
    """

    def __init__(self, path, model, optimizer, steps=None, codec="huffexp", attrs=None,
                 force=True, threads=1):
        self.model, self.optimizer = model, optimizer
        self.steps = None if steps is None else set(int(s) for s in steps)
        optimizer_kind(optimizer)  # refuse what gtool cannot step, now
        if hasattr(path, "create_dataset"):  # an open h5py.File
            self.sink = _H5Sink(None, force, path)
            self.sink.root_attrs(attrs or {})
            self._open, self._first = None, "optimizer" not in path.attrs
            return
        path = str(path)
        if path.endswith(".gtz"):
            self.sink = _GtzSink(path, force, codec, threads)
        else:
            if codec != "huffexp":
                raise Error("%s: a codec is for .gtz traces only" % path, -2)
            self.sink = _H5Sink(path, force)
        self.sink.root_attrs(attrs or {})
        self._open = None
        self._first = True

    def wants(self, step):
        return self.steps is None or step in self.steps

    def set_attrs(self, **attrs):
        """Add attributes to the root group (HDF5: any time; .gtz: before the
        first recorded step)."""
        self.sink.root_attrs(attrs)

    def _named(self):
        return [(n, p) for n, p in self.model.named_parameters() if p.grad is not None]

    def before_step(self, step):
        """Record gradients, parameters and optimizer state of step `step`."""
        if not self.wants(step):
            return
        hyper = _hyper(self.optimizer)
        if self._first:
            self.sink.group("/", dict({"optimizer": type(self.optimizer).__name__.lower()},
                                      **hyper))
            self._first = False
        attrs = {"step": np.int64(step)}
        attrs.update((k, v) for k, v in hyper.items() if _differs(self.sink.root_attr(k), v))
        grp = "step_%06d" % step
        self.sink.group("/" + grp, attrs)
        named = self._named()
        for name, p in named:
            ctx = None
            if isinstance(self.sink, _GtzSink) and self.sink.codec.split(":")[0] == "gcomp":
                ctx = optimizer_context(self.optimizer, p, step)
            self.sink.tensor("%s/grad/%s" % (grp, name), p.grad, "grad", ctx)
        for name, p in named:
            self.sink.tensor("%s/param/%s" % (grp, name), p, "param", None)
        for name, p in named:
            for buf, val in self.optimizer.state.get(p, {}).items():
                if buf != "step" and torch.is_tensor(val) and val.shape == p.shape:
                    self.sink.tensor("%s/state/%s/%s" % (grp, buf, name), val, "state", None)
        self._open = (step, named)

    def after_step(self, step):
        """Record the parameters after optimizer.step() of step `step`."""
        if not self.wants(step):
            return
        if self._open is None or self._open[0] != step:
            raise Error("TraceWriter: after_step(%d) without before_step(%d)" % (step, step), -2)
        grp = "step_%06d" % step
        for name, p in self._open[1]:
            self.sink.tensor("%s/param_next/%s" % (grp, name), p, "param_next", None)
        self._open = None

    def close(self, ok=True):
        if self.sink is not None:
            sink, self.sink = self.sink, None
            sink.close(ok)

    def __enter__(self):
        return self

    def __exit__(self, etype, *exc):
        self.close(etype is None)


from .ddp import ddp_comm_hook  # noqa: E402,F401  (uses optimizer_context above)
