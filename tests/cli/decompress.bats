#!/usr/bin/env bats
# decompress.bats - `gtool decompress`: output names and kinds, stdin and
# stdout, -f, and damaged files (truncated, flipped bytes, wrong magic or
# version): exit 1, one line on stderr, no output left behind

bats_require_minimum_version 1.5.0

load helpers

# h5same A B - h5dump of both, less the first line (the file name), agree
h5same() {
	h5dump "$1" > a.full || return 1
	h5dump "$2" > b.full || return 1
	tail -n +2 a.full > a.dump
	tail -n +2 b.full > b.dump
	diff a.dump b.dump > ab.diff || { echo "$1 and $2 differ:"; head -20 ab.diff; return 1; }
}

# no_temp - no temporary file (".NAME.XXXXXX") left in the folder
no_temp() {
	local left
	left=$(find . -maxdepth 1 -name '.*.*' -type f)
	[ -z "$left" ] || { echo "temporary files left: $left"; return 1; }
}

u32_at() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u64_at() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

# flip FILE POS [MASK] - xor the byte at POS with MASK (default 0x10)
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[ -n "$b" ] || return 1
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' $(( (b ^ ${3:-16}) & 255 )))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# small.gtz: 1024 values of grads.f32, 4 blocks of 4 chunks each; the
# offsets of its records come from `gtool ls --records`
make_small() {
	head -c 4096 "$SAMPLES/grads.f32" > small.f32
	run -0 gtool compress -q --block-size 256 --chunk-size 64 small.f32 -o small.gtz
	N=$(stat -c %s small.gtz)
	run -0 --separate-stderr gtool ls --records --format csv small.gtz
	RECORDS=$output
	IDX=$(record index)
	BLK0=$(record block)
	BLK3=$(record block 3)
	PAYLOAD0=$(record block 0 5)
	END=$(record end)
	[ "$(record block 3 8)" = 3 ]
	[ "$(dd if=small.gtz bs=1 skip="$IDX" count=1 status=none)" = I ]
	[ "$(dd if=small.gtz bs=1 skip="$BLK0" count=1 status=none)" = B ]
	[ "$(dd if=small.gtz bs=1 skip="$BLK3" count=1 status=none)" = B ]
	[ "$(dd if=small.gtz bs=1 skip="$END" count=1 status=none)" = E ]
}

# record KIND [NTH [COLUMN]] - a column (default: the offset) of the NTH
# record of KIND in small.gtz
record() {
	printf '%s\n' "$RECORDS" |
		awk -F, -v r="$1" -v k="${2:-0}" -v c="${3:-2}" '$3 == r && n++ == k { print $c }'
}

# header_crc FILE - recompute the CRC-32 of the file header (gzip's
# trailer starts with the CRC-32 of its input, little-endian)
header_crc() {
	head -c 12 "$1" | gzip -c > h.gz
	tail -c 8 h.gz | head -c 4 | dd of="$1" bs=1 seek=12 conv=notrunc status=none
}

# ---- round trips and output names -----------------------------------------

@test "decompress: every sample trace comes back under its own name" {
	local f
	for f in mlp_sgd.h5 cnn_adam.h5 lstm_adamw.h5; do
		run -0 --separate-stderr gtool compress -q "$SAMPLES/$f" -o "$f.gtz"
		run -0 --separate-stderr gtool decompress "$f.gtz"
		[ -z "$stderr" ]
		[ -z "$output" ]
		h5same "$SAMPLES/$f" "$f"
	done
	no_temp
}

@test "decompress: raw and .npy come back byte for byte" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o grads.f32.gtz
	run -0 --separate-stderr gtool decompress grads.f32.gtz
	cmp grads.f32 "$SAMPLES/grads.f32"
	run -0 gtool compress -q "$SAMPLES/grads.npy" -o grads.npy.gtz
	run -0 --separate-stderr gtool decompress grads.npy.gtz
	cmp grads.npy "$SAMPLES/grads.npy"
	# .npy to raw by the output's extension, and raw to .npy
	run -0 --separate-stderr gtool decompress grads.npy.gtz -o n.f32
	cmp n.f32 "$SAMPLES/grads.f32"
	run -0 --separate-stderr gtool decompress grads.f32.gtz -o r.npy
	[ "$(head -c 6 r.npy | od -An -c | tr -d ' ')" = '223NUMPY' ]
	cmp <(tail -c 32768 r.npy) "$SAMPLES/grads.f32"
	# --format overrides the extension
	run -0 --separate-stderr gtool decompress --format raw grads.npy.gtz -o n.data
	cmp n.data "$SAMPLES/grads.f32"
}

