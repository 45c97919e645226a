"""compress/decompress of every codec and dtype, checked against the C CLI:
a blob written in Python is decoded by `gtool decompress`, a .gtz written by
`gtool compress` is read in Python, and the values agree byte for byte."""

import numpy as np
import pytest

import gtool
from conftest import run_gtool, grad_like, bf16_bits

LOSSLESS = ["raw", "zlib", "zstd", "huffexp"]
LOSSY = ["tfp:bits=8", "rangeq", "fft", "topk:cf=10", "randk:cf=10", "dgc:cf=10", "redsync:cf=10",
         "qsgd", "terngrad"]
F32_ONLY = ["rangeq", "fft"]
DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": None}
N = 70001  # more than one 64K chunk, an odd count


def data(dt):
    if dt == "bf16":
        return bf16_bits(grad_like(N))
    return grad_like(N, dtype=DTYPES[dt])


def cli_roundtrip(tmp_path, x, dt, codec):
    """Compress x with the CLI and decompress it to raw: (.gtz bytes, decoded bytes)."""
    src = tmp_path / ("x." + dt)
    x.tofile(src)
    run_gtool("compress", "-q", "-T", "1", "-c", codec, src, "-o", tmp_path / "cli.gtz")
    run_gtool("decompress", "-q", tmp_path / "cli.gtz", "-o", tmp_path / ("cli_out." + dt))
    return (tmp_path / "cli.gtz").read_bytes(), (tmp_path / ("cli_out." + dt)).read_bytes()


def cli_decode(tmp_path, blob, dt):
    (tmp_path / "py.gtz").write_bytes(blob)
    run_gtool("decompress", "-q", tmp_path / "py.gtz", "-o", tmp_path / ("py_out." + dt))
    return (tmp_path / ("py_out." + dt)).read_bytes()


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("codec", LOSSLESS + LOSSY)
def test_against_cli(tmp_path, codec, dt):
    x = data(dt)
    kw = {"dtype": "bf16"} if dt == "bf16" else {}
    cli_gtz, cli_out = cli_roundtrip(tmp_path, x, dt, codec)
    if codec.split(":")[0] in F32_ONLY and dt != "f32":
        # the CLI keeps such a tensor losslessly with a warning; the call refuses
        with pytest.raises(gtool.Error, match="^codec %s: %s not supported \\(f32 only\\)$"
                           % (codec, dt)) as e:
            gtool.compress(x, codec=codec, **kw)
        assert e.value.code == -10
        return
    blob = gtool.compress(x, codec=codec, **kw)
    assert gtool.info(blob) == (dt, (N,))
    back = gtool.decompress(blob)
    assert back.dtype == x.dtype and back.shape == x.shape
    # Python's blob through the CLI, the CLI's file through Python
    assert cli_decode(tmp_path, blob, dt) == back.tobytes()
    assert gtool.decompress(cli_gtz).tobytes() == cli_out
    tensors = [(t.name, t.dtype, t.shape, t.read().tobytes()) for t in gtool.open(tmp_path / "cli.gtz")]
    assert tensors == [("x", dt, (N,), cli_out)]
    # the same codec on the same values decodes to the same values either way
    assert back.tobytes() == cli_out
    if codec in LOSSLESS:
        assert back.tobytes() == x.tobytes()
    else:
        assert back.tobytes() != x.tobytes()


@pytest.mark.parametrize("codec", LOSSLESS)
@pytest.mark.parametrize("dt", ["f32", "f16", "f64"])
def test_shapes_kept(codec, dt):
    for shape in [(), (0,), (1,), (3, 5, 7), (2, 0, 4), (64, 1025)]:
        x = grad_like(int(np.prod(shape)), dtype=DTYPES[dt]).reshape(shape)
        back = gtool.decompress(gtool.compress(x, codec=codec))
        assert back.shape == shape and back.dtype == x.dtype
        assert back.tobytes() == x.tobytes()


def test_special_values_bitwise():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, 1.0],
                 dtype=np.float32)
    x = np.concatenate([x, x.view(np.uint32).__or__(np.uint32(0x00400001)).view(np.float32)])
    for codec in LOSSLESS:
        back = gtool.decompress(gtool.compress(x, codec=codec))
        assert back.view(np.uint32).tobytes() == x.view(np.uint32).tobytes()


def test_noncontiguous_and_big_endian_are_copied():
    base = grad_like(4000).reshape(40, 100)
    for x in [base[:, ::3], base.T, base[::-1], base.astype(">f4")]:
        back = gtool.decompress(gtool.compress(x, codec="huffexp"))
        assert back.shape == x.shape
        assert np.array_equal(back.view(np.uint32), np.ascontiguousarray(x, "<f4").view(np.uint32))


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    g = torch.from_numpy(grad_like(5000)).reshape(50, 100)
    for t in [g, g.t(), g.to(torch.float16), g.to(torch.float64)]:
        back = gtool.decompress(gtool.compress(t, codec="huffexp"))
        assert back.shape == tuple(t.shape)
        assert back.tobytes() == t.contiguous().numpy().tobytes()
    b = g.to(torch.bfloat16)
    blob = gtool.compress(b, codec="huffexp")
    assert gtool.info(blob) == ("bf16", (50, 100))
    back = gtool.decompress(blob)
    assert back.dtype == np.uint16
    assert back.tobytes() == b.view(torch.int16).numpy().tobytes()
    from gtool.torch import to_torch
    assert torch.equal(to_torch(back, "bf16"), b)


