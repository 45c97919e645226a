"""A DistributedDataParallel communication hook that sends gradients coded
with a gtool codec (gtool.torch.ddp_comm_hook)."""

import time

import numpy as np
import torch
import torch.distributed as dist

from . import compress, decompress, info
from ._arr import OptContext
from ._lib import Error


class HookState:
    """What the hook keeps between calls: the codec, the optimizer (for
    gcomp), error-feedback residuals per parameter, and counters."""

    def __init__(self, codec, optimizer, error_feedback, process_group):
        self.codec = codec
        self.optimizer = optimizer
        self.error_feedback = error_feedback
        self.process_group = process_group
        self.residual = {}
        self.steps = 0
        self.bytes_sent = 0      # this rank's compressed bytes, all steps
        self.bytes_wire = 0      # what the padded allgather moved from this rank
        self.bytes_raw = 0       # the uncompressed bucket bytes
        self.compress_s = 0.0
        self.decompress_s = 0.0
        self.exchange_s = 0.0

    def stats(self):
        """Totals and per-step means (a step: one backward pass, every bucket)."""
        n = max(self.steps, 1)
        return {"steps": self.steps, "bytes_sent": self.bytes_sent,
                "bytes_sent_per_step": self.bytes_sent / n,
                "bytes_wire_per_step": self.bytes_wire / n,
                "bytes_raw_per_step": self.bytes_raw / n,
                "compress_s_per_step": self.compress_s / n,
                "decompress_s_per_step": self.decompress_s / n,
                "exchange_s_per_step": self.exchange_s / n}

    def reset_stats(self):
        self.steps = self.bytes_sent = self.bytes_wire = self.bytes_raw = 0
        self.compress_s = self.decompress_s = self.exchange_s = 0.0


def _step_of(state, params):
    """The number of the coming optimizer step: PyTorch's own count in the
    state (Adam, AdamW, Adagrad, RMSprop keep "step") plus one, else ours."""
    for p in params:
        s = state.optimizer.state.get(p, {}).get("step")
        if s is not None:
            return int(s.item() if torch.is_tensor(s) else s) + 1
    return state.steps + 1


def _host(t):
    """t detached and on the CPU (a copy when it lives on a GPU)."""
    return t.detach().cpu()


def _bucket_context(state, bucket):
    """One OptContext over the whole bucket: its parameters and their state
    buffers flattened in the bucket's order (bucket.parameters()), on the
    host."""
    from .torch import optimizer_hparams
    opt = state.optimizer
    params = bucket.parameters()
    kind, hp = optimizer_hparams(opt, _step_of(state, params))
    flat = torch.cat([_host(p).reshape(-1) for p in params])
    names = set()
    for p in params:
        names.update(k for k, v in opt.state.get(p, {}).items()
                     if k != "step" and torch.is_tensor(v) and v.shape == p.shape)
    st = {}
    for k in sorted(names):
        bufs = [opt.state.get(p, {}).get(k) for p in params]
        if any(b is None for b in bufs):
            raise Error("ddp_comm_hook: state %s exists for some parameters of bucket %d "
                        "but not for all" % (k, bucket.index()), -2)
        st[k] = torch.cat([_host(b).reshape(-1) for b in bufs])
    return OptContext(kind, param=flat, state=st, **hp)


def _wire_device(group, like):
    """Where the exchanged tensors must live: NCCL moves only GPU tensors
    (the bucket's own device); Gloo and MPI take host tensors."""
    return like.device if dist.get_backend(group) == "nccl" else torch.device("cpu")


def _exchange(blob, group, dev):
    """Every rank's blob: sizes first, then an allgather of padded uint8,
    both on device dev; the blobs come back as host bytes."""
    world = dist.get_world_size(group)
    size = torch.tensor([len(blob)], dtype=torch.int64, device=dev)
    sizes = [torch.zeros(1, dtype=torch.int64, device=dev) for _ in range(world)]
    dist.all_gather(sizes, size, group=group)
    sizes = [int(s.item()) for s in sizes]
    cap = max(sizes)
    mine = torch.zeros(cap, dtype=torch.uint8)
    mine[:len(blob)] = torch.frombuffer(bytearray(blob), dtype=torch.uint8)
    bufs = [torch.empty(cap, dtype=torch.uint8, device=dev) for _ in range(world)]
    dist.all_gather(bufs, mine.to(dev), group=group)
    return [b.cpu().numpy()[:n].tobytes() for b, n in zip(bufs, sizes)], cap