@test "decompress: the gtool-decompress link is the same command" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.gtz
	run -0 --separate-stderr gtool-decompress g.gtz -o g.f32
	cmp g.f32 "$SAMPLES/grads.f32"
}

@test "decompress: '-' reads stdin and writes stdout" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.gtz
	run -0 --separate-stderr bash -c 'set -o pipefail
		gtool decompress - < g.gtz | cmp - "$SAMPLES/grads.f32"'
	[ -z "$stderr" ]
	run -0 --separate-stderr bash -c 'set -o pipefail
		cat g.gtz | gtool decompress - -o q.npy'
	cmp <(tail -c 32768 q.npy) "$SAMPLES/grads.f32"
	run -0 gtool compress -q "$SAMPLES/grads.npy" -o n.gtz
	run -0 --separate-stderr bash -c 'set -o pipefail
		cat n.gtz | gtool decompress - -o p.npy'
	cmp p.npy "$SAMPLES/grads.npy"
	run -0 --separate-stderr bash -c 'set -o pipefail
		gtool decompress n.gtz -o - | cmp - "$SAMPLES/grads.f32"'
	# an HDF5 tree through a pipe, out to a file
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	run -0 --separate-stderr bash -c 'set -o pipefail
		cat c.gtz | gtool decompress - -o c.h5'
	h5same "$SAMPLES/cnn_adam.h5" c.h5
}

@test "decompress: -T 1 and -T 2 write the same file" {
	run -0 gtool compress -q --block-size 4096 --chunk-size 256 "$SAMPLES/lstm_adamw.h5" -o l.gtz
	run -0 gtool decompress -q -T 1 l.gtz -o t1.h5
	run -0 gtool decompress -q -T 2 l.gtz -o t2.h5
	cmp t1.h5 t2.h5
	h5same "$SAMPLES/lstm_adamw.h5" t1.h5
}

@test "decompress: several tensors cannot go to one raw or .npy file" {
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	run -1 --separate-stderr gtool decompress c.gtz -o c.npy
	[ "$stderr" = "gtool decompress: c.gtz: 138 tensors; a .npy output takes one: select it with -d PATTERN, or write .h5" ]
	[ ! -e c.npy ]
	run -1 --separate-stderr gtool decompress c.gtz --format raw -o c.raw
	[ "$stderr" = "gtool decompress: c.gtz: 138 tensors; a raw output takes one: select it with -d PATTERN, or write .h5" ]
	[ ! -e c.raw ]
	no_temp
	# from a pipe the count is not known up front: the file is removed
	run -1 --separate-stderr gtool decompress - -o c.npy < <(cat c.gtz)
	[[ $stderr == "gtool decompress: c.npy: "*"holds one tensor only: cannot add /step_000001/grad/conv1.weight" ]]
	[ ! -e c.npy ]
	no_temp
}

