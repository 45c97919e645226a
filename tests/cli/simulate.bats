#!/usr/bin/env bats
# simulate.bats - `gtool simulate`: the AQGB paper's findings, Eq. 2 over
# the per-worker rows, determinism, formats, block sizes from a trace, errors

bats_require_minimum_version 1.5.0

load helpers

@test "simulate: AQGB iterates like 4 bit, uses the links like 32 bit, has the best ROW" {
	run -0 --separate-stderr gtool simulate --duration 40 --format csv
	[ -z "$stderr" ]
	[ "${lines[0]}" = "scheme,workers,link,rounds,t_wait_norm,row,utilization_pct,bits_per_value" ]
	[ "${#lines[@]}" -eq 4 ]
	printf '%s\n' "$output" > sim.csv
	run -0 awk -F, '
	NR > 1 { rounds[$1] = $4; wait[$1] = $5; row[$1] = $6; util[$1] = $7; bits[$1] = $8 }
	END {
		if (rounds["aqgb"] < 0.9 * rounds["4bit"]) { print "aqgb rounds"; bad++ }
		if (rounds["aqgb"] < 2 * rounds["32bit"]) { print "aqgb vs 32bit rounds"; bad++ }
		if (!(util["4bit"] < util["aqgb"] && util["aqgb"] < util["32bit"])) { print "utilization"; bad++ }
		if (2 * util["4bit"] > util["aqgb"]) { print "4bit above half of aqgb"; bad++ }
		if (!(row["aqgb"] > row["4bit"] && row["aqgb"] > row["32bit"])) { print "row"; bad++ }
		if (wait["aqgb"] > 1.5 * wait["4bit"] || 5 * wait["aqgb"] > wait["32bit"]) { print "t_wait"; bad++ }
		if (bits["32bit"] != 32 || bits["4bit"] != 4 || !(bits["aqgb"] > 4)) { print "bits"; bad++ }
		exit bad != 0
	}' sim.csv
}

@test "simulate: the group's ROW is min overlap / max wait of its workers (Eq. 2)" {
	for s in 32bit aqgb; do
		gtool simulate --scheme "$s" --workers 6 --duration 25 --timing straggler --format csv > group.csv
		gtool simulate --scheme "$s" --workers 6 --duration 25 --timing straggler --per-worker --format csv > workers.csv
		run -0 head -1 workers.csv
		[ "$output" = "scheme,worker,rounds,t_comp_s,t_wait_s,t_overlap_s,row,t_wait_norm,bits_per_value" ]
		[ "$(wc -l < workers.csv)" -eq 7 ]
		run -0 awk -F, '
		function rel(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (a < 0 ? -a : a) }
		FILENAME == ARGV[1] { if (FNR == 2) { rounds = $4; wait = $5; row = $6 } next }
		FNR == 1 { next }
		{
			if (n++ == 0 || $3 < minr) minr = $3
			if (n == 1 || $6 < mino) mino = $6
			if ($5 > maxw) maxw = $5
			sumw += $8
			if (!rel($7, $6 / $5) || !rel($8, $5 / $4)) { print "worker " $0; bad++ }
		}
		END {
			if (minr != rounds) { print "rounds " minr " " rounds; bad++ }
			if (!rel(row, mino / maxw)) { print "row " row " want " mino / maxw; bad++ }
			if (!rel(wait, sumw / n)) { print "t_wait_norm " wait " want " sumw / n; bad++ }
			exit bad != 0
		}' group.csv workers.csv
	done
}

@test "simulate: the same seed gives the same output, another seed another" {
	gtool simulate --duration 20 --timing straggler --seed 5 --format csv > a.csv
	gtool simulate --duration 20 --timing straggler --seed 5 --format csv > b.csv
	gtool simulate --duration 20 --timing straggler --seed 6 --format csv > c.csv
	run -0 cmp a.csv b.csv
	run -1 cmp -s a.csv c.csv
}

