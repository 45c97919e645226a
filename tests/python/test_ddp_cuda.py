"""gtool.torch.ddp_comm_hook on GPU tensors: the hook copies each bucket to
the host, codes it there and copies the average back.  Runs only where
PyTorch sees a CUDA device (skipped elsewhere): 2 ranks on Gloo with the
model on GPU 0, and 1 rank on NCCL (NCCL takes one rank per GPU)."""

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

from test_ddp import run_ranks  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

CONFIGS = ["none,adam,0", "none,sgd,0", "huffexp,adam,0", "zstd,sgd,0", "gcomp,adam,0",
           "topk:cf=20,sgd,1"]


def check(runs):
    for codec, optim in (("huffexp", "adam"), ("zstd", "sgd")):
        got, stats = runs["%s,%s,0" % (codec, optim)]
        want = runs["none,%s,0" % optim][0]
        assert list(got) == list(want)
        for k in want:
            assert got[k].tobytes() == want[k].tobytes(), (codec, k)
        assert stats["steps"] == 20 and 0 < stats["bytes_sent_per_step"]
    got, stats = runs["gcomp,adam,0"]
    want = runs["none,adam,0"][0]
    for k in want:
        assert abs(got[k] - want[k]).max() < 1e-3, k
    assert stats["bytes_sent_per_step"] < stats["bytes_raw_per_step"]
    _, stats = runs["topk:cf=20,sgd,1"]
    assert stats["bytes_sent_per_step"] < stats["bytes_raw_per_step"] / 5


def test_gloo_two_ranks_cuda(tmp_path):
    check(run_ranks(tmp_path, 2, CONFIGS, {"GTOOL_DDP_DEVICE": "cuda", "GTOOL_DDP_BACKEND": "gloo"}))


@pytest.mark.skipif(not dist.is_nccl_available(), reason="no NCCL")
def test_nccl_one_rank_cuda(tmp_path):
    check(run_ranks(tmp_path, 1, CONFIGS, {"GTOOL_DDP_DEVICE": "cuda", "GTOOL_DDP_BACKEND": "nccl"}))
