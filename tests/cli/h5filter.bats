#!/usr/bin/env bats
# h5filter.bats - the HDF5 filter plugin (build/plugins/libH5Zgtool.so,
# filter 400) through h5py, h5repack and h5dump: bit-identical round trips
# for every dtype and codec, lossy bounds, refusals at dataset creation,
# and damaged chunks that fail to read without a crash

bats_require_minimum_version 1.5.0

load helpers

PY=/usr/bin/python3
CHECK=$ROOT/tests/h5filter_check.py

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	HDF5_PLUGIN_PATH=${GTOOL_BUILD:-$ROOT/build}/plugins
	export HDF5_PLUGIN_PATH
	[ -f "$HDF5_PLUGIN_PATH/libH5Zgtool.so" ] || {
		echo "no $HDF5_PLUGIN_PATH/libH5Zgtool.so: run make"
		return 1
	}
}

# h5same A B - h5dump of both, less the first line (the file name), agree
h5same() {
	h5dump "$1" > a.full || return 1
	h5dump "$2" > b.full || return 1
	tail -n +2 a.full > a.dump
	tail -n +2 b.full > b.dump
	diff a.dump b.dump > ab.diff || { echo "$1 and $2 differ:"; head -20 ab.diff; return 1; }
}

@test "plugin exports only the two H5PL entry points" {
	run -0 nm -D --defined-only "$HDF5_PLUGIN_PATH/libH5Zgtool.so"
	[ "$(awk '{print $3}' <<< "$output" | sort | tr '\n' ' ')" = \
		"H5PLget_plugin_info H5PLget_plugin_type " ]
}

@test "h5py default (no cd_values: huffexp): every dtype bit-identical" {
	run -0 "$PY" "$CHECK" write w.h5
	run -0 --separate-stderr "$PY" "$CHECK" verify w.h5
	[ "$stderr" = "" ]
	run -0 h5dump -p -H -d /f32 w.h5
	[[ "$output" == *"FILTER_ID 400"*"COMMENT gtool"*"PARAMS { 2 3 1 256 }"* ]]
}

@test "h5py: every lossless codec and option round-trips bit-identically" {
	# huffexp maxlen=15 method=pm, zstd, zstd level 19, zlib level 9
	for cd in "1 3 0 0 15 3" "1 2" "1 2 0 0 19" "1 1 0 0 9"; do
		# shellcheck disable=SC2086 # one cd value a word
		run -0 "$PY" "$CHECK" write w.h5 $cd
		run -0 --separate-stderr "$PY" "$CHECK" verify w.h5
	done
}

@test "h5py: bf16 as a uint16 dataset needs its dtype in cd_values[2]" {
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 u2
	[ "$stderr" = "Unable to create dataset (gtool filter: 16-bit integers: set cd_values[2] to 3 (bf16) or 2 (f16) to code them as floats)" ]
	run -0 h5ls c.h5
	[ "$output" = "" ]
	run -0 "$PY" "$CHECK" create c.h5 u2 1 3 3
}

@test "h5py: tfp bits=16 reads back within FP16 truncation" {
	run -0 "$PY" "$CHECK" lossy l.h5
	[[ "$output" == "tfp bits=16: max abs error"* ]]
}

@test "h5py: gcomp single-quant and zero-prune, rangeq write and read" {
	for cd in "1 4 0 0 2" "1 4 0 0 4" "1 6 0 0 12"; do
		# shellcheck disable=SC2086
		run -0 "$PY" "$CHECK" create c.h5 f4 $cd
		run -0 "$PY" "$CHECK" read c.h5 x
	done
}

