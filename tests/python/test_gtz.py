"""Reading .gtz files from `gtool compress` and writing ones that
`gtool decompress` turns into HDF5, tensor by tensor."""

import os

import h5py
import numpy as np
import pytest

import gtool
from conftest import ROOT, run_gtool, grad_like, bf16_bits

SAMPLE = os.path.join(ROOT, "samples", "mlp_sgd.h5")


def h5_datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.__setitem__("/" + n, (o[()], dict(o.attrs)))
                     if isinstance(o, h5py.Dataset) else None)
    return out


def test_read_cli_trace(tmp_path):
    run_gtool("compress", "-q", SAMPLE, "-o", tmp_path / "t.gtz")
    want = h5_datasets(SAMPLE)
    seen = []
    with gtool.open(tmp_path / "t.gtz") as f:
        for t in f:
            a = t.read()
            w = want[t.name][0]
            assert (t.dtype, t.shape) == ("f32", w.shape)
            assert a.tobytes() == w.tobytes()
            seen.append(t.name)
        assert f.attrs["optimizer"] == "sgd" and f.attrs["momentum"] == 0.9
        assert f.groups["/step_000100"] == {"step": 100}
    assert sorted(seen) == sorted(want)
    # the same from the file's bytes, and gtool.load
    assert list(gtool.load((tmp_path / "t.gtz").read_bytes())) == seen


def test_read_after_moving_on(tmp_path):
    run_gtool("compress", "-q", SAMPLE, "-o", tmp_path / "t.gtz")
    f = gtool.open(tmp_path / "t.gtz")
    first = next(f)
    next(f)
    with pytest.raises(gtool.Error, match="read\\(\\) it before moving to the next one"):
        first.read()
    f.close()


def test_write_read_by_cli(tmp_path):
    g = grad_like(3000).reshape(30, 100)
    out = tmp_path / "w.gtz"
    with gtool.Writer(out) as w:
        w.group("/", {"optimizer": "adam", "lr": 1e-3, "betas": [0.9, 0.999], "seed": 7})
        w.group("/step_000010", {"step": 10})
        w.write("/step_000010/grad/fc.weight", g, codec="zstd", attrs={"note": "hi"})
        w.write("/step_000010/grad/fc.half", g.astype(np.float16), codec="huffexp")
        w.write("/step_000010/grad/fc.double", g.astype(np.float64), codec="zlib")
        w.write("/step_000010/grad/fc.bf16", bf16_bits(g), codec="huffexp", dtype="bf16")
    run_gtool("decompress", "-q", out, "-o", tmp_path / "w.h5")
    got = h5_datasets(tmp_path / "w.h5")
    assert got["/step_000010/grad/fc.weight"][0].tobytes() == g.tobytes()
    assert got["/step_000010/grad/fc.weight"][1] == {"note": "hi"}
    assert got["/step_000010/grad/fc.half"][0].tobytes() == g.astype(np.float16).tobytes()
    assert got["/step_000010/grad/fc.double"][0].tobytes() == g.astype(np.float64).tobytes()
    assert got["/step_000010/grad/fc.bf16"][0].tobytes() == bf16_bits(g).tobytes()
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert f.attrs["optimizer"] == "adam" and f.attrs["seed"] == 7
        assert list(f.attrs["betas"]) == [0.9, 0.999]
        assert f["step_000010"].attrs["step"] == 10
    # and back in Python, with the codec each was written with
    codecs = {t.name: t.codec.split(":")[0] for t in gtool.open(out)}
    assert codecs["/step_000010/grad/fc.weight"] == "zstd"


def test_writer_refuses_and_cleans_up(tmp_path):
    out = tmp_path / "x.gtz"
    out.write_bytes(b"old")
    with pytest.raises(gtool.Error) as e:
        gtool.Writer(out)
    assert e.value.code == -11 and str(e.value).startswith(str(out) + ": ")
    with pytest.raises(RuntimeError):
        with gtool.Writer(out, force=True) as w:
            w.write("a", grad_like(10))
            raise RuntimeError("stop")
    assert out.read_bytes() == b"old"          # left as it was
    assert os.listdir(tmp_path) == ["x.gtz"]   # no temporary file either
    w = gtool.Writer(out, force=True)
    with pytest.raises(gtool.Error, match="unknown codec 'nope'"):
        w.write("a", grad_like(10), codec="nope")
    w.close()
    with pytest.raises(gtool.Error, match="the writer is closed"):
        w.write("a", grad_like(10))


def test_open_errors(tmp_path):
    with pytest.raises(gtool.Error) as e:
        gtool.open(tmp_path / "missing.gtz")
    assert str(e.value).startswith(str(tmp_path / "missing.gtz") + ": ")
    (tmp_path / "bad.gtz").write_bytes(b"\x89GTZ" + b"\0" * 60)
    with pytest.raises(gtool.Error):
        list(gtool.open(tmp_path / "bad.gtz"))


def test_open_missing_message(tmp_path):
    p = str(tmp_path / "missing.gtz")
    with pytest.raises(gtool.Error) as e:
        gtool.open(p)
    assert str(e.value) == p + ": No such file or directory"


def test_writer_blocks_and_table(tmp_path):
    g = grad_like(10000)
    with gtool.Writer(tmp_path / "b.gtz", block_size=1000, chunk_size=500) as w:
        w.write("g", g)
    ls = run_gtool("ls", "--format", "tsv", tmp_path / "b.gtz").stdout.splitlines()
    head = ls[0].split("\t")
    assert ls[1].split("\t")[head.index("blocks")] == "10"
    assert gtool.load(tmp_path / "b.gtz")["g"].tobytes() == g.tobytes()
    with pytest.raises(gtool.Error, match="out of range|block"):
        gtool.Writer(tmp_path / "c.gtz", block_size=10)
    # a static table from `gtool huffman build`, as compress --table uses it
    g.tofile(tmp_path / "g.f32")
    run_gtool("huffman", "build", "-o", tmp_path / "t.ght", tmp_path / "g.f32")
    with gtool.Writer(tmp_path / "t.gtz") as w:
        w.table(tmp_path / "t.ght")
        w.write("g", g, codec="huffexp")
    run_gtool("compress", "-q", "-T", "1", "--table", tmp_path / "t.ght", tmp_path / "g.f32",
              "-o", tmp_path / "cli.gtz")
    assert gtool.load(tmp_path / "t.gtz")["g"].tobytes() == g.tobytes()
    sizes = {p: os.path.getsize(tmp_path / p) for p in ("t.gtz", "cli.gtz")}
    assert abs(sizes["t.gtz"] - sizes["cli.gtz"]) < 64, sizes  # the same coding, names aside
    w = gtool.Writer(tmp_path / "x.gtz")
    with pytest.raises(gtool.Error) as e:
        w.table(tmp_path / "missing.ght")
    assert "missing.ght" in str(e.value)
    w.abort()
