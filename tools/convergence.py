#!/usr/bin/python3
"""The convergence experiment (GComp paper, section 7.6) on loopback: data-
parallel training with PyTorch DDP over Gloo, every gradient bucket sent
through a gtool codec by gtool.torch.ddp_comm_hook, against plain DDP.

    /usr/bin/python3 tools/convergence.py [--worlds 2,4] [--steps 200] [--out DIR]

Two small real models on data Debian ships: an MLP on scikit-learn's 8x8
digits (SGD with momentum) and a character-level MLP language model on the
licence texts under /usr/share/common-licenses (AdamW), the paper's two
optimizers.  Writes to DIR
(default build/convergence): curves-MODEL-wWORLD.csv and .svg (training
loss, the mean over ranks, per step; drawn by `gtool plot`), results.csv and
results.md (final held-out loss, deviation from plain DDP, bytes sent and
coding time per step).  `make convergence` runs it.
"""

import argparse
import csv
import json
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

CONFIGS = ["none", "huffexp", "gcomp", "gcomp:margin=1", "gcomp:mode=exact",
           "gcomp:mode=single-quant", "topk:cf=100", "topk:cf=100+ef"]
SEED = 1234
BATCH = 32


# ---- data and models (worker side) ---------------------------------------------------

def digits():
    import numpy as np
    import torch
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    perm = np.random.RandomState(SEED).permutation(len(y))
    x, y = torch.from_numpy(x[perm]), torch.from_numpy(y[perm])
    return x[297:], y[297:], x[:297], y[:297]


CONTEXT = 16


def licence_text():
    base = "/usr/share/common-licenses"
    names = [n for n in ("GPL-3", "Apache-2.0", "MPL-2.0") if os.path.isfile(os.path.join(base, n))]
    text = ""
    for n in names:
        with open(os.path.join(base, n), encoding="utf-8", errors="replace") as fh:
            text += fh.read()
    return text


def chars():
    import torch
    text = licence_text()
    vocab = sorted(set(text))
    pos = {c: i for i, c in enumerate(vocab)}
    ids = torch.tensor([pos[c] for c in text], dtype=torch.int64)
    x = ids.unfold(0, CONTEXT, 1)[:-1]  # x[i] = ids[i:i+CONTEXT], predicting ids[i+CONTEXT]
    y = ids[CONTEXT:]
    cut = len(y) * 9 // 10
    return x[:cut], y[:cut], x[cut:][::7], y[cut:][::7], len(vocab)


_DATA = {}


def make_model(name):
    import torch
    import torch.nn as nn
    if name not in _DATA:
        _DATA[name] = digits() if name == "mlp" else chars()
    torch.manual_seed(SEED)
    if name == "mlp":
        xtr, ytr, xte, yte = _DATA[name]
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                              nn.Linear(64, 10))
        return model, (xtr, ytr, xte, yte), lambda ps: torch.optim.SGD(
            ps, lr=0.05, momentum=0.9, weight_decay=1e-4)
    xtr, ytr, xte, yte, vocab = _DATA[name]
    model = nn.Sequential(nn.Embedding(vocab, 16), nn.Flatten(), nn.Linear(16 * CONTEXT, 128),
                          nn.Tanh(), nn.Linear(128, vocab))
    return model, (xtr, ytr, xte, yte), lambda ps: torch.optim.AdamW(ps, lr=3e-3,
                                                                       weight_decay=0.01)


def train(rank, world, model_name, config, steps, outdir):
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP
    from gtool.torch import ddp_comm_hook

    model, (xtr, ytr, xte, yte), make_opt = make_model(model_name)
    ddp = DDP(model)
    opt = make_opt(ddp.parameters())
    state = None
    if config != "none":
        codec, ef = (config[:-3], True) if config.endswith("+ef") else (config, False)
        state, hook = ddp_comm_hook(codec=codec, optimizer=opt, error_feedback=ef)
        ddp.register_comm_hook(state, hook)
    gen = torch.Generator().manual_seed(SEED * 100 + rank)  # each rank its own batches
    losses = []
    t0 = time.perf_counter()
    for _ in range(steps):
        idx = torch.randint(0, len(ytr), (BATCH,), generator=gen)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(ddp(xtr[idx]), ytr[idx])
        loss.backward()
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        losses.append(mean.item() / world)
    wall = time.perf_counter() - t0
    if rank != 0:
        return
    with torch.no_grad():
        test_loss = F.cross_entropy(model(xte), yte).item()
    res = {"model": model_name, "world": world, "config": config, "steps": steps,
           "losses": losses, "test_loss": test_loss, "wall_s": wall,
           "stats": state.stats() if state else None}
    base = os.path.join(outdir, "%s-w%d-%s" % (model_name, world, config.replace(":", "_")))
    np.savez(base + ".npz", **{n: p.detach().numpy() for n, p in model.named_parameters()})
    with open(base + ".json", "w") as fh:
        json.dump(res, fh)


def worker(rank, world, port, outdir, steps, models, configs):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    for m in models:
        for c in configs:
            train(rank, world, m, c, steps, outdir)
            dist.barrier()
    dist.destroy_process_group()


