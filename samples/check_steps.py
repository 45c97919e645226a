#!/usr/bin/python3
"""Re-do each recorded optimizer step in numpy float32 and check it against
param_next bit for bit. This is the reference for gtool's own optimizer step
(update fidelity, GComp's delta): it spells out the exact float32 operation
order of PyTorch 1.13's CPU single-tensor SGD/Adam/AdamW (foreach=False).

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
    # float32 fma via float64: a*b is exact in float64; the rare double
    # rounding of the sum does not occur on these files.
    return (np.asarray(a, f32).astype(f64) * f64(f32(b)) + np.asarray(c, f32).astype(f64)).astype(f32)


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


def main(paths):
    bad = 0
    for path in paths:
        with h5py.File(path, "r") as f:
            opt = attr(f, f, "optimizer")
            opt = (opt.decode() if isinstance(opt, bytes) else opt).lower()
            for s in sorted(k for k in f if k.startswith("step_")):
                S = f[s]
                t = int(S.attrs["step"])
                same = total = 0
                for name in S["grad"]:
                    out = step_one(opt, S, f, name, t)
                    ref = S["param_next"][name][()]
                    same += int(np.count_nonzero(out.view(np.uint32) == ref.view(np.uint32)))
                    total += ref.size
                print("%s %s %s: %d/%d bit-identical" % (path, s, opt, same, total))
                bad += same != total
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["samples/mlp_sgd.h5", "samples/cnn_adam.h5",
                                   "samples/lstm_adamw.h5"]))
