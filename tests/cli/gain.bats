#!/usr/bin/env bats
# gain.bats - `gtool gain`: the gain is the paper's and equals a .gtz round
# trip's, against an independent top-k by awk; error feedback, EWMA, the
# norm variant, multi-level compression, formats and errors

bats_require_minimum_version 1.5.0

load helpers

LSTM=$SAMPLES/lstm_adamw.h5

# col CSV STEP TENSOR SETTING COLUMN - one cell of gain's CSV
col() {
	printf '%s\n' "$1" | awk -F, -v s="$2" -v t="$3" -v c="$4" -v k="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == s && $2 == t && $3 == c { print $h[k]; exit }'
}

# close A B REL - |A - B| <= REL max(|A|, |B|)
close() {
	awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d; if (a < 0) a = -a; if (b < 0) b = -b
		exit !(d <= r * (a > b ? a : b)) }'
}

@test "gain: without error feedback, the gain of a .gtz round trip (topk and seeded randk)" {
	for base in topk randk:seed=3; do
		spec=$base,cf=10
		[[ $base == *:* ]] || spec=$base:cf=10
		run -0 gtool compress -q -f -c "$spec" "$LSTM" -o c.gtz
		run -0 --separate-stderr gtool error --total --format csv -d '/step_*/grad/*' "$LSTM" c.gtz
		want=$(printf '%s\n' "$output" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h["gain"] }')
		run -0 --separate-stderr gtool gain -c "$base" --cf 10 --total --format csv "$LSTM"
		got=$(col "$output" all total 10 gain)
		echo "$spec: error says $want, gain says $got"
		close "$want" "$got" 1e-12
	done
}

@test "gain: topk's gain is the share of the squares its k largest magnitudes hold (awk)" {
	# k = ceil(8192 / 10) = 820 of samples/grads.f32, squared and summed by awk
	want=$(od -An -v -t f4 -w4 "$SAMPLES/grads.f32" |
		awk '{ x = $1 * $1; print x; s += x } END { print "sum", s > "/dev/stderr" }' 2> sum.txt |
		sort -g -r | head -n 820 | awk -v s="$(awk '{ print $2 }' sum.txt)" '{ t += $1 } END { printf "%.10g\n", t / s }')
	run -0 --separate-stderr gtool gain -c topk --cf 10 --format csv "$SAMPLES/grads.f32"
	got=$(col "$output" - total 10 gain)
	[ "$(col "$output" - total 10 values)" = 8192 ]
	echo "awk $want, gain $got"
	close "$want" "$got" 1e-5
}

@test "gain: --gain=norm is the norm ratio, its own column; one tensor: the root of the gain" {
	run -0 --separate-stderr gtool gain -c topk --cf 10,100 --format csv "$SAMPLES/grads.f32"
	sq=$(col "$output" - grads 100 gain)
	run -0 --separate-stderr gtool gain -c topk --cf 10,100 --gain norm --format csv "$SAMPLES/grads.f32"
	[[ ${lines[0]} == *,gain_norm,* ]]
	[[ ${lines[0]} != *,gain,* ]]
	nrm=$(col "$output" - grads 100 gain_norm)
	close "$(awk -v x="$sq" 'BEGIN { printf "%.17g", sqrt(x) }')" "$nrm" 1e-12
}

@test "gain: error feedback changes nothing on the first step and carries residuals after it" {
	run -0 --separate-stderr gtool gain -c topk --cf 100 --total --format csv "$LSTM"
	plain=$output
	run -0 --separate-stderr gtool gain -c topk --cf 100 --total --error-feedback --format csv "$LSTM"
	ef=$output
	[ "$(col "$plain" 1 total 100 gain)" = "$(col "$ef" 1 total 100 gain)" ]
	[ "$(col "$plain" 25 total 100 gain)" != "$(col "$ef" 25 total 100 gain)" ]
	# and the carried run is reproducible bit for bit
	run -0 --separate-stderr gtool gain -c topk --cf 100 --total --error-feedback --format csv "$LSTM"
	[ "$(col "$output" 500 total 100 gain)" = "$(col "$ef" 500 total 100 gain)" ]
}

