#!/bin/sh
# report.sh GTOOL TRACES OUT REPEAT - `make report`: for every *.h5 in TRACES
# (a folder or one file), run gtool stats, hist, compare and bench and write
# OUT/<name>/: index.md and index.html (the same content; inline CSS, charts
# as relative SVG files, nothing from the network), the CSV and JSON used,
# and the charts, all drawn by gtool itself (hist --svg, plot).
set -eu
gtool=$1
traces=$2
out=$3
repeat=${4:-3}

if [ -d "$traces" ]; then
	set -- "$traces"/*.h5
else
	set -- "$traces"
fi
[ -e "$1" ] || { echo "report.sh: no *.h5 in $traces" >&2; exit 1; }

. "$(dirname "$0")/csv.sh"
version=$(git -C "$(dirname "$0")" describe --always --dirty 2> /dev/null || echo "gtool")

# ---- the same content into index.md and index.html ---------------------

esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

begin() { # TITLE
	printf '# %s\n\n' "$1" > "$md"
	t=$(printf '%s' "$1" | esc)
	cat > "$html" <<HTML
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>$t</title>
<style>
body { font-family: sans-serif; max-width: 1000px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; border: 1px solid #eee; }
div.wide { overflow-x: auto; max-width: 100%; margin: 1em 0; }
div.wide table { margin: 0; }
code { background: #f4f4f4; }
</style></head><body>
<h1>$t</h1>
HTML
}

heading() { printf '## %s\n\n' "$1" >> "$md"; printf '<h2>%s</h2>\n' "$(printf '%s' "$1" | esc)" >> "$html"; }
para() { printf '%s\n\n' "$1" >> "$md"; printf '<p>%s</p>\n' "$(printf '%s' "$1" | esc)" >> "$html"; }
image() { # FILE ALT
	printf '![%s](%s)\n\n' "$2" "$1" >> "$md"
	printf '<p><img src="%s" alt="%s"></p>\n' "$1" "$(printf '%s' "$2" | esc)" >> "$html"
}
links() { # FILE...
	l=""; h=""
	for f in "$@"; do l="$l [$f]($f)"; h="$h <a href=\"$f\">$f</a>"; done
	printf 'Data:%s\n\n' "$l" >> "$md"
	printf '<p>Data:%s</p>\n' "$h" >> "$html"
}
# table CSV COLUMN... - those columns of a CSV file (no quoted commas in them)
table() {
	csv=$1; shift
	tsv "$csv" | awk -F'\t' -v cols="$*" -v md="$md" -v html="$html" '
	function num(s) { return s ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ }
	function show(s) { return num(s) && s !~ /^[0-9]+$/ ? sprintf("%.4g", s) : s }
	function hesc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
	NR == 1 {
		n = split(cols, want, " ")
		for (i = 1; i <= NF; i++) at[$i] = i
		line = "|"; sep = "|"; h = "<table><tr>"
		for (k = 1; k <= n; k++) { line = line " " want[k] " |"; sep = sep " --- |"; h = h "<th>" want[k] "</th>" }
		print line >> md; print sep >> md; print "<div class=\"wide\">" h "</tr>" >> html
		next
	}
	{
		line = "|"; h = "<tr>"
		for (k = 1; k <= n; k++) {
			v = at[want[k]] ? show($at[want[k]]) : ""
			line = line " " v " |"
			h = h (num(v) ? "<td class=\"n\">" : "<td>") hesc(v) "</td>"
		}
		print line >> md; print h "</tr>" >> html
	}
	END { print "" >> md; print "</table></div>" >> html }'
}
end() { printf '</body></html>\n' >> "$html"; }

# ---- the answer in words -----------------------------------------------

# summary COMPARE_CSV BENCH_CSV - the sentences a reader needs first
summary() {
	tsv "$1" > "$dir/.compare.tsv"
	tsv "$2" > "$dir/.bench.tsv"
	awk -F'\t' '
	FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
	FILENAME == ARGV[1] {
		spec = $c[FILENAME, "spec"]; r = $c[FILENAME, "ratio"] + 0
		ratio[spec] = r
		if ($c[FILENAME, "lossless"] == "yes" && (bestl == "" || r < ratio[bestl])) bestl = spec
		if (c[FILENAME, "update_identical_pct"]) {
			fid[spec] = $c[FILENAME, "update_identical_pct"]; ulp[spec] = $c[FILENAME, "update_max_ulp"]
		}
		next
	}
	{
		spec = $c[FILENAME, "spec"]; m = $c[FILENAME, "mbps_median"] + 0
		if ($c[FILENAME, "direction"] == "compress") { comp[spec] = m; if (fc == "" || m > comp[fc]) fc = spec }
		else { dec[spec] = m; if (fd == "" || m > dec[fd]) fd = spec }
	}
	function cmp(a, b) { return (b in ratio) ? sprintf(" (%s: %.3f; %s / %s = %.3f)", b, ratio[b], a, b, ratio[a] / ratio[b]) : "" }
	END {
		if (bestl != "")
			printf "Smallest lossless: %s, %.3f of the original size%s.\n", bestl, ratio[bestl], cmp(bestl, "zstd:level=19")
		if ("gcomp" in ratio) {
			printf "gcomp (near-lossless): %.3f of the original size%s", ratio["gcomp"], cmp("gcomp", "zstd:level=19")
			if ("gcomp" in fid) printf "; %.2f %% of the parameters come out of the optimizer step bit-identical, the others at most %s ULP away", fid["gcomp"], ulp["gcomp"]
			printf ".\n"
		}
		if (fc != "") printf "Fastest to compress: %s at %.0f MB/s; fastest to decompress: %s at %.0f MB/s (one thread, data in memory).\n", fc, comp[fc], fd, dec[fd]
	}' "$dir/.compare.tsv" "$dir/.bench.tsv"
	rm -f "$dir/.compare.tsv" "$dir/.bench.tsv"
}

# levels GTZ_LS_CSV - gcomp's share of values per level and pruned, per
# step; raw_pct: values of blocks stored raw (coding would have grown them)
levels() {
	tsv "$1" | awk -F'\t' '
	NR == 1 {
		for (i = 1; i <= NF; i++) c[$i] = i
		print "step,level0_pct,level1_pct,level2_pct,level3_pct,pruned_pct,raw_pct"
		next
	}
	$c["codec"] == "gcomp" && match($c["name"], /^\/step_[0-9]+\//) {
		s = substr($c["name"], 7, RLENGTH - 7) + 0
		if (!(s in n)) order[++k] = s
		v = $c["values"]; n[s] += v; coded = 0
		for (l = 0; l < 4; l++) { lv[s, l] += v * $c["level" l "_pct"]; coded += $c["level" l "_pct"] }
		pr[s] += v * $c["pruned_pct"]; coded += $c["pruned_pct"]
		raw[s] += v * (100 - coded)
	}
	END {
		for (i = 1; i <= k; i++) {
			s = order[i]
			printf "%d", s
			for (l = 0; l < 4; l++) printf ",%.6g", lv[s, l] / n[s]
			printf ",%.6g,%.6g\n", pr[s] / n[s], raw[s] / n[s]
		}
	}'
}

# json BENCH_CSV - the rows of gtool bench's CSV in its JSON schema
json() {
	tsv "$1" | awk -F'\t' 'NR == 1 { n = split($0, h, "\t"); print "["; next }
	{
		printf "%s  {", (NR > 2 ? ",\n" : "")
		for (i = 1; i <= n; i++) {
			v = $i
			if (h[i] !~ /^(codec|options|spec|direction)$/) {
				if (v == "nan" || v == "inf" || v == "-inf") v = "null"
			} else {
				gsub(/\\/, "\\\\", v); gsub(/"/, "\\\"", v); v = "\"" v "\""
			}
			printf "%s\"%s\": %s", (i > 1 ? ", " : ""), h[i], v
		}
		printf "}"
	}
	END { print ""; print "]" }'
}

# ---- one trace -----------------------------------------------------------

report() { # TRACE
	trace=$1
	name=$(basename "$trace" .h5)
	dir=$out/$name
	mkdir -p "$dir"
	md=$dir/index.md
	html=$dir/index.html
	"$gtool" stats --total --format csv "$trace" > "$dir/stats.csv"
	"$gtool" compare -q --repeat "$repeat" -T 1 --format csv "$trace" > "$dir/compare.csv"
	# the lossy codecs apply to gradients: on a trace, every codec is also
	# measured on the gradients alone, and the chart and the codec table
	# show that run
	if "$gtool" compare -q --repeat "$repeat" -T 1 --grads-only --format csv "$trace" \
		> "$dir/compare_grads.csv" 2> /dev/null; then
		cmp=compare_grads.csv
		scope="every codec on the gradients only (compare --grads-only), where the lossy codecs apply; parameters and optimizer state not counted"
	else
		rm -f "$dir/compare_grads.csv"
		cmp=compare.csv
		scope="every codec on every tensor of the file (no training steps in it)"
	fi
	"$gtool" bench -q --repeat "$repeat" --format csv "$trace" > "$dir/bench.csv"
	json "$dir/bench.csv" > "$dir/bench.json" # the same run, as gtool bench --format json
	"$gtool" plot -x rmse -y ratio --label spec --log-x --pareto \
		--title "$name: size ratio against RMSE (lower left is better)" --subtitle "$scope" \
		--xlabel "RMSE (log; lossless codecs on the axis at 0)" --ylabel "size ratio" \
		-f -o "$dir/pareto.svg" "$dir/$cmp"
	"$gtool" plot --kind bars -x spec -y mbps_median --series direction --log-y \
		--title "$name: throughput, one thread, median of $repeat" --ylabel "MB/s (log scale)" \
		-f -o "$dir/throughput.svg" "$dir/bench.csv"
	steps=0
	if "$gtool" hist -q --by step -f --svg "$dir/hist.svg" "$trace" 2> /dev/null; then
		steps=1
	elif ! "$gtool" hist -q -f --svg "$dir/hist.svg" "$trace" 2> /dev/null; then
		rm -f "$dir/hist.svg" # tensors of several dtypes share no chart
	fi
	if [ "$steps" = 1 ] && "$gtool" compress -q -f -c gcomp -o "$dir/gcomp.gtz" "$trace" 2> /dev/null; then
		"$gtool" ls --format csv "$dir/gcomp.gtz" > "$dir/gcomp_ls.csv"
		levels "$dir/gcomp_ls.csv" > "$dir/levels.csv"
		rm -f "$dir/gcomp.gtz"
		"$gtool" plot --kind lines -x step -y level0_pct,level1_pct,level2_pct,level3_pct,pruned_pct,raw_pct \
			--log-x --title "$name: gcomp, share of gradient values per quantization level" \
			--ylabel "% of values" -f -o "$dir/levels.svg" "$dir/levels.csv"
	fi

	begin "gtool report: $name"
	para "Trace: $trace. Made by make report ($version)."
	summary "$dir/compare.csv" "$dir/bench.csv" | while IFS= read -r line; do para "$line"; done
	heading "Size against error"
	image pareto.svg "size ratio against RMSE for every codec"
	heading "Throughput"
	image throughput.svg "compress and decompress MB/s per codec"
	if [ -f "$dir/levels.svg" ]; then
		heading "gcomp quantization levels per step"
		image levels.svg "share of values per gcomp level and pruned, per step"
	fi
	heading "Exponent histogram"
	if [ -f "$dir/hist.svg" ]; then
		image hist.svg "exponent histogram (per step on a trace)"
	else
		para "No chart: the tensors have exponents of different widths (gtool hist -d on one dtype draws one)."
	fi
	heading "Every codec"
	para "Measured as the chart above: $scope."
	head -1 "$dir/$cmp" | grep -q update_identical_pct &&
	para "update_identical_pct: the share of parameters that come out of the trace's optimizer step bit-identical with the decoded and with the original gradients; update_max_ulp: the largest distance between the two, in units in the last place (ULP: the float bit patterns read as sign-magnitude integers, so 1 is a last-bit difference and each factor of two is 8388608 ULP in float32). Figures near 2e9 mean that a parameter changed sign or moved by orders of magnitude."
	cols="spec lossless ratio bits_per_value compress_mbps decompress_mbps max_abs rmse psnr cosine gain"
	head -1 "$dir/$cmp" | grep -q update_identical_pct && cols="$cols update_identical_pct update_max_ulp"
	# shellcheck disable=SC2086 # the column names are words
	table "$dir/$cmp" $cols
	links "$cmp"
	if [ "$cmp" != compare.csv ]; then
		heading "Every codec on the whole trace"
		para "Gradients, parameters and optimizer state together (a lossy codec codes the gradients, huffexp the rest), as gtool compress writes the trace."
		cols="spec lossless ratio bits_per_value compress_mbps decompress_mbps"
		head -1 "$dir/compare.csv" | grep -q update_identical_pct && cols="$cols update_identical_pct update_max_ulp"
		# shellcheck disable=SC2086 # the column names are words
		table "$dir/compare.csv" $cols
		links compare.csv
	fi
	heading "Throughput in numbers"
	para "peak_rss_mib: the peak resident memory while that codec ran (each codec apart), the data held in memory included."
	table "$dir/bench.csv" spec threads direction ratio mbps_median mbps_min mbps_max peak_rss_mib
	links bench.csv bench.json
	heading "Statistics"
	table "$dir/stats.csv" name values zeros_pct min max std distinct_exponents entropy bound_ratio
	links stats.csv
	end
	echo "report: $dir/index.html"
}

# ---- the top-level page: every trace report in OUT -----------------------

# overview DIR... - one summary row per trace report (its compare.csv,
# stats.csv and bench.csv) as CSV
overview() {
	echo "trace,values,smallest_lossless,its_ratio,zstd19_ratio,gcomp_ratio,gcomp_update_identical_pct,fastest_compress,its_mbps"
	for d in "$@"; do
		n=$(basename "$d")
		{ tsv "$d/stats.csv"; echo "--"; tsv "$d/compare.csv"; echo "--"; tsv "$d/bench.csv"; } |
		awk -F'\t' -v n="$n" '
		$0 == "--" { part++; head = 1; next }
		NR == 1 || head { delete c; for (i = 1; i <= NF; i++) c[$i] = i; head = 0; next }
		part == 0 && $c["name"] == "total" { values = $c["values"] }
		part == 1 {
			r = $c["ratio"] + 0
			if ($c["lossless"] == "yes" && (best == "" || r < br)) { best = $c["spec"]; br = r }
			if ($c["spec"] == "zstd:level=19") z = $c["ratio"]
			if ($c["spec"] == "gcomp") { g = $c["ratio"]; gi = c["update_identical_pct"] ? $c["update_identical_pct"] : "" }
		}
		part == 2 && $c["direction"] == "compress" && $c["threads"] == 1 && $c["mbps_median"] + 0 > fm {
			fm = $c["mbps_median"] + 0; fs = $c["spec"]
		}
		END { printf "%s,%s,%s,%.4f,%s,%s,%s,%s,%.0f\n", n, values, best, br, z, g, gi, fs, fm }'
	done
}

toplevel() {
	set --
	for d in "$out"/*/; do
		[ -f "$d/index.html" ] && [ -f "$d/compare.csv" ] && set -- "$@" "${d%/}"
	done
	[ $# -gt 0 ] || return 0
	dir=$out md=$out/index.md html=$out/index.html
	overview "$@" > "$out/summary.csv"
	begin "gtool reports"
	para "One report per trace, made by make report ($version). Ratios are coded bytes over original bytes of the whole file (smaller is better); speeds are one thread, data in memory, the median of the runs."
	l=""; h=""
	for d in "$@"; do
		n=$(basename "$d")
		l="$l [$n]($n/index.html)"; h="$h <a href=\"$n/index.html\">$n</a>"
	done
	printf 'Reports:%s\n\n' "$l" >> "$md"
	printf '<p>Reports:%s</p>\n' "$h" >> "$html"
	heading "Summary"
	table "$out/summary.csv" trace values smallest_lossless its_ratio zstd19_ratio gcomp_ratio \
		gcomp_update_identical_pct fastest_compress its_mbps
	links summary.csv
	end
	# the trace names in the table link to their reports
	for d in "$@"; do
		n=$(basename "$d")
		sed -i "s|<tr><td>$n</td>|<tr><td><a href=\"$n/index.html\">$n</a></td>|" "$html"
	done
	echo "report: $html"
}

for t in "$@"; do
	report "$t"
done
toplevel
