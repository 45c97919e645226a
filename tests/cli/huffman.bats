#!/usr/bin/env bats
# huffman.bats - `gtool huffman build|show|apply`: the tables are
# length-limited prefix codes, the builders compare as they must, apply
# measures against each tensor's own table, and the errors

bats_require_minimum_version 1.5.0

load helpers

# show_csv TABLE - `huffman show --format csv` of TABLE into show.csv
show_csv() {
	run -0 --separate-stderr gtool huffman show --format csv "$1"
	[ -z "$stderr" ]
	printf '%s\n' "$output" > show.csv
	[ "$(head -1 show.csv)" = "symbol,field,value,count,pct,length,code,escaped" ]
}

# check_code MAXLEN - show.csv is a prefix code of codes <= MAXLEN bits:
# length = code width, Kraft sum <= 1, no code a prefix of another, and a
# symbol has no code exactly when it is marked escaped
check_code() {
	awk -F, -v max="$1" '
	NR == 1 { next }
	{
		if ($6 > max) { print "symbol " $1 ": length " $6 " > " max; bad++ }
		if (length($7) != $6) { print "symbol " $1 ": code " $7 " of length " $6; bad++ }
		if ($7 !~ /^[01]*$/) { print "symbol " $1 ": code " $7; bad++ }
		if (($6 == 0) != ($8 == "yes")) { print "symbol " $1 ": escaped " $8 " length " $6; bad++ }
		if ($6 > 0) { code[++n] = $7; kraft += 2 ^ -$6 }
	}
	END {
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				if (i != j && index(code[j], code[i]) == 1) {
					print code[i] " is a prefix of " code[j]; bad++
				}
		if (kraft > 1 + 1e-12) { print "Kraft sum " kraft; bad++ }
		if (n == 0) { print "no codes"; bad++ }
		exit bad != 0
	}' show.csv
}

@test "huffman: build writes a table that show lists as a prefix code <= 12 bits" {
	run -0 --separate-stderr gtool huffman build -o mlp.ght "$SAMPLES/mlp_sgd.h5"
	[ -z "$stderr" ]
	[ -z "$output" ]
	[ -s mlp.ght ]
	show_csv mlp.ght
	run -0 check_code 12
	# the shares add up to 100 %
	run -0 awk -F, 'NR > 1 { s += $5 } END { d = s - 100; if (d < 0) d = -d; print s; exit d > 1e-6 }' show.csv
	# symbols: exponents 2^k, +0, runs of +0 and the escape, which has a code
	run -0 grep -c '^[0-9]*,[0-9]*,2^-[0-9]*,' show.csv
	[ "$output" -gt 10 ]
	grep -q '^256,-,+0,' show.csv
	grep -q '^258,-,run of +0,' show.csv
	grep -Eq '^259,-,escape,0,0,[0-9]+,[01]+,no$' show.csv
	# the table view: the same rows
	run -0 --separate-stderr gtool huffman show mlp.ght
	[[ ${lines[0]} == "symbol"*"field"*"value"*"count"*"pct"*"length"*"code"*"escaped" ]]
	[ "${#lines[@]}" -eq "$(wc -l < show.csv)" ]
}

@test "huffman: the counts of a raw file are its tokens" {
	run -0 gtool huffman build -o g.ght "$SAMPLES/grads.f32"
	show_csv g.ght
	run -0 check_code 12
	# every value is one token except those inside runs of +0
	run -0 awk -F, 'NR > 1 { s += $4 } END { print s }' show.csv
	[ "$output" -le 8192 ]
	[ "$output" -gt 7000 ]
	# the same data as .npy gives the same bytes; a build is deterministic
	run -0 gtool huffman build -o n.ght "$SAMPLES/grads.npy"
	cmp g.ght n.ght
	run -0 gtool huffman build -f -o n.ght "$SAMPLES/grads.npy"
	cmp g.ght n.ght
}

