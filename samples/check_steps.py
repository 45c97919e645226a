#!/usr/bin/python3
"""Re-do each recorded optimizer step in numpy float32 and check it against
param_next bit for bit. This is the reference for gtool's own optimizer step
(update fidelity, GComp's delta): it spells out the exact float32 operation
order of PyTorch 1.13's CPU single-tensor (foreach=False) SGD (plain,
momentum, Nesterov), Adagrad, RMSprop, Adam and AdamW.

    /usr/bin/python3 samples/check_steps.py [samples/*.h5]

Notation: every value is float32 and every operation rounds to float32,
except fma(a, b, c) = a*b + c rounded once (PyTorch CPU's add(x, y, alpha=a)
is x + a*y computed as fma(y, a, x)). Hyperparameters (float64 attributes)
are rounded to float32 where they meet a tensor; scalar expressions of
them (1 - b1**t, lr / bc1, ...) are computed in float64 first, then rounded.

SGD (step t; buf absent at the first step):
    d   = fma(p, f32(wd), g)                      if wd != 0, else g
    buf = d                                       first step
    buf = fma(d, f32(1 - dampening), buf * f32(momentum))   later steps
    d   = fma(buf, f32(momentum), d) if nesterov else buf   (momentum != 0)
    p'  = fma(d, f32(-lr), p)
    (plain SGD, momentum == 0: no buf, p' = fma(d, f32(-lr), p); Nesterov
    rounds d + momentum*buf once: with two roundings ~0.6 % of values differ)
Adagrad (t = step attribute; sum = f32(initial_accumulator_value) at the
first step -- the file has it, zeros here -- so state/sum exists at step 1):
    g   = fma(p, f32(wd), g)                      if wd != 0
    sum = fma(g, g, sum)                          (addcmul_(g, g, value=1))
    std = sqrt(sum) + f32(eps)
    clr = lr / (1 + (t - 1) * lr_decay)           in float64
    p'  = p + (f32(-clr) * g) / std
    (addcdiv rounds three times, v*g, then /, then +: p + v*(g/std) differs
    on ~11 % of values; sum as g*g + sum rounded twice on ~0.4 %. On these
    steps clr computed in float32 gives the same bits: float64 follows the
    Python source, where t is float(state step) + 1.)
RMSprop (momentum == 0, centered == False; square_avg = 0 at the first step):
    g   = fma(p, f32(wd), g)                      if wd != 0
    sa  = fma(g * f32(1 - alpha), g, sa * f32(alpha))   (1 - alpha in float64)
    avg = sqrt(sa) + f32(eps)
    p'  = p + (f32(-lr) * g) / avg
    (sa rounded as sa*alpha + (1-alpha)*g*g twice instead: ~0.2 % differ;
    fma((1 - alpha), g*g, .): ~4 %; p + v*(g/avg): ~15 %)
    (momentum > 0 or centered are not covered by a trace and are rejected.)
Adam / AdamW (t = step attribute; m = v = 0 at the first step):
    AdamW: p = p * f32(1 - lr*wd)        Adam: g = fma(p, f32(wd), g) if wd
    m   = fma(g, f32(1 - b1), m * f32(b1))
    v   = fma(g * f32(1 - b2), g, v * f32(b2))
    den = sqrt(v) / f32(sqrt(1 - b2**t)) + f32(eps)
    p'  = p + (f32(-(lr / (1 - b1**t))) * m) / den
"""

import math
import sys

import h5py
import numpy as np

f32, f64 = np.float32, np.float64


