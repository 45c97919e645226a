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