@test "huffman: build -v prints both builders; pm is never worse than gcomp" {
	local f
	for f in mlp_sgd.h5 cnn_adam.h5 lstm_adamw.h5 grads.f32; do
		run -0 --separate-stderr gtool huffman build -v --format csv -o "$f.ght" "$SAMPLES/$f"
		[ -z "$stderr" ]
		[ "${lines[0]}" = "method,bits_per_value,exponent_bits_per_value,escaped_pct,longest_code" ]
		[ "${#lines[@]}" -eq 3 ]
		[[ ${lines[1]} == gcomp,* ]]
		[[ ${lines[2]} == pm,* ]]
		printf '%s\n' "$output" > v.csv
		run -0 awk -F, '
			$1 == "gcomp" { g = $2; ge = $3; gl = $5 }
			$1 == "pm" { p = $2; pe = $3; pl = $5 }
			END { print g, p; exit !(p <= g + 1e-12 && pe <= ge + 1e-12 && gl <= 12 && pl <= 12) }' v.csv
	done
	# the table view has the same two rows
	run -0 gtool huffman build -v -f -o x.ght "$SAMPLES/grads.f32"
	[[ ${lines[1]} == gcomp* && ${lines[2]} == pm* ]]
}

@test "huffman: --method gcomp and pm build what -v measures" {
	run -0 gtool huffman build --method gcomp -o g.ght "$SAMPLES/lstm_adamw.h5"
	run -0 gtool huffman build --method pm -o p.ght "$SAMPLES/lstm_adamw.h5"
	run -0 gtool huffman build -o b.ght "$SAMPLES/lstm_adamw.h5"
	show_csv g.ght
	run -0 check_code 12
	show_csv p.ght
	run -0 check_code 12
	# best is one of the two
	cmp -s b.ght p.ght || cmp -s b.ght g.ght
}

@test "huffman: --maxlen 6 gives codes <= 6 bits and escapes the rare symbols" {
	run -0 --separate-stderr gtool huffman build --maxlen 6 -o m6.ght "$SAMPLES/mlp_sgd.h5"
	show_csv m6.ght
	run -0 check_code 6
	run -0 grep -c ',yes$' show.csv
	[ "$output" -gt 0 ]
	# the escaped symbols are the rare ones: each is rarer than any coded exponent
	run -0 awk -F, 'NR > 1 && $3 ~ /^2\^/ {
			if ($8 == "yes" && $4 > maxesc) maxesc = $4
			if ($8 == "no" && (mincode == "" || $4 < mincode)) mincode = $4
		} END { print maxesc, mincode; exit !(maxesc <= mincode) }' show.csv
	# and compress with it round-trips
	run -0 gtool compress -q --table m6.ght "$SAMPLES/mlp_sgd.h5" -o m.gtz
	run -0 gtool decompress -q m.gtz -o m.h5
	h5dump "$SAMPLES/mlp_sgd.h5" > a.full
	h5dump m.h5 > b.full
	diff <(tail -n +2 a.full) <(tail -n +2 b.full)
}

@test "huffman: --maxlen 1 leaves one code and the escape" {
	run -0 gtool huffman build --maxlen 1 -o m1.ght "$SAMPLES/grads.f32"
	show_csv m1.ght
	run -0 check_code 1
	run -0 grep -c ',no$' show.csv
	[ "$output" -eq 2 ]
}

@test "huffman: apply prints one row per gradient; no table beats a tensor's own" {
	run -0 gtool huffman build -o mlp.ght "$SAMPLES/mlp_sgd.h5"
	run -0 --separate-stderr gtool huffman apply --format csv --table mlp.ght "$SAMPLES/cnn_adam.h5"
	[ -z "$stderr" ]
	printf '%s\n' "$output" > apply.csv
	[ "${lines[0]}" = "file,name,values,table_bits_per_value,own_bits_per_value,entropy_bits_per_value,escaped_pct,total_bits_per_value" ]
	# one row per gradient dataset of the trace, in file order
	h5dump -n "$SAMPLES/cnn_adam.h5" > tree.txt
	awk '$1 == "dataset" && $2 ~ /\/grad\// { print $2 }' tree.txt > grads.txt
	[ "$(wc -l < grads.txt)" -eq 30 ]
	cut -d, -f2 apply.csv | tail -n +2 > names.txt
	diff <(sort grads.txt) <(sort names.txt)
	# table >= own >= entropy (+ run lengths); a value costs >= 24 bits of
	# sign and mantissa on top of the exponent; the counts are the shapes'
	run -0 awk -F, 'NR > 1 {
			if ($4 < $5 - 1e-9) { print $2 ": table " $4 " < own " $5; bad++ }
			if ($6 > $5 + 1e-9) { print $2 ": entropy " $6 " > own " $5; bad++ }
			if ($6 < 0) { print $2 ": entropy " $6; bad++ }
			if ($8 < $4 + 24 * (1 - $7 / 100) - 24) { print $2 ": total " $8; bad++ }
			if ($8 > 32 + $4) { print $2 ": total " $8; bad++ }
			if ($3 < 1) { print $2 ": values " $3; bad++ }
			n += $3
		} END { print n; exit bad != 0 }' apply.csv
	# 3818 parameters, 5 steps
	[ "$output" -eq $((3818 * 5)) ]
}