@test "decompress: from a pipe to standard output, a large raw or .npy tensor streams in bounded memory" {
	local rss
	/usr/bin/python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
g = (rng.standard_normal(20 << 20) * 1e-3).astype(np.float32)
g[::7] = 0
g.tofile("g.f32")
np.savez("two.npz", a=g, b=g[:1000])
PY
	# 240 MiB through both pipes: the reader must not hold it
	cat g.f32 g.f32 g.f32 | gtool compress -q --dtype f32 - -o - > s.gtz
	/usr/bin/time -o rss.txt -f %M gtool decompress -q - -o - < <(cat s.gtz) > out.f32
	cat g.f32 g.f32 g.f32 | cmp - out.f32
	rss=$(tail -n 1 rss.txt)
	echo "peak RSS $rss KiB"
	[ "$rss" -lt 163840 ]
	rm s.gtz out.f32
	# .npy of a known count streams too: the same 240 MiB as one .npy
	/usr/bin/python3 -c 'import numpy as np, sys; np.lib.format.write_array_header_1_0(sys.stdout.buffer, {"descr": "<f4", "fortran_order": False, "shape": (3 * (20 << 20),)})' > big.npy
	cat g.f32 g.f32 g.f32 >> big.npy
	gtool compress -q big.npy -o big.gtz
	rm big.npy
	/usr/bin/time -o rss.txt -f %M gtool decompress -q - --format npy -o - < <(cat big.gtz) > out.npy
	/usr/bin/python3 -c 'import numpy as np; a = np.load("out.npy"); g = np.fromfile("g.f32", dtype="<f4"); assert a.dtype == "<f4" and a.shape == (3 * g.size,) and all((a[k * g.size:(k + 1) * g.size].view("<u4") == g.view("<u4")).all() for k in range(3))'
	rss=$(tail -n 1 rss.txt)
	echo ".npy: peak RSS $rss KiB"
	[ "$rss" -lt 163840 ]
	rm big.gtz out.npy
	# a second tensor after more than 64 MiB of the first: refused then,
	# the first one's bytes already out (a pipe cannot take them back)
	gtool compress -q two.npz -o two.gtz
	cat two.gtz | gtool decompress - -o - > out.raw 2> err.txt && false
	[ "$(cat err.txt)" = "gtool decompress: -: more than one tensor (a, b): standard output takes one; select it with -d PATTERN" ]
	cmp out.raw g.f32
}

@test "decompress: several tensors to standard output: refused before a byte is written" {
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	gtool decompress c.gtz -o - > out.raw 2> err.txt && false
	[ "$(cat err.txt)" = "gtool decompress: c.gtz: 138 tensors; a raw output takes one: select it with -d PATTERN, or write .h5" ]
	[ ! -s out.raw ]
	# a pipe: the first tensor is held until the second shows up
	cat c.gtz | gtool decompress - -o - > out.raw 2> err.txt && false
	[ "$(cat err.txt)" = "gtool decompress: -: more than one tensor (/step_000001/grad/conv1.bias, /step_000001/grad/conv1.weight): standard output takes one; select it with -d PATTERN" ]
	[ ! -s out.raw ]
	cat c.gtz | gtool decompress - -d '*/step_000001/*' --format npy -o - > out.npy 2> err.txt && false
	[ ! -s out.npy ]
	run -1 --separate-stderr gtool decompress -d '*conv1*' c.gtz -o -
	[ "$stderr" = "gtool decompress: c.gtz: 46 tensors match; a raw output takes one: select it with -d PATTERN, or write .h5" ]
}

@test "decompress: -d extracts one tensor to stdout, a file or .npy, byte for byte" {
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	name=/step_000010/grad/fc.weight
	/usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1]); a = f[sys.argv[2]][()]
open("want.raw", "wb").write(a.astype("<f4").tobytes()); print(a.shape)' \
		"$SAMPLES/cnn_adam.h5" "$name" > want.shape
	gtool decompress -d "$name" c.gtz -o - > got.raw
	cmp want.raw got.raw
	cat c.gtz | gtool decompress -d "$name" - -o - > pipe.raw
	cmp want.raw pipe.raw
	cat c.gtz | gtool decompress -d 'step_000010/grad/fc.weight' - --format npy -o - > pipe.npy
	gtool decompress -d "$name" c.gtz -o got.npy
	run -0 /usr/bin/python3 -c 'import numpy as np, sys
for p in sys.argv[1:]:
    a = np.load(p); assert a.dtype == np.float32, a.dtype
    print(a.shape, a.tobytes() == open("want.raw", "rb").read())' got.npy pipe.npy
	[ "${lines[0]}" = "$(cat want.shape) True" ]
	[ "${lines[1]}" = "$(cat want.shape) True" ]
}

