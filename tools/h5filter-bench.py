#!/usr/bin/python3
"""h5filter-bench.py - HDF5 filters on the sample traces, through h5py, one
thread: file size, write and read MB/s (medians), in one run.

    h5filter-bench.py [--repeat N] [--work DIR] TRACE.h5...
    h5filter-bench.py --big FILE.f32 [--repeat N] [--work DIR]

The first form prints a Markdown table: for every float dataset of each
trace, written with one filter each time (the same chunks for every filter:
the whole dataset, or 1 MiB rows when larger), the file size and the MB/s
(10^6 bytes of values a second) of writing the file and of reading it back.
Non-float datasets are left out for every filter alike.

The second form writes FILE.f32 (raw little-endian f32) as one dataset in
1 MiB chunks with the gtool filter (huffexp) and reads it back, and prints
the MB/s of each, for comparison with `gtool bench -c huffexp` on the same
file.  HDF5_PLUGIN_PATH must name the folders of the plugins (gtool's and
Debian's hdf5-filter-plugin ones); BLOSC_NTHREADS=1 keeps blosc on one
thread.
"""
import argparse
import os
import statistics
import sys
import time

import h5py
import numpy as np

GTOOL = 400
BLOSC = 32001
LZ4 = 32004
BZIP2 = 307

# name, h5py create_dataset keywords (per dataset: bf16 gets its dtype)
FILTERS = [
    ('none', {}),
    ('gzip 6', {'compression': 'gzip', 'compression_opts': 6}),
    ('gzip 6 + shuffle', {'compression': 'gzip', 'compression_opts': 6, 'shuffle': True}),
    ('lz4 (hdf5-filter-plugin)', {'compression': LZ4}),
    ('bzip2 (hdf5-filter-plugin)', {'compression': BZIP2, 'compression_opts': (9,)}),
    ('blosc zstd 3 + shuffle', {'compression': BLOSC, 'compression_opts': (0, 0, 0, 0, 3, 1, 5)}),
    ('blosc zstd 3 + bitshuffle', {'compression': BLOSC, 'compression_opts': (0, 0, 0, 0, 3, 2, 5)}),
    ('blosc lz4 5 + bitshuffle', {'compression': BLOSC, 'compression_opts': (0, 0, 0, 0, 5, 2, 1)}),
    ('gtool huffexp', {'compression': GTOOL}),
    ('gtool tfp bits=16 (lossy)', {'compression': GTOOL, 'compression_opts': (1, 5, 0, 0, 16)}),
]
LOSSLESS_PEERS = [f[0] for f in FILTERS[1:8]]


def load(path):
    """the float datasets of a trace: [(name, array, is_bf16)]"""
    out = []

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset) or obj.shape == () or obj.size == 0:
            return
        bf16 = obj.dtype == np.uint16 and obj.attrs.get('dtype') in ('bfloat16', b'bfloat16')
        if obj.dtype.kind == 'f' or bf16:
            out.append((name, obj[...], bf16))
    with h5py.File(path, 'r') as f:
        f.visititems(visit)
    return out