def test_gcomp_against_cli(tmp_path):
    """gcomp with an Adam context: Python's blob and the CLI's decode alike."""
    r = np.random.RandomState(7)
    g = grad_like(N)
    p = r.standard_normal(N).astype(np.float32)
    m = (r.standard_normal(N) * 1e-3).astype(np.float32)
    v = (r.rand(N) * 1e-6).astype(np.float32)
    hp = dict(lr=1e-3, step=10, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01)
    for name, a in [("x", g), ("p", p), ("m", m), ("v", v)]:
        a.tofile(tmp_path / (name + ".f32"))
    run_gtool("compress", "-q", "-T", "1", "-c", "gcomp", "--optimizer", "adamw",
              "--lr", "1e-3", "--step", "10", "--beta1", "0.9", "--beta2", "0.999",
              "--eps", "1e-8", "--weight-decay", "0.01", "--params", tmp_path / "p.f32",
              "--state", "exp_avg=%s" % (tmp_path / "m.f32"),
              "--state", "exp_avg_sq=%s" % (tmp_path / "v.f32"),
              tmp_path / "x.f32", "-o", tmp_path / "cli.gtz")
    run_gtool("decompress", "-q", tmp_path / "cli.gtz", "-o", tmp_path / "cli_out.f32")
    cli_out = (tmp_path / "cli_out.f32").read_bytes()
    blob = gtool.compress(g, codec="gcomp", optimizer="adamw", param=p,
                          state={"exp_avg": m, "exp_avg_sq": v}, **hp)
    back = gtool.decompress(blob)
    assert back.tobytes() == cli_out
    assert cli_decode(tmp_path, blob, "f32") == cli_out
    assert back.tobytes() != g.tobytes()
    assert len(blob) < g.nbytes
    # near-lossless: the AdamW step with ghat matches the step with g almost everywhere
    f = gtool.update_fidelity(g, back, "adamw", p, {"exp_avg": m, "exp_avg_sq": v}, **hp)
    assert f["values"] == N and f["identical_pct"] > 90


def test_codecs_listed():
    assert gtool.codecs()[:5] == ["raw", "zlib", "zstd", "huffexp", "gcomp"]
    import re
    from conftest import ROOT
    with open(ROOT + "/Makefile") as fh:
        want = re.search(r"^VERSION = (\S+)$", fh.read(), re.M).group(1)
    assert gtool.__version__ == want


def test_compress_returns_bytes_either_way(monkeypatch):
    """The result is a plain bytes object, written in place (CPython) or
    copied from a bytearray (elsewhere); both decode to the input."""
    import sys
    from gtool import _lib
    x = grad_like(100000)
    a = gtool.compress(x, codec="zstd")
    assert type(a) is bytes and sys.getrefcount(a) == 2
    monkeypatch.setattr(_lib, "_bytes_new", None)
    b = gtool.compress(x, codec="zstd")
    assert type(b) is bytes and a == b
    assert gtool.decompress(b).tobytes() == x.tobytes()


def test_decompress_takes_any_buffer():
    """bytes goes to the library as it is, other buffers through a NumPy
    view: the same values either way, and a damaged copy is refused."""
    x = grad_like(70001)
    blob = gtool.compress(x, codec="huffexp")
    for b in (blob, bytearray(blob), memoryview(blob), np.frombuffer(blob, np.uint8)):
        assert gtool.decompress(b).tobytes() == x.tobytes()
    bad = bytearray(blob)
    bad[len(bad) // 2] ^= 0x40
    with pytest.raises(gtool.Error):
        gtool.decompress(bytes(bad))


def test_large_result_asks_for_huge_pages(monkeypatch):
    """A result of 4 MiB and more is advised MADV_HUGEPAGE (whole pages
    inside it only), smaller ones and NumPy's switch off are not; the
    bytes are the same either way."""
    import sys
    from gtool import _lib
    if _lib._madvise is None or _lib._bytes_new is None:
        pytest.skip("no madvise or no in-place bytes here")
    calls = []
    real = _lib._madvise
    monkeypatch.setattr(_lib, "_madvise",
                        lambda a, n, adv: calls.append((a, n, adv)) or real(a, n, adv))
    x = grad_like(1 << 21)  # 8 MiB of f32
    a = gtool.compress(x, codec="huffexp")
    assert len(calls) == 1
    addr, n, adv = calls[0]
    assert adv == 14 and addr % _lib._PAGE == 0 and n % _lib._PAGE == 0
    cap = _lib.lib.gtool_compress_bound(_lib.F32, x.size)
    assert cap - 2 * _lib._PAGE < n <= cap
    gtool.compress(grad_like(1000), codec="huffexp")
    assert len(calls) == 1
    assert not _lib.advise_huge(addr, _lib.HUGE_MIN - 1)
    was = np.core.multiarray._set_madvise_hugepage(False)
    try:
        b = gtool.compress(x, codec="huffexp")
    finally:
        np.core.multiarray._set_madvise_hugepage(was)
    assert len(calls) == 1 and a == b and sys.getrefcount(b) == 2
    assert gtool.decompress(a).tobytes() == x.tobytes()