@test "decompress: -d with a glob and -o - from a file: .npy or raw by --format" {
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	/usr/bin/python3 -c 'import h5py, numpy as np, sys
a = h5py.File(sys.argv[1])["/step_000010/grad/fc.weight"][()]
np.save("want.npy", a.astype("<f4")); open("want.raw", "wb").write(a.astype("<f4").tobytes())' \
		"$SAMPLES/cnn_adam.h5"
	gtool decompress -d '*/step_000010/grad/fc.w*' --format npy -o - c.gtz > got.npy
	cmp got.npy want.npy
	gtool decompress -d '*/step_000010/grad/fc.w*' --format raw -o - c.gtz > got.raw
	cmp got.raw want.raw
	# a glob that takes two tensors is refused before a byte is written
	run -1 --separate-stderr gtool decompress -d '*/step_000010/grad/fc.*' --format npy -o - c.gtz
	[ "$stderr" = "gtool decompress: c.gtz: 2 tensors match; a .npy output takes one: select it with -d PATTERN, or write .h5" ]
	[ -z "$output" ]
}

@test "decompress: -d selects tensors into HDF5; a pattern that matches nothing is an error" {
	run -0 gtool compress -q "$SAMPLES/cnn_adam.h5" -o c.gtz
	run -0 gtool decompress -d '*/fc.*' -d '/step_000001/grad/conv1.bias' c.gtz -o sel.h5
	run -0 gtool ls --format tsv sel.h5
	printf '%s\n' "$output" | cut -f2 | tail -n +2 | sort > got.txt
	gtool ls --format tsv "$SAMPLES/cnn_adam.h5" | cut -f2 | grep -E '/fc\.|^/step_000001/grad/conv1\.bias$' | sort > want.txt
	[ -s want.txt ]
	diff want.txt got.txt
	# only the groups on the way to a selected tensor, with their attributes
	run -0 gtool decompress -d /step_000010/state/exp_avg/fc.bias c.gtz -o one.h5
	run -0 /usr/bin/python3 -c 'import h5py, sys
f, g = h5py.File("one.h5"), h5py.File(sys.argv[1])
names = []
f.visit(names.append)
print(" ".join(sorted(names)))
print(len(g["step_000010"].attrs) > 0 and
      all(dict(f[n].attrs) == dict(g[n].attrs) for n in names))' "$SAMPLES/cnn_adam.h5"
	[ "${lines[0]}" = "step_000010 step_000010/state step_000010/state/exp_avg step_000010/state/exp_avg/fc.bias" ]
	[ "${lines[1]}" = True ]
	run -1 --separate-stderr gtool decompress -d nope c.gtz -o x.h5
	[ "$stderr" = "gtool decompress: c.gtz: dataset nope not found" ]
	run -1 --separate-stderr gtool decompress -d '*/fc.*' -d nope - -o x.h5 < <(cat c.gtz)
	[ "$stderr" = "gtool decompress: -: dataset nope not found" ]
	[ ! -e x.h5 ]
	no_temp
}

# ---- -f and output names ----------------------------------------------------

@test "decompress: an existing output is refused without -f and replaced with it" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.f32.gtz
	echo "keep me" > g.f32
	cp g.f32 copy
	run -1 --separate-stderr gtool decompress g.f32.gtz
	[ "$stderr" = "gtool decompress: g.f32 exists; use -f to overwrite" ]
	cmp g.f32 copy
	run -1 --separate-stderr gtool decompress g.f32.gtz -o g.f32
	[ "$stderr" = "gtool decompress: g.f32 exists; use -f to overwrite" ]
	cmp g.f32 copy
	no_temp
	run -0 --separate-stderr gtool decompress -f g.f32.gtz
	[ -z "$stderr" ]
	cmp g.f32 "$SAMPLES/grads.f32"
	no_temp
}

@test "decompress: no output name without -o is a usage error" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o x.gtz
	run -2 --separate-stderr gtool decompress x.gtz
	[ "$stderr" = "gtool decompress: x.gtz: cannot tell the output name; use -o FILE" ]
	cp x.gtz x.bin
	run -2 --separate-stderr gtool decompress x.bin
	[ "$stderr" = "gtool decompress: x.bin: cannot tell the output name; use -o FILE" ]
	[ ! -e x ]
	no_temp
}

