#!/usr/bin/env bats
# breakeven.bats - `gtool breakeven`: the break-even model's Eq. 4 against awk, the
# formats, and the errors

bats_require_minimum_version 1.5.0

load helpers

BENCH=$FIXTURES/bench.json

@test "breakeven: k_min and speedup are Eq. 4 and its speed-up, by awk" {
	speeds > speeds.tsv
	[ "$(wc -l < speeds.tsv)" -eq 8 ]
	run -0 --separate-stderr gtool breakeven --from "$BENCH" --bandwidth 1G,10G,100M --format tsv
	[ -z "$stderr" ]
	printf '%s\n' "$output" > got.tsv
	[ "$(wc -l < got.tsv)" -eq $((1 + 3 * 8)) ]
	run -0 awk -F'\t' '
	function rel(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (a < 0 ? -a : a) }
	FILENAME == ARGV[1] { r[$1 SUBSEP $2] = $3; tc[$1 SUBSEP $2] = $4 * 1e6; td[$1 SUBSEP $2] = $5 * 1e6; next }
	FNR == 1 { next }
	{
		k = $3 SUBSEP $4; B = $2 / 8
		cost = B * (1 / tc[k] + 1 / td[k])
		kmin = cost >= 1 ? "inf" : 1 / (1 - cost)
		sp = (1 / B) / (1 / tc[k] + r[k] / B + 1 / td[k])
		if (kmin == "inf" ? $9 != "inf" : !rel($9, kmin)) { print "k_min " $0 " want " kmin; bad++ }
		if (!rel($10, sp)) { print "speedup " $0 " want " sp; bad++ }
		if ($11 != (sp > 1 ? "faster" : "slower")) { print "verdict " $0; bad++ }
		if (!rel($6, 1 / r[k])) { print "cf " $0; bad++ }
		n++
	}
	END { exit bad || n != 24 }' speeds.tsv got.tsv
}

@test "breakeven: on this VM's numbers huffexp pays off at 1G, nothing at 10G" {
	run -0 gtool breakeven --from "$BENCH" --bandwidth 1G,10G --format csv
	[[ $output == *$'\n'"1G,1000000000,\"huffexp:maxlen=12,method=best\",1,"*",faster"* ]]
	[[ $output == *$'\n'"1G,1000000000,zstd:level=3,1,"*",slower"* ]]
	run -0 gtool breakeven --from "$BENCH" --bandwidth 1G,10G --format tsv
	run -0 awk -F'\t' '$1 == "10G" && $11 != "slower"' <<< "$output"
	[ -z "$output" ]
}

@test "breakeven: csv, tsv and json carry the same rows; json parses" {
	run -0 gtool breakeven --from "$BENCH" --format csv
	[ "${lines[0]}" = "link,link_bps,codec,threads,ratio,cf,compress_mbps,decompress_mbps,k_min,speedup,verdict" ]
	[ "${#lines[@]}" -eq 9 ]
	run -0 gtool breakeven --from "$BENCH" --format tsv
	[ "${lines[0]}" = "$(printf 'link\tlink_bps\tcodec\tthreads\tratio\tcf\tcompress_mbps\tdecompress_mbps\tk_min\tspeedup\tverdict')" ]
	gtool breakeven --from "$BENCH" --bandwidth 10G,56G --format json > out.json
	run -0 jq -r 'length, (.[0] | keys_unsorted | join(",")), ([.[] | select(.k_min == null)] | length)' out.json
	[ "${lines[0]}" -eq 16 ]
	[ "${lines[1]}" = "link,link_bps,codec,threads,ratio,cf,compress_mbps,decompress_mbps,k_min,speedup,verdict" ]
	# no factor pays for these codecs on 10G and 56G but raw's copy at 10G
	[ "${lines[2]}" -eq 15 ]
	run -0 gtool breakeven --from "$BENCH"
	[[ ${lines[0]} == "link  link_bps  codec "* ]]
}

