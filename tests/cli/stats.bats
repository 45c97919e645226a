#!/usr/bin/env bats
# stats.bats - `gtool stats` against the numpy reference, and its errors

load helpers

@test "stats: every tensor of mlp_sgd.h5 matches the numpy reference" {
	ref_rows samples/mlp_sgd.h5 > ref.csv
	run -0 --separate-stderr gtool stats --format csv "$SAMPLES/mlp_sgd.h5"
	[ -z "$stderr" ]
	printf '%s\n' "$output" > got.csv
	run -0 compare_csv ref.csv got.csv
}

@test "stats: dtypes.h5 (f32, f16, f64, bf16) matches the reference" {
	ref_rows samples/dtypes.h5 > ref.csv
	[ "$(wc -l < ref.csv)" -eq 5 ]
	run -0 --separate-stderr gtool stats --format csv "$SAMPLES/dtypes.h5"
	printf '%s\n' "$output" > got.csv
	run -0 compare_csv ref.csv got.csv
}

@test "stats: raw and .npy samples match the reference" {
	ref_rows samples/grads.f32 > ref.csv
	gtool stats --format csv "$SAMPLES/grads.f32" > got.csv
	run -0 compare_csv ref.csv got.csv
	ref_rows samples/grads.npy > ref.csv
	gtool stats --format csv "$SAMPLES/grads.npy" > got.csv
	run -0 compare_csv ref.csv got.csv
}

@test "stats: the total row of one tensor equals its row" {
	run -0 gtool stats --format csv "$SAMPLES/grads.npy"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[1]#*,grads,}" = "${lines[2]#*,total,}" ]
	run -0 gtool stats --total --format csv "$SAMPLES/grads.npy"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == *,total,f32,8192,* ]]
}

@test "stats: several files give rows for each and a total over all" {
	run -0 gtool stats --format csv "$SAMPLES/grads.f32" "$SAMPLES/grads.npy"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[3]} == ,total,f32,16384,* ]]
}

@test "stats: -d selects by path and by glob" {
	run -0 gtool stats --format csv -d /step_000001/grad/0.bias "$SAMPLES/mlp_sgd.h5"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[1]} == *,/step_000001/grad/0.bias,f32,128,* ]]
	run -0 gtool stats --format csv -d '/step_*/grad/*' -d 'step_000001/param/0.bias' "$SAMPLES/mlp_sgd.h5"
	[ "${#lines[@]}" -eq $((2 + 6 * 5 + 1)) ]
}

@test "stats: json and tsv carry the same numbers" {
	run -0 gtool stats --format json "$SAMPLES/grads.npy"
	[ "${lines[0]}" = "[" ]
	[[ $output == *'"name": "grads"'*'"values": 8192'* ]]
	run -0 gtool stats --format tsv "$SAMPLES/grads.npy"
	[[ ${lines[0]} == file$'\t'name$'\t'dtype* ]]
}

@test "stats: NaN and Inf are counted, the moments are over finite values" {
	make_raw x.f32 1 -2 nan inf -inf 0 -0 sub
	run -0 --separate-stderr gtool stats --total --format csv x.f32
	IFS=, read -r -a v <<< "${lines[1]}"
	# file name dtype values zeros zeros_pct subnormals nan inf min max mean
	[ "${v[3]}" = 8 ] && [ "${v[4]}" = 2 ] && [ "${v[6]}" = 1 ]
	[ "${v[7]}" = 1 ] && [ "${v[8]}" = 2 ]
	[ "${v[9]}" = -2 ] && [ "${v[10]}" = 1 ]
	# 1 - 2 + 0 + 0 + 1.4e-45 over 5 finite values
	[[ ${v[11]} == -0.2000000000000000* || ${v[11]} == -0.1999999999999999* ]]
}

