#!/bin/sh
# headline.sh [REPORTS] - the README's headline table from `make report`:
# over every trace report in REPORTS (default reports/; those with update
# fidelity columns), per codec: the size ratio of all traces together
# (sum of .gtz bytes / sum of original bytes) and its range over the
# traces, compress and decompress MB/s over all traces together (total
# bytes / total median time, one thread), and the update fidelity (the
# lowest identical share and the largest ULP over the traces); then the
# size ratios gtool / zstd -19 and zlib -9 per trace, and the speed ratios
# per trace: compress against zstd -3, decompress against zstd -1.
set -eu
dir=${1:-reports}
specs="gcomp huffexp zstd:level=1 zstd:level=3 zstd:level=19 zlib:level=1 zlib:level=6 zlib:level=9"

. "$(dirname "$0")/csv.sh"

set --
for d in "$dir"/*/; do
	[ -f "$d/compare.csv" ] && head -1 "$d/compare.csv" | grep -q update_identical_pct &&
		set -- "$@" "$d"
done
[ $# -gt 0 ] || { echo "headline.sh: no trace reports in $dir (make report)" >&2; exit 1; }

for d in "$@"; do
	tsv "$d/compare.csv" | awk -F'\t' -v t="$(basename "$d")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print "C", t, $c["spec"], $c["bytes"], $c["gtz_bytes"], $c["update_identical_pct"], $c["update_max_ulp"] }'
	tsv "$d/bench.csv" | awk -F'\t' -v t="$(basename "$d")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["threads"] == 1 { print "B", t, $c["spec"], $c["direction"], $c["bytes"], $c["mbps_median"] }'
done | awk -v specs="$specs" '
$1 == "C" {
	s = $3; b[s] += $4; g[s] += $5; r = $5 / $4
	if (!(s in lo) || r < lo[s]) lo[s] = r
	if (!(s in hi) || r > hi[s]) hi[s] = r
	if (!(s in fid) || $6 < fid[s]) fid[s] = $6
	if (!(s in ulp) || $7 > ulp[s]) ulp[s] = $7
	ratio[$2, s] = r
	if (!($2 in seen)) { seen[$2] = 1; order[++nt] = $2 }
}
$1 == "B" { tb[$3, $4] += $5; tt[$3, $4] += $5 / ($6 * 1e6); mb[$2, $3, $4] = $6 }
END {
	n = split(specs, sp, " ")
	print "| codec | ratio (all traces) | ratio per trace | compress MB/s | decompress MB/s | update identical (lowest) | largest ULP |"
	print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++) {
		s = sp[i]
		if (!(s in b)) continue
		printf "| %s | %.3f | %.3f-%.3f | %.0f | %.0f | %.2f %% | %s |\n", s, g[s] / b[s], lo[s], hi[s],
			tb[s, "compress"] / tt[s, "compress"] / 1e6, tb[s, "decompress"] / tt[s, "decompress"] / 1e6,
			fid[s], ulp[s]
	}
	print ""
	print "| trace | gcomp / zstd -19 | huffexp / zstd -19 | gcomp / zlib -9 | huffexp / zlib -9 |"
	print "| --- | ---: | ---: | ---: | ---: |"
	for (k = 1; k <= nt; k++) {
		t = order[k]; z = ratio[t, "zstd:level=19"]; l = ratio[t, "zlib:level=9"]
		printf "| %s | %.3f | %.3f | %.3f | %.3f |\n", t, ratio[t, "gcomp"] / z, ratio[t, "huffexp"] / z,
			ratio[t, "gcomp"] / l, ratio[t, "huffexp"] / l
	}
	print ""
	print "| trace | gcomp compress / zstd -3 | huffexp compress / zstd -3 | gcomp decompress / zstd -1 | huffexp decompress / zstd -1 |"
	print "| --- | ---: | ---: | ---: | ---: |"
	for (k = 1; k <= nt; k++) {
		t = order[k]; c3 = mb[t, "zstd:level=3", "compress"]; d1 = mb[t, "zstd:level=1", "decompress"]
		printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", t, mb[t, "gcomp", "compress"] / c3,
			mb[t, "huffexp", "compress"] / c3, mb[t, "gcomp", "decompress"] / d1,
			mb[t, "huffexp", "decompress"] / d1
	}
}'
