#!/usr/bin/env bats
# error.bats - `gtool error`: reconstruction error, update fidelity, errors

load helpers

TRACES="mlp_sgd.h5 cnn_adam.h5 lstm_adamw.h5 mlp_nesterov.h5 mlp_adagrad.h5 mlp_rmsprop.h5 mlp_sgd_plain.h5
f64_momentum.h5 f64_nesterov.h5 f64_adagrad.h5 f64_rmsprop.h5 f64_adam.h5 f64_adamw.h5
bf16_momentum.h5 bf16_adagrad.h5 bf16_rmsprop.h5 bf16_adam.h5 bf16_adamw.h5 f16_momentum.h5
f16_nesterov.h5"

# col CSV_LINE NAME HEADER - the field of CSV_LINE under column NAME of HEADER
col() {
	awk -F, -v want="$2" -v hdr="$3" 'BEGIN {
		n = split(hdr, h, ","); split($0, v, ",")
	} { for (i = 1; i <= n; i++) if (h[i] == want) print $i }' <<< "$1"
}

# near GOT WANT - GOT equals WANT to 1e-12 relative
near() {
	awk -v g="$1" -v w="$2" 'BEGIN {
		d = g - w; if (d < 0) d = -d; m = w < 0 ? -w : w
		exit !(d <= 1e-12 * m || d < 1e-300)
	}' || { echo "got $1, want $2" >&2; return 1; }
}

# flip_byte FILE OFFSET MASK - xor one byte of FILE in place
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf %03o $((b ^ $3)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# every_row_100 CSV - identical_pct and pytorch_identical_pct are 100 on every row
every_row_100() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; if ($c["identical_pct"] != 100 || $c["pytorch_identical_pct"] != 100) { print; bad++ } }
	END { exit bad || !n || !c["pytorch_identical_pct"] }' <<< "$1"
}

@test "error: a file against itself is exact" {
	run -0 --separate-stderr gtool error --format csv "$SAMPLES/mlp_sgd.h5" "$SAMPLES/mlp_sgd.h5"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "name,values,identical,identical_pct,nan,inf,max_abs,max_rel,range,rmse,nrmse,psnr,snr,cosine,pearson,gain" ]
	[ "${#lines[@]}" -eq $((1 + 114 + 1)) ]
	local row
	for row in "${lines[@]:1}"; do
		[[ $row == *,*,*,100,0,0,0,0,*,0,0,inf,inf,1,*,1 ]]
		[ "$(col "$row" values "${lines[0]}")" = "$(col "$row" identical "${lines[0]}")" ]
	done
	[[ ${lines[-1]} == total,* ]]
}

@test "error: the table states the PSNR convention" {
	run -0 --separate-stderr gtool error "$SAMPLES/grads.npy" "$SAMPLES/grads.npy"
	[ "${lines[0]}" = "# PSNR = 20 log10(range / RMSE), range = max - min of A (SZ's convention; zfp prints 6.02 dB less)" ]
	[[ ${lines[1]} == name*values*identical*psnr*gain ]]
	[[ ${lines[2]} == grads*8192*8192*100.00*inf*inf* ]]
}

@test "error: a huffexp round trip is bit-exact" {
	run -0 gtool compress -q -c huffexp "$SAMPLES/cnn_adam.h5" -o c.gtz
	run -0 gtool decompress -q c.gtz -o c.h5
	run -0 --separate-stderr gtool error --total --format csv "$SAMPLES/cnn_adam.h5" c.h5
	[ "${#lines[@]}" -eq 2 ]
	local v
	v=$(col "${lines[1]}" values "${lines[0]}")
	[ "$v" -gt 0 ]
	[[ ${lines[1]} == "total,$v,$v,100,0,0,0,0,"* ]]
	# and the .gtz itself, read directly
	run -0 gtool error --total --format csv "$SAMPLES/cnn_adam.h5" c.gtz
	[[ ${lines[1]} == "total,$v,$v,100,0,0,0,0,"* ]]
	# raw and .npy: two single arrays match whatever their names
	run -0 gtool compress -q -c huffexp "$SAMPLES/grads.npy" -o g.gtz
	run -0 gtool decompress -q g.gtz -o back.f32
	run -0 gtool error --format csv "$SAMPLES/grads.npy" back.f32
	[[ ${lines[1]} == grads,8192,8192,100,0,0,0,0,* ]]
}

