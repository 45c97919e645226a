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
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "gtool decompress: c.npy: "*"holds one tensor only: cannot add /step_000001/grad/conv1.weight" ]]
	[ ! -e c.npy ]
	run -1 --separate-stderr gtool decompress c.gtz --format raw -o c.raw
	[[ $stderr == "gtool decompress: c.raw: "*"holds one tensor only: cannot add /step_000001/grad/conv1.weight" ]]
	[ ! -e c.raw ]
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
	run -2 --separate-stderr gtool decompress a.gtz b.gtz
	[ "${stderr_lines[0]}" = "gtool decompress: one input file at a time" ]
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
	[ "$stderr" = "gtool decompress: cannot tell the output format of '/dev/full': use --format" ]
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
	[ "$stderr" = "gtool decompress: v2.gtz: format version 2.1 is newer than this gtool reads (1.x)" ]
	[ ! -e out.f32 ]
	# a newer minor version of a file holding only 1.0 records reads
	cp small.gtz v1.gtz
	printf '\007' | dd of=v1.gtz bs=1 seek=6 conv=notrunc status=none
	header_crc v1.gtz
	run -0 --separate-stderr gtool decompress v1.gtz -o out.f32
	cmp out.f32 small.f32
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
