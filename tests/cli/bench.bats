#!/usr/bin/env bats
# bench.bats - `gtool bench`: the JSON schema breakeven reads, CSV, errors

load helpers

HEADER="codec,options,spec,threads,direction,repeat,bytes,ratio,mbps_median,mbps_min,mbps_max,peak_rss_mib"

@test "bench: CSV, one row per spec, thread count and direction" {
	run -0 --separate-stderr gtool bench -c huffexp,zstd:level=3 -T 1,2 --repeat 3 --format csv "$SAMPLES/grads.f32"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "$HEADER" ]
	[ "${#lines[@]}" -eq 9 ]
	[[ ${lines[1]} == huffexp,,huffexp,1,compress,3,32768,* ]]
	[[ ${lines[2]} == huffexp,,huffexp,1,decompress,3,32768,* ]]
	[[ ${lines[3]} == huffexp,,huffexp,2,compress,3,32768,* ]]
	[[ ${lines[8]} == zstd,level=3,zstd:level=3,2,decompress,3,32768,* ]]
	# min <= median <= max, and all positive
	printf '%s\n' "${lines[@]}" | awk -F, 'NR > 1 && !($10 > 0 && $10 <= $9 && $9 <= $11) { print; bad = 1 } END { exit bad }'
}

@test "bench: JSON has exactly the schema gtool breakeven reads" {
	run -0 --separate-stderr gtool bench -c zstd:level=3,huffexp -T 1 --repeat 2 --format json "$SAMPLES/mlp_sgd_plain.h5"
	printf '%s\n' "${lines[@]}" > b.json
	run -0 python3 - <<'PY'
import json
d = json.load(open("b.json"))
keys = ["codec", "options", "spec", "threads", "direction", "repeat", "bytes",
        "ratio", "mbps_median", "mbps_min", "mbps_max", "peak_rss_mib"]
assert len(d) == 4, d
for r in d:
    assert list(r) == keys, list(r)
    assert isinstance(r["threads"], int) and isinstance(r["repeat"], int) and isinstance(r["bytes"], int)
    assert r["mbps_min"] <= r["mbps_median"] <= r["mbps_max"] and r["peak_rss_mib"] > 0
assert d[0]["codec"] == "zstd" and d[0]["options"] == "level=3" and d[0]["spec"] == "zstd:level=3"
assert [r["direction"] for r in d] == ["compress", "decompress"] * 2
assert d[0]["ratio"] == d[1]["ratio"] and 0 < d[0]["ratio"] < 1
print("ok")
PY
	[ "$output" = ok ]
}

@test "bench: ratio is the coded bytes of the run; gcomp codes a trace's gradients with their context" {
	run -0 gtool bench -c gcomp,huffexp --repeat 1 --format csv "$SAMPLES/mlp_sgd.h5"
	local g h
	g=$(printf '%s\n' "${lines[@]}" | awk -F, '$3 == "gcomp" { print $8; exit }')
	h=$(printf '%s\n' "${lines[@]}" | awk -F, '$3 == "huffexp" { print $8; exit }')
	awk -v g="$g" -v h="$h" 'BEGIN { exit !(g > 0 && g < h && h < 1) }'
}

@test "bench: TSV and table" {
	run -0 gtool bench -c raw --repeat 1 --format tsv "$SAMPLES/grads.npy"
	[ "${lines[0]}" = "$(echo "$HEADER" | tr , '\t')" ]
	[[ ${lines[1]} == "raw		raw	1	compress	1	32768	1	"* ]]
	run -0 gtool bench -c raw --repeat 1 "$SAMPLES/grads.npy"
	[[ ${lines[0]} == "codec "*"peak_rss_mib" ]]
}

@test "bench: peak_rss_mib is each spec's own peak: a small codec after a big one reports less" {
	# zstd -19 holds tens of MiB of tables; raw holds nothing beyond the data
	run -0 gtool bench -c zstd:level=19,raw --repeat 1 --format csv "$SAMPLES/lstm_adamw.h5"
	printf '%s\n' "${lines[@]}" > after.csv
	run -0 gtool bench -c raw --repeat 1 --format csv "$SAMPLES/lstm_adamw.h5"
	printf '%s\n' "${lines[@]}" > alone.csv
	local big small alone
	big=$(awk -F, '$3 == "zstd:level=19" && $5 == "compress" { print $12 }' after.csv)
	small=$(awk -F, '$3 == "raw" && $5 == "compress" { print $12 }' after.csv)
	alone=$(awk -F, '$3 == "raw" && $5 == "compress" { print $12 }' alone.csv)
	echo "zstd -19: $big MiB, raw after it: $small MiB, raw alone: $alone MiB"
	# both rows of a spec carry the same peak
	[ "$(awk -F, '$3 == "raw" { print $12 }' after.csv | sort -u | wc -l)" -eq 1 ]
	awk -v b="$big" -v s="$small" -v a="$alone" 'BEGIN { exit !(b > s + 20 && s < a + 4 && s > 0) }'
}

@test "bench: errors" {
	run -2 --separate-stderr gtool bench -c nosuch "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool bench: unknown codec 'nosuch'; see 'gtool compress --list-codecs'" ]
	run -2 --separate-stderr gtool bench -T 2000 "$SAMPLES/grads.f32"
	[[ $stderr == *"invalid thread count '2000'"* ]]
	run -2 --separate-stderr gtool bench --repeat 0 "$SAMPLES/grads.f32"
	[[ $stderr == *"invalid repeat count '0'"* ]]
	run -2 --separate-stderr gtool bench --format markdown "$SAMPLES/grads.f32"
	run -2 --separate-stderr gtool bench
	run -1 --separate-stderr gtool bench -c gcomp "$SAMPLES/grads.f32"
	[ "$stderr" = "gtool bench: $SAMPLES/grads.f32: gcomp needs the optimizer context of a trace (modes single-quant and zero-prune need none)" ]
	[ -z "$output" ]
	run -1 --separate-stderr gtool bench nothere.h5
	[[ $stderr == "gtool bench: nothere.h5: "* ]]
}
