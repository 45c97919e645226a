#!/usr/bin/python3
"""The Python package's call overhead: gtool.compress / gtool.decompress of
64 values, 1 MiB and 64 MiB of float32 beside libgtool doing the same work
(its _alloc calls, which return fresh memory as the package does) and
beside its reuse-buffer calls, in the same process through ctypes and in a
C program of its own (python/bench/bench_api.c); and the DDP hook's time
per step against plain DDP (tools/convergence.py, 2 ranks, short runs).

    /usr/bin/python3 python/bench/bench.py BUILD_DIR     (make bench-python)
"""

import json
import os
import statistics
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


def median_of(fns, rounds, inner):
    """Seconds per call of each function, the median of `rounds` rounds in
    which the functions take turns (`inner` calls each): a change in the
    load of the machine falls on all of them alike."""
    t = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            t[i].append((time.perf_counter() - t0) / inner)
    return [statistics.median(v) for v in t]


def codec_rows(build, bench_bin, rounds):
    """libgtool in a C program of its own (python/bench/bench_api.c) and the
    package, in turn, `rounds` times, medians.  C "reuse" codes into buffers
    made once; C "alloc" calls gtool_compress_alloc / gtool_decompress_alloc,
    whose results are fresh memory, as gtool.compress (a new bytes object)
    and gtool.decompress (a new array) return."""
    print()
    print("| size | codec | direction | C reuse MB/s | C alloc MB/s | Python MB/s | "
          "Python vs C alloc |")
    print("|---|---|---|---:|---:|---:|---:|")
    for mib, reps in ((1, 21), (64, 3)):
        x = data(mib << 18)
        path = os.path.join(build, "bench-python-%dmib.f32" % mib)
        x.tofile(path)
        mb = x.nbytes / 1e6
        for codec in ("huffexp", "zstd"):
            blob = gtool.compress(x, codec=codec)
            c, py = [[] for _ in range(4)], [[] for _ in range(2)]
            for _ in range(rounds):
                out = subprocess.run([bench_bin, path, codec, str(reps)], capture_output=True,
                                     text=True, check=True).stdout.split()
                for k in range(4):
                    c[k].append(float(out[1 + k]))
                m = median_of([lambda: gtool.compress(x, codec=codec),
                               lambda: gtool.decompress(blob)], reps, 1)
                py[0].append(m[0])
                py[1].append(m[1])
            c = [statistics.median(v) for v in c]
            py = [statistics.median(v) for v in py]
            for d, k in (("compress", 0), ("decompress", 1)):
                print("| %d MiB | %s | %s | %.0f | %.0f | %.0f | %+.1f %% |"
                      % (mib, codec, d, mb / c[k], mb / c[2 + k], mb / py[k],
                         100 * (py[k] / c[2 + k] - 1)))
        os.unlink(path)


class CSide:
    """libgtool called through ctypes with no package code around it: "reuse"
    codes into buffers allocated once (the library's own speed, plus about a
    microsecond of ctypes); "alloc" is gtool_compress_alloc /
    gtool_decompress_alloc and gtool_free, the C caller that gets fresh memory
    for each result, as the package's callers do."""

    def __init__(self, x, codec):
        import ctypes
        from gtool import _lib
        self.c, self.L = ctypes, _lib.lib
        self.L.gtool_decompress_alloc.restype = ctypes.c_int
        self.L.gtool_decompress_alloc.argtypes = [_lib.P, _lib.Z, _lib.PP, _lib.PZ, _lib.PI,
                                                  _lib.PE]
        self.x, self.spec, self.dt = x, codec.encode(), _lib.F32
        self.dims = (ctypes.c_uint64 * 1)(x.size)
        self.cap = self.L.gtool_compress_bound(_lib.F32, x.size)
        self.dst = np.zeros(self.cap, np.uint8)
        self.back = np.zeros_like(x)
        self.n, self.got = ctypes.c_size_t(), ctypes.c_size_t()
        self.p, self.err = ctypes.c_void_p(), _lib.ErrBuf()
        self.compress_reuse()

    def compress_reuse(self):
        by = self.c.byref
        if self.L.gtool_compress(self.spec, self.dt, self.dims, 1, self.x.ctypes.data,
                                 self.x.nbytes, None, self.dst.ctypes.data, self.cap,
                                 by(self.n), by(self.err)) < 0:
            raise RuntimeError(self.err.msg)

    def compress_alloc(self):
        by = self.c.byref
        if self.L.gtool_compress_alloc(self.spec, self.dt, self.dims, 1, self.x.ctypes.data,
                                       self.x.nbytes, None, by(self.p), by(self.got),
                                       by(self.err)) < 0:
            raise RuntimeError(self.err.msg)
        self.L.gtool_free(self.p)

    def decompress_reuse(self):
        by = self.c.byref
        if self.L.gtool_decompress(self.dst.ctypes.data, self.n.value, self.back.ctypes.data,
                                   self.back.nbytes, by(self.got), None, by(self.err)) < 0:
            raise RuntimeError(self.err.msg)

    def decompress_alloc(self):
        by = self.c.byref
        if self.L.gtool_decompress_alloc(self.dst.ctypes.data, self.n.value, by(self.p),
                                         by(self.got), None, by(self.err)) < 0:
            raise RuntimeError(self.err.msg)
        self.L.gtool_free(self.p)


def inprocess_rows(rounds):
    """In one process, calls taking turns, medians: the bare C calls (CSide)
    against gtool.compress / gtool.decompress and decompress(out=).  "fresh
    memory" is C alloc over C reuse: what any caller pays for a new result;
    "package" is gtool.* over C alloc: what the package itself adds."""
    print()
    print("| size | codec | direction | C reuse ms | C alloc ms | gtool.* ms | package | "
          "fresh memory | out= ms | out= vs C reuse |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for n, inner, rnds in ((64, 100, rounds), (1 << 18, 4, rounds), (1 << 24, 1, 7)):
        x = data(n)
        for codec in ("huffexp", "zstd"):
            c = CSide(x, codec)
            blob = gtool.compress(x, codec=codec)
            back = np.empty_like(x)
            t = median_of([c.compress_reuse, c.compress_alloc,
                           lambda: gtool.compress(x, codec=codec), c.decompress_reuse,
                           c.decompress_alloc, lambda: gtool.decompress(blob),
                           lambda: gtool.decompress(blob, out=back)], rnds, inner)
            size = "%d values" % n if n < 1024 else "%d MiB" % (n >> 18)
            row = "| %s | %s | %s | %.3f | %.3f | %.3f | %+.1f %% (%+.0f us) | %+.1f %% |"
            for d, k in (("compress", 0), ("decompress", 3)):
                a, f, p = t[k], t[k + 1], t[k + 2]
                print(row % (size, codec, d, 1e3 * a, 1e3 * f, 1e3 * p, 100 * (p / f - 1),
                             1e6 * (p - f), 100 * (f / a - 1))
                      + (" %.3f | %+.1f %% |" % (1e3 * t[6], 100 * (t[6] / a - 1)) if k
                         else " | |"))


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
    inprocess_rows(15)
    codec_rows(build, os.path.join(build, "bench_api"), 5)
    if "--no-hook" not in sys.argv:
        hook_rows(build)


if __name__ == "__main__":
    main()
