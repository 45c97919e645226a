#!/usr/bin/python3
"""The Python package's call overhead: gtool.compress / gtool.decompress of
1 MiB and 64 MiB float32 arrays beside libgtool's own speed on the same data
(python/bench/bench_api.c through the C API), and the DDP hook's time per
step against plain DDP (tools/convergence.py, 2 ranks, short runs).

    /usr/bin/python3 python/bench/bench.py BUILD_DIR     (make bench-python)
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import gtool  # noqa: E402


def data(n):
    r = np.random.RandomState(1)
    return (r.standard_normal(n) * np.exp(r.uniform(-8, 0, n))).astype(np.float32)


def best(fn, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def codec_rows(build, bench_bin, rounds):
    """C and Python in turn, `rounds` times, the best of each: the machine's
    noise falls on both.  C "warm" reuses its output buffers; "fresh"
    mallocs them per call, as gtool.compress (a new bytes object) and
    gtool.decompress (a new array) do; decompress(out=) reuses one."""
    print("| size | codec | direction | C warm MB/s | C fresh MB/s | Python MB/s | "
          "Python vs C fresh | Python out= MB/s | out= vs C warm |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for mib, reps in ((1, 20), (64, 2)):
        x = data(mib << 18)
        path = os.path.join(build, "bench-python-%dmib.f32" % mib)
        x.tofile(path)
        mb = x.nbytes / 1e6
        for codec in ("huffexp", "zstd"):
            blob = gtool.compress(x, codec=codec)
            back = np.empty_like(x)
            c = [1e30] * 4
            py = [1e30] * 3
            for _ in range(rounds):
                out = subprocess.run([bench_bin, path, codec, str(reps)], capture_output=True,
                                     text=True, check=True).stdout.split()
                c = [min(u, float(v)) for u, v in zip(c, out[1:])]
                py[0] = min(py[0], best(lambda: gtool.compress(x, codec=codec), reps))
                py[1] = min(py[1], best(lambda: gtool.decompress(blob), reps))
                py[2] = min(py[2], best(lambda: gtool.decompress(blob, out=back), reps))
            print("| %d MiB | %s | compress | %.0f | %.0f | %.0f | %+.1f %% | | |"
                  % (mib, codec, mb / c[0], mb / c[2], mb / py[0], 100 * (py[0] / c[2] - 1)))
            print("| %d MiB | %s | decompress | %.0f | %.0f | %.0f | %+.1f %% | %.0f | %+.1f %% |"
                  % (mib, codec, mb / c[1], mb / c[3], mb / py[1], 100 * (py[1] / c[3] - 1),
                     mb / py[2], 100 * (py[2] / c[1] - 1)))
        os.unlink(path)


def inprocess_rows(reps):
    """In one process, calls alternating: gtool.compress / gtool.decompress
    against the bare C function through ctypes into buffers allocated once
    (libgtool's own speed, plus about a microsecond of ctypes).  What is
    left is the package's own cost per call: argument checks, the new bytes
    object or array (its pages are touched for the first time)."""
    import ctypes
    from gtool import _lib
    print()
    print("| size | codec | direction | bare C call ms | gtool.* ms | difference |")
    print("|---|---|---|---:|---:|---:|")
    for n in (64, 1 << 18, 1 << 24):
        x = data(n)
        dims = (ctypes.c_uint64 * 1)(n)
        for codec in ("huffexp", "zstd"):
            cap = _lib.lib.gtool_compress_bound(_lib.F32, n)
            dst = np.empty(cap, np.uint8)
            back = np.empty_like(x)
            ln = ctypes.c_size_t()
            err = _lib.ErrBuf()
            spec = codec.encode()

            def bare_c():
                _lib.lib.gtool_compress(spec, _lib.F32, dims, 1, x.ctypes.data, x.nbytes, None,
                                        dst.ctypes.data, cap, ctypes.byref(ln), ctypes.byref(err))

            def bare_d():
                _lib.lib.gtool_decompress(dst.ctypes.data, ln.value, back.ctypes.data,
                                          back.nbytes, ctypes.byref(ln2), None, None)
            ln2 = ctypes.c_size_t()
            bare_c()
            blob = gtool.compress(x, codec=codec)
            t = [1e30] * 4
            for _ in range({64: 2000, 1 << 18: 200}.get(n, reps)):
                t[0] = min(t[0], best(bare_c, 1))
                t[1] = min(t[1], best(lambda: gtool.compress(x, codec=codec), 1))
                t[2] = min(t[2], best(bare_d, 1))
                t[3] = min(t[3], best(lambda: gtool.decompress(blob), 1))
            size = "%d values" % n if n < 1024 else "%d MiB" % (n >> 18)
            for d, a, b in (("compress", t[0], t[1]), ("decompress", t[2], t[3])):
                print("| %s | %s | %s | %.4f | %.4f | %+.1f %% (%+.0f us) |"
                      % (size, codec, d, 1e3 * a, 1e3 * b, 100 * (b / a - 1), 1e6 * (b - a)))


def hook_rows(build):
    out = os.path.join(build, "bench-hook")
    configs = "none,huffexp,zstd,gcomp,topk:cf=100"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "convergence.py"), "--worlds",
                    "2", "--steps", "100", "--configs", configs, "--out", out, "--gtool",
                    os.path.join(build, "gtool")], check=True, stdout=subprocess.DEVNULL)
    print()
    print("| model | codec (2 ranks) | ms/step | vs plain DDP | compress ms | exchange ms | "
          "decompress ms | bytes/step |")
    print("|---|---|---|---|---|---|---|---|")
    for model in ("mlp", "char"):
        plain = None
        for c in configs.split(","):
            with open(os.path.join(out, "%s-w2-%s.json" % (model, c.replace(":", "_")))) as fh:
                r = json.load(fh)
            ms = 1e3 * r["wall_s"] / r["steps"]
            plain = plain or ms
            st = r["stats"] or {}
            print("| %s | %s | %.2f | %.2fx | %s | %s | %s | %s |" % (
                model, c, ms, ms / plain,
                "%.2f" % (1e3 * st["compress_s_per_step"]) if st else "",
                "%.2f" % (1e3 * st["exchange_s_per_step"]) if st else "",
                "%.2f" % (1e3 * st["decompress_s_per_step"]) if st else "",
                "%.0f" % st["bytes_sent_per_step"] if st else "allreduce"))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    print("gtool %s, %s" % (gtool.__version__, gtool.library_path))
    codec_rows(build, os.path.join(build, "bench_api"), 5)
    inprocess_rows(6)
    if "--no-hook" not in sys.argv:
        hook_rows(build)


if __name__ == "__main__":
    main()
