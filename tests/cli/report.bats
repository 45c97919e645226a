#!/usr/bin/env bats
# report.bats - `make report` on one small sample trace

load helpers

@test "report: make report writes the page, its data and well-formed charts" {
	local build=${GTOOL_BUILD:-$ROOT/build} d f
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/mlp_sgd_plain.h5" \
		REPORT_DIR="$BATS_TEST_TMPDIR/r" REPORT_REPEAT=1 report
	d=$BATS_TEST_TMPDIR/r/mlp_sgd_plain
	for f in index.md index.html compare.csv compare_grads.csv bench.csv bench.json stats.csv \
		 levels.csv pareto.svg throughput.svg hist.svg levels.svg; do
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

@test "report: every SVG and HTML parses, Pareto labels do not overlap, lossy codecs on the gradients" {
	local build=${GTOOL_BUILD:-$ROOT/build} r=$BATS_TEST_TMPDIR/r f n
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/mlp_sgd_plain.h5" \
		REPORT_DIR="$r" REPORT_REPEAT=1 report
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/dtypes.h5" \
		REPORT_DIR="$r" REPORT_REPEAT=1 report
	for f in "$r"/*/*.svg; do
		xmllint --noout "$f"
	done
	for f in "$r"/index.html "$r"/*/index.html; do
		xmllint --noout --html "$f"
	done
	# one label per codec in each Pareto chart, no two boxes meeting
	for f in mlp_sgd_plain dtypes; do
		n=$(($(wc -l < "$r/$f/compare.csv") - 1))
		run -0 /usr/bin/python3 "$ROOT/tests/cli/label_boxes.py" "$r/$f/pareto.svg"
		[ "$output" = "$r/$f/pareto.svg: $n labels" ]
	done
	# the chart says what it measured: the gradients of a trace; every tensor otherwise
	grep -q '>every codec on the gradients only (compare --grads-only)' "$r/mlp_sgd_plain/pareto.svg"
	grep -q '>every codec on every tensor of the file' "$r/dtypes/pareto.svg"
	[ ! -e "$r/dtypes/compare_grads.csv" ]
	# the gradients-only ratios are those of compare --grads-only
	gtool compare -q --repeat 1 -T 1 --grads-only -c topk:cf=1000 --format csv "$SAMPLES/mlp_sgd_plain.h5" > g.csv
	[ "$(awk -F, '$3 == "topk:cf=1000" { print $7, $8 }' g.csv)" = \
	  "$(awk -F, '$3 == "topk:cf=1000" { print $7, $8 }' "$r/mlp_sgd_plain/compare_grads.csv")" ]
	# throughput on a log axis: decades as ticks, whatever the fastest codec
	grep -q '>MB/s (log scale)</text>' "$r/dtypes/throughput.svg"
	grep -q '>10</text>' "$r/dtypes/throughput.svg" && grep -q '>1000</text>' "$r/dtypes/throughput.svg"
	# wide codec tables scroll inside their box; large ULP figures are explained
	grep -q 'div.wide { overflow-x: auto' "$r/mlp_sgd_plain/index.html"
	grep -q '<div class="wide"><table><tr><th>spec</th>' "$r/mlp_sgd_plain/index.html"
	grep -q 'units in the last place' "$r/mlp_sgd_plain/index.html"
}

@test "report: the top-level index links every trace report, one summary row each" {
	local build=${GTOOL_BUILD:-$ROOT/build} r=$BATS_TEST_TMPDIR/r
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/mlp_sgd_plain.h5" \
		REPORT_DIR="$r" REPORT_REPEAT=1 report
	run -0 make -s -C "$ROOT" BUILD="$build" TRACES="$SAMPLES/f16_momentum.h5" \
		REPORT_DIR="$r" REPORT_REPEAT=1 report
	[ "${lines[-1]}" = "report: $r/index.html" ]
	xmllint --noout --html "$r/index.html"
	grep -q '<a href="mlp_sgd_plain/index.html">mlp_sgd_plain</a></td>' "$r/index.html"
	grep -q '<a href="f16_momentum/index.html">f16_momentum</a></td>' "$r/index.html"
	[ "$(head -1 "$r/summary.csv")" = \
	  "trace,values,smallest_lossless,its_ratio,zstd19_ratio,gcomp_ratio,gcomp_update_identical_pct,fastest_compress,its_mbps" ]
	[ "$(wc -l < "$r/summary.csv")" -eq 3 ]
	# the row repeats the trace's own compare.csv: its zstd -19 ratio and its smallest lossless codec
	[ "$(awk -F, '$1 == "mlp_sgd_plain" { print $5 }' "$r/summary.csv")" = \
	  "$(awk -F, '$3 == "zstd:level=19" { print $8 }' "$r/mlp_sgd_plain/compare.csv")" ]
	[ "$(awk -F, '$1 == "mlp_sgd_plain" { print $3 }' "$r/summary.csv")" = \
	  "$(awk -F, 'NR > 1 && $4 == "yes" { print $8, $3 }' "$r/mlp_sgd_plain/compare.csv" | sort -g | head -1 | cut -d' ' -f2)" ]
}