@test "huffman: apply on the other traces and on raw input" {
	local t f
	for t in cnn_adam.h5 lstm_adamw.h5; do
		run -0 gtool huffman build -f -o t.ght "$SAMPLES/$t"
		for f in mlp_sgd.h5 lstm_adamw.h5 grads.f32; do
			run -0 --separate-stderr gtool huffman apply --format csv --table t.ght "$SAMPLES/$f"
			printf '%s\n' "$output" > apply.csv
			run -0 awk -F, 'NR > 1 && ($4 < $5 - 1e-9 || $6 > $5 + 1e-9) { print; bad++ }
				END { exit bad != 0 || NR < 2 }' apply.csv
		done
	done
	# a table applied to the data it was built from: no escapes
	run -0 gtool huffman build -f -o g.ght "$SAMPLES/grads.f32"
	run -0 gtool huffman apply --format csv --table g.ght "$SAMPLES/grads.f32"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == *",grads,8192,"* ]]
	[ "$(cut -d, -f7 <<< "${lines[1]}")" = 0 ]
}

@test "huffman: show of a damaged table is a CRC error" {
	run -0 gtool huffman build -o t.ght "$SAMPLES/grads.f32"
	local n at
	n=$(stat -c %s t.ght)
	for at in 20 $((n / 2)) $((n - 5)) $((n - 1)); do
		cp t.ght bad.ght
		b=$(od -An -tu1 -j "$at" -N1 bad.ght | tr -d ' ')
		# shellcheck disable=SC2059
		printf "$(printf '\\%03o' $(( (b ^ 4) & 255 )))" | dd of=bad.ght bs=1 seek="$at" conv=notrunc status=none
		run -1 --separate-stderr gtool huffman show bad.ght
		[ "$stderr" = "gtool huffman: bad.ght: CRC mismatch" ] || { echo "at $at: $stderr"; return 1; }
		[ -z "$output" ]
	done
	head -c $((n - 3)) t.ght > cut.ght
	run -1 --separate-stderr gtool huffman show cut.ght
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "gtool huffman: cut.ght: "* ]]
	# and so is compressing with it
	run -1 --separate-stderr gtool compress --table bad.ght "$SAMPLES/grads.f32" -o x.gtz
	[ "$stderr" = "gtool compress: bad.ght: CRC mismatch" ]
	[ ! -e x.gtz ]
}

@test "huffman: show of a file that is not a table, or is missing" {
	run -1 --separate-stderr gtool huffman show "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool huffman: $SAMPLES/grads.f32: not a Huffman table file" ]
	run -1 --separate-stderr gtool huffman show missing.ght
	[ "$stderr" = "gtool huffman: missing.ght: No such file or directory" ]
	run -1 --separate-stderr gtool huffman apply --table missing.ght "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool huffman: missing.ght: No such file or directory" ]
	[ -z "$output" ]
}

@test "huffman: build of mixed dtypes needs -d" {
	run -1 --separate-stderr gtool huffman build -o x.ght "$SAMPLES/dtypes.h5"
	[ "$stderr" = "gtool huffman: $SAMPLES/dtypes.h5: /f16 is f16 where the table is for bf16: select one dtype with -d" ]
	[ ! -e x.ght ]
	run -0 --separate-stderr gtool huffman build -d /f16 -o f16.ght "$SAMPLES/dtypes.h5"
	show_csv f16.ght
	run -0 check_code 12
	# f16: 5 exponent bits, symbols 0..35
	run -0 awk -F, 'NR > 1 && ($1 < 0 || $1 > 35) { bad++ } END { exit bad != 0 }' show.csv
	grep -q '^32,-,+0,' show.csv
	run -1 --separate-stderr gtool huffman apply --table f16.ght "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool huffman: $SAMPLES/grads.f32: grads is f32 where the table is for f16: select one dtype with -d" ]
}

