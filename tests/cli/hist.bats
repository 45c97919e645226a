#!/usr/bin/env bats
# hist.bats - `gtool hist`: bars, machine formats, SVG charts, --by step

load helpers

@test "hist: bars for people, one row per exponent field present" {
	run -0 --separate-stderr gtool hist "$SAMPLES/grads.npy"
	[ -z "$stderr" ]
	[[ ${lines[0]} == "field  exponent  count"*"bar" ]]
	[[ ${lines[1]} == *"0  zero/sub   2723  33.24    33.24  ###"* ]]
	[[ ${lines[-1]} == *" 100.00  #"* ]]
}

@test "hist: csv counts add up to the values and match stats" {
	run -0 gtool hist --format csv "$SAMPLES/grads.f32"
	[ "${lines[0]}" = "field,exponent,count,pct,cum_pct" ]
	local sum=0 n=0 l
	for l in "${lines[@]:1}"; do
		IFS=, read -r _ _ c _ <<< "$l"
		sum=$((sum + c)); n=$((n + 1))
	done
	[ "$sum" -eq 8192 ]
	# as many rows as stats counts distinct exponents
	run -0 gtool stats --total --format csv "$SAMPLES/grads.f32"
	IFS=, read -r -a v <<< "${lines[1]}"
	[ "$n" -eq "${v[14]}" ]
}

@test "hist: zeros, subnormals, Inf and NaN have their own rows" {
	make_raw x.f32 0 -0 sub 1 1 -2 inf nan
	run -0 gtool hist --format csv x.f32
	[ "${lines[1]}" = "0,zero/sub,3,37.5,37.5" ]
	[ "${lines[2]}" = "127,2^0,2,25,62.5" ]
	[ "${lines[3]}" = "128,2^1,1,12.5,75" ]
	[ "${lines[4]}" = "255,inf/nan,2,25,100" ]
}

@test "hist: --svg writes a valid SVG file and refuses to overwrite it" {
	run -0 --separate-stderr gtool hist --svg h.svg "$SAMPLES/grads.npy"
	[ -z "$output" ] && [ -z "$stderr" ]
	[ "$(grep -c '<svg' h.svg)" -eq 1 ]
	grep -q 'Exponent histogram' h.svg
	if command -v xmllint > /dev/null; then xmllint --noout h.svg; fi
	cp h.svg before.svg
	run -1 --separate-stderr gtool hist --svg h.svg "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool hist: h.svg exists; use -f to overwrite" ]
	cmp h.svg before.svg
	run -0 gtool hist -f --log --svg h.svg "$SAMPLES/grads.f32"
	grep -q 'log scale' h.svg
	# no temporary files are left behind
	run -0 find . -name 'h.svg?*'
	[ -z "$output" ]
}

@test "hist: --by step on a trace has one series per step" {
	run -0 gtool ls --steps --format csv "$SAMPLES/mlp_sgd.h5"
	local nsteps=$((${#lines[@]} - 1))
	[ "$nsteps" -gt 1 ]
	run -0 --separate-stderr gtool hist --by step --svg steps.svg "$SAMPLES/mlp_sgd.h5"
	[ "$(grep -c '<polyline' steps.svg)" -eq "$nsteps" ]
	if command -v xmllint > /dev/null; then xmllint --noout steps.svg; fi
	run -0 gtool hist --by step --format csv "$SAMPLES/mlp_sgd.h5"
	[ "${lines[0]}" = "series,field,exponent,count,pct,cum_pct" ]
	[ "$(cut -d, -f1 <<< "$output" | sed 1d | sort -u | wc -l)" -eq "$nsteps" ]
}

@test "hist: --by step without step groups is an error" {
	cp "$SAMPLES/dtypes.h5" x.h5
	run -1 --separate-stderr gtool hist --by step x.h5
	[ "$stderr" = "gtool hist: x.h5: --by step needs a trace with step groups" ]
	run -1 --separate-stderr gtool hist --by step "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool hist: $SAMPLES/grads.npy: --by step needs a trace with step groups" ]
}

@test "hist: --by tensor gives a series per tensor" {
	run -0 gtool hist --by tensor --format csv -d '/step_000001/grad/*' "$SAMPLES/mlp_sgd.h5"
	[ "$(cut -d, -f1 <<< "$output" | sed 1d | sort -u | wc -l)" -eq 6 ]
}

@test "hist: a dataset that does not exist, and a bad --by" {
	cp "$SAMPLES/mlp_sgd.h5" x.h5
	run -1 --separate-stderr gtool hist -d /nope x.h5
	[ "$stderr" = "gtool hist: x.h5: dataset /nope not found" ]
	run -2 --separate-stderr gtool hist --by day x.h5
	[ "${stderr_lines[0]}" = "gtool hist: invalid --by 'day': expected step or tensor" ]
}

@test "hist: standard input with --dtype" {
	run -0 gtool hist --format csv "$SAMPLES/grads.f32"
	local want=$output
	run -0 --separate-stderr gtool hist --dtype f32 --format csv - < "$SAMPLES/grads.f32"
	[ "$output" = "$want" ]
}