def chunks_of(shape, itemsize):
    """the whole dataset, or rows of at most 1 MiB"""
    row = int(np.prod(shape[1:])) * itemsize if len(shape) > 1 else itemsize
    rows = max(1, min(shape[0], (1 << 20) // max(row, 1)))
    return (rows,) + tuple(shape[1:])


def write(path, data, kw):
    t0 = time.perf_counter()
    with h5py.File(path, 'w') as f:
        for name, arr, bf16 in data:
            k = dict(kw)
            if bf16 and k.get('compression') == GTOOL:
                opts = tuple(k.get('compression_opts', (1, 3)))
                k['compression_opts'] = opts[:2] + (3,) + opts[3:]
            f.create_dataset(name, data=arr, chunks=chunks_of(arr.shape, arr.itemsize), **k)
    return time.perf_counter() - t0


def read(path):
    def visit(_, obj):
        if isinstance(obj, h5py.Dataset):
            obj[...]
    t0 = time.perf_counter()
    with h5py.File(path, 'r') as f:
        f.visititems(visit)  # a callback that returns a value stops the visit
    return time.perf_counter() - t0


def stored(path):
    """bytes the datasets' chunks take, HDF5's metadata aside"""
    total = []

    def visit(_, obj):
        if isinstance(obj, h5py.Dataset):
            total.append(obj.id.get_storage_size())
    with h5py.File(path, 'r') as f:
        f.visititems(visit)
    return sum(total)


def bench_trace(trace, work, repeat):
    data = load(trace)
    nbytes = sum(a.nbytes for _, a, _ in data)
    rows = []
    for name, kw in FILTERS:
        path = os.path.join(work, 'bench.h5')
        tw = statistics.median(write(path, data, kw) for _ in range(repeat))
        size = os.path.getsize(path)
        data_size = stored(path)
        tr = statistics.median(read(path) for _ in range(repeat))
        rows.append((name, size, data_size, nbytes / tw / 1e6, nbytes / tr / 1e6))
    return nbytes, rows


def table(traces, work, repeat):
    print(f'h5py {h5py.version.version}, HDF5 {h5py.version.hdf5_version}, '
          f'{repeat} runs, medians, one thread')
    print()
    print('| trace | filter | file bytes | data bytes | data ratio | write MB/s | read MB/s |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: |')
    verdict = []
    for trace in traces:
        nbytes, rows = bench_trace(trace, work, repeat)
        base = os.path.basename(trace).removesuffix('.h5')
        for name, size, dsize, w, r in rows:
            print(f'| {base} | {name} | {size} | {dsize} | {nbytes / dsize:.3f} | {w:.0f} | {r:.0f} |')
        got = {name: (size, r) for name, size, _, _, r in rows}
        smallest = min(LOSSLESS_PEERS, key=lambda n: got[n][0])
        verdict.append(f'{base}: gtool huffexp {got["gtool huffexp"][0]} bytes, smallest '
                       f'lossless peer {smallest} {got[smallest][0]} '
                       f'({"smaller" if got["gtool huffexp"][0] < got[smallest][0] else "NOT smaller"}); '
                       f'read {got["gtool huffexp"][1]:.0f} MB/s vs gzip+shuffle '
                       f'{got["gzip 6 + shuffle"][1]:.0f} MB/s')
    print()
    for line in verdict:
        print('- ' + line)


def big(path, work, repeat):
    x = np.fromfile(path, dtype='<f4')
    out = os.path.join(work, 'big.h5')
    chunk = (1 << 20) // 4

    def wr():
        t0 = time.perf_counter()
        with h5py.File(out, 'w') as f:
            f.create_dataset('x', data=x, chunks=(chunk,), compression=GTOOL)
        return time.perf_counter() - t0

    def rd():
        t0 = time.perf_counter()
        with h5py.File(out, 'r') as f:
            y = f['x'][...]
        dt = time.perf_counter() - t0
        if y.tobytes() != x.tobytes():
            sys.exit('h5filter-bench: read back differs')
        return dt

    tw = statistics.median(wr() for _ in range(repeat))
    tr = statistics.median(rd() for _ in range(repeat))
    print(f'filter huffexp, {x.nbytes} bytes in 1 MiB chunks: ratio '
          f'{x.nbytes / os.path.getsize(out):.3f}, write {x.nbytes / tw / 1e6:.0f} MB/s, '
          f'read {x.nbytes / tr / 1e6:.0f} MB/s')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--work', default='build/bench')
    ap.add_argument('--big')
    ap.add_argument('traces', nargs='*')
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.big:
        big(a.big, a.work, a.repeat)
    else:
        table(a.traces, a.work, a.repeat)
    return 0


if __name__ == '__main__':
    sys.exit(main())
