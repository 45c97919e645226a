"""gtool.torch.TraceWriter: what it writes is a trace `gtool error --update`
steps bit for bit as PyTorch did, for each optimizer, in HDF5 and .gtz."""

import json

import h5py
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import gtool  # noqa: E402
from gtool.torch import TraceWriter  # noqa: E402
from conftest import run_gtool  # noqa: E402

OPTIMIZERS = {
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.05, weight_decay=1e-4),
    "momentum": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, dampening=0.1,
                                           weight_decay=1e-4),
    "nesterov": lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True,
                                           weight_decay=1e-4),
    "adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.05, lr_decay=1e-3, weight_decay=1e-4),
    "rmsprop": lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, weight_decay=1e-4),
    "adam": lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=1e-3),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=1e-2),
}
STEPS = [1, 2, 6]


def train(make_opt, do_step, total=6, seed=0):
    """A small MLP, a few steps with a decaying lr; do_step(step, model, opt)
    must call opt.step()."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = make_opt(model.parameters())
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
    for step in range(1, total + 1):
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(model(x), y).backward()
        do_step(step, model, opt)
        sched.step()


def write_trace(path, make_opt, **kw):
    box = {}

    def do_step(step, model, opt):
        if "tw" not in box:
            box["tw"] = TraceWriter(path, model, opt, steps=STEPS, attrs={"model": "mlp"}, **kw)
        tw = box["tw"]
        tw.before_step(step)
        opt.step()
        tw.after_step(step)

    train(make_opt, do_step)
    box["tw"].close()


def update_total(a, b):
    out = run_gtool("error", "--update", "--total", "--format", "json", a, b).stdout
    return json.loads(out)[-1]


def h5_all(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, o):
            vals = o[()].tobytes() if isinstance(o, h5py.Dataset) else None
            out["/" + name] = (vals, {k: np.asarray(v).tolist() for k, v in o.attrs.items()})
        f.visititems(visit)
        out["/"] = (None, {k: np.asarray(v).tolist() for k, v in f.attrs.items()})
    return out


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_h5_trace_steps_as_pytorch(tmp_path, name):
    write_trace(tmp_path / "t.h5", OPTIMIZERS[name])
    r = update_total(tmp_path / "t.h5", tmp_path / "t.h5")
    assert r["values"] == 3 * (8 * 16 + 16 + 16 * 3 + 3)
    assert r["pytorch_identical_pct"] == 100 and r["identical_pct"] == 100
    with h5py.File(tmp_path / "t.h5", "r") as f:
        assert sorted(f) == ["step_000001", "step_000002", "step_000006"]
        assert f.attrs["model"] == "mlp"
        assert f["step_000006"].attrs["lr"] == f.attrs["lr"] * 0.5  # the schedule's lr
        assert "lr" not in f["step_000001"].attrs


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_gtz_trace_is_the_same_trace(tmp_path, name):
    write_trace(tmp_path / "t.h5", OPTIMIZERS[name])
    write_trace(tmp_path / "t.gtz", OPTIMIZERS[name])
    run_gtool("decompress", "-q", tmp_path / "t.gtz", "-o", tmp_path / "back.h5")
    assert h5_all(tmp_path / "back.h5") == h5_all(tmp_path / "t.h5")
    r = update_total(tmp_path / "back.h5", tmp_path / "back.h5")
    assert r["pytorch_identical_pct"] == 100


@pytest.mark.parametrize("name", ["momentum", "adam", "adamw", "rmsprop", "adagrad"])
def test_gcomp_trace(tmp_path, name):
    """Gradients coded by gcomp with each step's optimizer context, the rest
    lossless: PyTorch's step is still reproduced, and the gcomp gradients
    step to (nearly) the same parameters."""
    write_trace(tmp_path / "t.h5", OPTIMIZERS[name])
    write_trace(tmp_path / "g.gtz", OPTIMIZERS[name], codec="gcomp")
    codecs = {t.name.split("/")[2]: t.codec.split(":")[0] for t in gtool.open(tmp_path / "g.gtz")}
    assert codecs == {"grad": "gcomp", "param": "huffexp", "param_next": "huffexp",
                      **({"state": "huffexp"} if name != "sgd" else {})}
    run_gtool("decompress", "-q", tmp_path / "g.gtz", "-o", tmp_path / "g.h5")
    r = update_total(tmp_path / "t.h5", tmp_path / "g.h5")
    assert r["pytorch_identical_pct"] == 100
    assert r["identical_pct"] > 80 and r["max_ulp"] <= 4


def test_same_as_dump_step(tmp_path):
    """The HDF5 trace equals, values and attributes, the one that
    samples/make_traces.py's own dump_step wrote of the same run."""
    from ref_dump_step import dump_step
    for name in OPTIMIZERS:
        write_trace(tmp_path / "tw.h5", OPTIMIZERS[name])
        with h5py.File(tmp_path / "ds.h5", "w", libver="earliest", track_order=False) as f:
            f.attrs["model"] = "mlp"
            train(OPTIMIZERS[name], lambda step, model, opt: dump_step(f, step, model, opt)
                  if step in STEPS else opt.step())
        assert h5_all(tmp_path / "tw.h5") == h5_all(tmp_path / "ds.h5"), name


def test_refused_optimizers(tmp_path):
    model = nn.Linear(2, 2)
    for opt, msg in [(torch.optim.Adam(model.parameters(), amsgrad=True),
                      "gtool.torch: Adam with amsgrad=True is not supported"),
                     (torch.optim.RMSprop(model.parameters(), momentum=0.9),
                      "gtool.torch: RMSprop with momentum is not supported"),
                     (torch.optim.Adadelta(model.parameters()),
                      "gtool.torch: optimizer Adadelta is not supported (SGD, Adagrad, RMSprop, "
                      "Adam, AdamW)"),
                     (torch.optim.SGD([{"params": [model.weight]}, {"params": [model.bias]}],
                                      lr=0.1),
                      "gtool.torch: only optimizers with one param group are supported "
                      "(this one has 2)")]:
        with pytest.raises(gtool.Error) as e:
            TraceWriter(tmp_path / "x.h5", model, opt)
        assert str(e.value) == msg


def test_open_h5py_file(tmp_path):
    """An open h5py.File: the same trace, the file left open for more."""
    write_trace(tmp_path / "a.h5", OPTIMIZERS["adam"])
    with h5py.File(tmp_path / "b.h5", "w", libver="earliest", track_order=False) as f:
        box = {}

        def do_step(step, model, opt):
            if "tw" not in box:
                box["tw"] = TraceWriter(f, model, opt, steps=STEPS, attrs={"model": "mlp"})
            box["tw"].before_step(step)
            opt.step()
            box["tw"].after_step(step)

        train(OPTIMIZERS["adam"], do_step)
        box["tw"].close()
        f.attrs["extra"] = 1  # still open
    b = h5_all(tmp_path / "b.h5")
    assert b["/"][1].pop("extra") == 1
    assert b == h5_all(tmp_path / "a.h5")