@test "decompress: usage errors exit 2" {
	run -2 --separate-stderr gtool decompress
	[[ ${stderr_lines[0]} == "Usage: gtool decompress "* ]]
	run -2 --separate-stderr gtool decompress a.gtz b.gtz -o x
	[ "$stderr" = "gtool decompress: x: not a folder: with several inputs, -o names a folder" ]
	run -2 --separate-stderr gtool decompress --format gtz a.gtz -o x
	[ "${stderr_lines[0]}" = "gtool decompress: unknown output format 'gtz': expected hdf5, npy or raw" ]
	run -2 --separate-stderr gtool decompress -T x a.gtz -o x
	[ "${stderr_lines[0]}" = "gtool decompress: invalid thread count 'x'" ]
	[ ! -e x ]
}

@test "decompress: a missing input, an empty file, a file that is not .gtz" {
	run -1 --separate-stderr gtool decompress missing.gtz -o out.f32
	[ "$stderr" = "gtool decompress: missing.gtz: No such file or directory" ]
	: > empty.gtz
	run -1 --separate-stderr gtool decompress empty.gtz -o out.f32
	[ "$stderr" = "gtool decompress: empty.gtz: not a .gtz file" ]
	run -1 --separate-stderr gtool decompress "$SAMPLES/mlp_sgd.h5" -o out.h5
	[ "$stderr" = "gtool decompress: $SAMPLES/mlp_sgd.h5: not a .gtz file" ]
	[ ! -e out.f32 ] && [ ! -e out.h5 ]
	no_temp
}

@test "decompress: writing to /dev/full fails with exit 1" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.gtz
	run -1 --separate-stderr gtool decompress g.gtz -o /dev/full
	[ "$stderr" = "gtool decompress: cannot tell the output format of '/dev/full': use --out-format" ]
	run -1 --separate-stderr gtool decompress g.gtz --format raw -o /dev/full
	[ "$stderr" = "gtool decompress: /dev/full: write error: No space left on device" ]
	run -1 --separate-stderr bash -c 'gtool decompress g.gtz -o - > /dev/full'
	[[ ${stderr_lines[0]} == "gtool decompress: -: write error: No space left on device" ]]
}

# BUG: after the command's own write error, main() adds a second line
# ("gtool: write error on standard output"): errors are one line
@test "decompress: a write error on stdout is reported once" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.gtz
	run -1 --separate-stderr bash -c 'gtool decompress g.gtz -o - > /dev/full'
	[ "$stderr" = "gtool decompress: -: write error: No space left on device" ]
}

# BUG: with -f the output is replaced by rename(), even when it is not a
# regular file: a FIFO (or, for root, /dev/null) becomes a regular file
@test "decompress: -f writes into a FIFO instead of replacing it" {
	run -0 gtool compress -q "$SAMPLES/grads.f32" -o g.gtz
	mkfifo fifo
	timeout 20 cat fifo > got &
	local reader=$!
	run --separate-stderr timeout 20 gtool decompress -f --format raw g.gtz -o fifo
	local st=$status fifo_kept=0
	[ -p fifo ] && fifo_kept=1
	[ -p fifo ] || { rm -f fifo; kill "$reader" 2> /dev/null || true; }
	wait "$reader" || true
	[ "$st" -eq 0 ]
	[ "$fifo_kept" -eq 1 ]
	cmp got "$SAMPLES/grads.f32"
}

# ---- damaged files ----------------------------------------------------------

@test "decompress: a wrong magic number" {
	make_small
	cp small.gtz bad.gtz
	printf 'X' | dd of=bad.gtz bs=1 seek=1 conv=notrunc status=none
	run -1 --separate-stderr gtool decompress bad.gtz -o out.f32
	[ "$stderr" = "gtool decompress: bad.gtz: not a .gtz file" ]
	[ ! -e out.f32 ]
	no_temp
}

