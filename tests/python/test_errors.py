"""Bad input raises gtool.Error with the library's message, never a crash."""

import numpy as np
import pytest

import gtool
from conftest import grad_like

G = grad_like(3000)
P = grad_like(3000, seed=2)
ADAM = dict(optimizer="adam", lr=1e-3, step=10, betas=(0.9, 0.999), eps=1e-8, param=P,
            state={"exp_avg": G * 0.1, "exp_avg_sq": G * G})


def raises(msg, code, fn, *a, **kw):
    with pytest.raises(gtool.Error) as e:
        fn(*a, **kw)
    assert str(e.value) == msg
    assert e.value.code == code


def test_wrong_dtype():
    raises("cannot code int32 values: gtool takes float32, float16, bfloat16 and float64",
           -10, gtool.compress, G.astype(np.int32))
    raises("cannot code uint16 values: gtool takes float32, float16, bfloat16 and float64 "
           "(give dtype=\"bf16\" for bfloat16 bit patterns)", -10, gtool.compress,
           np.zeros(4, np.uint16))
    raises("dtype bf16 needs uint16 values, not float32", -10, gtool.compress, G, dtype="bf16")
    raises("unknown dtype 'f8': one of f32, f16, bf16, f64", -2, gtool.compress, G, dtype="f8")
    raises("codec rangeq: f16 not supported (f32 only)", -10, gtool.compress,
           G.astype(np.float16), codec="rangeq")


def test_bad_codec():
    raises("unknown codec 'nope'", -8, gtool.compress, G, codec="nope")
    raises("codec zstd: invalid level '99': expected 1-22", -2, gtool.compress, G,
           codec="zstd:level=99")


def test_truncated_blob():
    blob = gtool.compress(G, codec="huffexp")
    for cut in [0, 1, 8, 40, len(blob) // 2, len(blob) - 1]:
        with pytest.raises(gtool.Error) as e:
            gtool.decompress(blob[:cut])
        assert e.value.code in (-4, -5), (cut, str(e.value))
        assert str(e.value)
    raises("offset 67: truncated record", -4, gtool.decompress, blob[:100])


def test_corrupt_blob():
    blob = bytearray(gtool.compress(G, codec="huffexp"))
    blob[len(blob) // 2] ^= 0x10
    raises("tensor: block 0: CRC mismatch", -5, gtool.decompress, bytes(blob))
    raises("not a .gtz file", -5, gtool.decompress, b"x" * 64)
    # every single-byte flip: an Error or the right values, never a crash or wrong values
    good = gtool.compress(G[:200], codec="huffexp")
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x41
        try:
            back = gtool.decompress(bytes(bad))
        except gtool.Error:
            continue
        assert back.tobytes() == G[:200].tobytes(), i


def test_gcomp_without_optimizer_context():
    raises("the codec needs the optimizer context: an optctx with param", -2,
           gtool.compress, G, codec="gcomp")
    raises("codec gcomp: attribute lr missing", -8, gtool.compress, G, codec="gcomp",
           optimizer="adam", step=10, param=P)


def test_gcomp_bad_optimizer_state():
    kw = dict(ADAM)
    kw["state"] = {"exp_avg": G[:10], "exp_avg_sq": G * G}
    raises("optimizer context arrays differ in length from the tensor", -2,
           gtool.compress, G, codec="gcomp", **kw)
    kw["state"] = {"momentum_buffer": G}
    raises("optimizer adam keeps no state buffer 'momentum_buffer'", -8,
           gtool.compress, G, codec="gcomp", **kw)
    kw = dict(ADAM, param=P[:-1])
    raises("optimizer context arrays differ in length from the tensor", -2,
           gtool.compress, G, codec="gcomp", **kw)
    kw = dict(ADAM, param=P.astype(np.float64))
    raises("param must be float32, not f64", -10, gtool.compress, G, codec="gcomp", **kw)


def test_gcomp_missing_optimizer_state():
    # after the first step PyTorch's state exists: a missing buffer is an
    # incomplete context, never taken as zeros
    kw = dict(ADAM, state={"exp_avg": G})
    assert kw["step"] > 1
    raises("optimizer adam at step %d needs its state 'exp_avg_sq' (the buffer before "
           "the step)" % kw["step"], -2, gtool.compress, G, codec="gcomp", **kw)
    kw = dict(ADAM, step=1, state={})
    assert gtool.decompress(gtool.compress(G, codec="gcomp", **kw)).shape == G.shape


def test_bad_optimizer_and_hparams():
    raises("unknown optimizer 'adamx'", -8, gtool.compress, G, codec="gcomp", optimizer="adamx")
    raises("unknown hyper-parameter 'foo'", -8, gtool.compress, G, codec="gcomp",
           optimizer="adam", foo=1)
    raises("param, state and hyper-parameters (lr) need optimizer=", -2, gtool.compress, G,
           codec="gcomp", lr=1)


def test_decompress_out_checked():
    blob = gtool.compress(G)
    out = np.empty(3000, np.float32)
    assert gtool.decompress(blob, out=out) is out and out.tobytes() == G.tobytes()
    with pytest.raises(gtool.Error, match="writable C-contiguous float32 array of 3000"):
        gtool.decompress(blob, out=np.empty(6000, np.float32)[::2])
