#!/usr/bin/python3
"""Make the sample gradient traces of gtool from small, real PyTorch runs.

Run from the repository root (CPU only, about a minute):

    /usr/bin/python3 samples/make_traces.py            # everything
    /usr/bin/python3 samples/make_traces.py adagrad    # only the named runs
                    (mlp cnn lstm nesterov adagrad rmsprop sgd_plain small
                     f64 bf16 f16 fixtures embed bow pruned)

Writes, in samples/:

    mlp_sgd.h5     MLP 64-128-64-10 (ReLU) on scikit-learn digits, SGD+momentum
    cnn_adam.h5    small CNN on the 8x8 digits, Adam
    lstm_adamw.h5  character-level LSTM on a licence text, AdamW, cosine lr
    mlp_nesterov.h5   MLP 64-32-10 (ReLU) on digits, SGD with Nesterov momentum
    mlp_adagrad.h5    the same MLP, Adagrad (lr_decay != 0)
    mlp_rmsprop.h5    the same MLP, RMSprop
    mlp_sgd_plain.h5  the same MLP, plain SGD (no momentum)
    dtypes.h5      one gradient as f32, f16, f64 and bf16, plus int64 /labels
    grads.f32      that same gradient, raw little-endian float32
    grads.npy      that same gradient, .npy, 2-D
    f64_*.h5       MLP 64-20-10 in float64: momentum, nesterov, adagrad,
                   rmsprop, adam, adamw (steps 1, 2, 10)
    bf16_*.h5      the same in bfloat16: momentum, adagrad, rmsprop, adam, adamw
    f16_*.h5       the same in float16: momentum, nesterov (PyTorch 1.13 steps
                   no other optimizer in Half on the CPU)
    embed_sgd.h5   word embedding 512x16 (nn.Embedding) on a licence text,
                   plain SGD: each step's gradient is zero in the rows of
                   the words absent from the batch
    bow_adam.h5    bag-of-words classifier, 2048 hashed word features ->
                   2 classes, on the paragraphs of the licence texts, Adam:
                   zero in the columns of absent words
    pruned_sgd.h5  MLP 64-64-10 on digits with structured pruning masks
                   (half of fc1's rows, half of fc2's columns), SGD+momentum

The layout is the one of formats/TRACE.md; gtool.torch.TraceWriter (the
Python package in python/, over build/libgtool.so: run `make` first) writes
it, as in your own training loop:

    tw = TraceWriter("run.h5", model, optimizer, steps=[1, 10, 100])
    ...  loss.backward(); tw.before_step(step); optimizer.step(); tw.after_step(step)

Needs Debian's python3-torch, python3-h5py, python3-numpy, python3-sklearn.
"""

import os
import sys