@test "breakeven: without --from it needs DATA to measure, and measures what gtool bench measures" {
	run -2 --separate-stderr gtool breakeven --bandwidth 10G
	[ "${stderr_lines[0]}" = "gtool breakeven: give either --from BENCH.json or a DATA file to measure" ]
	[ -z "$output" ]
	run -2 --separate-stderr gtool breakeven -c zstd --from "$BENCH"
	[[ ${stderr_lines[0]} == *"with --from the file has them" ]]
	# measured now: one row per codec and link, with the ratio bench reports
	run -0 --separate-stderr gtool breakeven -c huffexp,zstd:level=1 --repeat 1 \
		--bandwidth 1G,10G --format csv "$SAMPLES/grads.f32"
	[ "${#lines[@]}" -eq 5 ]
	got=$(printf '%s\n' "$output" | awk -F, '$1 == "1G" && $3 == "huffexp" { print $5 }')
	run -0 --separate-stderr gtool bench -c huffexp --repeat 1 --format json "$SAMPLES/grads.f32"
	want=$(printf '%s\n' "$output" | jq -r '.[0].ratio')
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 1e-12 && d > -1e-12) }'
	run -1 --separate-stderr gtool breakeven missing.f32
	[[ $stderr == *"missing.f32"* ]]
}

@test "breakeven: bad options are usage errors" {
	run -2 --separate-stderr gtool breakeven --from "$BENCH" --bandwidth 10X
	[ "${stderr_lines[0]}" = "gtool breakeven: invalid bandwidth list '10X': expected rates in bits/s such as 10G,56G,100G" ]
	run -2 --separate-stderr gtool breakeven --from "$BENCH" --bandwidth 10G,,1G
	[[ ${stderr_lines[0]} == "gtool breakeven: invalid bandwidth list '10G,,1G'"* ]]
	run -2 --separate-stderr gtool breakeven --from "$BENCH" --bandwidth -1G
	[[ ${stderr_lines[0]} == "gtool breakeven: invalid bandwidth list '-1G'"* ]]
	run -2 --separate-stderr gtool breakeven --from "$BENCH" extra
	[ "${stderr_lines[0]}" = "gtool breakeven: give either --from BENCH.json or a DATA file to measure" ]
	run -2 --separate-stderr gtool breakeven a.f32 b.f32
	[ "${stderr_lines[0]}" = "gtool breakeven: one data file at a time" ]
	run -2 --separate-stderr gtool breakeven --from "$BENCH" --format xml
	[ "${stderr_lines[0]}" = "gtool breakeven: invalid format 'xml': expected table, csv, tsv or json" ]
}

@test "breakeven: unreadable or malformed bench files are data errors" {
	run -1 --separate-stderr gtool breakeven --from nope.json
	[ "$stderr" = "gtool breakeven: nope.json: No such file or directory" ]
	[ -z "$output" ]
	printf '[{' > cut.json
	run -1 --separate-stderr gtool breakeven --from cut.json
	[ "$stderr" = "gtool breakeven: cut.json: line 1 column 2: string or '}' expected near end of file" ]
	jq '.[0].ratio = "high"' "$BENCH" > str.json
	run -1 --separate-stderr gtool breakeven --from str.json
	[ "$stderr" = 'gtool breakeven: str.json: entry 1: "ratio" is not a number' ]
	jq '.[3].mbps_median = 0' "$BENCH" > zero.json
	run -1 --separate-stderr gtool breakeven --from zero.json
	[ "$stderr" = 'gtool breakeven: zero.json: entry 4: "mbps_median" is not a positive number' ]
	jq 'map(select(.direction == "compress"))' "$BENCH" > half.json
	run -1 --separate-stderr gtool breakeven --from half.json
	[ "$stderr" = "gtool breakeven: half.json: raw with 1 thread has no decompress entry" ]
	jq '. + [.[0]]' "$BENCH" > twice.json
	run -1 --separate-stderr gtool breakeven --from twice.json
	[ "$stderr" = "gtool breakeven: twice.json: raw with 1 thread is measured more than once" ]
	echo '[]' > empty.json
	run -1 --separate-stderr gtool breakeven --from empty.json
	[ "$stderr" = "gtool breakeven: empty.json: no bench results" ]
	[ -z "$output" ]
}
