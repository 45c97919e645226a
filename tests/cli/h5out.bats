#!/usr/bin/env bats
# h5out.bats - compress -o FILE.h5: the input's tree as HDF5, float
# datasets coded by filter 400; ls shows each dataset's filter; gtool reads
# such a file without HDF5_PLUGIN_PATH; refusals up front, no partial file

bats_require_minimum_version 1.5.0

load helpers

PY=/usr/bin/python3

# same_tree A B - h5py (the plugin on its path) reads the same links,
# attributes, types, shapes and bytes from both files
same_tree() {
	HDF5_PLUGIN_PATH=$GTOOL_BUILD/plugins "$PY" "$ROOT/tests/h5tree.py" "$1" > a.tree || return 1
	HDF5_PLUGIN_PATH=$GTOOL_BUILD/plugins "$PY" "$ROOT/tests/h5tree.py" "$2" > b.tree || return 1
	diff a.tree b.tree > ab.diff || { echo "$1 and $2 differ:"; head -20 ab.diff; return 1; }
}

# filters FILE - "name filter-id cd_values chunks" per dataset, from h5py
filters() {
	"$PY" -c 'import h5py, sys
def show(name, o):
    if isinstance(o, h5py.Dataset):
        p = o.id.get_create_plist()
        f = [str(p.get_filter(k)[0]) + ":" + ",".join(map(str, p.get_filter(k)[2]))
             for k in range(p.get_nfilters())]
        print(name, " ".join(f) or "-", o.chunks)
h5py.File(sys.argv[1], "r").visititems(show)' "$1"
}

@test "h5out: lossless codecs give the same tree and bit-identical values" {
	"$PY" "$ROOT/tests/h5rich.py" rich.h5
	for c in huffexp zstd:level=5 zlib; do
		for f in rich.h5 "$SAMPLES/dtypes.h5" "$SAMPLES/mlp_sgd.h5"; do
			run -0 --separate-stderr gtool compress -q -f -c "$c" "$f" -o x.h5
			[ -z "$stderr" ]
			same_tree "$f" x.h5
		done
	done
	# a .gtz file converts straight to the filtered HDF5 file
	run -0 gtool compress -q rich.h5 -o r.gtz
	run -0 gtool compress -q r.gtz -o r.h5
	same_tree rich.h5 r.h5
}

@test "h5out: float datasets carry filter 400 with the codec's cd_values, in chunks of rows" {
	run -0 gtool compress -q -c zstd:level=5 "$SAMPLES/dtypes.h5" -o x.h5
	run -0 filters x.h5
	[ "${lines[0]}" = "bf16 400:2,2,3,8192,5 (128, 64)" ]
	[ "${lines[1]}" = "f16 400:2,2,2,8192,5 (128, 64)" ]
	[ "${lines[2]}" = "f32 400:2,2,1,8192,5 (128, 64)" ]
	[ "${lines[3]}" = "f64 400:2,2,4,8192,5 (128, 64)" ]
	# a tensor over 1 Mi values is cut into runs of whole rows
	"$PY" -c 'import h5py, numpy as np
with h5py.File("big.h5", "w") as f:
    f["w"] = np.arange(3000 * 700, dtype="f4").reshape(3000, 700)
    f["n"] = np.arange(5, dtype="i8")'
	run -0 gtool compress -q big.h5 -o big.gt.h5
	run -0 filters big.gt.h5
	[ "${lines[0]}" = "n - None" ]
	[ "${lines[1]}" = "w 400:2,3,1,1047900,0,0 (1497, 700)" ]
	same_tree big.h5 big.gt.h5
}

@test "h5out: a lossy codec codes the gradients only, the rest losslessly" {
	run -0 gtool compress -q -c tfp:bits=12 "$SAMPLES/mlp_sgd.h5" -o t.h5
	run -0 --separate-stderr gtool ls --format=tsv t.h5
	[ "${lines[0]}" = "file	name	dtype	shape	values	bytes	filter	filter_options" ]
	[ "${lines[1]}" = "t.h5	/step_000001/grad/0.bias	f32	128	128	512	gtool	tfp:bits=12" ]
	run -0 grep -c "/param/.*gtool	huffexp$" <(printf '%s\n' "${lines[@]}")
	[ "$output" -gt 0 ]
	# tfp works value by value: the filter gives what the container gives
	run -0 gtool compress -q -c tfp:bits=12 "$SAMPLES/mlp_sgd.h5" -o t.gtz
	run -0 gtool decompress -q t.gtz -o t.back.h5
	same_tree t.back.h5 t.h5
	run -1 same_tree "$SAMPLES/mlp_sgd.h5" t.h5 # and it is lossy
}