@test "huffman: dataset selection errors" {
	run -1 --separate-stderr gtool huffman build -d /labels -o x.ght "$SAMPLES/dtypes.h5"
	[ "$stderr" = "gtool huffman: $SAMPLES/dtypes.h5: dataset /labels is int64, not floating point" ]
	run -1 --separate-stderr gtool huffman build -d /nope -o x.ght "$SAMPLES/dtypes.h5"
	[ "$stderr" = "gtool huffman: $SAMPLES/dtypes.h5: dataset /nope not found" ]
	[ ! -e x.ght ]
}

@test "huffman: an existing table is refused without -f" {
	echo old > t.ght
	run -1 --separate-stderr gtool huffman build -o t.ght "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool huffman: t.ght exists; use -f to overwrite" ]
	[ "$(cat t.ght)" = old ]
	run -0 gtool huffman build -f -o t.ght "$SAMPLES/grads.f32"
	show_csv t.ght
}

@test "huffman: usage errors exit 2" {
	run -2 --separate-stderr gtool huffman frob x
	[ "${stderr_lines[0]}" = "gtool huffman: unknown action 'frob': expected build, show, apply or replay" ]
	[ "${stderr_lines[1]}" = "Try \`gtool huffman --help' or \`gtool huffman --usage' for more information." ]
	run -2 --separate-stderr gtool huffman build "$SAMPLES/grads.f32"
	[ "${stderr_lines[0]}" = "gtool huffman: build needs -o FILE" ]
	run -2 --separate-stderr gtool huffman apply "$SAMPLES/grads.f32"
	[ "${stderr_lines[0]}" = "gtool huffman: apply needs --table FILE" ]
	run -2 --separate-stderr gtool huffman show a.ght b.ght
	[ "${stderr_lines[0]}" = "gtool huffman: show takes one table file" ]
	run -2 --separate-stderr gtool huffman build --maxlen 16 -o x.ght "$SAMPLES/grads.f32"
	[ "${stderr_lines[0]}" = "gtool huffman: invalid maxlen '16': expected 1-15" ]
	run -2 --separate-stderr gtool huffman build --method fast -o x.ght "$SAMPLES/grads.f32"
	[ "${stderr_lines[0]}" = "gtool huffman: invalid method 'fast': expected best, gcomp or pm" ]
	run -2 --separate-stderr gtool huffman
	[[ ${stderr_lines[0]} == "Usage: gtool huffman "* ]]
	[ ! -e x.ght ]
}

# apply_mean TABLE STEP FILE - the exponent bits per value of STEP's
# gradients with TABLE, from `huffman apply`'s per-tensor rows (awk)
apply_mean() {
	gtool huffman apply --table "$1" -d "/$2/grad/*" --format tsv "$3" |
		awk -F'\t' 'NR > 1 { b += $3 * $4; n += $3 } END { printf "%.12g\n", b / n }'
}