@test "gain: --ewma 1 is the gain itself; --ewma 0.5 the adjusted average of the steps" {
	run -0 --separate-stderr gtool gain -c topk --cf 40 --total --ewma 1 --format csv "$LSTM"
	for s in 1 25 150 500; do
		[ "$(col "$output" "$s" total 40 gain)" = "$(col "$output" "$s" total 40 gain_ewma)" ]
	done
	run -0 --separate-stderr gtool gain -c topk --cf 40 --total --ewma 0.5 --format csv "$LSTM"
	g1=$(col "$output" 1 total 40 gain)
	g2=$(col "$output" 25 total 40 gain)
	close "$(awk -v a="$g1" -v b="$g2" 'BEGIN { printf "%.17g", (b + 0.5 * a) / 1.5 }')" \
		"$(col "$output" 25 total 40 gain_ewma)" 1e-12
}

@test "gain: --multilevel topk equals direct compression and times both" {
	run -0 --separate-stderr gtool gain -c topk --cf 1000,10,100 --multilevel --format csv "$LSTM"
	[[ ${lines[0]} == *,ml_ms,direct_ms,ml_speedup,ml_equal ]]
	# sorted: 10 first, with no multi-level columns
	[ "$(col "$output" 1 total 10 ml_equal)" = "" ] || [ "$(col "$output" 1 total 10 ml_equal)" = nan ]
	for cf in 100 1000; do
		[ "$(col "$output" all total "$cf" ml_equal)" = 1 ]
		ms=$(col "$output" all total "$cf" ml_ms)
		awk -v x="$ms" 'BEGIN { exit !(x > 0) }'
	done
}

@test "gain: JSON and TSV parse, with the same rows as CSV" {
	run -0 --separate-stderr gtool gain -c qsgd --levels 3,15 --format json "$SAMPLES/grads.f32"
	printf '%s\n' "$output" > g.json
	run -0 python3 -c 'import json, sys; r = json.load(open("g.json")); print(len(r), sorted(r[0]))'
	[[ $output == "4 ["* ]]
	[[ $output == *"'gain'"* && $output == *"'levels'"* ]]
	run -0 --separate-stderr gtool gain -c qsgd --levels 3,15 --format tsv "$SAMPLES/grads.f32"
	[ "${#lines[@]}" -eq 5 ]
}

@test "gain: usage errors exit 2 with one line" {
	run -2 --separate-stderr gtool gain "$LSTM"
	[[ $stderr == *"no codec: give -c NAME"* ]]
	run -2 --separate-stderr gtool gain -c topk --multilevel "$LSTM"
	[[ $stderr == *"--multilevel needs --cf"* ]]
	run -2 --separate-stderr gtool gain -c gcomp "$LSTM"
	[ "$stderr" = "gtool gain: codec gcomp needs the optimizer context of each value; gain measures codecs that do not (see 'gtool error --update')" ]
	run -2 --separate-stderr gtool gain -c zstd --cf 10 "$LSTM"
	[[ $stderr == "gtool gain: unknown option 'cf' for codec zstd" ]]
	run -2 --separate-stderr gtool gain -c topk --cf 10 --bits 4 "$LSTM"
	[[ $stderr == *"give one list of settings"* ]]
	run -2 --separate-stderr gtool gain -c nope "$LSTM"
	[[ $stderr == *"unknown codec 'nope'"* ]]
	run -2 --separate-stderr gtool gain -c topk --ewma 0 "$LSTM"
	[[ $stderr == *"invalid smoothing factor '0'"* ]]
}

@test "gain: a file that cannot be read exits 1" {
	run -1 --separate-stderr gtool gain -c topk missing.h5
	[[ $stderr == "gtool gain: missing.h5: "* ]]
	[ -z "$output" ]
	printf 'abc' > bad.f32
	run -1 --separate-stderr gtool gain -c topk bad.f32
	[[ $stderr == "gtool gain: bad.f32: "* ]]
}
