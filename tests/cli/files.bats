#!/usr/bin/env bats
# files.bats - compress and decompress on several files and folders, as zstd
# does: FILE.gtz beside each input, -r, -o FOLDER, a failure that stops only
# its own file, -t, the --format json report and the progress line

bats_require_minimum_version 1.5.0

load helpers

# tree - in/a.npy, in/sub/b.f32, in/sub/deep/c.h5, in/sub/deep/empty/
tree() {
	mkdir -p in/sub/deep/empty
	cp "$SAMPLES/grads.npy" in/a.npy
	cp "$SAMPLES/grads.f32" in/sub/b.f32
	cp "$SAMPLES/mlp_sgd.h5" in/sub/deep/c.h5
}

# flip FILE POS - xor the byte at POS with 0x10
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' $(( (b ^ 16) & 255 )))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# grads.npy's 32768 bytes of values coded into .gtz FILE, as the summary
# line gives them: the file's size in kB and its share of the values' bytes
kb() { awk -v s="$(stat -c %s "$1")" 'BEGIN { printf "%.1f kB", s / 1000 }'; }
pct() { awk -v s="$(stat -c %s "$1")" 'BEGIN { printf "%.2f%%", s * 100 / 32768 }'; }
sizes() { echo "$(kb "$1") -> 32.8 kB ($(pct "$1"))"; }
# the ratio's first three decimals (the report prints more)
ratio() { awk -v s="$(stat -c %s "$1")" 'BEGIN { printf "0.%03d", int(s * 1000 / 32768) }'; }

@test "files: compress a b c writes each INPUT.gtz beside it and keeps the inputs" {
	tree
	run -0 --separate-stderr gtool compress in/a.npy in/sub/b.f32 in/sub/deep/c.h5
	[ -z "$stderr" ]
	[ -z "$output" ]
	cmp in/a.npy "$SAMPLES/grads.npy"
	cmp in/sub/b.f32 "$SAMPLES/grads.f32"
	cmp in/sub/deep/c.h5 "$SAMPLES/mlp_sgd.h5"
	run -0 gtool decompress -q in/a.npy.gtz -o a.npy
	cmp a.npy "$SAMPLES/grads.npy"
	run -0 gtool decompress -q in/sub/b.f32.gtz -o b.f32
	cmp b.f32 "$SAMPLES/grads.f32"
	run -0 gtool decompress -q in/sub/deep/c.h5.gtz -o c.h5
	run -0 h5diff "$SAMPLES/mlp_sgd.h5" c.h5
}

@test "files: decompress x.gtz y.gtz writes each back under its own name" {
	tree
	run -0 gtool compress in/a.npy in/sub/b.f32
	rm in/a.npy in/sub/b.f32
	run -0 --separate-stderr gtool decompress in/a.npy.gtz in/sub/b.f32.gtz
	[ -z "$stderr" ]
	cmp in/a.npy "$SAMPLES/grads.npy"
	cmp in/sub/b.f32 "$SAMPLES/grads.f32"
	[ -e in/a.npy.gtz ] && [ -e in/sub/b.f32.gtz ]
}

@test "files: -r walks nested folders; a second run skips the .gtz files with a warning" {
	tree
	run -0 --separate-stderr gtool compress -r in
	[ -z "$stderr" ]
	[ "$(cd in && find . -name '*.gtz' | sort | tr '\n' ' ')" = \
	  "./a.npy.gtz ./sub/b.f32.gtz ./sub/deep/c.h5.gtz " ]
	run -0 --separate-stderr gtool compress -r -f in
	[ "${#stderr_lines[@]}" = 3 ]
	[ "${stderr_lines[0]}" = "gtool compress: warning: in/a.npy.gtz: already has the .gtz suffix, skipped" ]
	[ "${stderr_lines[1]}" = "gtool compress: warning: in/sub/b.f32.gtz: already has the .gtz suffix, skipped" ]
	[ "${stderr_lines[2]}" = "gtool compress: warning: in/sub/deep/c.h5.gtz: already has the .gtz suffix, skipped" ]
	[ ! -e in/a.npy.gtz.gtz ]
	# decompress -r: the other files are skipped, each .gtz comes back
	rm in/a.npy in/sub/b.f32 in/sub/deep/c.h5
	run -0 --separate-stderr gtool decompress -q -r in
	[ -z "$stderr" ]
	cmp in/a.npy "$SAMPLES/grads.npy"
	cmp in/sub/b.f32 "$SAMPLES/grads.f32"
	run -0 h5diff "$SAMPLES/mlp_sgd.h5" in/sub/deep/c.h5
	run -0 --separate-stderr gtool decompress -r -f in/sub
	[ "${stderr_lines[0]}" = "gtool decompress: warning: in/sub/b.f32: no .gtz suffix, skipped" ]
}