@test "huffman replay: static and dynamic bits are what apply measures with those tables" {
	run -0 --separate-stderr gtool huffman replay --refresh 50 --format tsv "$SAMPLES/cnn_adam.h5"
	[ -z "$stderr" ]
	printf '%s\n' "$output" > replay.tsv
	[ "${lines[0]}" = "$(printf 'step\tvalues\tstatic_bits_per_value\tdynamic_bits_per_value\town_bits_per_value\tentropy_bits_per_value\tstatic_pct\tdynamic_pct\trefreshed')" ]
	# steps 1, 10, 50, 200, 500: refreshed at 50, 100 and 500 from the step before
	run -0 cut -f1,9 replay.tsv
	[ "$(tr '\n\t' ' :' <<< "$output")" = "step:refreshed 1:initial 10:no 50:yes 200:yes 500:yes mean: " ]
	gtool huffman build -d '/step_000001/grad/*' -o s1.ght "$SAMPLES/cnn_adam.h5"
	gtool huffman build -d '/step_000010/grad/*' -o s10.ght "$SAMPLES/cnn_adam.h5"
	gtool huffman build -d '/step_000200/grad/*' -o s200.ght "$SAMPLES/cnn_adam.h5"
	want_static=$(apply_mean s1.ght step_000200 "$SAMPLES/cnn_adam.h5")
	want_dyn50=$(apply_mean s10.ght step_000050 "$SAMPLES/cnn_adam.h5")
	want_dyn500=$(apply_mean s200.ght step_000500 "$SAMPLES/cnn_adam.h5")
	run -0 awk -F'\t' -v s="$want_static" -v d50="$want_dyn50" -v d500="$want_dyn500" '
	function rel(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-9 * (a < 0 ? -a : a) }
	$1 == 200 && !rel($3, s) { print "static " $3 " want " s; bad++ }
	$1 == 50 && !rel($4, d50) { print "dynamic@50 " $4 " want " d50; bad++ }
	$1 == 500 && !rel($4, d500) { print "dynamic@500 " $4 " want " d500; bad++ }
	$1 ~ /^[0-9]+$/ && !rel($7, 100 * $3 / 32) { print "static_pct " $0; bad++ }
	$1 ~ /^[0-9]+$/ && $5 > $3 + 1e-12 { print "own above static " $0; bad++ }
	$1 ~ /^[0-9]+$/ && $6 > $5 + 1e-12 { print "entropy above own " $0; bad++ }
	END { exit bad != 0 }' replay.tsv
}

@test "huffman replay: the mean row weighs each step by its values" {
	gtool huffman replay --refresh 100 --format tsv "$SAMPLES/mlp_sgd.h5" > replay.tsv
	run -0 awk -F'\t' '
	function rel(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (a < 0 ? -a : a) }
	NR == 1 { next }
	$1 != "mean" { n += $2; for (c = 3; c <= 6; c++) s[c] += $2 * $c; next }
	{
		if ($2 != n) { print "values " $2 " want " n; bad++ }
		for (c = 3; c <= 6; c++) if (!rel($c, s[c] / n)) { print "column " c ": " $c " want " s[c] / n; bad++ }
		rows++
	}
	END { exit bad || rows != 1 }' replay.tsv
}

@test "huffman replay: a refresh beyond the trace keeps the static table; --table replaces it" {
	run -0 gtool huffman replay --refresh 100000 --format tsv "$SAMPLES/mlp_sgd.h5"
	run -0 awk -F'\t' 'NR > 1 && ($3 != $4 || ($9 != "no" && $9 != "initial" && $1 != "mean"))' <<< "$output"
	[ -z "$output" ]
	gtool huffman build -o all.ght "$SAMPLES/lstm_adamw.h5"
	want=$(apply_mean all.ght step_000025 "$SAMPLES/lstm_adamw.h5")
	run -0 gtool huffman replay --table all.ght --format tsv "$SAMPLES/lstm_adamw.h5"
	run -0 awk -F'\t' -v w="$want" '$1 == 25 { d = $3 - w; if (d < 0) d = -d; exit d > 1e-9 * w }' <<< "$output"
	run -0 gtool huffman replay --format json "$SAMPLES/lstm_adamw.h5"
	run -0 jq -r 'length, .[-1].step, .[0].refreshed' <<< "$output"
	[ "${lines[*]}" = "5 null initial" ]
}

@test "huffman replay: errors" {
	run -2 --separate-stderr gtool huffman replay "$SAMPLES/mlp_sgd.h5" "$SAMPLES/cnn_adam.h5"
	[ "${stderr_lines[0]}" = "gtool huffman: replay takes one trace" ]
	run -2 --separate-stderr gtool huffman replay --refresh 0 "$SAMPLES/mlp_sgd.h5"
	[ "${stderr_lines[0]}" = "gtool huffman: invalid refresh '0': expected a number of steps >= 1" ]
	run -1 --separate-stderr gtool huffman replay "$SAMPLES/grads.npy"
	[ "$stderr" = "gtool huffman: $SAMPLES/grads.npy: not a trace (no step groups with gradients)" ]
	[ -z "$output" ]
	run -1 --separate-stderr gtool huffman replay --table nope.ght "$SAMPLES/mlp_sgd.h5"
	[[ $stderr == "gtool huffman: nope.ght: "* ]]
	[ -z "$output" ]
}