def fma(a, b, c):
    """Exact float32 fma: a*b + c rounded once (round to nearest even).

    a*b is exact in float64; the float64 sum s is rounded, and its error e
    is recovered exactly (TwoSum). Rounding s to float32 is then correct
    unless s lies exactly halfway between two float32 values and e != 0:
    there s is moved one float64 ulp towards the true value first."""
    a, c = np.asarray(a, f32), np.asarray(c, f32)
    ab = a.astype(f64) * np.asarray(b, f32).astype(f64)
    c64 = c.astype(f64)
    s = ab + c64
    bb = s - ab
    e = (ab - (s - bb)) + (c64 - bb)
    r = s.astype(f32)
    other = np.nextafter(r, np.where(s > r.astype(f64), f32(np.inf), f32(-np.inf)))
    with np.errstate(invalid="ignore", over="ignore"):
        half = (s != r.astype(f64)) & ((r.astype(f64) + other.astype(f64)) * 0.5 == s) & (e != 0)
    if np.any(half):
        s = np.where(half, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
        r = s.astype(f32)
    return r


def attr(step_group, root, key, default=None):
    if key in step_group.attrs:
        return step_group.attrs[key]
    return root.attrs.get(key, default)


def step_one(opt, S, f, name, t):
    A = lambda k, d=None: attr(S, f, k, d)
    g = S["grad"][name][()]
    p = S["param"][name][()]
    st = lambda b: S["state/%s/%s" % (b, name)][()] if ("state/%s/%s" % (b, name)) in S else None
    lr, wd = float(A("lr")), float(A("weight_decay", 0.0))
    if opt == "sgd":
        mom, damp, nest = float(A("momentum", 0)), float(A("dampening", 0)), int(A("nesterov", 0))
        d = fma(p, wd, g) if wd != 0 else g
        if mom != 0:
            buf = st("momentum_buffer")
            buf = d.copy() if buf is None else fma(d, 1 - damp, buf * f32(mom))
            d = fma(buf, mom, d) if nest else buf
        return fma(d, -lr, p)
    if opt == "adagrad":
        lr_decay, eps = float(A("lr_decay", 0.0)), float(A("eps"))
        if wd != 0:
            g = fma(p, wd, g)
        s = st("sum")
        s = np.full_like(g, f32(float(A("initial_accumulator_value", 0.0)))) if s is None else s
        s = fma(g, g, s)
        std = np.sqrt(s) + f32(eps)
        clr = lr / (1 + (t - 1) * lr_decay)
        return p + (f32(-clr) * g) / std
    if opt == "rmsprop":
        alpha, eps = float(A("alpha")), float(A("eps"))
        if float(A("momentum", 0.0)) != 0 or int(A("centered", 0)):
            raise NotImplementedError("rmsprop with momentum or centered: no trace covers it")
        if wd != 0:
            g = fma(p, wd, g)
        sa = st("square_avg")
        sa = np.zeros_like(g) if sa is None else sa
        sa = fma(g * f32(1 - alpha), g, sa * f32(alpha))
        avg = np.sqrt(sa) + f32(eps)
        return p + (f32(-lr) * g) / avg
    b1, b2 = (float(x) for x in A("betas"))
    eps = float(A("eps"))
    if opt == "adamw":
        p = p * f32(1 - lr * wd)
    elif wd != 0:
        g = fma(p, wd, g)
    m, v = st("exp_avg"), st("exp_avg_sq")
    m = np.zeros_like(g) if m is None else m
    v = np.zeros_like(g) if v is None else v
    m = fma(g, 1 - b1, m * f32(b1))
    v = fma(g * f32(1 - b2), g, v * f32(b2))
    den = np.sqrt(v) / f32(math.sqrt(1 - b2 ** t)) + f32(eps)
    return p + (f32(-(lr / (1 - b1 ** t))) * m) / den


# ---------------------------------------------------------------------------
# float64, bfloat16 and float16: the same operations in PyTorch's order,
# each a tensor operation of torch 1.13 on the CPU (lib/gt_optim.c has the
# same list):
#   float64   every operation in double, add(x, y, alpha=a) = fma(y, a, x),
#             addcmul(x, y, z, value=v) = fma(v*y, z, x), addcdiv
#             x + (v*y)/z rounded three times, hyperparameters unrounded
#   bf16/f16  each operation in float32, its result rounded to the dtype R();
#             the scalar of add/mul/div/add-scalar rounded too, S(s) =
#             R(f32(s)); the value of addcmul/addcdiv only to float32:
#               add(x, y, alpha=a)  bf16, vectorized loop: R(fma(y, S(a), x))
#                                   bf16, last n % 32 values, and f16:
#                                   R(x + R(S(a) * y))
#               mul(x, s) R(x*S(s)), div(x, s) R(x/S(s)), add(x, s) R(x+S(s)),
#               sqrt(x) R(sqrt(x)), addcmul R(fma(f32(v)*y, z, x)),
#               addcdiv R(x + (f32(v)*y)/z)
#             (float16 has no addcmul or sqrt on the CPU: SGD family only)

def fma64(a, b, c):
    """Exact float64 fma, element by element (slow; the traces are small)."""
    from fractions import Fraction as F
    a, b, c = np.broadcast_arrays(np.asarray(a, f64), np.asarray(b, f64), np.asarray(c, f64))
    return np.array([float(F(x) * F(y) + F(z)) for x, y, z in zip(a.ravel(), b.ravel(),
                                                                    c.ravel())]).reshape(a.shape)


def bf16_round(x):
    u = np.asarray(x, f32).view(np.uint32).astype(np.uint64)
    return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(f32)


class Ops:
    def __init__(self, dt, n):
        self.dt, self.tail = dt, (n - n % 32 if dt == "bf16" else 0)

    def R(self, x):
        if self.dt == "bf16":
            return bf16_round(x)
        return np.asarray(x, f32).astype(np.float16).astype(f32)

    def S(self, s):
        return float(s) if self.dt == "f64" else self.R(np.array([s], f32))[0]

    def add(self, x, y, a):
        if self.dt == "f64":
            return fma64(y, a, x)
        a = self.S(a)
        out = self.R(x + self.R(a * y))
        if self.dt == "bf16":
            out[:self.tail] = self.R(fma(y, a, x))[:self.tail]
        return out

    def op(self, v):  # the result of an elementwise operation on tensors
        return v if self.dt == "f64" else self.R(v)

    def mul(self, x, s):
        return self.op(x * self.S(s))

    def div(self, x, s):
        return self.op(x / self.S(s))

    def adds(self, x, s):
        return self.op(x + self.S(s))

    def sqrt(self, x):
        return self.op(np.sqrt(x))

    def addcmul(self, x, y, z, v):
        return fma64(v * y, z, x) if self.dt == "f64" else self.R(fma(f32(v) * y, z, x))

    def addcdiv(self, x, y, z, v):
        return x + (v * y) / z if self.dt == "f64" else self.R(x + (f32(v) * y) / z)


def read(ds):
    a = ds[()]
    if ds.attrs.get("dtype") in ("bfloat16", b"bfloat16"):
        return (a.astype(np.uint32) << 16).view(f32), "bf16"
    if a.dtype == np.float64:
        return a, "f64"
    return a.astype(f32), ("f16" if a.dtype == np.float16 else "f32")


def step_dtype(opt, S, f, name, t):
    """One step in the trace's dtype; returns (theta_t as float32/float64, dt)."""
    A = lambda k, d=None: attr(S, f, k, d)
    g, dt = read(S["grad"][name])
    p, _ = read(S["param"][name])
    st = lambda b: read(S["state/%s/%s" % (b, name)])[0] if "state/%s/%s" % (b, name) in S else None
    o = Ops(dt, g.size)
    g, p = g.ravel(), p.ravel()
    st1 = lambda b: None if st(b) is None else st(b).ravel()
    lr, wd = float(A("lr")), float(A("weight_decay", 0.0))
    if wd != 0 and opt != "adamw":
        g = o.add(g, p, wd)
    if opt == "sgd":
        mom, damp, nest = float(A("momentum", 0)), float(A("dampening", 0)), int(A("nesterov", 0))
        if mom != 0:
            buf = st1("momentum_buffer")
            buf = g.copy() if buf is None else o.add(o.mul(buf, mom), g, 1 - damp)
            g = o.add(g, buf, mom) if nest else buf
        return o.add(p, g, -lr).reshape(S["param"][name].shape), dt
    if opt in ("adagrad", "rmsprop"):
        buf = st1("sum" if opt == "adagrad" else "square_avg")
        buf = np.zeros_like(g) if buf is None else buf
        if opt == "adagrad":
            buf = o.addcmul(buf, g, g, 1)
            clr = lr / (1 + (t - 1) * float(A("lr_decay", 0.0)))
        else:
            buf = o.addcmul(o.mul(buf, float(A("alpha"))), g, g, 1 - float(A("alpha")))
            clr = lr
        den = o.adds(o.sqrt(buf), float(A("eps")))
        return o.addcdiv(p, g, den, -clr).reshape(S["param"][name].shape), dt
    b1, b2 = (float(x) for x in A("betas"))
    if opt == "adamw":
        p = o.mul(p, 1 - lr * wd)
    m, v = st1("exp_avg"), st1("exp_avg_sq")
    m = o.add(o.mul(np.zeros_like(g) if m is None else m, b1), g, 1 - b1)
    v = o.addcmul(o.mul(np.zeros_like(g) if v is None else v, b2), g, g, 1 - b2)
    den = o.adds(o.div(o.sqrt(v), math.sqrt(1 - b2 ** t)), float(A("eps")))
    return o.addcdiv(p, m, den, -(lr / (1 - b1 ** t))).reshape(S["param"][name].shape), dt


def main(paths):
    bad = 0
    for path in paths:
        with h5py.File(path, "r") as f:
            opt = attr(f, f, "optimizer")
            if opt is None:
                print("%s: no optimizer attribute, not a trace: skipped" % path)
                continue
            opt = (opt.decode() if isinstance(opt, bytes) else opt).lower()
            for s in sorted(k for k in f if k.startswith("step_")):
                S = f[s]
                t = int(S.attrs["step"])
                same = total = 0
                for name in S["grad"]:
                    dt = read(S["grad"][name])[1]
                    if dt == "f32":
                        out = step_one(opt, S, f, name, t)
                    else:
                        out = step_dtype(opt, S, f, name, t)[0]
                    ref = read(S["param_next"][name])[0]
                    w = np.uint64 if dt == "f64" else np.uint32
                    same += int(np.count_nonzero(out.view(w) == ref.view(w)))
                    total += ref.size
                print("%s %s %s: %d/%d bit-identical" % (path, s, opt, same, total))
                bad += same != total
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["samples/mlp_sgd.h5", "samples/cnn_adam.h5",
                                   "samples/lstm_adamw.h5", "samples/mlp_nesterov.h5",
                                   "samples/mlp_adagrad.h5", "samples/mlp_rmsprop.h5",
                                   "samples/mlp_sgd_plain.h5"] +
                  ["samples/%s_%s.h5" % (d, o) for d, os_ in (
                      ("f64", ("momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw")),
                      ("bf16", ("momentum", "adagrad", "rmsprop", "adam", "adamw")),
                      ("f16", ("momentum", "nesterov"))) for o in os_]))