@test "decompress: a future major version, a damaged header CRC, a newer minor version" {
	make_small
	cp small.gtz v2.gtz
	printf '\002' | dd of=v2.gtz bs=1 seek=4 conv=notrunc status=none
	run -1 --separate-stderr gtool decompress v2.gtz -o out.f32
	[ "$stderr" = "gtool decompress: v2.gtz: file header: CRC mismatch" ]
	header_crc v2.gtz
	run -1 --separate-stderr gtool decompress v2.gtz -o out.f32
	local minor
	minor=$(od -A n -t u1 -j 6 -N 1 v2.gtz)
	[ "$stderr" = "gtool decompress: v2.gtz: format version 2.${minor// /} is newer than this gtool reads (1.x)" ]
	[ ! -e out.f32 ]
	# a newer minor version may code blocks differently (1.2 to 1.5 did): refused
	cp small.gtz v1.gtz
	printf '\007' | dd of=v1.gtz bs=1 seek=6 conv=notrunc status=none
	header_crc v1.gtz
	run -1 --separate-stderr gtool decompress v1.gtz -o out.f32
	[ "$stderr" = "gtool decompress: v1.gtz: format version 1.7 is newer than this gtool reads (1.5)" ]
	[ ! -e out.f32 ]
	no_temp
}

@test "decompress: the sample small.gtz decodes" {
	make_small
	run -0 --separate-stderr gtool decompress small.gtz -o back.f32
	cmp back.f32 small.f32
}

@test "decompress: a truncated file: exit 1, one line, no output" {
	local at cut
	make_small
	# in the file header; in a record header (TNS, BLK); in the TNS body;
	# in block 0's payload; in the last block; right before END, IDX, EOF;
	# inside IDX and EOF; one byte short
	for at in 0 4 10 15 16 18 40 $((BLK0 + 2)) $((BLK0 + 6)) $((PAYLOAD0 - 1)) \
		$PAYLOAD0 $((PAYLOAD0 + 5)) $((BLK3 + 30)) $END $((END + 2)) \
		$((IDX - 1)) $IDX $((IDX + 4)) $((IDX + 20)) $((N - 8)) $((N - 5)) $((N - 1)); do
		head -c "$at" small.gtz > cut.gtz
		run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "at $at: $stderr"; return 1; }
		[[ $stderr == "gtool decompress: cut.gtz: "* ]] || { echo "at $at: $stderr"; return 1; }
		[ ! -e out.f32 ] || { echo "at $at: output left"; return 1; }
	done
	no_temp
	# what the messages say at some of those places
	head -c 10 small.gtz > cut.gtz
	run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
	[ "$stderr" = "gtool decompress: cut.gtz: truncated file header" ]
	head -c 3 small.gtz > cut.gtz
	run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
	[ "$stderr" = "gtool decompress: cut.gtz: not a .gtz file" ]
	head -c 40 small.gtz > cut.gtz
	run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
	[ "$stderr" = "gtool decompress: cut.gtz: offset 16: truncated record" ]
	head -c $((PAYLOAD0 + 5)) small.gtz > cut.gtz
	run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
	[ "$stderr" = "gtool decompress: cut.gtz: small: block 0: truncated" ]
	head -c "$IDX" small.gtz > cut.gtz
	run -1 --separate-stderr gtool decompress cut.gtz -o out.f32
	[ "$stderr" = "gtool decompress: cut.gtz: truncated: the file ends before its index" ]
	# the same through a pipe
	head -c $((PAYLOAD0 + 5)) small.gtz > cut.gtz
	run -1 --separate-stderr bash -c 'gtool decompress - -o out.f32 < cut.gtz'
	[ "$stderr" = "gtool decompress: -: small: block 0: truncated" ]
	[ ! -e out.f32 ]
}

@test "decompress: a flipped byte anywhere: exit 1, one line, no output" {
	local at mask k
	make_small
	# the header, the TNS record, block 0's record and payload, block 3,
	# END, IDX and EOF, then 30 places spread over the file
	local places="0 3 4 6 8 12 15 16 20 24 30 50 80 96 $BLK0 $((BLK0 + 4)) \
		$((BLK0 + 12)) $((BLK0 + 20)) $((BLK0 + 36)) $((BLK0 + 52)) $((BLK0 + 60)) \
		$((BLK0 + 70)) $((BLK0 + 100)) $((PAYLOAD0 - 2)) $PAYLOAD0 $((PAYLOAD0 + 1)) \
		$((PAYLOAD0 + 3)) $((PAYLOAD0 + 100)) $((BLK3 + 13)) $END $((END + 8)) \
		$((END + 5)) $((END + 12)) $IDX $((IDX + 8)) $((IDX + 20)) $((IDX + 25)) \
		$((N - 20)) $((N - 12)) $((N - 1))"
	for k in $(seq 0 29); do
		places+=" $((k * (N - 1) / 29))"
	done
	for at in $places; do
		for mask in 16 1 128; do
			cp small.gtz bad.gtz
			flip bad.gtz "$at" "$mask"
			run --separate-stderr gtool decompress bad.gtz -o out.f32
			[ "$status" -eq 1 ] || { echo "byte $at ^ $mask: exit $status: $stderr"; return 1; }
			[ "${#stderr_lines[@]}" -eq 1 ] || { echo "byte $at ^ $mask: $stderr"; return 1; }
			[[ $stderr == "gtool decompress: bad.gtz: "* ]] || { echo "byte $at: $stderr"; return 1; }
			[ ! -e out.f32 ] || { echo "byte $at ^ $mask: output left"; return 1; }
		done
	done
	no_temp
}