@test "files: a folder without -r is an error of that input; the others go on" {
	tree
	run -1 --separate-stderr gtool compress in in/a.npy
	[ "$stderr" = "gtool compress: in: is a folder; use -r to take the files in it" ]
	cmp <(gtool decompress -q in/a.npy.gtz -o -) "$SAMPLES/grads.f32"
}

@test "files: -o FOLDER takes the outputs of several inputs" {
	tree
	mkdir out back
	run -0 --separate-stderr gtool compress -o out in/a.npy in/sub/b.f32
	[ -z "$stderr" ]
	[ "$(ls out | tr '\n' ' ')" = "a.npy.gtz b.f32.gtz " ]
	run -0 --separate-stderr gtool decompress -o back out/a.npy.gtz out/b.f32.gtz
	cmp back/a.npy "$SAMPLES/grads.npy"
	cmp back/b.f32 "$SAMPLES/grads.f32"
	# one input into a folder too
	rm back/a.npy
	run -0 gtool decompress -o back out/a.npy.gtz
	cmp back/a.npy "$SAMPLES/grads.npy"
	run -0 gtool compress -r -o out -f in/sub
	[ -e out/c.h5.gtz ]
}

@test "files: -o FILE with several inputs is a usage error, before any output" {
	tree
	run -2 --separate-stderr gtool compress -o x.gtz in/a.npy in/sub/b.f32
	[ "$stderr" = "gtool compress: x.gtz: not a folder: with several inputs, -o names a folder" ]
	run -2 --separate-stderr gtool compress -r -o x.gtz in
	[ "$stderr" = "gtool compress: x.gtz: not a folder: with several inputs, -o names a folder" ]
	run -0 gtool compress in/a.npy in/sub/b.f32
	run -2 --separate-stderr gtool decompress -o y in/a.npy.gtz in/sub/b.f32.gtz
	[ "$stderr" = "gtool decompress: y: not a folder: with several inputs, -o names a folder" ]
	run -2 --separate-stderr gtool compress in/a.npy - -o in
	[ "$stderr" = "gtool compress: '-' (standard input) cannot be one of several inputs" ]
	[ ! -e x.gtz ] && [ ! -e y ]
	[ -z "$(find . -name '.*.*' -type f)" ]
}

@test "files: a failure in the middle is reported; the others are written; exit 1" {
	tree
	printf 'garbage' > in/bad.npy
	run -1 --separate-stderr gtool compress in/a.npy in/bad.npy in/missing.npy in/sub/b.f32
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "gtool compress: in/bad.npy: bad .npy header: no magic" ]
	[ "${stderr_lines[1]}" = "gtool compress: in/missing.npy: No such file or directory" ]
	[ -s in/a.npy.gtz ] && [ -s in/sub/b.f32.gtz ]
	[ ! -e in/bad.npy.gtz ] && [ ! -e in/missing.npy.gtz ]
	[ -z "$(find . -name '.*.*' -type f)" ]
	# decompress: a damaged file among good ones
	cp in/a.npy.gtz in/dam.npy.gtz
	flip in/dam.npy.gtz 200
	rm in/a.npy in/sub/b.f32
	run -1 --separate-stderr gtool decompress in/a.npy.gtz in/dam.npy.gtz in/sub/b.f32.gtz
	[ "${#stderr_lines[@]}" = 1 ]
	[[ ${stderr_lines[0]} == "gtool decompress: in/dam.npy.gtz: "* ]]
	cmp in/a.npy "$SAMPLES/grads.npy"
	cmp in/sub/b.f32 "$SAMPLES/grads.f32"
	[ ! -e in/dam.npy ]
	[ -z "$(find . -name '.*.*' -type f)" ]
}

@test "files: an existing output is not overwritten without -f; the others go on" {
	tree
	echo keep > in/a.npy.gtz
	run -1 --separate-stderr gtool compress in/a.npy in/sub/b.f32
	[ "$stderr" = "gtool compress: in/a.npy.gtz exists; use -f to overwrite" ]
	[ "$(cat in/a.npy.gtz)" = keep ]
	[ -s in/sub/b.f32.gtz ]
	run -0 gtool compress -f in/a.npy in/sub/b.f32
	run -0 gtool decompress -q in/a.npy.gtz -o - --format raw
}

