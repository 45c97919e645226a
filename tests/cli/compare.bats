#!/usr/bin/env bats
# compare.bats - `gtool compare`: formats, equality with compress + error, errors

load helpers

HEADER="codec,options,spec,lossless,values,bytes,gtz_bytes,ratio,bits_per_value,compress_mbps,decompress_mbps,max_abs,rmse,psnr,cosine,gain"

# field CSV ROW_KEY(spec) COLUMN - one cell of a CSV with a header
field() {
	awk -F, -v key="$2" -v want="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["spec"] == key { print $c[want] }' "$1"
}

# near GOT WANT - equal to 1e-12 relative (or both 0)
near() {
	awk -v g="$1" -v w="$2" 'BEGIN {
		d = g - w; if (d < 0) d = -d; m = w < 0 ? -w : w
		exit !(d <= 1e-12 * m || d == 0)
	}' || { echo "got $1, want $2" >&2; return 1; }
}

@test "compare: CSV has the documented header, one row per spec, nothing on stderr" {
	run -0 --separate-stderr gtool compare --repeat 1 -c huffexp,zstd:level=3,zlib:level=6 --format csv "$SAMPLES/grads.f32"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "$HEADER" ]
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[1]} == huffexp,,huffexp,yes,8192,32768,* ]]
	[[ ${lines[2]} == zstd,level=3,zstd:level=3,yes,8192,32768,* ]]
	[[ ${lines[3]} == zlib,level=6,zlib:level=6,yes,* ]]
}

@test "compare: on a trace, the update-fidelity columns; lossless codecs are exact" {
	run -0 --separate-stderr gtool compare --repeat 1 -c huffexp,zstd:level=1 --format csv "$SAMPLES/mlp_nesterov.h5"
	[ "${lines[0]}" = "$HEADER,update_identical_pct,update_max_ulp" ]
	printf '%s\n' "${lines[@]}" > c.csv
	[ "$(field c.csv huffexp rmse)" = 0 ]
	[ "$(field c.csv huffexp update_identical_pct)" = 100 ]
	[ "$(field c.csv zstd:level=1 update_max_ulp)" = 0 ]
}

@test "compare: rows equal what compress + error give (ratio, RMSE, gain, update fidelity)" {
	local t spec
	for t in mlp_sgd.h5 cnn_adam.h5; do
		run -0 gtool compare --repeat 1 -T 2 -c gcomp,gcomp:margin=1,huffexp,zstd:level=19 --format csv "$SAMPLES/$t"
		printf '%s\n' "${lines[@]}" > c.csv
		for spec in gcomp gcomp:margin=1 huffexp zstd:level=19; do
			gtool compress -q -f -c "$spec" -o x.gtz "$SAMPLES/$t"
			in=$(gtool ls --format csv "$SAMPLES/$t" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["dtype"] ~ /^(f32|f16|bf16|f64)$/ { s += $c["bytes"] } END { print s }')
			[ "$(field c.csv "$spec" bytes)" = "$in" ]
			[ "$(field c.csv "$spec" gtz_bytes)" = "$(stat -c %s x.gtz)" ]
			near "$(field c.csv "$spec" ratio)" "$(awk -v a="$(stat -c %s x.gtz)" -v b="$in" 'BEGIN { printf "%.17g", a / b }')"
			run -0 gtool error --total --format csv "$SAMPLES/$t" x.gtz
			[ "$(field c.csv "$spec" rmse)" = "$(echo "${lines[1]}" | cut -d, -f10)" ]
			[ "$(field c.csv "$spec" gain)" = "$(echo "${lines[1]}" | cut -d, -f16)" ]
			[ "$(field c.csv "$spec" max_abs)" = "$(echo "${lines[1]}" | cut -d, -f7)" ]
			run -0 gtool error --update --total --format csv "$SAMPLES/$t" x.gtz
			[ "$(field c.csv "$spec" update_identical_pct)" = "$(echo "${lines[1]}" | cut -d, -f6)" ]
			[ "$(field c.csv "$spec" update_max_ulp)" = "$(echo "${lines[1]}" | cut -d, -f7)" ]
		done
	done
}

@test "compare: --grads-only rows equal compress --grads-only + error on the gradients" {
	local spec
	run -0 gtool compare --grads-only --repeat 1 -T 1 -c topk:cf=10,tfp:bits=8,gcomp --format csv "$SAMPLES/lstm_adamw.h5"
	printf '%s\n' "${lines[@]}" > c.csv
	for spec in topk:cf=10 tfp:bits=8 gcomp; do
		gtool compress -q -f --grads-only -c "$spec" -o x.gtz "$SAMPLES/lstm_adamw.h5"
		[ "$(field c.csv "$spec" gtz_bytes)" = "$(stat -c %s x.gtz)" ]
		# the gradients of the trace: 4 steps of 32460 f32 values
		[ "$(field c.csv "$spec" values)" = 129840 ]
		[ "$(field c.csv "$spec" bytes)" = 519360 ]
		run -0 gtool error --total --format csv -d '/step_*/grad/*' "$SAMPLES/lstm_adamw.h5" x.gtz
		[ "$(field c.csv "$spec" rmse)" = "$(echo "${lines[1]}" | cut -d, -f10)" ]
		[ "$(field c.csv "$spec" cosine)" = "$(echo "${lines[1]}" | cut -d, -f14)" ]
	done
	run -1 --separate-stderr gtool compare --grads-only -c huffexp "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool compare: $SAMPLES/grads.f32: --grads-only needs a trace with step groups" ]
}