@test "simulate: json and tsv formats" {
	gtool simulate --duration 10 --format json > out.json
	run -0 jq -r 'length, (.[0] | keys_unsorted | join(",")), ([.[].scheme] | join(","))' out.json
	[ "${lines[0]}" -eq 3 ]
	[ "${lines[1]}" = "scheme,workers,link,rounds,t_wait_norm,row,utilization_pct,bits_per_value" ]
	[ "${lines[2]}" = "32bit,4bit,aqgb" ]
	run -0 gtool simulate --duration 10 --scheme 8bit --format tsv
	[ "${lines[0]}" = "$(printf 'scheme\tworkers\tlink\trounds\tt_wait_norm\trow\tutilization_pct\tbits_per_value')" ]
	[[ ${lines[1]} == $'8bit\t16\t2.5G\t'* ]]
	run -0 gtool simulate --duration 10 --scheme aqgb
	[[ ${lines[0]} == "scheme  workers  link  rounds "* ]]
}

@test "simulate: --bandwidth takes 100M, 2.5G and 10G; faster links, more 32-bit rounds" {
	local r prev=0 b
	for b in 100M 2.5G 10G; do
		run -0 gtool simulate --scheme 32bit --duration 30 --bandwidth "$b" --format csv
		[[ ${lines[1]} == "32bit,16,$b,"* ]]
		r=$(cut -d, -f4 <<< "${lines[1]}")
		[ "$r" -gt "$prev" ]
		prev=$r
	done
}

@test "simulate: block sizes from a trace, whole or merged" {
	run -0 --separate-stderr gtool simulate --blocks-from "$SAMPLES/mlp_sgd.h5" --duration 30 --format csv
	[ -z "$stderr" ]
	# 17 226 parameters: the links are idle, the compute sets the pace
	run -0 awk -F, 'NR > 1 && ($4 < 30 / (1.1 * 1.5) - 2 || $4 > 30 / (0.9 * 1.5) || $7 > 1)' <<< "$output"
	[ -z "$output" ]
	run -0 gtool simulate --blocks-from "$SAMPLES/lstm_adamw.h5" --blocks 2 --bandwidth 100M --duration 20 --format csv
	[ "${#lines[@]}" -eq 4 ]
}

@test "simulate: usage errors" {
	run -2 --separate-stderr gtool simulate --scheme 33bit
	[ "${stderr_lines[0]}" = "gtool simulate: invalid scheme list '33bit': expected aqgb or NNbit (1-32), comma-separated" ]
	run -2 --separate-stderr gtool simulate --scheme aqgb,
	[[ ${stderr_lines[0]} == "gtool simulate: invalid scheme list 'aqgb,'"* ]]
	run -2 --separate-stderr gtool simulate --bandwidth 2.5X
	[ "${stderr_lines[0]}" = "gtool simulate: invalid bandwidth '2.5X': expected bits/s such as 2.5G, 10G or 100M" ]
	run -2 --separate-stderr gtool simulate --workers 1
	[ "${stderr_lines[0]}" = "gtool simulate: invalid workers '1': expected 2-256" ]
	run -2 --separate-stderr gtool simulate --timing normal
	[ "${stderr_lines[0]}" = "gtool simulate: invalid timing 'normal': expected uniform or straggler" ]
	run -2 --separate-stderr gtool simulate --qbar 0
	[ "${stderr_lines[0]}" = "gtool simulate: invalid qbar '0': expected 0.001 to 1" ]
	run -2 --separate-stderr gtool simulate --blocks 3
	[ "${stderr_lines[0]}" = "gtool simulate: --blocks needs --blocks-from TRACE" ]
	run -2 --separate-stderr gtool simulate extra
	[ "${stderr_lines[0]}" = "gtool simulate: unexpected argument 'extra'" ]
	[ -z "$output" ]
}

@test "simulate: a trace that cannot be read is a data error" {
	run -1 --separate-stderr gtool simulate --blocks-from nope.h5
	[ "$stderr" = "gtool simulate: nope.h5: No such file or directory" ]
	[ -z "$output" ]
	make_npy empty.npy '<f4' False '(0,)'
	run -1 --separate-stderr gtool simulate --blocks-from empty.npy
	[ "$stderr" = "gtool simulate: empty.npy: the gradients hold no values" ]
	run -1 --separate-stderr gtool simulate --chunk 1 --duration 1
	[ "$stderr" = "gtool simulate: 32bit: cannot simulate this setting: too many chunks per round (raise --chunk)" ]
	[ -z "$output" ]
}
