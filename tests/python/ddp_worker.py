"""One rank of a small DDP run on Gloo (CPU, loopback), for test_ddp.py.

ddp_worker.py RANK WORLD PORT OUTDIR CODEC,OPTIMIZER,EF ...
runs each configuration in turn, 20 steps each; CODEC "none" is plain DDP.
GTOOL_DDP_BACKEND (gloo, or nccl) and GTOOL_DDP_DEVICE (cpu, or cuda: the
model and its gradients on GPU 0) choose where it runs; gloo on cpu by default.
Rank 0 writes OUTDIR/CODEC,OPTIMIZER,EF.npz (the final parameters) and .json
(the hook's stats)."""

import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from gtool.torch import ddp_comm_hook  # noqa: E402


DEVICE = torch.device(os.environ.get("GTOOL_DDP_DEVICE", "cpu"))
BACKEND = os.environ.get("GTOOL_DDP_BACKEND", "gloo")


def train(rank, codec, out, optim="adam", ef=0, steps=20):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 10)).to(DEVICE)
    # small buckets: several per step
    ids = [DEVICE.index or 0] if DEVICE.type == "cuda" else None
    ddp = DDP(model, device_ids=ids, bucket_cap_mb=0.005)
    if optim == "adam":
        opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    else:
        opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    state = None
    if codec != "none":
        state, hook = ddp_comm_hook(codec=codec, optimizer=opt, error_feedback=bool(ef))
        ddp.register_comm_hook(state, hook)
    gen = torch.Generator().manual_seed(100 + rank)
    for _ in range(steps):
        x = torch.randn(16, 32, generator=gen).to(DEVICE)
        y = torch.randint(0, 10, (16,), generator=gen).to(DEVICE)
        opt.zero_grad()
        F.cross_entropy(ddp(x), y).backward()
        opt.step()
    if rank == 0:
        np.savez(out, **{n: p.detach().cpu().numpy() for n, p in model.named_parameters()})
        with open(out + ".json", "w") as fh:
            json.dump(state.stats() if state else {}, fh)


def main(rank, world, port, outdir, *configs):
    torch.set_num_threads(1)
    dist.init_process_group(BACKEND, init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    for c in configs:
        codec, optim, ef = c.split(",")
        train(rank, codec, os.path.join(outdir, c + ".npz"), optim, int(ef))
    dist.destroy_process_group()


if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]), int(a[1]), int(a[2]), *a[3:])