@test "error: one value changed gives the numbers worked by hand" {
	make_npy a.npy '<f4' False '(2, 2)' 1 -2 0.5 0
	make_npy b.npy '<f4' False '(2, 2)' 1 -2 1 0
	run -0 --separate-stderr gtool error --format csv a.npy b.npy
	[ -z "$stderr" ]
	local h=${lines[0]} r=${lines[1]}
	[ "${lines[2]#total}" = "${r#a}" ]
	[[ $r == a,4,3,75,0,0,* ]]
	# a = 1 -2 0.5 0, b = 1 -2 1 0: one difference of 0.5, range 1 - (-2) = 3
	# sum d^2 = 0.25, sum a^2 = 5.25, sum b^2 = 6, sum ab = 5.5
	# means -0.125 and 0: c_ab = 5.5, m2_a = 5.1875, m2_b = 6
	near "$(col "$r" max_abs "$h")" 0.5
	near "$(col "$r" max_rel "$h")" 1
	near "$(col "$r" range "$h")" 3
	near "$(col "$r" rmse "$h")" "$(awk 'BEGIN { printf "%.17g", sqrt(0.25 / 4) }')"
	near "$(col "$r" nrmse "$h")" "$(awk 'BEGIN { printf "%.17g", sqrt(0.25 / 4) / 3 }')"
	near "$(col "$r" psnr "$h")" "$(awk 'BEGIN { printf "%.17g", 20 * log(3 / 0.25) / log(10) }')"
	near "$(col "$r" snr "$h")" "$(awk 'BEGIN { printf "%.17g", 10 * log(5.25 / 0.25) / log(10) }')"
	near "$(col "$r" cosine "$h")" "$(awk 'BEGIN { printf "%.17g", 5.5 / sqrt(5.25 * 6) }')"
	near "$(col "$r" pearson "$h")" "$(awk 'BEGIN { printf "%.17g", 5.5 / sqrt(5.1875 * 6) }')"
	near "$(col "$r" gain "$h")" "$(awk 'BEGIN { printf "%.17g", 6 / 5.25 }')"
}

@test "error: NaN and Inf pairs are counted and left out of the sums" {
	make_raw a.f32 1 nan inf -2 -0
	make_raw b.f32 1 nan 0 -2 0
	run -0 --separate-stderr gtool error --format csv a.f32 b.f32
	# 1=1, NaN=NaN, -2=-2 identical; -0 and +0 differ in bits, not in value
	[[ ${lines[1]} == a,5,3,60,1,1,0,0,3,0,0,inf,inf,* ]]
}

@test "error: json and tsv carry the same numbers" {
	run -0 gtool error --format json "$SAMPLES/grads.npy" "$SAMPLES/grads.npy"
	[ "${lines[0]}" = "[" ]
	[[ $output == *'"name": "grads"'*'"values": 8192'*'"identical": 8192'* ]]
	[[ $output == *'"psnr": null'*'"snr": null'*'"gain": 1'* ]]
	[[ $output == *'"name": "total"'* ]]
	run -0 gtool error --format tsv "$SAMPLES/grads.npy" "$SAMPLES/grads.npy"
	[[ ${lines[0]} == name$'\t'values$'\t'identical* ]]
}

