#!/usr/bin/env bats
# quant.bats - `gtool compress -c tfp|rangeq|fft`: round trips on the
# samples with their error bounds, special values, option errors, and
# thread-count independence of stochastic rounding

bats_require_minimum_version 1.5.0

load helpers

# roundtrip SPEC IN OUT [FLAGS...] - compress IN with -c SPEC, decompress to OUT
roundtrip() {
	local spec=$1 src=$2 dst=$3
	shift 3
	run -0 --separate-stderr gtool compress -q -f -c "$spec" "$@" "$src" -o "$dst.gtz"
	[ -z "$stderr" ] || { echo "$spec: $stderr"; return 1; }
	run -0 --separate-stderr gtool decompress -q -f "$dst.gtz" -o "$dst"
	[ -z "$stderr" ] || { echo "$spec: $stderr"; return 1; }
}

# total_col A B COL - column COL of the total row of `gtool error --format csv A B`
total_col() {
	gtool error --format csv "$1" "$2" > err.csv || return 1
	awk -F, -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == "total" { print $c[col] }' err.csv
}

# hex_f32 FILE - the f32 bit patterns of a raw file, one per line
hex_f32() {
	od -An -v -tx4 -w4 "$1" | tr -d ' '
}

@test "quant: tfp keeps 15 mantissa bits at bits=24: max relative error below 2^-15" {
	roundtrip tfp:bits=24 "$SAMPLES/grads.f32" back.f32
	r=$(total_col "$SAMPLES/grads.f32" back.f32 max_rel)
	awk -v r="$r" 'BEGIN { exit !(r + 0 > 0 && r + 0 < 2 ^ -15) }' || { echo "max_rel $r"; return 1; }
	# and the .gtz is exactly 24 of 32 bits a value (plus the container)
	local r raw gtz
	raw=$(stat -c %s "$SAMPLES/grads.f32")
	gtz=$(stat -c %s back.f32.gtz)
	[ "$gtz" -ge $((raw * 3 / 4)) ] && [ "$gtz" -lt $((raw * 3 / 4 + 1024)) ] || { echo "size $gtz"; return 1; }
}

@test "quant: tfp truncation never increases a magnitude (bits 4, 8, 12, 20)" {
	local k
	od -An -v -tf4 -w4 "$SAMPLES/grads.f32" > a.txt
	for k in 4 8 12 20; do
		roundtrip "tfp:bits=$k" "$SAMPLES/grads.f32" back.f32
		od -An -v -tf4 -w4 back.f32 > b.txt
		paste a.txt b.txt | awk -v k="$k" '
			function abs(x) { return x < 0 ? -x : x }
			abs($2) > abs($1) || ($2 != 0 && ($1 < 0) != ($2 < 0)) { bad++ }
			END { if (NR != 8192 || bad) { print "bits=" k ": " bad " of " NR; exit 1 } }'
	done
}

@test "quant: tfp special values: NaN, Inf, -0, subnormals at bits=32, 12 and 4" {
	make_raw s.f32 nan inf -inf -0 0 1 -2 sub
	roundtrip tfp:bits=32 s.f32 b32.f32
	cmp s.f32 b32.f32
	roundtrip tfp:bits=12 s.f32 b12.f32
	run -0 hex_f32 b12.f32
	# NaN stays NaN, Inf stays Inf, -0 stays -0, the f32 subnormal is below FP16: +0
	[ "$(printf '%s ' $output)" = "7fc00000 7f800000 ff800000 80000000 00000000 3f800000 c0000000 00000000 " ]
	roundtrip tfp:bits=4 s.f32 b4.f32
	run -0 hex_f32 b4.f32
	# 3 exponent bits of FP16: NaN and Inf become the largest, 2^13; 1 -> 2^-3 (FP16 exponent 01100)
	[ "$(printf '%s ' $output)" = "46000000 46000000 c6000000 80000000 00000000 3e000000 c0000000 00000000 " ]
}

@test "quant: rangeq on a gradient: RMSE falls with bits, NaN codes as 0, Inf clamps" {
	local r8 r12 r16
	roundtrip rangeq:bits=8 "$SAMPLES/grads.f32" b8.f32
	r8=$(total_col "$SAMPLES/grads.f32" b8.f32 rmse)
	roundtrip rangeq:bits=12 "$SAMPLES/grads.f32" b12.f32
	r12=$(total_col "$SAMPLES/grads.f32" b12.f32 rmse)
	roundtrip rangeq:bits=16 "$SAMPLES/grads.f32" b16.f32
	r16=$(total_col "$SAMPLES/grads.f32" b16.f32 rmse)
	awk -v a="$r8" -v b="$r12" -v c="$r16" 'BEGIN { exit !(a > 4 * b && b > 4 * c && c > 0) }' ||
		{ echo "rmse $r8 $r12 $r16"; return 1; }
	make_raw s.f32 nan inf -inf -0 0 1 -2 0.5
	roundtrip rangeq:bits=10,min=-1,max=1,m=7 s.f32 bs.f32
	run -0 hex_f32 bs.f32
	# NaN 0; Inf clamps to max, -Inf and -2 to min; -0 to +0
	[ "$(printf '%s ' $output)" = "00000000 3f800000 bf800000 00000000 00000000 3f800000 bf800000 3f000000 " ]
}