@test "files: two inputs of one name into one folder: the second is refused" {
	mkdir -p x y out
	cp "$SAMPLES/grads.f32" x/g.f32
	head -c 4096 "$SAMPLES/grads.f32" > y/g.f32
	run -1 --separate-stderr gtool compress -f -o out x/g.f32 y/g.f32
	[ "$stderr" = "gtool compress: y/g.f32: out/g.f32.gtz is written from another input of this run" ]
	run -0 gtool decompress -q out/g.f32.gtz -o g.f32
	cmp g.f32 x/g.f32
}

@test "files: decompress -t checks every block and writes nothing" {
	tree
	mkdir z
	run -0 gtool compress -q in/a.npy in/sub/deep/c.h5 -o z
	before=$(ls -A . z)
	run -0 --separate-stderr gtool decompress -t z/a.npy.gtz z/c.h5.gtz
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "gtool decompress: z/a.npy.gtz: OK, 1 tensor, $(sizes z/a.npy.gtz)" ]
	[[ ${stderr_lines[1]} == "gtool decompress: z/c.h5.gtz: OK, 114 tensors, "* ]]
	run -0 --separate-stderr gtool decompress --test -q z/a.npy.gtz
	[ -z "$stderr" ]
	run -0 --separate-stderr bash -c 'gtool decompress -t - < z/a.npy.gtz'
	[ "$stderr" = "gtool decompress: -: OK, 1 tensor, $(sizes z/a.npy.gtz)" ]
	[ "$(ls -A . z | grep -v -e ^bats- -e ^separate-)" = "$(echo "$before" | grep -v -e ^bats- -e ^separate-)" ]
}

@test "files: decompress -t on a damaged file: exit 1, the first error, still nothing written" {
	tree
	mkdir z
	run -0 gtool compress -q in/a.npy -o z/good.gtz
	cp z/good.gtz z/bad.gtz
	flip z/bad.gtz 200
	head -c 1000 z/good.gtz > z/cut.gtz
	run -1 --separate-stderr gtool decompress -t z/bad.gtz z/good.gtz
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "gtool decompress: z/bad.gtz: a: block 0: CRC mismatch" ]
	[[ ${stderr_lines[1]} == "gtool decompress: z/good.gtz: OK, "* ]]
	run -1 --separate-stderr gtool decompress -t z/cut.gtz
	[[ $stderr == "gtool decompress: z/cut.gtz: "* ]]
	[ "$(ls z | tr '\n' ' ')" = "bad.gtz cut.gtz good.gtz " ]
	[ ! -e z/bad ] && [ ! -e bad ]
	run -2 --separate-stderr gtool decompress -t z/good.gtz -o x
	[ "$stderr" = "gtool decompress: -t writes nothing and checks the whole file: no -o or -d with it" ]
}

@test "files: compress --format json: numbers, arrays and booleans that agree with ls and the files" {
	tree
	run -0 --separate-stderr gtool compress -v --format json in/a.npy in/sub/deep/c.h5
	echo "$output" > c.json
	jq -e 'type == "array" and length == 2' c.json
	jq -e '.[0] | .input == "in/a.npy" and .output == "in/a.npy.gtz" and .ok == true' c.json
	jq -e 'all(.[]; (.bytes_in|type) == "number" and (.bytes_out|type) == "number" and
		(.ratio|type) == "number" and (.mb_per_s|type) == "number" and
		(.seconds|type) == "number" and (.ntensors|type) == "number")' c.json
	[ "$(jq '.[0].bytes_out' c.json)" = "$(stat -c %s in/a.npy.gtz)" ]
	[ "$(jq '.[1].bytes_out' c.json)" = "$(stat -c %s in/sub/deep/c.h5.gtz)" ]
	[ "$(jq '.[0].bytes_in' c.json)" = 32768 ]
	jq -e '.[0] | (.ratio - .bytes_out / .bytes_in | fabs) < 1e-12' c.json
	jq -e '.[0].tensors[0] | .name == "a" and .shape == [128, 64] and .dtype == "f32"
		and .values == 8192 and .bytes == 32768 and .codec == "huffexp"' c.json
	jq -e '.[1].ntensors == (.[1].tensors | length) and .[1].ntensors == 114' c.json
	jq -e 'all(.[1].tensors[]; (.shape|type) == "array" and all(.shape[]; type == "number" and . == floor))' c.json
	# stored bytes and shapes as `gtool ls` gives them
	run -0 --separate-stderr gtool ls --format json in/sub/deep/c.h5.gtz
	echo "$output" > ls.json
	[ "$(jq -c '[.[] | .stored_bytes]' ls.json)" = "$(jq -c '[.[1].tensors[] | .stored_bytes]' c.json)" ]
	[ "$(jq '[.[] | .bytes] | add' ls.json)" = "$(jq '.[1].bytes_in' c.json)" ]
	# without -v, no tensors; a failed input is ok: false with no output
	run -1 --separate-stderr gtool compress -f --format json in/a.npy missing.npy
	echo "$output" > f.json
	jq -e '.[0].ok == true and (.[0] | has("tensors") | not)' f.json
	jq -e '.[1] == {"input": "missing.npy", "output": null, "ok": false}' f.json
	run -2 --separate-stderr gtool compress --format json in/a.npy -o -
	[ "$stderr" = "gtool compress: --format json prints on standard output, where the compressed data goes; use -o FILE" ]
}