@test "error: -d selects tensors of A; a flipped bit shows in one row" {
	cp "$SAMPLES/cnn_adam.h5" p.h5
	local off
	off=$(h5dump -p -H -d /step_000010/grad/fc.bias p.h5 | awk '/OFFSET/ { print $2 }')
	[ -n "$off" ]
	flip_byte p.h5 $((off + 3)) 1 # an exponent bit of the first value: x / 4
	run -0 --separate-stderr gtool error --format csv -d '/step_000010/grad/*' "$SAMPLES/cnn_adam.h5" p.h5
	[ "${#lines[@]}" -eq 8 ]
	[[ ${lines[5]} == /step_000010/grad/fc.bias,10,9,90,0,0,*,0.75,* ]]
	[[ ${lines[1]} == /step_000010/grad/conv1.bias,8,8,100,* ]]
	[[ ${lines[7]} == total,3818,3817,* ]]
	# update fidelity: Adam moves only that parameter differently
	run -0 --separate-stderr gtool error --update --format csv -d /step_000010/grad/fc.bias "$SAMPLES/cnn_adam.h5" p.h5
	[ "${lines[0]}" = "name,step,optimizer,values,identical,identical_pct,max_ulp,max_rel,pytorch_identical_pct" ]
	[[ ${lines[1]} == /step_000010/grad/fc.bias,10,adam,10,9,90,* ]]
	[ "$(col "${lines[1]}" max_ulp "${lines[0]}")" -gt 0 ]
	[ "$(col "${lines[1]}" pytorch_identical_pct "${lines[0]}")" = 100 ]
	[[ ${lines[2]} == total,,adam,10,9,90,* ]]
}

@test "error: --update reproduces PyTorch on every sample trace" {
	local t
	for t in $TRACES; do
		run -0 --separate-stderr gtool error --update --format csv "$SAMPLES/$t" "$SAMPLES/$t"
		[ -z "$stderr" ]
		[ "${#lines[@]}" -gt 2 ]
		[[ ${lines[-1]} == total,* ]]
		run -0 every_row_100 "$output"
	done
}

@test "error: --update against a zstd .gtz of the trace is 100 %" {
	local t
	for t in lstm_adamw.h5 mlp_adagrad.h5 mlp_sgd.h5; do
		run -0 gtool compress -q -f -c zstd "$SAMPLES/$t" -o t.gtz
		run -0 --separate-stderr gtool error --update --format csv "$SAMPLES/$t" t.gtz
		[ -z "$stderr" ]
		run -0 every_row_100 "$output"
	done
	run -0 gtool error --update --total "$SAMPLES/mlp_sgd.h5" t.gtz
	[[ ${lines[1]} == total*momentum*86130*86130*100.00*0*0*100.00 ]]
}

@test "error: a tensor missing from B, and --missing-ok" {
	run -0 gtool compress -q -c zstd -d '/step_000001/*' "$SAMPLES/mlp_sgd.h5" -o part.gtz
	run -1 --separate-stderr gtool error "$SAMPLES/mlp_sgd.h5" part.gtz
	[ "$stderr" = "gtool error: part.gtz: dataset /step_000020/grad/0.bias not found" ]
	[ -z "$output" ]
	run -0 --separate-stderr gtool error --missing-ok --format csv "$SAMPLES/mlp_sgd.h5" part.gtz
	[ "${#lines[@]}" -eq $((1 + 18 + 1)) ]
	run -0 --separate-stderr gtool error --update --missing-ok --format csv "$SAMPLES/mlp_sgd.h5" part.gtz
	[ "${#lines[@]}" -eq $((1 + 6 + 1)) ]
	run -0 every_row_100 "$output"
}

@test "error: a missing file" {
	run -1 --separate-stderr gtool error nope.h5 "$SAMPLES/mlp_sgd.h5"
	[ "$stderr" = "gtool error: nope.h5: No such file or directory" ]
	run -1 --separate-stderr gtool error "$SAMPLES/grads.npy" nope.npy
	[ "$stderr" = "gtool error: nope.npy: No such file or directory" ]
	[ -z "$output" ]
}