@test "h5out: ls shows gzip, shuffle and no filter; plain files keep their columns" {
	"$PY" -c 'import h5py, numpy as np
with h5py.File("g.h5", "w") as f:
    f.create_dataset("a", data=np.ones((10, 4), "f4"), compression="gzip", compression_opts=4, shuffle=True)
    f.create_dataset("b", data=np.ones((10, 4), "f4"))'
	run -0 --separate-stderr gtool ls --format=tsv g.h5
	[ "${lines[0]}" = "file	name	dtype	shape	values	bytes	filter	filter_options" ]
	[ "${lines[1]}" = "g.h5	/a	f32	10x4	40	160	shuffle+gzip	level=4" ]
	[ "${lines[2]}" = "g.h5	/b	f32	10x4	40	160		" ]
	run -0 --separate-stderr gtool ls --format=tsv "$SAMPLES/dtypes.h5"
	[[ "${lines[0]}" != *filter* ]]
}

@test "h5out: stats and error read the filtered file without HDF5_PLUGIN_PATH" {
	run -0 gtool compress -q "$SAMPLES/dtypes.h5" -o x.h5
	run -0 filters x.h5 # HDF5 with filter 400, not a .gtz named .h5
	[ "${lines[2]}" = "f32 400:2,3,1,8192,0,0 (128, 64)" ]
	unset HDF5_PLUGIN_PATH
	run -0 --separate-stderr gtool stats --format=tsv "$SAMPLES/dtypes.h5"
	want=${output//$SAMPLES\/dtypes.h5/x.h5}
	run -0 --separate-stderr gtool stats --format=tsv x.h5
	[ "$output" = "$want" ]
	run -0 --separate-stderr gtool error --format=tsv "$SAMPLES/dtypes.h5" x.h5
	[ "${lines[1]%%	*}" = "/bf16" ]
	[ "$(cut -f3 <<< "${lines[1]}")" = 8192 ] # identical values
}

@test "h5out: what the filter cannot do is refused up front, exit 2, no file" {
	mkdir out
	run -2 --separate-stderr gtool compress -c fft "$SAMPLES/dtypes.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: out/x.h5: codec fft is not offered by the HDF5 filter (it has huffexp, zstd, zlib, tfp, rangeq and gcomp)" ]
	run -2 --separate-stderr gtool compress -c gcomp "$SAMPLES/mlp_sgd.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: out/x.h5: the HDF5 filter refuses gcomp: it needs the optimizer's parameters and state, which a filter never sees: use mode single-quant or zero-prune" ]
	run -2 --separate-stderr gtool compress -c tfp:round=stochastic "$SAMPLES/mlp_sgd.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: out/x.h5: codec tfp option round=stochastic is not offered by the HDF5 filter" ]
	run -2 --separate-stderr gtool compress --table-refresh 2 "$SAMPLES/mlp_sgd.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: out/x.h5: --table and --table-refresh are for .gtz output: the HDF5 filter codes each chunk with a table of its own" ]
	run -0 ls -A out
	echo "left: $output"
	[ -z "$output" ]
}

@test "h5out: an existing file is kept without -f, replaced with it; a failure leaves nothing" {
	mkdir out
	echo keep > out/x.h5
	run -1 --separate-stderr gtool compress "$SAMPLES/dtypes.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: out/x.h5 exists; use -f to overwrite" ]
	[ "$(cat out/x.h5)" = keep ]
	run -0 gtool compress -q -f "$SAMPLES/dtypes.h5" -o out/x.h5
	same_tree "$SAMPLES/dtypes.h5" out/x.h5
	rm out/x.h5
	run -1 --separate-stderr gtool compress -d /nope "$SAMPLES/dtypes.h5" -o out/x.h5
	[ "$stderr" = "gtool compress: $SAMPLES/dtypes.h5: dataset /nope not found" ]
	run -0 ls -A out
	echo "left: $output"
	[ -z "$output" ]
}