@test "compare: JSON parses and has one object per spec" {
	run -0 --separate-stderr gtool compare --repeat 1 -c huffexp,gcomp:mode=single-quant --format json "$SAMPLES/grads.npy"
	printf '%s\n' "${lines[@]}" > c.json
	run -0 python3 -c 'import json, sys; d = json.load(open("c.json")); assert [r["spec"] for r in d] == ["huffexp", "gcomp:mode=single-quant"], d; assert d[0]["lossless"] is True and d[0]["rmse"] == 0 and d[1]["rmse"] > 0; print("ok")'
	[ "$output" = ok ]
}

@test "compare: TSV and markdown" {
	run -0 gtool compare --repeat 1 -c huffexp --format tsv "$SAMPLES/grads.f32"
	[ "${lines[0]}" = "$(echo "$HEADER" | tr , '\t')" ]
	run -0 gtool compare --repeat 1 -c huffexp,zstd --format markdown "$SAMPLES/grads.f32"
	[[ ${lines[0]} == "| codec "*" | gain |" ]]
	[[ ${lines[1]} == "| ---"*": |" ]]
	[ "${#lines[@]}" -eq 4 ]
}

@test "compare: --sort orders the rows, best first" {
	run -0 gtool compare --repeat 1 -c zstd:level=1,huffexp,gcomp:mode=single-quant --sort ratio --format csv "$SAMPLES/grads.f32"
	[ "$(printf '%s\n' "${lines[@]}" | cut -d, -f3 | tail -n +2 | tr '\n' ' ')" = "gcomp:mode=single-quant huffexp zstd:level=1 " ]
	run -0 gtool compare --repeat 1 -c gcomp:mode=single-quant,zstd:level=1,huffexp --sort psnr --format csv "$SAMPLES/grads.f32"
	[ "$(printf '%s\n' "${lines[@]}" | cut -d, -f3 | tail -n 1)" = "gcomp:mode=single-quant" ]
}

@test "compare: a spec's options after a comma stay with it" {
	run -0 gtool compare --repeat 1 -c gcomp:margin=1,mode=multi-quant,huffexp --format csv "$SAMPLES/mlp_nesterov.h5"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[1]} == 'gcomp,"margin=1,mode=multi-quant","gcomp:margin=1,mode=multi-quant",no,'* ]]
	[[ ${lines[2]} == 'huffexp,,huffexp,yes,'* ]]
}

@test "compare: default list has the baselines and skips codecs not built" {
	run -0 --separate-stderr gtool compare --repeat 1 --format csv "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool compare: warning: $SAMPLES/grads.f32: skipping gcomp: not a trace, no optimizer context" ]
	local specs
	specs=$(printf '%s\n' "${lines[@]}" | tail -n +2 | cut -d, -f3 | tr '\n' ' ')
	[[ $specs == "huffexp "*"zstd:level=1 zstd:level=3 zstd:level=19 zlib:level=1 zlib:level=6 zlib:level=9 "* ]]
}

@test "compare: gcomp named on a file without optimizer context is an error" {
	run -1 --separate-stderr gtool compare -c huffexp,gcomp "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool compare: $SAMPLES/grads.f32: gcomp needs the optimizer context of a trace (modes single-quant and zero-prune need none)" ]
	[ -z "$output" ]
}

@test "compare: usage errors exit 2, bad data 1, no output" {
	run -2 --separate-stderr gtool compare -c nosuch "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool compare: unknown codec 'nosuch'; see 'gtool compress --list-codecs'" ]
	[ -z "$output" ]
	run -2 --separate-stderr gtool compare -c zstd:level=99 "$SAMPLES/grads.f32"
	[[ $stderr == "gtool compare: codec zstd: invalid level '99'"* ]]
	run -2 --separate-stderr gtool compare --sort nosuch "$SAMPLES/grads.f32"
	[[ $stderr == *"invalid sort column 'nosuch'"* ]]
	run -2 --separate-stderr gtool compare --format xml "$SAMPLES/grads.f32"
	run -2 --separate-stderr gtool compare
	run -1 --separate-stderr gtool compare missing.h5
	[[ $stderr == "gtool compare: missing.h5: "* ]]
	[ -z "$output" ]
	printf 'not hdf5' > bad.h5
	run -1 --separate-stderr gtool compare bad.h5
	[[ $stderr == "gtool compare: bad.h5: "* ]]
	run -0 find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'gtool-compare.*' -newer bad.h5
	[ -z "$output" ]
}