@test "error: an unmatched tensor" {
	run -1 --separate-stderr gtool error "$SAMPLES/mlp_sgd.h5" "$SAMPLES/cnn_adam.h5"
	[ "$stderr" = "gtool error: $SAMPLES/cnn_adam.h5: dataset /step_000001/grad/0.bias not found" ]
	[ -z "$output" ]
}

@test "error: counts that differ" {
	make_raw a.f32 1 1 1
	make_raw b.f32 1 1
	run -1 --separate-stderr gtool error a.f32 b.f32
	[ "$stderr" = "gtool error: b.f32: a: 3 values in A, 2 in B" ]
	[ -z "$output" ]
	# a pipe, whose length is known only at its end
	run -1 --separate-stderr gtool error --dtype f32 a.f32 - < b.f32
	[ "$stderr" = "gtool error: -: a: 3 values in A, 2 in B" ]
}

@test "error: standard input with --dtype equals the file" {
	run -0 gtool error --format csv "$SAMPLES/grads.f32" "$SAMPLES/grads.npy"
	local want=${lines[1]#grads,}
	run -0 --separate-stderr gtool error --dtype f32 --format csv - "$SAMPLES/grads.npy" < "$SAMPLES/grads.f32"
	[ "${lines[1]#-,}" = "$want" ]
}

@test "error: --update refuses an optimizer PyTorch cannot step in f16" {
	run -1 --separate-stderr gtool error --update "$FIXTURES/f16_adam.h5" "$FIXTURES/f16_adam.h5"
	[ "$stderr" = "gtool error: $FIXTURES/f16_adam.h5: step /step_000001: adam cannot step f16 values (PyTorch 1.13 has no float16 addcmul on the CPU)" ]
	[ -z "$output" ]
}

@test "error: --update needs a trace" {
	run -1 --separate-stderr gtool error --update "$SAMPLES/grads.f32" "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool error: $SAMPLES/grads.f32: --update needs a trace with optimizer attributes" ]
	[ -z "$output" ]
}

@test "error: --update on a trace without optimizer attributes" {
	command -v h5copy || skip "h5copy (hdf5-tools) not installed"
	h5copy -p -i "$SAMPLES/mlp_sgd.h5" -o bare.h5 -s /step_000001/grad -d /step_000001/grad
	run -1 --separate-stderr gtool error --update bare.h5 bare.h5
	[ "$stderr" = "gtool error: bare.h5: step /step_000001: attribute optimizer missing" ]
	# the plain comparison needs no attributes
	run -0 gtool error --total --format csv bare.h5 bare.h5
	[[ ${lines[1]} == total,17226,17226,* ]]
}

@test "error: usage errors exit 2" {
	run -2 --separate-stderr gtool error --format xml a b
	[ "${stderr_lines[0]}" = "gtool error: invalid format 'xml': expected table, csv, tsv or json" ]
	run -2 --separate-stderr gtool error a
	[ "${stderr_lines[0]}" = "gtool error: expected two files, A and B" ]
	run -2 --separate-stderr gtool error --dtype-b f8 a b
	[ "${stderr_lines[0]}" = "gtool error: invalid dtype 'f8': expected f32, f16, bf16 or f64" ]
	run -2 --separate-stderr gtool error - -
	[ "${stderr_lines[0]}" = "gtool error: A and B cannot both be standard input" ]
	run -2 --separate-stderr gtool error
	[[ ${stderr_lines[0]} == "Usage: gtool error [OPTION...] A B" ]]
	[ -z "$output" ]
}

@test "error: the gtool-error link runs the same command" {
	run -0 gtool error "$SAMPLES/grads.npy" "$SAMPLES/grads.f32"
	local want=$output
	run -0 gtool-error "$SAMPLES/grads.npy" "$SAMPLES/grads.f32"
	[ "$output" = "$want" ]
}