@test "refused at dataset creation: gcomp modes that need the optimizer" {
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 4
	[ "$stderr" = "Unable to create dataset (gtool filter: codec gcomp:mode=full needs the optimizer's parameters and state, which a filter never sees: use mode single-quant or zero-prune)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 4 0 0 3
	[ "$stderr" = "Unable to create dataset (gtool filter: codec gcomp:mode=multi-quant needs the optimizer's parameters and state, which a filter never sees: use mode single-quant or zero-prune)" ]
}

@test "refused at dataset creation: bad types, codecs and cd_values" {
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 i4
	[ "$stderr" = "Unable to create dataset (gtool filter: the dataset's type is not f16, bf16, f32 or f64, the types gtool codes)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 '>f4'
	[ "$stderr" = "Unable to create dataset (gtool filter: big-endian values: gtool codes little-endian ones)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f8 1 6
	[ "$stderr" = "Unable to create dataset (gtool filter: codec rangeq cannot code f64 values)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 3 3
	[ "$stderr" = "Unable to create dataset (gtool filter: cd_values layout 3 is not one this filter reads (1 to 2))" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 99
	[ "$stderr" = "Unable to create dataset (gtool filter: codec id 99 is not one this filter has (from a newer gtool?))" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 8
	[ "$stderr" = "Unable to create dataset (gtool filter: codec id 8 is not one this filter has)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 2 0 0 3 1
	[ "$stderr" = "Unable to create dataset (gtool filter: codec zstd takes 5 cd_values, not 6)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 3 0 0 16
	[ "$stderr" = "Unable to create dataset (gtool filter: codec huffexp: invalid maxlen '16': expected 1-15)" ]
	run -1 --separate-stderr "$PY" "$CHECK" create c.h5 f4 1 3 2
	[ "$stderr" = "Unable to create dataset (gtool filter: cd_values[2] says dtype 2, the dataset holds f32)" ]
}

@test "h5repack adds the filter (UD=400,0,0) and removes it (NONE): same values" {
	run -0 h5repack -f UD=400,0,0 "$SAMPLES/mlp_sgd.h5" g.h5
	run -0 h5repack -f NONE g.h5 back.h5
	h5same "$SAMPLES/mlp_sgd.h5" g.h5
	h5same "$SAMPLES/mlp_sgd.h5" back.h5
	run -0 --separate-stderr "$PY" "$CHECK" same "$SAMPLES/mlp_sgd.h5" g.h5
	run -0 h5dump -p -H -d /step_000001/grad/0.weight g.h5
	[[ "$output" == *"FILTER_ID 400"*"PARAMS { 2 3 1 8192 }"* ]]
	run -0 h5dump -p -H -d /step_000001/grad/0.weight back.h5
	[[ "$output" != *"FILTER_ID"* ]]
}

@test "h5repack: bf16 stored as uint16 with cd_values 1,3,3 (layout 1, written as 2); f16 and f64" {
	run -0 h5repack -f /bf16:UD=400,0,3,1,3,3 -f /f16,/f64,/f32:UD=400,0,0 \
		"$SAMPLES/dtypes.h5" d.h5
	h5same "$SAMPLES/dtypes.h5" d.h5
	run -0 h5dump -p -H -d /bf16 d.h5
	[[ "$output" == *"PARAMS { 2 3 3 8192 }"* ]]
	run -0 h5dump -p -H -d /f16 d.h5
	[[ "$output" == *"PARAMS { 2 3 2 8192 }"* ]]
}

@test "a damaged chunk: a read error naming the damage, never a crash" {
	# offsets into the chunk: header length, block header, chunk headers,
	# huffexp table, payload
	for off in 0 3 20 100 3000 100000; do
		run -0 "$PY" "$CHECK" write w.h5
		run -0 "$PY" "$CHECK" corrupt w.h5 f32_big "$off"
		run -1 --separate-stderr "$PY" "$CHECK" read w.h5 f32_big
		case $off in
		0 | 3) [ "$stderr" = "Can't read data (gtool filter: bad block header: corrupt data)" ] ;;
		20) [ "$stderr" = "Can't read data (gtool filter: bad block header: unexpected end of data)" ] ;;
		100) [ "$stderr" = "Can't read data (gtool filter: corrupt data)" ] ;;
		*) [ "$stderr" = "Can't read data (gtool filter: CRC mismatch: the chunk is damaged)" ] ;;
		esac
	done
	run -1 h5dump -d /f32_big w.h5
}

@test "gtool reads filter-400 datasets without HDF5_PLUGIN_PATH (built in)" {
	mkdir a b
	cp "$SAMPLES/mlp_sgd.h5" a/t.h5
	run -0 h5repack -f UD=400,0,0 a/t.h5 b/t.h5
	run -0 h5dump -p -H -d /step_000001/grad/0.weight b/t.h5
	[[ "$output" == *"FILTER_ID 400"* ]]
	unset HDF5_PLUGIN_PATH
	run -0 --separate-stderr gtool stats --total a/t.h5
	want=${output//a\/t.h5/t.h5}
	run -0 --separate-stderr gtool stats --total b/t.h5
	[ "$stderr" = "" ]
	[ "${output//b\/t.h5/t.h5}" = "$want" ]
}

@test "a chunk that decodes to another size than the dataset's chunks: read error" {
	run -0 "$PY" "$CHECK" transplant t.h5
	run -0 "$PY" "$CHECK" read t.h5 a
	run -1 --separate-stderr "$PY" "$CHECK" read t.h5 b
	[ "$stderr" = "Can't read data (gtool filter: the chunk decodes to 256 values, the dataset's chunks hold 300)" ]
}

@test "a dataset of layout 1 (gtool before split chunks) still reads, through h5py and gtool" {
	# written by the gtool of format 1.2: cd_values (1, 3, ...), chunks of
	# 20000 f32 and 3000 f64 values, whose digests are those of the values
	# it was given
	local f=$ROOT/tests/fixtures/h5filter_layout1.h5
	run -0 "$PY" -c 'import sys, hashlib, h5py
f = h5py.File(sys.argv[1], "r")
for k in ("g", "h"):
    print(k, f[k].id.get_create_plist().get_filter(0)[2][0],
          hashlib.sha256(f[k][:].tobytes()).hexdigest())' "$f"
	[ "${lines[0]}" = "g 1 6f423d436a32acb0f444dd23c1e76f87a4c3d8a9160b06d00ee4790de7116db2" ]
	[ "${lines[1]}" = "h 1 7d339f9755f4514773f56aeeda15244ce4c0d035fa91ae7c55972dbcb4074a07" ]
	# gtool reads it with its own filter and writes layout 2
	run -0 gtool compress -q -c huffexp "$f" -o new.h5
	run -0 "$PY" -c 'import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
print(b["g"].id.get_create_plist().get_filter(0)[2][0],
      all((a[k][:].tobytes() == b[k][:].tobytes()) for k in ("g", "h")))' "$f" new.h5
	[ "$output" = "2 True" ]
}