# ---- the driver -------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world, outdir, steps, models, configs):
    port = free_port()
    cmd = [sys.executable, os.path.abspath(__file__), "--worker"]
    args = [str(world), str(port), outdir, str(steps), ",".join(models), ",".join(configs)]
    procs = [subprocess.Popen(cmd + [str(r)] + args) for r in range(world)]
    rc = [p.wait() for p in procs]
    if any(rc):
        sys.exit("convergence.py: a rank failed (exit %s)" % rc)


def load(outdir, model, world, config):
    import numpy as np
    base = os.path.join(outdir, "%s-w%d-%s" % (model, world, config.replace(":", "_")))
    with open(base + ".json") as fh:
        res = json.load(fh)
    with np.load(base + ".npz") as z:
        res["params"] = {k: z[k] for k in z.files}
    return res


def deviation(a, b):
    """||theta - theta_plain|| / ||theta_plain|| over all parameters."""
    import numpy as np
    num = sum(float(np.sum((a[k].astype(np.float64) - b[k]) ** 2)) for k in b)
    den = sum(float(np.sum(b[k].astype(np.float64) ** 2)) for k in b)
    return (num / den) ** 0.5


def report(outdir, worlds, models, configs, gtool_bin):
    rows = []
    for m in models:
        for w in worlds:
            runs = {c: load(outdir, m, w, c) for c in configs}
            plain = runs.get("none")
            curve = os.path.join(outdir, "curves-%s-w%d.csv" % (m, w))
            with open(curve, "w", newline="") as fh:
                cw = csv.writer(fh)
                cw.writerow(["step", "loss", "config"])
                for c, r in runs.items():
                    for i, loss in enumerate(r["losses"]):
                        cw.writerow([i + 1, "%.6g" % loss, c])
            subprocess.run([gtool_bin, "plot", "-f", "--kind", "lines", "-x", "step", "-y", "loss",
                            "--series", "config", "--log-y", "--title",
                            "%s, %d ranks: training loss (mean over ranks)" % (m, w),
                            "-o", curve[:-4] + ".svg", curve], check=True)
            for c, r in runs.items():
                st = r["stats"] or {}
                rows.append({
                    "model": m, "ranks": w, "config": c,
                    "final_train_loss": sum(r["losses"][-20:]) / len(r["losses"][-20:]),
                    "test_loss": r["test_loss"],
                    "test_loss_vs_plain": r["test_loss"] - plain["test_loss"] if plain else "",
                    "mean_abs_loss_dev": (sum(abs(a - b) for a, b in zip(r["losses"], plain["losses"]))
                                          / len(plain["losses"])) if plain else "",
                    "param_deviation": deviation(r["params"], plain["params"]) if plain else "",
                    "bytes_per_step": st.get("bytes_sent_per_step", ""),
                    "raw_bytes_per_step": st.get("bytes_raw_per_step", ""),
                    "compress_ms_per_step": 1e3 * st["compress_s_per_step"] if st else "",
                    "decompress_ms_per_step": 1e3 * st["decompress_s_per_step"] if st else "",
                    "wall_s": r["wall_s"]})
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as fh:
        cw = csv.DictWriter(fh, fieldnames=list(rows[0]))
        cw.writeheader()
        cw.writerows(rows)
    md = markdown(rows)
    with open(os.path.join(outdir, "results.md"), "w") as fh:
        fh.write(md)
    print(md)


def fmt(v, spec):
    return "" if v == "" else spec % v


def markdown(rows):
    out = ["| model | ranks | codec | final train loss | test loss | vs plain | "
           "mean \\|loss - plain\\| | param deviation | bytes/step (ratio) | "
           "compress ms/step | decompress ms/step |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = ("%.0f (%.2fx)" % (r["bytes_per_step"], r["raw_bytes_per_step"] / r["bytes_per_step"])
                 if r["bytes_per_step"] != "" else "%d (raw)" % 0)
        if r["config"] == "none":
            ratio = "(allreduce)"
        out.append("| %s | %d | %s | %.4f | %.4f | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["ranks"], r["config"], r["final_train_loss"], r["test_loss"],
            fmt(r["test_loss_vs_plain"], "%+.4f"), fmt(r["mean_abs_loss_dev"], "%.4f"),
            fmt(r["param_deviation"], "%.2e"), ratio,
            fmt(r["compress_ms_per_step"], "%.2f"), fmt(r["decompress_ms_per_step"], "%.2f")))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        a = sys.argv[2:]
        worker(int(a[0]), int(a[1]), int(a[2]), a[3], int(a[4]), a[5].split(","),
               a[6].split(","))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worlds", default="2,4", help="process counts (default 2,4)")
    ap.add_argument("--steps", type=int, default=200, help="steps a run (default 200)")
    ap.add_argument("--models", default="mlp,char", help="mlp, char (default both)")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="codec specs; none is plain DDP, +ef adds error feedback")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "convergence"))
    ap.add_argument("--gtool", default=os.path.join(ROOT, "build", "gtool"))
    a = ap.parse_args()
    worlds = [int(w) for w in a.worlds.split(",")]
    models, configs = a.models.split(","), a.configs.split(",")
    if "none" not in configs:
        configs.insert(0, "none")
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    for w in worlds:
        launch(w, a.out, a.steps, models, configs)
        print("convergence: %d ranks done after %.0f s" % (w, time.time() - t0), file=sys.stderr)
    report(a.out, worlds, models, configs, a.gtool)


if __name__ == "__main__":
    main()