@test "quant: fft at drop=0.85, bits=10 has the RMSE of the unit test's double-FFTW reference" {
	local r gtz
	roundtrip fft "$SAMPLES/grads.f32" back.f32
	r=$(total_col "$SAMPLES/grads.f32" back.f32 rmse)
	# tests/unit/test_quant.c: reference RMSE 0.00291759 (one 8192-value chunk)
	awk -v r="$r" 'BEGIN { exit !(r > 0.00291759 * 0.99 && r < 0.00291759 * 1.01) }' ||
		{ echo "rmse $r"; return 1; }
	# 15% of 4097 coefficients, 10+10 bits each, plus a 4097-bit bitmap
	gtz=$(stat -c %s back.f32.gtz)
	[ "$gtz" -lt 2400 ] || { echo "size $gtz"; return 1; }
}

@test "quant: every codec round-trips a trace: gradients lossy, the rest bit-identical" {
	local spec cos
	# the least cosine similarity of each gradient tensor to its original
	for spec in tfp:bits=8:0.99 tfp:bits=12,round=stochastic,seed=1:0.999 rangeq:bits=10:0.999 \
		    fft:drop=0.5,bits=12:0.8; do
		cos=${spec##*:}
		spec=${spec%:*}
		roundtrip "$spec" "$SAMPLES/mlp_sgd.h5" back.h5
		run -0 --separate-stderr gtool error --format csv "$SAMPLES/mlp_sgd.h5" back.h5
		printf '%s\n' "$output" | awk -F, -v s="$spec" -v cmin="$cos" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == "total" { next }
			$1 ~ /\/grad\// { g++; if ($c["cosine"] + 0 < cmin || $c["nan"] != 0) { print s ": " $1 " cosine " $c["cosine"]; bad++ } next }
			{ o++; if ($c["identical"] != $c["values"]) { print s ": " $1 " not identical"; bad++ } }
			END { if (!g || !o) { print s ": no rows"; bad++ } exit bad != 0 }'
	done
}

@test "quant: stochastic tfp gives the same bytes with -T1 and -T2, and another seed others" {
	run -0 gtool compress -q -T1 --chunk-size 1024 -c tfp:bits=8,round=stochastic,seed=7 "$SAMPLES/grads.f32" -o t1.gtz
	run -0 gtool compress -q -T2 --chunk-size 1024 -c tfp:bits=8,round=stochastic,seed=7 "$SAMPLES/grads.f32" -o t2.gtz
	cmp t1.gtz t2.gtz
	run -0 gtool compress -q -T1 -c tfp:bits=6,round=stochastic,seed=7 "$SAMPLES/cnn_adam.h5" -o h1.gtz
	run -0 gtool compress -q -T2 -c tfp:bits=6,round=stochastic,seed=7 "$SAMPLES/cnn_adam.h5" -o h2.gtz
	cmp h1.gtz h2.gtz
	run -0 gtool compress -q -T2 --chunk-size 1024 -c tfp:bits=8,round=stochastic,seed=8 "$SAMPLES/grads.f32" -o t3.gtz
	run -1 cmp -s t1.gtz t3.gtz
}

@test "quant: option errors are usage errors naming the option" {
	run -2 --separate-stderr gtool compress -c tfp:bits=33 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec tfp: invalid bits '33': expected 2-32; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c tfp:round=up "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec tfp: invalid round 'up': expected trunc or stochastic; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c tfp:seed=3 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec tfp: seed needs round=stochastic; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c rangeq:bits=17 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec rangeq: invalid bits '17': expected 2-16; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c rangeq:min=0.5 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec rangeq: invalid min '0.5': min must be <= 0 and max >= 0; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c fft:drop=1.5 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: codec fft: invalid drop '1.5': expected 0-1; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool compress -c fft:level=3 "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: unknown option 'level' for codec fft; see 'gtool compress --list-codecs'" ]
	[ ! -e x.gtz ]
}

@test "quant: rangeq and fft leave f16 data to huffexp, with a warning" {
	make_raw s.f32 1 -2 0.5 0
	for c in fft rangeq; do
		run -0 --separate-stderr gtool compress -f -c "$c" --dtype f16 s.f32 -o x.gtz
		[ "$stderr" = "gtool compress: warning: s.f32: s: codec $c does not code f16; kept losslessly with huffexp" ]
		run -0 gtool ls --format csv x.gtz
		[ "$(printf '%s\n' "$output" | awk -F, 'NR == 2 { print $7 }')" = huffexp ]
	done
}
