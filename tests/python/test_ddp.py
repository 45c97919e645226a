"""gtool.torch.ddp_comm_hook with 2 ranks on Gloo over loopback: a lossless
codec leaves training bit-identical to plain DDP."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

import gtool  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
if not dist.is_available() or not dist.is_gloo_available():
    pytest.skip("torch.distributed with Gloo is not available", allow_module_level=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIGS = ["none,adam,0", "none,sgd,0", "huffexp,adam,0", "huffexp,sgd,0", "zstd,adam,0",
           "zstd,sgd,0", "gcomp,adam,0", "topk:cf=20,sgd,0", "topk:cf=20,sgd,1"]


def run_ranks(d, world, configs, env=None):
    """Every configuration, 20 steps each, in one set of `world` processes
    (ddp_worker.py); {config: (final parameters, the hook's stats)}."""
    port = free_port()
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "ddp_worker.py"), str(r),
                               str(world), str(port), str(d)] + configs,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, **(env or {})))
             for r in range(world)]
    for p in procs:
        o, _ = p.communicate(timeout=300)
        assert p.returncode == 0, o
    out = {}
    for c in configs:
        with np.load(os.path.join(d, c + ".npz")) as z:
            params = {k: z[k] for k in z.files}
        with open(os.path.join(d, c + ".npz.json")) as fh:
            out[c] = (params, json.load(fh))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every configuration, 20 steps each, in one pair of processes."""
    return run_ranks(tmp_path_factory.mktemp("ddp"), 2, CONFIGS)


@pytest.mark.parametrize("optim", ["adam", "sgd"])
@pytest.mark.parametrize("codec", ["huffexp", "zstd"])
def test_lossless_is_plain_ddp(runs, codec, optim):
    got, stats = runs["%s,%s,0" % (codec, optim)]
    want = runs["none,%s,0" % optim][0]
    assert list(got) == list(want)
    for k in want:
        assert got[k].tobytes() == want[k].tobytes(), k
    assert stats["steps"] == 20
    raw = sum(a.nbytes for a in want.values())
    assert stats["bytes_raw_per_step"] == raw
    assert 0 < stats["bytes_sent_per_step"] < raw * 1.2
    assert stats["compress_s_per_step"] > 0 and stats["decompress_s_per_step"] > 0


def test_lossy_differs_but_trains(runs):
    got, stats = runs["gcomp,adam,0"]
    want = runs["none,adam,0"][0]
    assert any(got[k].tobytes() != want[k].tobytes() for k in want)
    for k in want:  # gcomp is near-lossless: the parameters stay close
        assert np.abs(got[k] - want[k]).max() < 1e-3, k
    assert stats["bytes_sent_per_step"] < stats["bytes_raw_per_step"]


def test_topk_error_feedback(runs):
    a, sa = runs["topk:cf=20,sgd,0"]
    b, sb = runs["topk:cf=20,sgd,1"]
    want = runs["none,sgd,0"][0]
    assert sa["bytes_sent_per_step"] < sa["bytes_raw_per_step"] / 5
    dist_a = sum(float(np.abs(a[k] - want[k]).sum()) for k in want)
    dist_b = sum(float(np.abs(b[k] - want[k]).sum()) for k in want)
    assert dist_b < dist_a  # the residual carries what top-k dropped


def test_gcomp_needs_optimizer():
    from gtool.torch import ddp_comm_hook
    with pytest.raises(gtool.Error, match="^ddp_comm_hook: gcomp needs optimizer="):
        ddp_comm_hook(codec="gcomp")


class FakeBucket:
    """What DDP hands a hook, for a direct call in one process."""

    def __init__(self, params, buf, index=0):
        self._p, self._b, self._i = params, buf, index

    def buffer(self):
        return self._b

    def parameters(self):
        return self._p

    def index(self):
        return self._i

    def is_last(self):
        return True


@pytest.fixture
def one_rank(tmp_path):
    dist.init_process_group("gloo", init_method="file://" + str(tmp_path / "store"), rank=0,
                            world_size=1)
    yield
    dist.destroy_process_group()


def test_hook_bf16_and_error_feedback(one_rank):
    import torch
    from gtool.torch import ddp_comm_hook
    g = torch.linspace(-1, 1, 1000).to(torch.bfloat16)
    state, hook = ddp_comm_hook(codec="huffexp")
    out = hook(state, FakeBucket([], g.clone())).wait()
    assert out.dtype == torch.bfloat16 and torch.equal(out, g)
    # top-k with error feedback: what one step drops, the next one sends
    x = torch.zeros(1000)
    x[:10] = torch.arange(1.0, 11.0)
    state, hook = ddp_comm_hook(codec="topk:k=5", error_feedback=True)
    first = hook(state, FakeBucket([], x.clone())).wait()
    assert torch.equal(first[5:10], x[5:10]) and not first[:5].any()
    second = hook(state, FakeBucket([], torch.zeros(1000))).wait()
    assert torch.equal(second[:5], x[:5]) and not second[5:].any()
    st = state.stats()
    assert st["steps"] == 2 and st["bytes_raw_per_step"] == 4000


def test_error_feedback_follows_parameters_into_new_buckets(one_rank):
    """DDP regroups parameters into new buckets after its first step: the
    residual belongs to each parameter, not to a bucket index."""
    import torch
    from gtool.torch import ddp_comm_hook
    a, b = torch.zeros(6), torch.zeros(4)
    g = torch.tensor([9.0, 0, 0, 0, 0, 0, 1, 2, 3, 8])  # a's values, then b's
    state, hook = ddp_comm_hook(codec="topk:k=2", error_feedback=True)
    first = hook(state, FakeBucket([a, b], g.clone(), index=0)).wait()
    assert first.tolist() == [9, 0, 0, 0, 0, 0, 0, 0, 0, 8]
    # step 2: b alone in bucket 0, a alone in bucket 1, no new gradient
    got_b = hook(state, FakeBucket([b], torch.zeros(4), index=0)).wait()
    assert got_b.tolist() == [0, 2, 3, 0]  # b's residual: 1, 2, 3; top 2 sent
    got_a = hook(state, FakeBucket([a], torch.zeros(6), index=1)).wait()
    assert not got_a.any()
    got_b = hook(state, FakeBucket([b], torch.zeros(4), index=0)).wait()
    assert got_b.tolist() == [1, 0, 0, 0]