@test "stats: standard input with --dtype equals the file" {
	run -0 gtool stats --format csv "$SAMPLES/grads.f32"
	local want=${lines[1]#*,grads,}
	run -0 --separate-stderr gtool stats --dtype f32 --format csv - < "$SAMPLES/grads.f32"
	[ "${lines[1]#-,*,}" = "$want" ]
	run -0 --separate-stderr bash -o pipefail -c "cat '$SAMPLES/grads.f32' | gtool stats --dtype f32 --format csv -"
	[ "${lines[1]#-,*,}" = "$want" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "stats: the gtool-stats link runs the same command" {
	run -0 gtool stats "$SAMPLES/grads.npy"
	local want=$output
	run -0 gtool-stats "$SAMPLES/grads.npy"
	[ "$output" = "$want" ]
}

@test "stats: a trace missing optimizer attributes still works" {
	command -v h5copy || skip "h5copy (hdf5-tools) not installed"
	h5copy -p -i "$SAMPLES/mlp_sgd.h5" -o bare.h5 -s /step_000001/grad -d /step_000001/grad
	run -0 --separate-stderr gtool stats --format csv bare.h5
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 8 ]
}

@test "stats: non-float datasets are skipped, with a note under -v" {
	run -0 --separate-stderr gtool stats --format csv "$SAMPLES/dtypes.h5"
	[ -z "$stderr" ]
	run -0 --separate-stderr gtool stats -v --format csv "$SAMPLES/dtypes.h5"
	[ "$stderr" = "gtool stats: $SAMPLES/dtypes.h5: skipping /labels (int64)" ]
}

@test "stats: a missing file" {
	run -1 --separate-stderr gtool stats nope.h5
	[ "$stderr" = "gtool stats: nope.h5: No such file or directory" ]
	[ -z "$output" ]
}

@test "stats: a text file with an unknown extension" {
	echo hello > notes.txt
	run -1 --separate-stderr gtool stats notes.txt
	[ "$stderr" = "gtool stats: notes.txt: cannot tell the dtype of 'notes.txt': use --dtype" ]
}

@test "stats: a dataset that does not exist" {
	cp "$SAMPLES/mlp_sgd.h5" x.h5
	run -1 --separate-stderr gtool stats -d /nope x.h5
	[ "$stderr" = "gtool stats: x.h5: dataset /nope not found" ]
	[ -z "$output" ]
}

@test "stats: the int64 /labels dataset is refused by name" {
	cp "$SAMPLES/dtypes.h5" d.h5
	run -1 --separate-stderr gtool stats -d /labels d.h5
	[ "$stderr" = "gtool stats: d.h5: dataset /labels is int64, not floating point" ]
}

@test "stats: a raw file whose size is not a multiple of 4" {
	printf 'abcde' > odd.f32
	run -1 --separate-stderr gtool stats odd.f32
	[ "$stderr" = "gtool stats: odd.f32: size 5 is not a multiple of 4 bytes (f32)" ]
}

@test "stats: an empty file" {
	: > empty.f32
	run -1 --separate-stderr gtool stats empty.f32
	[ "$stderr" = "gtool stats: empty.f32: empty file" ]
}

@test "stats: a big-endian .npy" {
	make_npy be.npy '>f4' False '(2,)' 1 1
	run -1 --separate-stderr gtool stats be.npy
	[ "$stderr" = "gtool stats: be.npy: big-endian .npy arrays are not supported" ]
}

@test "stats: a Fortran-order .npy" {
	make_npy fo.npy '<f4' True '(2, 1)' 1 1
	run -1 --separate-stderr gtool stats fo.npy
	[ "$stderr" = "gtool stats: fo.npy: Fortran-order .npy arrays are not supported" ]
}

@test "stats: a C-order .npy made here reads" {
	make_npy ok.npy '<f4' False '(2, 2)' 1 -2 0 nan
	run -0 gtool stats --total --format csv ok.npy
	[[ ${lines[1]} == ok.npy,total,f32,4,1,25,0,1,0,-2,1,* ]]
}

@test "stats: an unknown --dtype is a usage error" {
	make_raw x.f32 1
	run -2 --separate-stderr gtool stats --dtype f8 x.f32
	[ "${stderr_lines[0]}" = "gtool stats: invalid dtype 'f8': expected f32, f16, bf16 or f64" ]
	[ -z "$output" ]
}

@test "stats: an unknown --format and no FILE are usage errors" {
	run -2 --separate-stderr gtool stats --format xml x.f32
	[ "${stderr_lines[0]}" = "gtool stats: invalid format 'xml': expected table, csv, tsv or json" ]
	run -2 --separate-stderr gtool stats
	[[ ${stderr_lines[0]} == "Usage: gtool stats [OPTION...] FILE..." ]]
}

@test "stats: a .h5 file with no HDF5 superblock is not an HDF5 file (not a locked one)" {
	printf 'not hdf5 at all\n' > bad.h5
	run -1 --separate-stderr gtool stats bad.h5
	[ "$stderr" = "gtool stats: bad.h5: not an HDF5 file" ]
}
