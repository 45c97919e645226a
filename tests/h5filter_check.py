#!/usr/bin/python3
"""h5filter_check.py - h5py side of tests/cli/h5filter.bats: writes datasets
through the gtool HDF5 filter (id 400) and checks what reads back.

    write FILE [CD...]    every dtype, special values, partial chunks, empty
    verify FILE           FILE's datasets hold exactly what `write` wrote
    lossy FILE            tfp bits=16 on f32: within the FP16 truncation bound
    same A B              every float dataset of A is bit-identical in B
    corrupt FILE DSET OFF flip 8 bytes OFF bytes into DSET's first chunk
    read FILE DSET        read DSET; on failure print the error, exit 1
    create FILE DTYPE CD  create a dataset with cd_values CD; error: exit 1
    transplant FILE       a coded chunk of 256 f32 values stored as the chunk
                          of a dataset whose chunks hold 300 (then: read)

Needs HDF5_PLUGIN_PATH to name the folder of libH5Zgtool.so.
"""
import sys

import h5py
import numpy as np

FILTER = 400
SEED = 20261125

# bf16 as an HDF5 float: sign bit 15, 8 exponent bits at 7, 7 mantissa bits
BF16 = h5py.h5t.IEEE_F32LE.copy()
BF16.set_fields(15, 7, 8, 0, 7)
BF16.set_offset(0)
BF16.set_precision(16)
BF16.set_size(2)
BF16.set_ebias(127)

SPECIAL = {
    # NaN payloads (quiet and signalling, both signs), -0.0, +0.0,
    # smallest and largest subnormals, Inf, -Inf, largest finite
    4: [0x7fc00001, 0xffc12345, 0x7f800001, 0xff80dead, 0x80000000, 0,
        1, 0x807fffff, 0x7f800000, 0xff800000, 0x7f7fffff],
    8: [0x7ff8000000000001, 0xfff0000000000bad, 0x8000000000000000, 0, 1,
        0x800fffffffffffff, 0x7ff0000000000000, 0xfff0000000000000],
    2: [0x7e01, 0xfd55, 0x8000, 0, 1, 0x83ff, 0x7c00, 0xfc00, 0x7bff],
    # bf16: NaN payloads, -0, subnormals, Inf
    'bf16': [0x7fc1, 0xff81, 0x8000, 0, 1, 0x807f, 0x7f80, 0xff80, 0x7f7f],
}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
FLOAT = {2: np.float16, 4: np.float32, 8: np.float64}


def values(kind, n, seed):
    """n bit patterns: specials, gradient-like values, random patterns"""
    rng = np.random.default_rng(seed)
    width = 2 if kind == 'bf16' else kind
    g = rng.standard_normal(n) * 1e-3
    if kind == 'bf16':
        bits = (g.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        bits = g.astype(FLOAT[width]).view(UINT[width]).copy()
    rand = rng.integers(0, 2 ** (8 * width), n // 10, dtype=UINT[width],
                        endpoint=False)
    bits[: len(rand)] = rand
    sp = np.array(SPECIAL[kind], dtype=UINT[width])
    bits[len(rand): len(rand) + len(sp)] = sp[: max(0, n - len(rand))]
    return bits


# name: (kind, shape, chunks); chunks that do not divide the shape
# leave partial chunks at the edges; 150000-value chunks hold three
# gtool chunks of 65536 values
LAYOUT = {
    'f32': (4, (1000,), (256,)),
    'f32_2d': (4, (300, 70), (128, 64)),
    'f32_big': (4, (200000,), (150000,)),
    'f64': (8, (999,), (400,)),
    'f16': (2, (1001,), (300,)),
    'bf16_u16': ('bf16', (700,), (256,)),
    'bf16_float': ('bf16', (700,), (256,)),
}


def dcpl_for(chunks, cd):
    p = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    p.set_chunk(chunks)
    p.set_filter(FILTER, h5py.h5z.FLAG_MANDATORY, tuple(cd))
    return p


def write_one(f, name, kind, shape, chunks, cd):
    n = int(np.prod(shape))
    bits = values(kind, n, SEED + len(name)).reshape(shape)
    if name == 'bf16_float':
        tid = BF16
    elif kind == 'bf16':
        tid = h5py.h5t.STD_U16LE
        cd = (1, cd[1] if len(cd) > 1 else 3, 3) + tuple(cd[3:])
    else:
        tid = h5py.h5t.py_create(np.dtype(FLOAT[kind]).newbyteorder('<'))
    space = h5py.h5s.create_simple(shape)
    ds = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl_for(chunks, cd))
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, bits, mtype=tid)
    if kind == 'bf16' and name != 'bf16_float':
        f[name].attrs['dtype'] = 'bfloat16'