@test "files: decompress --format json, with -t too" {
	tree
	run -0 gtool compress -q in/a.npy in/sub/deep/c.h5
	run -0 --separate-stderr gtool decompress -f -v --format json in/a.npy.gtz in/sub/deep/c.h5.gtz
	echo "$output" > d.json
	jq -e '.[0] | .input == "in/a.npy.gtz" and .output == "in/a.npy" and .ok == true' d.json
	[ "$(jq '.[0].bytes_in' d.json)" = "$(stat -c %s in/a.npy.gtz)" ]
	[ "$(jq '.[1].bytes_in' d.json)" = "$(stat -c %s in/sub/deep/c.h5.gtz)" ]
	[ "$(jq '.[0].bytes_out' d.json)" = 32768 ]
	run -0 --separate-stderr gtool ls --format json in/sub/deep/c.h5.gtz
	[ "$(echo "$output" | jq '[.[] | .bytes] | add')" = "$(jq '.[1].bytes_out' d.json)" ]
	jq -e '.[1].tensors | length == 114 and all(.[]; (.shape|type) == "array")' d.json
	run -0 --separate-stderr gtool decompress -t --format json in/a.npy.gtz
	echo "$output" | jq -e '.[0] | .output == null and .ok == true and .bytes_out == 32768'
	# -d: only the selected tensors count
	run -0 --separate-stderr gtool decompress -v --format json -d '/step_000001/grad/*' \
		in/sub/deep/c.h5.gtz -o g.h5
	echo "$output" | jq -e '.[0].ntensors == 6 and (.[0].tensors | length) == 6'
	run -2 --separate-stderr gtool decompress --format json in/a.npy.gtz -o -
	[ "$stderr" = "gtool decompress: --format json prints on standard output, where the decompressed data goes; use -o FILE" ]
	# csv: a row per input, the same numbers
	run -1 --separate-stderr gtool decompress -f --format csv in/a.npy.gtz nope.gtz
	[ "${lines[0]}" = "input,output,ok,bytes_in,bytes_out,ratio,seconds,mb_per_s,ntensors" ]
	[[ ${lines[1]} == "in/a.npy.gtz,in/a.npy,yes,$(stat -c %s in/a.npy.gtz),32768,$(ratio in/a.npy.gtz)"*",1" ]]
	[ "${lines[2]}" = "nope.gtz,,no,0,0,0,0,0,0" ]
	run -2 --separate-stderr gtool decompress --format csv in/a.npy.gtz -o -
	[ "$stderr" = "gtool decompress: --format csv prints on standard output, where the decompressed data goes; use -o FILE" ]
}

@test "files: on a terminal, decompress shows a percentage and a summary line; -q neither" {
	run -0 gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	# script(1) gives gtool a terminal; the first update shows at once
	run -0 script -qec "gtool decompress g.gtz -o g.npy" /dev/null
	[[ $output == *"gtool decompress: decompressing 100% "* ]]
	[[ $output == *"gtool decompress: g.gtz: 1 tensor, $(sizes g.gtz)"* ]]
	cmp g.npy "$SAMPLES/grads.npy"
	run -0 script -qec "gtool decompress -t g.gtz" /dev/null
	[[ $output == *"gtool decompress: testing 100% "* ]]
	run -0 script -qec "gtool decompress -q -f g.gtz -o g.npy" /dev/null
	[ -z "$output" ]
	# and compress, the same way
	run -0 script -qec "gtool compress -f $SAMPLES/grads.npy -o g.gtz" /dev/null
	[[ $output == *"gtool compress: compressing 100% "* ]]
	[[ $output == *"gtool compress: $SAMPLES/grads.npy: 1 tensor, 32.8 kB -> $(kb g.gtz) ($(pct g.gtz))"* ]]
}
