"""Shared fixtures: the gtool binary of this build and a runner for it."""

import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("GTOOL_BUILD", os.path.join(ROOT, "build"))
GTOOL = os.path.join(BUILD, "gtool")


def run_gtool(*args, ok=True):
    """Run build/gtool; with ok, assert exit 0; return the CompletedProcess."""
    p = subprocess.run([GTOOL] + [str(a) for a in args], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, "gtool %s: exit %d: %s" % (" ".join(map(str, args)),
                                                             p.returncode, p.stderr)
    return p


@pytest.fixture
def gtool_cli():
    return run_gtool


def grad_like(n, seed=1, dtype=np.float32):
    """Values shaped like a gradient: normal, a range of scales, zeros and -0."""
    r = np.random.RandomState(seed)
    x = r.standard_normal(n) * np.exp(r.uniform(-12, 0, n))
    x[r.rand(n) < 0.05] = 0.0
    x[r.rand(n) < 0.01] = -0.0
    return x.astype(dtype)


def bf16_bits(x32):
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    u = np.ascontiguousarray(x32, dtype="<f4").view("<u4").astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
