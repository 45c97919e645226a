#!/usr/bin/env bats
# allreduce-model.bats - `gtool allreduce-model`: GComp Figure 10's ring
# model against awk, the model size from a trace, the formats, the errors

bats_require_minimum_version 1.5.0

load helpers

BENCH=$FIXTURES/bench.json

@test "allreduce-model: every row is the ring formula of the man page, by awk" {
	speeds > speeds.tsv
	run -0 --separate-stderr gtool allreduce-model --from "$BENCH" --bytes 100M \
		--workers 4,16,128 --bandwidth 10G,1G --chunk 1M --latency 2e-5 --format tsv
	[ -z "$stderr" ]
	printf '%s\n' "$output" > got.tsv
	[ "$(wc -l < got.tsv)" -eq $((1 + 3 * 2 * 8)) ]
	run -0 awk -F'\t' '
	function rel(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-12 * (a < 0 ? -a : a) }
	function max(a, b) { return a > b ? a : b }
	FILENAME == ARGV[1] { r[$1 SUBSEP $2] = $3; tc[$1 SUBSEP $2] = $4 * 1e6; td[$1 SUBSEP $2] = $5 * 1e6; next }
	FNR == 1 { next }
	{
		k = $4 SUBSEP $5; N = $1; B = $3 / 8; M = 104857600; a = 2e-5
		P = M / N; K = int(P / 1048576); if (K * 1048576 < P) K++; if (K < 1) K = 1
		c = P / (K * tc[k]); x = a + r[k] * P / (K * B); d = P / (K * td[k])
		tn = 2 * (N - 1) * (a + P / B)
		tc_ = 2 * (N - 1) * (c + x + d + (K - 1) * max(max(c, x), d))
		if ($7 != M || $8 != K) { print "size " $0; bad++ }
		if (!rel($9, tn * 1e3) || !rel($10, tc_ * 1e3)) { print "times " $0; bad++ }
		if (!rel($11, tc_ / tn)) { print "normalized " $0 " want " tc_ / tn; bad++ }
		n++
	}
	END { exit bad || n != 48 }' speeds.tsv got.tsv
}

@test "allreduce-model: the model size is the first step's gradients of a trace" {
	# 17 226 parameters in f32 (samples/README.md), and the sum of ls's bytes
	run -0 gtool ls --format tsv "$SAMPLES/mlp_sgd.h5"
	want=$(awk -F'\t' '$2 ~ /^\/step_000001\/grad\// { s += $6 } END { print s }' <<< "$output")
	[ "$want" -eq $((17226 * 4)) ]
	run -0 --separate-stderr gtool allreduce-model --from "$BENCH" --workers 4 --format tsv \
		"$SAMPLES/mlp_sgd.h5"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 9 ]
	run -0 awk -F'\t' -v want="$want" 'NR > 1 && $7 != want' <<< "$output"
	[ -z "$output" ]
	# a plain tensor file counts all its floats
	run -0 gtool allreduce-model --from "$BENCH" --workers 2 --format csv "$SAMPLES/grads.npy"
	[[ ${lines[1]} == 2,10G,10000000000,raw,1,1,32768,1,* ]]
}

@test "allreduce-model: GComp's finding: zstd and zlib slow the allreduce at 10G" {
	run -0 gtool allreduce-model --from "$BENCH" --bytes 100M --workers 4 --format tsv
	printf '%s\n' "$output" > got.tsv
	# the rows exist: 3 zstd levels and 1 zlib in the fixture, at 10G
	run -0 awk -F'\t' '$2 == "10G" && $4 ~ /^zstd:/ { z++ } $2 == "10G" && $4 ~ /^zlib:/ { l++ }
		END { print z + 0, l + 0 }' got.tsv
	[ "$output" = "3 1" ]
	run -0 awk -F'\t' '$4 ~ /^(zstd|zlib)/ && $11 <= 1' got.tsv
	[ -z "$output" ]
}

