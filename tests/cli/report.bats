#!/usr/bin/env bats
# report.bats - `make report` on one small sample trace

load helpers

@test "report: make report writes the page, its data and well-formed charts" {
	local build=${GTOOL_BUILD:-$ROOT/build} d f
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/mlp_sgd_plain.h5" \
		REPORT_DIR="$BATS_TEST_TMPDIR/r" REPORT_REPEAT=1 report
	d=$BATS_TEST_TMPDIR/r/mlp_sgd_plain
	for f in index.md index.html compare.csv bench.csv bench.json stats.csv levels.csv \
		 pareto.svg throughput.svg hist.svg levels.svg; do
		[ -s "$d/$f" ] || { echo "missing $f"; return 1; }
	done
	for f in "$d"/*.svg; do
		xmllint --noout "$f"
	done
	xmllint --noout --html "$d/index.html"
	python3 -m json.tool "$d/bench.json" > /dev/null
	[ "$(head -1 "$d/compare.csv" | cut -d, -f1-4)" = "codec,options,spec,lossless" ]
	grep -q '^Smallest lossless: ' "$d/index.md"
	# gcomp's shares per step: levels, pruned, raw-stored, each in [0, 100], adding up to 100
	[ "$(head -1 "$d/levels.csv")" = "step,level0_pct,level1_pct,level2_pct,level3_pct,pruned_pct,raw_pct" ]
	awk -F, 'NR > 1 { s = 0; for (i = 2; i <= 7; i++) { s += $i; if ($i < -1e-9 || $i > 100) bad = 1 }
		if (s < 99.999 || s > 100.001) bad = 1; if (bad) print; n++ }
		END { exit bad || n != 4 }' "$d/levels.csv"
	# step 1's level-1 share: the values-weighted mean over its gradients, from ls --format tsv
	gtool compress -q -c gcomp -o g.gtz "$SAMPLES/mlp_sgd_plain.h5"
	gtool ls --format tsv g.gtz > ls.tsv
	[ "$(awk -F, '$1 == 1 { printf "%.4f", $3 }' "$d/levels.csv")" = \
	  "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["name"] ~ /^\/step_000001\/grad\// { n += $c["values"]; s += $c["values"] * $c["level1_pct"] }
		END { printf "%.4f", s / n }' ls.tsv)" ]
	# bench.json holds the rows of bench.csv (one run), in gtool bench's schema
	run -0 python3 -c 'import csv, json, sys
j = json.load(open(sys.argv[1])); c = list(csv.DictReader(open(sys.argv[2])))
assert len(j) == len(c) > 0
for a, b in zip(j, c):
    assert list(a) == list(b), (list(a), list(b))
    for k in a:
        assert str(a[k]) == b[k] or float(a[k]) == float(b[k]), (k, a[k], b[k])
print("ok")' "$d/bench.json" "$d/bench.csv"
	[ "$output" = ok ]
	grep -q '^gcomp (near-lossless): ' "$d/index.md"
}

@test "report: the HTML references only local files that exist, and nothing runs" {
	local build=${GTOOL_BUILD:-$ROOT/build} d ref n=0
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/mlp_sgd_plain.h5" \
		REPORT_DIR="$BATS_TEST_TMPDIR/r" REPORT_REPEAT=1 report
	d=$BATS_TEST_TMPDIR/r/mlp_sgd_plain
	run -1 grep -qi '<script\|<link\|@import\|url(' "$d/index.html"
	for ref in $(grep -o '\(src\|href\)="[^"]*"' "$d/index.html" | sed 's/^[a-z]*="//; s/"$//'); do
		case $ref in
		*:* | /* | ..*) echo "not local: $ref"; return 1 ;;
		esac
		[ -f "$d/$ref" ] || { echo "missing: $ref"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 8 ]
	# the markdown page shows the same charts
	for ref in pareto.svg throughput.svg levels.svg hist.svg; do
		grep -q "($ref)" "$d/index.md"
	done
}