def cmd_write(path, cd):
    with h5py.File(path, 'w') as f:
        for name, (kind, shape, chunks) in LAYOUT.items():
            write_one(f, name, kind, shape, chunks, cd)
        f.create_dataset('empty', shape=(0,), dtype='<f4', chunks=(64,),
                         maxshape=(None,), compression=FILTER,
                         compression_opts=tuple(cd) or None)
    return 0


def read_bits(ds, kind):
    width = 2 if kind == 'bf16' else kind
    out = np.empty(ds.shape, dtype=UINT[width])
    ds.id.read(h5py.h5s.ALL, h5py.h5s.ALL, out, mtype=ds.id.get_type())
    return out


def cmd_verify(path):
    bad = 0
    with h5py.File(path, 'r') as f:
        for name, (kind, shape, _) in LAYOUT.items():
            want = values(kind, int(np.prod(shape)), SEED + len(name)).reshape(shape)
            got = read_bits(f[name], kind)
            if want.tobytes() != got.tobytes():
                print(f'{name}: values differ', file=sys.stderr)
                bad = 1
            if str(FILTER) not in f[name]._filters:
                print(f'{name}: not filtered', file=sys.stderr)
                bad = 1
        if f['empty'].shape != (0,) or f['empty'][...].size:
            print('empty: not empty', file=sys.stderr)
            bad = 1
    return bad


def cmd_lossy(path):
    """tfp bits=16 truncates f32 to the FP16 grid: each value read back is
    an FP16 value, no larger in magnitude, of the same sign, and closer
    than one FP16 unit in the last place (2^-24 for FP16 subnormals)"""
    rng = np.random.default_rng(SEED)
    x = (rng.standard_normal(100000) * 1e-2).astype(np.float32)
    with h5py.File(path, 'w') as f:
        f.create_dataset('t', data=x, chunks=(30000,), compression=FILTER,
                         compression_opts=(1, 5, 0, 0, 16))
    with h5py.File(path, 'r') as f:
        y = f['t'][...]
    ax = np.abs(x).astype(np.float64)
    ulp = np.maximum(2.0 ** (np.floor(np.log2(np.maximum(ax, 2.0 ** -14))) - 10),
                     2.0 ** -24)
    ok = (np.array_equal(y.astype(np.float16).astype(np.float32), y)
          and np.all(np.abs(y) <= np.abs(x))
          and np.all(np.signbit(y) == np.signbit(x))
          and np.all(ax - np.abs(y) < ulp))
    exact = np.mean(x == y)
    print(f'tfp bits=16: max abs error {np.max(np.abs(x - y)):.3g}, {exact:.1%} exact')
    return 0 if ok and exact < 1 else 1


def cmd_same(a, b):
    bad = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind in 'fu':
            ra = obj[...].tobytes()
            rb = fb[name][...].tobytes()
            if ra != rb:
                bad.append(name)
    with h5py.File(a, 'r') as fa, h5py.File(b, 'r') as fb:
        fa.visititems(visit)
    for name in bad:
        print(f'{name}: differs', file=sys.stderr)
    return 1 if bad else 0


def cmd_corrupt(path, name, off):
    with h5py.File(path, 'r') as f:
        info = f[name].id.get_chunk_info(0)
    with open(path, 'r+b') as fh:
        fh.seek(info.byte_offset + int(off))
        b = bytearray(fh.read(8))
        fh.seek(info.byte_offset + int(off))
        fh.write(bytes(v ^ 0x5a for v in b))
    return 0


def cmd_read(path, name):
    try:
        with h5py.File(path, 'r') as f:
            f[name][...]
    except OSError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


def cmd_create(path, dtype, cd):
    try:
        with h5py.File(path, 'w') as f:
            f.create_dataset('x', shape=(100,), dtype=dtype, chunks=(50,),
                             compression=FILTER, compression_opts=tuple(cd) or None)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


def cmd_transplant(path):
    with h5py.File(path, 'w') as f:
        a = f.create_dataset('a', data=np.ones(256, '<f4'), chunks=(256,), compression=FILTER)
        b = f.create_dataset('b', shape=(300,), dtype='<f4', chunks=(300,), compression=FILTER)
        mask, raw = a.id.read_direct_chunk((0,))
        b.id.write_direct_chunk((0,), raw, mask)
    return 0


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == 'write':
        return cmd_write(args[0], [int(v) for v in args[1:]])
    if cmd == 'create':
        return cmd_create(args[0], args[1], [int(v) for v in args[2:]])
    funcs = {'verify': cmd_verify, 'lossy': cmd_lossy, 'same': cmd_same,
             'corrupt': cmd_corrupt, 'read': cmd_read, 'transplant': cmd_transplant}
    return funcs[cmd](*args)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