def trace_writer(h5file, model, optimizer, steps):
    """gtool.torch.TraceWriter over the open file: it records each step in
    `steps` (gradients, parameters and optimizer state before the step,
    param_next after it, the hyper-parameters as attributes).  The package is
    python/gtool of this source tree, over build/libgtool.so (run `make`
    first); installed, it is just `from gtool.torch import TraceWriter`."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "python"))
    from gtool.torch import TraceWriter
    return TraceWriter(h5file, model, optimizer, steps=steps)


# ---------------------------------------------------------------------------
# The sample runs.

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 1234


def setup():
    import random
    import numpy as np
    import torch
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    try:
        torch.use_deterministic_algorithms(True)
    except Exception as e:  # pragma: no cover
        print("warning: deterministic algorithms unavailable:", e, file=sys.stderr)


def open_trace(path, model_desc, dataset):
    import h5py
    import torch
    f = h5py.File(path, "w", libver="earliest", track_order=False)
    f.attrs["model"] = model_desc
    f.attrs["dataset"] = dataset
    f.attrs["torch_version"] = str(torch.__version__)
    f.attrs["created_by"] = "samples/make_traces.py"
    f.attrs["seed"] = SEED
    return f


def digits():
    import numpy as np
    import torch
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    perm = np.random.RandomState(SEED).permutation(len(y))
    x, y = x[perm], y[perm]
    ntest = 297
    return (torch.from_numpy(x[ntest:]), torch.from_numpy(y[ntest:]),
            torch.from_numpy(x[:ntest]), torch.from_numpy(y[:ntest]))


def batches(n, bs, gen):
    """Endless shuffled mini-batch index stream (drops the last partial batch)."""
    import torch
    while True:
        perm = torch.randperm(n, generator=gen)
        for i in range(0, n - bs + 1, bs):
            yield perm[i:i + bs]


def train_classifier(path, model, model_desc, optimizer, shape, steps, total, dtype=None):
    import torch
    import torch.nn.functional as F
    xtr, ytr, xte, yte = digits()
    if dtype is not None:  # the whole run in float64 or bfloat16: data, model, optimizer
        xtr, xte = xtr.to(dtype), xte.to(dtype)
    gen = torch.Generator().manual_seed(SEED)
    it = batches(len(ytr), 32, gen)
    with open_trace(path, model_desc, "sklearn digits 8x8 (1500 train / 297 test), x/16") as f:
        tw = trace_writer(f, model, optimizer, steps)
        for step in range(1, total + 1):
            idx = next(it)
            xb = xtr[idx].view(shape)
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), ytr[idx])
            loss.backward()
            tw.before_step(step)
            optimizer.step()
            tw.after_step(step)
            if step in steps:
                print("  %s step %d loss %.4f" % (os.path.basename(path), step, loss.item()))
        with torch.no_grad():
            acc = (model(xte.view((-1,) + tuple(shape[1:]))).argmax(1) == yte).float().mean().item()
        f.attrs["test_accuracy"] = acc
        print("  %s test accuracy %.3f" % (os.path.basename(path), acc))


def make_mlp():
    import torch
    import torch.nn as nn
    setup()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    train_classifier(os.path.join(HERE, "mlp_sgd.h5"), model,
                     "MLP 64-128-64-10 ReLU (nn.Sequential)", opt, (-1, 64),
                     {1, 20, 100, 300, 600}, 600)


def make_cnn():
    import torch
    import torch.nn as nn

    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
            self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
            self.fc = nn.Linear(16 * 4 * 4, 10)

        def forward(self, x):
            x = torch.relu(self.conv1(x))
            x = torch.relu(self.conv2(x))
            x = nn.functional.max_pool2d(x, 2)
            return self.fc(x.flatten(1))

    setup()
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_classifier(os.path.join(HERE, "cnn_adam.h5"), model,
                     "CNN conv1 1-8 3x3 pad1, ReLU, conv2 8-16 3x3 pad1, ReLU, maxpool 2, fc 256-10",
                     opt, (-1, 1, 8, 8), {1, 10, 50, 200, 500}, 500)


def licence_text():
    base = "/usr/share/common-licenses"
    path = os.path.join(base, "GPL-3")
    if not os.path.isfile(path):
        cands = sorted(p for p in os.listdir(base) if os.path.isfile(os.path.join(base, p)))
        path = os.path.join(base, cands[0])
    with open(path, encoding="utf-8", errors="replace") as fh:
        return path, fh.read()


def make_lstm():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class CharLSTM(nn.Module):
        def __init__(self, vocab):
            super().__init__()
            self.embed = nn.Embedding(vocab, 32)
            self.lstm = nn.LSTM(32, 64, num_layers=1, batch_first=True)
            self.head = nn.Linear(64, vocab)

        def forward(self, x):
            h, _ = self.lstm(self.embed(x))
            return self.head(h)

    setup()
    src, text = licence_text()
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(c) for c in text], dtype=torch.int64)
    model = CharLSTM(len(vocab))
    total, seq, bs = 500, 64, 32
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total, eta_min=3e-4)
    gen = torch.Generator().manual_seed(SEED)
    path = os.path.join(HERE, "lstm_adamw.h5")
    steps = {1, 25, 150, 500}
    with open_trace(path, "char LSTM: embedding %d-32, LSTM 32-64 1 layer, linear 64-%d"
                    % (len(vocab), len(vocab)),
                    "%s (%d chars, vocab %d), windows of %d, batch %d"
                    % (src, len(text), len(vocab), seq, bs)) as f:
        tw = trace_writer(f, model, opt, steps)
        f.attrs["lr_schedule"] = "CosineAnnealingLR(T_max=%d, eta_min=3e-4), stepped after each step" % total
        for step in range(1, total + 1):
            starts = torch.randint(0, len(ids) - seq - 1, (bs,), generator=gen)
            xb = torch.stack([ids[s:s + seq] for s in starts])
            yb = torch.stack([ids[s + 1:s + seq + 1] for s in starts])
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb).reshape(-1, len(vocab)), yb.reshape(-1))
            loss.backward()
            tw.before_step(step)
            opt.step()
            tw.after_step(step)
            if step in steps:
                print("  lstm_adamw.h5 step %d lr %.6g loss %.4f"
                      % (step, opt.param_groups[0]["lr"], loss.item()))
            sched.step()
        f.attrs["final_loss"] = loss.item()


def make_small_mlp(fname, desc, make_opt, steps=(1, 10, 100, 300), total=300):
    """MLP 64-32-10 (ReLU) on digits with the optimizer make_opt(params)."""
    import torch.nn as nn
    setup()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    opt = make_opt(model.parameters())
    train_classifier(os.path.join(HERE, fname), model,
                     "MLP 64-32-10 ReLU (nn.Sequential), " + desc, opt, (-1, 64),
                     set(steps), total)


def make_nesterov():
    import torch
    make_small_mlp("mlp_nesterov.h5", "SGD Nesterov",
                   lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, dampening=0,
                                              weight_decay=1e-4, nesterov=True))


def make_adagrad():
    import torch
    make_small_mlp("mlp_adagrad.h5", "Adagrad",
                   lambda ps: torch.optim.Adagrad(ps, lr=0.05, lr_decay=1e-4, weight_decay=1e-4,
                                                  eps=1e-10, initial_accumulator_value=0))


def make_rmsprop():
    import torch
    make_small_mlp("mlp_rmsprop.h5", "RMSprop",
                   lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.99, eps=1e-8,
                                                  weight_decay=1e-4, momentum=0, centered=False))


def make_sgd_plain():
    import torch
    make_small_mlp("mlp_sgd_plain.h5", "plain SGD",
                   lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0, weight_decay=1e-4))


DTYPE_OPTS = {
    "momentum": ("SGD momentum", lambda ps: __import__("torch").optim.SGD(
        ps, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=1e-4)),
    "nesterov": ("SGD Nesterov", lambda ps: __import__("torch").optim.SGD(
        ps, lr=0.05, momentum=0.9, weight_decay=1e-4, nesterov=True)),
    "adagrad": ("Adagrad", lambda ps: __import__("torch").optim.Adagrad(
        ps, lr=0.05, lr_decay=1e-4, weight_decay=1e-4, eps=1e-10)),
    "rmsprop": ("RMSprop", lambda ps: __import__("torch").optim.RMSprop(
        ps, lr=0.01, alpha=0.99, eps=1e-8, weight_decay=1e-4)),
    "adam": ("Adam", lambda ps: __import__("torch").optim.Adam(ps, lr=1e-3, weight_decay=1e-4)),
    "adamw": ("AdamW", lambda ps: __import__("torch").optim.AdamW(ps, lr=3e-3, weight_decay=0.01)),
}
DTYPE_RUNS = {"f64": ("momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw"),
              "bf16": ("momentum", "adagrad", "rmsprop", "adam", "adamw"),
              "f16": ("momentum", "nesterov")}


def make_dtype_traces(dt):
    """Tiny MLP 64-20-10 traces whose every tensor is float64, bfloat16 or
    float16: steps 1, 2 and 10 of 10. Layer sizes give tensors of 1280, 20,
    200 and 10 values: PyTorch 1.13's CPU kernels round bfloat16 differently
    in the last n mod 32 values of a tensor, and 20, 200 and 10 have such a
    tail. PyTorch 1.13 has no Half addcmul on the CPU, so float16 gets only
    the SGD family; its forward/backward runs in float32 (no Half matmul on
    the CPU either) and the gradients are rounded to float16 for the step."""
    import torch
    import torch.nn as nn
    dtype = {"f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16}[dt]
    for opt in DTYPE_RUNS[dt]:
        desc, make_opt = DTYPE_OPTS[opt]
        fname = "%s_%s.h5" % (dt, opt)
        setup()
        model = nn.Sequential(nn.Linear(64, 20), nn.ReLU(), nn.Linear(20, 10))
        mdesc = "MLP 64-20-10 ReLU (nn.Sequential), %s, %s" % (dt, desc)
        if dt == "f16":
            make_f16_trace(fname, model, mdesc, make_opt)
            continue
        model = model.to(dtype)
        train_classifier(os.path.join(HERE, fname), model, mdesc, make_opt(model.parameters()),
                         (-1, 64), {1, 2, 10}, 10, dtype=dtype)


def make_f16_trace(fname, model, desc, make_opt):
    """float16 parameters stepped by a float16 optimizer, gradients from a
    float32 copy of the model (rounded to float16)."""
    import torch
    import torch.nn.functional as F
    xtr, ytr, _, _ = digits()
    half = torch.nn.Sequential(*[torch.nn.Linear(m.in_features, m.out_features)
                                 if isinstance(m, torch.nn.Linear) else m for m in model])
    half = half.to(torch.float16)
    with torch.no_grad():
        for ph, p in zip(half.parameters(), model.parameters()):
            ph.copy_(p)
    opt = make_opt(half.parameters())
    gen = torch.Generator().manual_seed(SEED)
    it = batches(len(ytr), 32, gen)
    with open_trace(os.path.join(HERE, fname), desc,
                    "sklearn digits 8x8 (1500 train / 297 test), x/16; forward and "
                    "backward in float32, gradients rounded to float16") as f:
        tw = trace_writer(f, half, opt, (1, 2, 10))
        for step in range(1, 11):
            idx = next(it)
            with torch.no_grad():
                for ph, p in zip(half.parameters(), model.parameters()):
                    p.copy_(ph)
            model.zero_grad(set_to_none=True)
            F.cross_entropy(model(xtr[idx]), ytr[idx]).backward()
            for ph, p in zip(half.parameters(), model.parameters()):
                ph.grad = p.grad.to(torch.float16)
            tw.before_step(step)
            opt.step()
            tw.after_step(step)
    print("  %s" % fname)


def make_fixtures():
    """tests/fixtures/f16_adam.h5: step 1 of f16_momentum.h5 relabelled as
    Adam, a trace PyTorch 1.13 cannot make (no float16 addcmul on the CPU):
    gtool must refuse to step it."""
    import h5py
    import numpy as np
    out = os.path.join(HERE, "..", "tests", "fixtures", "f16_adam.h5")
    with h5py.File(os.path.join(HERE, "f16_momentum.h5"), "r") as src, \
            h5py.File(out, "w", libver="earliest") as f:
        f.attrs["optimizer"] = "adam"
        f.attrs["lr"] = np.float64(1e-3)
        f.attrs["betas"] = np.array([0.9, 0.999])
        f.attrs["eps"] = np.float64(1e-8)
        f.attrs["weight_decay"] = np.float64(0)
        f.attrs["created_by"] = "samples/make_traces.py (make_fixtures)"
        g = f.create_group("step_000001")
        g.attrs["step"] = np.int64(1)
        for role in ("grad", "param"):
            for name, ds in src["step_000001/" + role].items():
                g.create_dataset("%s/%s" % (role, name), data=ds[()], track_times=False)
    print("  tests/fixtures/f16_adam.h5")


def bf16_bits(x32):
    """float32 array -> uint16 bfloat16 patterns, round to nearest even."""
    import numpy as np
    u = np.ascontiguousarray(x32, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x32)
    rounded[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)  # keep NaN a quiet NaN
    return rounded


def make_small_files():
    import h5py
    import numpy as np
    with h5py.File(os.path.join(HERE, "mlp_sgd.h5"), "r") as f:
        g = f["/step_000100/grad/0.weight"][()]
    assert g.dtype == np.float32 and g.shape == (128, 64)
    with h5py.File(os.path.join(HERE, "dtypes.h5"), "w", libver="earliest") as f:
        f.attrs["source"] = "samples/mlp_sgd.h5:/step_000100/grad/0.weight"
        f.attrs["created_by"] = "samples/make_traces.py"
        f.create_dataset("f32", data=g, track_times=False)
        f.create_dataset("f16", data=g.astype(np.float16), track_times=False)
        f.create_dataset("f64", data=g.astype(np.float64), track_times=False)
        b = f.create_dataset("bf16", data=bf16_bits(g), track_times=False)
        b.attrs["dtype"] = "bfloat16"
        from sklearn.datasets import load_digits
        f.create_dataset("labels", data=load_digits().target[:256].astype(np.int64),
                         track_times=False)
    g.astype("<f4").tofile(os.path.join(HERE, "grads.f32"))
    np.save(os.path.join(HERE, "grads.npy"), g.astype("<f4"))


def licence_words(name):
    """The lower-case words of one licence text under /usr/share/common-licenses."""
    import re
    with open(os.path.join("/usr/share/common-licenses", name), encoding="utf-8",
              errors="replace") as fh:
        return re.findall(r"[a-z]+", fh.read().lower())


def make_embed():
    """nn.Embedding of the 511 commonest words of GPL-3 (+ one for the rest),
    dimension 16; the mean of 4 context words predicts the next word's
    frequency class (32 classes).  Batches of 16 windows touch few rows."""
    import collections
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Bag(nn.Module):
        def __init__(self, vocab):
            super().__init__()
            self.embed = nn.Embedding(vocab, 16)
            self.head = nn.Linear(16, 32)

        def forward(self, x):
            return self.head(self.embed(x).mean(1))

    setup()
    words = licence_words("GPL-3")
    common = [w for w, _ in collections.Counter(words).most_common(511)]
    index = {w: i for i, w in enumerate(common)}
    ids = torch.tensor([index.get(w, 511) for w in words], dtype=torch.int64)
    model = Bag(512)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    gen = torch.Generator().manual_seed(SEED)
    path = os.path.join(HERE, "embed_sgd.h5")
    steps, total, ctx, bs = {1, 20, 200}, 200, 4, 16
    with open_trace(path, "word bag: embedding 512-16 (nn.Embedding), mean of 4, linear 16-32",
                    "/usr/share/common-licenses/GPL-3 (%d words), next word's class "
                    "(rank // 16), batch %d" % (len(words), bs)) as f:
        tw = trace_writer(f, model, opt, steps)
        for step in range(1, total + 1):
            starts = torch.randint(0, len(ids) - ctx - 1, (bs,), generator=gen)
            xb = torch.stack([ids[s:s + ctx] for s in starts])
            yb = torch.clamp(ids[starts + ctx] // 16, max=31)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            tw.before_step(step)
            opt.step()
            tw.after_step(step)
            if step in steps:
                print("  embed_sgd.h5 step %d loss %.4f" % (step, loss.item()))


def make_bow():
    """Binary bag of words (crc32 of each word mod 2048) of the paragraphs
    of the licence texts; class 1: a GNU licence (GPL, LGPL, GFDL)."""
    import zlib
    import re
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    setup()
    base = "/usr/share/common-licenses"
    docs, labels = [], []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            for para in re.split(r"\n\s*\n", fh.read()):
                words = re.findall(r"[a-z]+", para.lower())
                if len(words) >= 8:
                    docs.append(sorted({zlib.crc32(w.encode()) % 2048 for w in words}))
                    labels.append(1 if name.startswith(("GPL", "LGPL", "GFDL")) else 0)
    x = torch.zeros(len(docs), 2048)
    for i, d in enumerate(docs):
        x[i, d] = 1.0
    y = torch.tensor(labels, dtype=torch.int64)
    model = nn.Linear(2048, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(SEED)
    it = batches(len(y), 8, gen)
    path = os.path.join(HERE, "bow_adam.h5")
    steps, total = {1, 10, 50, 200}, 200
    with open_trace(path, "bag of words: linear 2048-2 over binary hashed word features",
                    "paragraphs of /usr/share/common-licenses (%d), GNU licence or not, "
                    "batch 8" % len(y)) as f:
        tw = trace_writer(f, model, opt, steps)
        for step in range(1, total + 1):
            idx = next(it)
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            tw.before_step(step)
            opt.step()
            tw.after_step(step)
            if step in steps:
                print("  bow_adam.h5 step %d loss %.4f" % (step, loss.item()))


def make_pruned():
    """MLP 64-64-10 with torch.nn.utils.prune structured masks: half of
    fc1's rows (output units) and half of fc2's columns (its inputs)."""
    import torch
    import torch.nn as nn
    import torch.nn.utils.prune as prune
    setup()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    prune.ln_structured(model[0], "weight", amount=0.5, n=2, dim=0)
    prune.ln_structured(model[2], "weight", amount=0.5, n=2, dim=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_classifier(os.path.join(HERE, "pruned_sgd.h5"), model,
                     "MLP 64-64-10 ReLU, L2 structured pruning masks: 50% of rows of "
                     "layer 0, 50% of columns of layer 2 (torch.nn.utils.prune), SGD momentum",
                     opt, (-1, 64), {1, 10, 100, 300}, 300)


RUNS = {"mlp": make_mlp, "cnn": make_cnn, "lstm": make_lstm, "nesterov": make_nesterov,
        "adagrad": make_adagrad, "rmsprop": make_rmsprop, "sgd_plain": make_sgd_plain,
        "small": lambda: make_small_files(),
        "f64": lambda: make_dtype_traces("f64"), "bf16": lambda: make_dtype_traces("bf16"),
        "f16": lambda: make_dtype_traces("f16"), "fixtures": make_fixtures,
        "embed": make_embed, "bow": make_bow, "pruned": make_pruned}


def main(names):
    import torch
    print("torch", torch.__version__)
    for name in names or list(RUNS):  # "small" reads mlp_sgd.h5: keep it after "mlp"
        if name not in RUNS:
            sys.exit("make_traces.py: unknown run %r (one of: %s)" % (name, " ".join(RUNS)))
        RUNS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
