"""gtool.error against `gtool error --format json` on the same files."""

import json
import math

import numpy as np
import pytest

import gtool
from conftest import run_gtool, grad_like, bf16_bits


def cli_total(tmp_path, a, b, ext_a, ext_b):
    pa, pb = tmp_path / ("a." + ext_a), tmp_path / ("b." + ext_b)
    a.tofile(pa)
    b.tofile(pb)
    out = run_gtool("error", "--format", "json", "--total", pa, pb).stdout
    row = json.loads(out)[-1]
    del row["name"]
    return row


def same(x, y):
    """JSON null stands for NaN and +-Inf."""
    if y is None:
        return math.isnan(x) or math.isinf(x)
    return x == y


@pytest.mark.parametrize("n", [1, 1000, (1 << 20) + 4097])
def test_error_matches_cli(tmp_path, n):
    a = grad_like(n, seed=3)
    b = (a + grad_like(n, seed=4) * 1e-3).astype(np.float32)
    b[::97] = a[::97]
    want = cli_total(tmp_path, a, b, "f32", "f32")
    got = gtool.error(a, b)
    assert list(got) == list(want)
    for k in want:
        assert same(got[k], want[k]), (k, got[k], want[k])


def test_error_mixed_dtypes_and_specials(tmp_path):
    a = grad_like(5000, seed=5)
    a[:4] = [np.nan, np.inf, -np.inf, 0.0]
    b16 = bf16_bits(a)
    want = cli_total(tmp_path, a, b16, "f32", "bf16")
    got = gtool.error(a, b16, dtype_b="bf16")
    for k in want:
        assert same(got[k], want[k]), (k, got[k], want[k])
    assert got["nan"] == 1 and got["inf"] == 2


def test_error_identical():
    a = grad_like(100)
    m = gtool.error(a, a.copy())
    assert m["identical"] == 100 and m["identical_pct"] == 100.0
    assert m["rmse"] == 0 and math.isinf(m["psnr"])


def test_error_length_mismatch():
    with pytest.raises(gtool.Error, match="^error: a has 10 values, b has 9$"):
        gtool.error(np.zeros(10, np.float32), np.zeros(9, np.float32))
