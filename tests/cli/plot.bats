#!/usr/bin/env bats
# plot.bats - `gtool plot`: CSV in, well-formed SVG out, errors

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	cat > c.csv <<'CSV'
codec,options,spec,ratio,rmse,mbps
huffexp,,huffexp,0.80,0,600
gcomp,,gcomp,0.75,1.5e-08,400
tfp,"bits=8,round=1","tfp:bits=8,round=1",0.25,3e-05,900
zstd,level=19,zstd:level=19,0.89,0,13
CSV
}

xml_ok() {
	if command -v xmllint > /dev/null; then xmllint --noout "$1"; fi
	[ "$(grep -c '<svg' "$1")" -eq 1 ]
}

@test "plot: scatter with labels, log x and the Pareto front" {
	run -0 --separate-stderr gtool plot -x rmse -y ratio --label spec --log-x --pareto --title 'a < b & c' -o s.svg c.csv
	[ -z "$stderr" ] && [ -z "$output" ]
	xml_ok s.svg
	[ "$(grep -c '<circle' s.svg)" -eq 4 ]
	grep -q '>tfp:bits=8,round=1</text>' s.svg
	grep -q '>a &lt; b &amp; c</text>' s.svg
	grep -q '>0</text>' s.svg
	[ "$(grep -c '<polyline' s.svg)" -eq 1 ]
}

@test "plot: bars from stdin to stdout, one bar per category and series" {
	run -0 --separate-stderr sh -c 'gtool plot --kind bars -x spec -y ratio,mbps < c.csv > b.svg'
	xml_ok b.svg
	# background, 4 categories x 2 series, 2 legend squares
	[ "$(grep -c '<rect' b.svg)" -eq 11 ]
}

@test "plot: lines and --series" {
	printf 'step,series,v\n1,a,1\n2,a,2\n1,b,3\n2,b,1\n3,b,0.5\n' > l.csv
	run -0 gtool plot --kind lines -x step -y v --series series -o l.svg l.csv
	xml_ok l.svg
	[ "$(grep -c '<polyline' l.svg)" -eq 2 ]
	[ "$(grep -c '<circle' l.svg)" -eq 5 ]
	grep -q '>a</text>' l.svg && grep -q '>b</text>' l.svg
}

@test "plot: the CSV of gtool bench draws as throughput bars" {
	gtool bench -c huffexp,zstd --repeat 1 --format csv "$SAMPLES/grads.f32" > bench.csv
	run -0 gtool plot --kind bars -x spec -y mbps_median --series direction -o t.svg bench.csv
	xml_ok t.svg
	[ "$(grep -c '<rect' t.svg)" -eq 7 ]
}

@test "plot: errors" {
	run -1 --separate-stderr gtool plot -x nosuch -y ratio -o x.svg c.csv
	[ "$stderr" = "gtool plot: c.csv: no column 'nosuch'" ]
	[ ! -e x.svg ]
	run -2 --separate-stderr gtool plot -x rmse c.csv
	[[ $stderr == *"-x and -y are required"* ]]
	run -2 --separate-stderr gtool plot --kind pie -x a -y b c.csv
	[[ $stderr == *"invalid kind 'pie'"* ]]
	printf 'a,b\n1,2,3\n' > bad.csv
	run -1 --separate-stderr gtool plot -x a -y b bad.csv
	[ "$stderr" = "gtool plot: bad.csv: line 2: 3 fields, the header has 2" ]
	printf 'a,b\n' > empty.csv
	run -1 --separate-stderr gtool plot -x a -y b empty.csv
	[ "$stderr" = "gtool plot: empty.csv: no data rows" ]
	run -1 --separate-stderr gtool plot -x a -y b missing.csv
	[[ $stderr == "gtool plot: missing.csv: "* ]]
	gtool plot -x rmse -y ratio -o s.svg c.csv
	run -1 --separate-stderr gtool plot -x rmse -y ratio -o s.svg c.csv
	[ "$stderr" = "gtool plot: s.svg exists; use -f to overwrite" ]
}

@test "plot: no --title, no title element; --subtitle under it; no empty text anywhere" {
	run -0 gtool plot -x rmse -y ratio -o n.svg c.csv
	xml_ok n.svg
	[ "$(grep -c '<text[^>]*></text>' n.svg)" -eq 0 ]
	[ "$(grep -c 'font-size="18"' n.svg)" -eq 0 ]
	run -0 gtool plot -x rmse -y ratio --title T --subtitle 'on the gradients' -o t.svg c.csv
	grep -q 'font-size="18" text-anchor="middle">T</text>' t.svg
	grep -q 'font-size="12" text-anchor="middle">on the gradients</text>' t.svg
}

@test "plot: a log axis has a tick at every decade, labelled up to 12 decades" {
	printf 'x,y\n1e-9,1\n1e5,2\n0.5,3\n' > d.csv
	run -0 gtool plot -x x -y y --log-x -o d.svg d.csv
	# 1e-09 .. 1e+05: 15 decade ticks on the x axis (short black lines below it)
	[ "$(grep -c '<line [^>]*y2="[0-9.]*" stroke="black"/>' d.svg)" -ge 15 ]
	[ "$(awk '/<line / && /stroke="black"/ { split($0, a, "\""); if (a[8] - a[4] == 5) n++ } END { print n }' d.svg)" -eq 15 ]
	# 14 decades: every other one labelled
	grep -q '>1e-09</text>' d.svg && grep -q '>1e-07</text>' d.svg && grep -q '>100000</text>' d.svg
	[ "$(grep -c '>1e-08</text>' d.svg)" -eq 0 ]
	printf 'x,y\n0.001,1\n10,2\n' > e.csv
	run -0 gtool plot -x x -y y --log-x -o e.svg e.csv
	for v in 0.001 0.01 0.1 '>1<' '>10<'; do grep -q -- "$v" e.svg; done
}

@test "plot: crowded scatter labels do not overlap and stay inside; a planted overlap is caught" {
	{
		echo "spec,rmse,ratio"
		for s in zstd:level=1 zstd:level=3 zstd:level=19 zlib:level=1 zlib:level=6 zlib:level=9 huffexp; do
			echo "$s,0,0.9"
		done
		for s in topk:cf=10 topk:cf=1000 dgc:cf=10 dgc:cf=1000 randk:cf=100 redsync:cf=100; do
			echo "$s,0.02,0.7"
		done
		echo "a_long_label_at_the_right_edge,1,0.5"
	} > crowd.csv
	run -0 gtool plot -x rmse -y ratio --label spec --log-x --pareto -o crowd.svg crowd.csv
	xml_ok crowd.svg
	run -0 /usr/bin/python3 "$ROOT/tests/cli/label_boxes.py" crowd.svg
	[ "$output" = "crowd.svg: 14 labels" ]
	# move the second label onto the first: the checker fails and names both
	awk '/<g class="labels">/ { g = 1 } g && /<text / && ++n <= 2 {
		if (n == 1) { match($0, /x="[^"]*" y="[^"]*"/); at = substr($0, RSTART, RLENGTH) }
		else sub(/x="[^"]*" y="[^"]*"/, at) } { print }' crowd.svg > planted.svg
	run -1 /usr/bin/python3 "$ROOT/tests/cli/label_boxes.py" planted.svg
	[[ $output == *"planted.svg: 'zstd:level=1' and 'zstd:level=3' overlap"* ]]
}