def _residual_keys(bucket, n):
    """Where a bucket's residual is kept: per parameter, as (parameter,
    offset, count) in the bucket's flat buffer, since DDP regroups the
    parameters into new buckets after its first step; by bucket index when
    the bucket does not list parameters that fill it."""
    params, out, off = bucket.parameters(), [], 0
    for p in params:
        out.append((p, off, p.numel()))
        off += p.numel()
    return out if params and off == n else [(("bucket", bucket.index()), 0, n)]


def _residual_of(state, bucket, x):
    """The residual that the codec left out of these parameters' last
    gradients (zeros where there is none yet), in the bucket's layout."""
    r = torch.zeros_like(x).reshape(-1)
    for key, off, n in _residual_keys(bucket, x.numel()):
        kept = state.residual.get(key)
        if kept is not None and kept.numel() == n:
            r[off:off + n] = kept
    return r.reshape(x.shape)


def _keep_residual(state, bucket, res):
    flat = res.reshape(-1)
    for key, off, n in _residual_keys(bucket, flat.numel()):
        state.residual[key] = flat[off:off + n].clone()


def _hook(state, bucket):
    buf = bucket.buffer()
    group = state.process_group
    world = dist.get_world_size(group)
    x = _host(buf)  # the codecs run on the host: a GPU bucket is copied there and back
    if state.error_feedback:
        x = x + _residual_of(state, bucket, x)
    t0 = time.perf_counter()
    ctx = _bucket_context(state, bucket) if state.codec.split(":")[0] == "gcomp" else None
    blob = compress(x, codec=state.codec, optimizer=ctx)
    t1 = time.perf_counter()
    blobs, cap = _exchange(blob, group, _wire_device(group, buf))
    t2 = time.perf_counter()
    bf16 = info(blob)[0] == "bf16"
    out = torch.zeros_like(x)
    scale = 1.0 / world  # as PyTorch's allreduce hook: each rank's share, then the sum
    for r, b in enumerate(blobs):
        a = decompress(b)
        g = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if bf16 else torch.from_numpy(a)
        g = g.reshape(buf.shape)
        if state.error_feedback and r == dist.get_rank(group):
            _keep_residual(state, bucket, x - g)
        out += g * scale
    t3 = time.perf_counter()
    state.bytes_sent += len(blob)
    state.bytes_wire += cap + 8
    state.bytes_raw += buf.numel() * buf.element_size()
    state.compress_s += t1 - t0
    state.exchange_s += t2 - t1
    state.decompress_s += t3 - t2
    if bucket.is_last():
        state.steps += 1
    fut = torch.futures.Future()
    fut.set_result(out.to(buf.device))
    return fut


def ddp_comm_hook(codec="huffexp", optimizer=None, error_feedback=False, process_group=None):
    """(state, hook) for DistributedDataParallel.register_comm_hook.  The
    codecs run on the host: a bucket on a GPU is copied to the host, coded,
    exchanged (on the GPU with NCCL, on the host with Gloo), decoded and
    averaged there, and the average is copied back to the bucket's device.  Each gradient bucket is coded with `codec` (any gtool
    codec spec) on every rank; the ranks exchange the coded bytes (sizes
    first, then an allgather of padded uint8 tensors), each decodes every
    rank's bytes and the hook returns their average.

    gcomp needs `optimizer` (a torch.optim SGD, Adagrad, RMSprop, Adam or
    AdamW with one param group): each bucket's parameters and their state
    before the coming step make its optimizer context, in the bucket's own
    order.  error_feedback=True keeps, per parameter, what the codec left out
    (the input minus its own decoded copy) and adds it to the next step's
    gradient (for the sparsifiers: topk, randk, dgc, redsync).
    state.stats() returns bytes sent per step and the time spent coding,
    exchanging and decoding."""
    if codec.split(":")[0] == "gcomp" and optimizer is None:
        raise Error("ddp_comm_hook: gcomp needs optimizer= (it codes each gradient for "
                    "the optimizer step that follows)", -2)
    if optimizer is not None:
        from .torch import optimizer_kind
        optimizer_kind(optimizer)
    return HookState(codec, optimizer, error_feedback, process_group), _hook
