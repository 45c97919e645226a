#!/usr/bin/env bats
# options.bats - the switches every command shares: -T 0, --dtype against
# a file's own dtype, an output in a folder that is not there, and the
# option names: --format (what is printed) against --in-format/--out-format

load helpers

@test "options: -T 0 means all cores, with the same output as -T 1" {
	run -0 --separate-stderr gtool compress -q -T 0 "$SAMPLES/mlp_sgd.h5" -o all.gtz
	run -0 --separate-stderr gtool compress -q -T 1 "$SAMPLES/mlp_sgd.h5" -o one.gtz
	cmp all.gtz one.gtz
	run -0 --separate-stderr gtool decompress -q -T 0 all.gtz -o back.h5
	run -0 --separate-stderr gtool compare -T 0 --repeat 1 -c huffexp --format json "$SAMPLES/grads.npy"
	[ "$(jq '.[0].gtz_bytes' <<< "$output")" -gt 0 ]
	run -0 --separate-stderr gtool bench -T 0 -c raw --repeat 1 --format json "$SAMPLES/grads.f32"
	[ "$(jq '.[0].threads' <<< "$output")" = "$(nproc)" ]
	run -2 --separate-stderr gtool compress -T -1 "$SAMPLES/grads.f32" -o x.gtz
	[ "${stderr_lines[0]}" = "gtool compress: invalid thread count '-1'" ]
}

@test "options: --dtype that disagrees with a .npy or HDF5 file is an error naming both" {
	run -1 --separate-stderr gtool stats --dtype f16 "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool stats: $SAMPLES/grads.npy: --dtype f16 disagrees with the file's dtype f32" ]
	[ -z "$output" ]
	run -1 --separate-stderr gtool compress --dtype bf16 "$SAMPLES/f16_momentum.h5" -o x.gtz
	[[ $stderr == "gtool compress: $SAMPLES/f16_momentum.h5: --dtype bf16 disagrees with the dtype f16 of /"* ]]
	[ ! -e x.gtz ]
	run -1 --separate-stderr gtool ls --dtype f64 - < "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool ls: -: --dtype f64 disagrees with the file's dtype f32" ]
	# agreeing is fine, and raw input takes --dtype as it is
	run -0 --separate-stderr gtool stats --dtype f32 "$SAMPLES/grads.npy"
	run -0 --separate-stderr gtool stats --dtype f16 --format csv "$SAMPLES/grads.f32"
	[[ ${lines[1]} == *",f16,16384,"* ]]
}

@test "options: error's --dtype is checked on A, and on B only when B is raw" {
	run -1 --separate-stderr gtool error --dtype f16 "$SAMPLES/grads.npy" "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool error: $SAMPLES/grads.npy: --dtype f16 disagrees with the file's dtype f32" ]
	run -0 --separate-stderr gtool error --dtype f32 "$SAMPLES/grads.f32" "$SAMPLES/grads.npy"
	run -1 --separate-stderr gtool error --dtype-b f16 "$SAMPLES/grads.f32" "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool error: $SAMPLES/grads.npy: --dtype f16 disagrees with the file's dtype f32" ]
}

@test "options: an output in a folder that does not exist says so" {
	run -1 --separate-stderr gtool compress "$SAMPLES/grads.npy" -o nodir/sub/x.gtz
	[ "$stderr" = "gtool compress: nodir/sub/x.gtz: folder nodir/sub does not exist" ]
	gtool compress -q "$SAMPLES/grads.npy" -o g.gtz
	run -1 --separate-stderr gtool decompress g.gtz -o nodir/x.npy
	[ "$stderr" = "gtool decompress: nodir/x.npy: folder nodir does not exist" ]
	touch afile
	run -1 --separate-stderr gtool hist --svg afile/x.svg "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool hist: afile/x.svg: afile is not a folder" ]
	[ ! -e nodir ]
}

@test "options: --in-format and --out-format name the file kinds; --format's old kinds still work" {
	cp "$SAMPLES/grads.f32" g.data
	run -0 --separate-stderr gtool compress -q --in-format raw --dtype f32 g.data -o new.gtz
	run -0 --separate-stderr gtool compress -q --format raw --dtype f32 g.data -o old.gtz
	cmp new.gtz old.gtz
	run -0 --separate-stderr gtool decompress -q --out-format raw new.gtz -o new.out
	run -0 --separate-stderr gtool decompress -q --format raw old.gtz -o old.out
	cmp new.out g.data
	cmp old.out g.data
	run -2 --separate-stderr gtool compress --in-format json g.data
	[ "${stderr_lines[0]}" = "gtool compress: unknown input format 'json': expected hdf5, npy or raw" ]
	run -2 --separate-stderr gtool decompress --out-format gtz new.gtz
	[ "${stderr_lines[0]}" = "gtool decompress: unknown output format 'gtz': expected hdf5, npy or raw" ]
	run -2 --separate-stderr gtool compress --format xml g.data
	[ "${stderr_lines[0]}" = "gtool compress: invalid format 'xml': expected table, csv, tsv, markdown or json" ]
}

@test "options: compress --list-codecs --format json works (--format is what is printed)" {
	run -0 --separate-stderr gtool compress --list-codecs --format json
	[ "$(jq -r '.[] | select(.codec=="huffexp") | .options' <<< "$output")" = "maxlen method" ]
	run -0 --separate-stderr gtool compress --list-codecs --format csv
	[ "${lines[0]}" = "codec,id,lossless,needs_optimizer,options" ]
	[ "${lines[1]}" = "raw,0,yes,no," ]
	run -0 --separate-stderr gtool compress --list-codecs
	[[ ${lines[0]} == "raw "*"lossless" ]]
}
