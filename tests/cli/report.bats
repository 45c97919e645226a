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