@test "decompress: what a flipped byte is reported as" {
	make_small
	cp small.gtz bad.gtz
	flip bad.gtz 8
	run -1 --separate-stderr gtool decompress bad.gtz -o out.f32
	[ "$stderr" = "gtool decompress: bad.gtz: file header: CRC mismatch" ]
	cp small.gtz bad.gtz
	flip bad.gtz $((PAYLOAD0 + 100))
	run -1 --separate-stderr gtool decompress bad.gtz -o out.f32
	[[ $stderr == "gtool decompress: bad.gtz: small: block 0: "* ]]
	[ ! -e out.f32 ]
}

@test "decompress: a damaged block of an HDF5 trace leaves no .h5" {
	run -0 gtool compress -q --block-size 4096 "$SAMPLES/cnn_adam.h5" -o c.gtz
	local n
	n=$(stat -c %s c.gtz)
	cp c.gtz bad.gtz
	flip bad.gtz $((n / 2))
	run -1 --separate-stderr gtool decompress bad.gtz -o c.h5
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "gtool decompress: bad.gtz: "* ]]
	[ ! -e c.h5 ]
	no_temp
}

@test "decompress: data after the EOF record" {
	make_small
	cat small.gtz small.gtz > two.gtz
	run -1 --separate-stderr gtool decompress two.gtz -o out.f32
	[ "$stderr" = "gtool decompress: two.gtz: data after the trailer" ]
	[ ! -e out.f32 ]
	printf 'x' >> small.gtz
	run -1 --separate-stderr bash -c 'gtool decompress - -o out.f32 < small.gtz'
	[ "$stderr" = "gtool decompress: -: data after the trailer" ]
	[ ! -e out.f32 ]
	no_temp
}

@test "decompress: SIGINT and SIGTERM remove the temporary output and exit 128+signal" {
	/usr/bin/python3 -c 'import numpy as np; np.save("a.npy", np.arange(1 << 20, dtype=np.float32))'
	gtool compress a.npy -o a.gtz
	head -c $(($(stat -c %s a.gtz) / 2)) a.gtz > half.gtz
	for fmt in npy h5; do
		interrupt INT "out.$fmt" half.gtz gtool decompress - -o "out.$fmt"
		[ "$status" -eq 130 ]
		no_temp
		[ ! -e "out.$fmt" ]
	done
	interrupt TERM out.raw half.gtz gtool decompress - -o out.raw
	[ "$status" -eq 143 ]
	no_temp
	[ ! -e out.raw ]
}

@test "decompress: -d names links and non-float datasets too, for an HDF5 output" {
	/usr/bin/python3 "$ROOT/tests/h5rich.py" rich.h5
	run -0 gtool compress -q rich.h5 -o rich.gtz
	run -0 gtool decompress -d /lab2 -d /soft -d /g2/b rich.gtz -o sel.h5
	run -0 /usr/bin/python3 -c 'import h5py, numpy as np
f, g = h5py.File("sel.h5"), h5py.File("rich.h5")
names = []
f.visit(names.append)
print(" ".join(sorted(names)), f.get("soft", getlink=True).path,
      np.array_equal(f["lab2"][()], g["lab2"][()]), f["g2/b"][()] == g["g2/b"][()])'
	[ "$output" = "g2 g2/b lab2 /grad/w True True" ]
}