@test "allreduce-model: the table states the model; json has it as a field" {
	run -0 gtool allreduce-model --from "$BENCH" --bytes 1M --workers 4
	[ "${lines[0]}" = "# T_none = 2(N-1)(a + P/B); T_codec = 2(N-1)(c + x + d + (K-1) max(c,x,d)), P = M/N, K = ceil(P/chunk), c = P/(K Tc), x = a + ratio P/(K B), d = P/(K Td); normalized = T_codec/T_none" ]
	[[ ${lines[1]} == "workers  link  link_bps  codec "* ]]
	gtool allreduce-model --from "$BENCH" --bytes 1M --workers 4,8 --format json > out.json
	run -0 jq -r 'length, (.[0] | keys_unsorted | join(",")), .[0].model' out.json
	[ "${lines[0]}" -eq 16 ]
	[ "${lines[1]}" = "workers,link,link_bps,codec,threads,ratio,bytes,chunks,t_none_ms,t_codec_ms,normalized,model" ]
	[[ ${lines[2]} == "T_none = 2(N-1)(a + P/B); "* ]]
	run -0 gtool allreduce-model --from "$BENCH" --bytes 1M --workers 4 --format csv
	[ "${lines[0]}" = "workers,link,link_bps,codec,threads,ratio,bytes,chunks,t_none_ms,t_codec_ms,normalized" ]
}

@test "allreduce-model: usage errors" {
	run -2 --separate-stderr gtool allreduce-model --bytes 1M
	[ "${stderr_lines[0]}" = "gtool allreduce-model: give --from BENCH.json, or a trace FILE to measure the codecs on" ]
	run -2 --separate-stderr gtool allreduce-model --from "$BENCH"
	[ "${stderr_lines[0]}" = "gtool allreduce-model: give either a trace FILE or --bytes N" ]
	run -2 --separate-stderr gtool allreduce-model --from "$BENCH" --bytes 1M "$SAMPLES/grads.npy"
	[ "${stderr_lines[0]}" = "gtool allreduce-model: give either a trace FILE or --bytes N" ]
	run -2 --separate-stderr gtool allreduce-model --from "$BENCH" --bytes 1M --workers 1
	[ "${stderr_lines[0]}" = "gtool allreduce-model: invalid workers '1': expected numbers 2-65536 such as 4,16,128" ]
	run -2 --separate-stderr gtool allreduce-model --from "$BENCH" --bytes 0
	[ "${stderr_lines[0]}" = "gtool allreduce-model: invalid bytes '0': expected 1 to 1P" ]
	run -2 --separate-stderr gtool allreduce-model --from "$BENCH" --bytes 1M --latency -1
	[ "${stderr_lines[0]}" = "gtool allreduce-model: invalid latency '-1': expected 0 to 10 seconds" ]
	[ -z "$output" ]
}

@test "allreduce-model: unreadable inputs are data errors" {
	run -1 --separate-stderr gtool allreduce-model --from "$BENCH" nope.h5
	[[ $stderr == "gtool allreduce-model: nope.h5: "* ]]
	[ -z "$output" ]
	run -1 --separate-stderr gtool allreduce-model --from nope.json --bytes 1M
	[ "$stderr" = "gtool allreduce-model: nope.json: No such file or directory" ]
	make_npy empty.npy '<f4' False '(0,)'
	run -1 --separate-stderr gtool allreduce-model --from "$BENCH" empty.npy
	[ "$stderr" = "gtool allreduce-model: empty.npy: the gradients hold no values" ]
	printf '\000\000\000' > empty.f32
	run -1 --separate-stderr gtool allreduce-model --from "$BENCH" empty.f32
	[[ $stderr == "gtool allreduce-model: empty.f32: "* ]]
	[ -z "$output" ]
}

@test "allreduce-model: without --from, the codecs are measured on the trace" {
	run -0 --separate-stderr gtool allreduce-model -c huffexp --repeat 1 --workers 4 \
		--format csv "$SAMPLES/mlp_sgd.h5"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == 4,10G,*,huffexp,1,* ]]
}
