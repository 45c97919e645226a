# helpers.bash - common setup of the gtool Bats suites (load 'helpers')
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SAMPLES=$ROOT/samples
FIXTURES=$ROOT/tests/fixtures
export ROOT SAMPLES FIXTURES

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# bytes_f32 X... - the little-endian f32 bytes of named values, as printf
# octal escapes: 0 -0 1 -2 0.5 inf -inf nan sub (smallest subnormal)
bytes_f32() {
	local v out=
	for v in "$@"; do
		case $v in
		0) out+='\000\000\000\000' ;;
		-0) out+='\000\000\000\200' ;;
		1) out+='\000\000\200\077' ;;
		-2) out+='\000\000\000\300' ;;
		0.5) out+='\000\000\000\077' ;;
		inf) out+='\000\000\200\177' ;;
		-inf) out+='\000\000\200\377' ;;
		nan) out+='\000\000\300\177' ;;
		sub) out+='\001\000\000\000' ;;
		*) echo "bytes_f32: unknown value $v" >&2; return 1 ;;
		esac
	done
	printf '%s' "$out"
}

# make_raw FILE X... - a raw f32 file of the named values
make_raw() {
	local f=$1
	shift
	# shellcheck disable=SC2059 # the format is the octal escapes
	printf "$(bytes_f32 "$@")" > "$f"
}

# make_npy FILE DESCR FORTRAN SHAPE X... - a .npy v1.0 file with the given
# header fields and the f32 bytes of the named values (as written, whatever
# DESCR says): make_npy be.npy '>f4' False '(2,)' 1 1
make_npy() {
	local f=$1 descr=$2 fortran=$3 shape=$4 header len pad
	shift 4
	header="{'descr': '$descr', 'fortran_order': $fortran, 'shape': $shape, }"
	len=$(( ${#header} + 1 ))
	pad=$(( (64 - (10 + len) % 64) % 64 ))
	header=$header$(printf '%*s' "$pad" '')
	len=$(( len + pad ))
	# shellcheck disable=SC2059
	{
		printf '\223NUMPY\001\000'
		printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
		printf '%s\n' "$header"
		printf "$(bytes_f32 "$@")"
	} > "$f"
}

# ref_rows FILE - the rows of tests/fixtures/stats_ref.csv for one sample
ref_rows() {
	awk -F, -v f="$1" 'NR == 1 || $1 == f' "$FIXTURES/stats_ref.csv"
}

# compare_csv REF GOT - every row of REF (CSV with a header; rows keyed by
# the base name of "file" and by "name") must be in GOT with every column
# of REF equal: integers exactly, floats to 1e-9 relative (1e-12 absolute
# near zero), "nan" as is.  Prints the differences; fails on any.
compare_csv() {
	awk -F, '
	function base(p) { sub(/.*\//, "", p); return p }
	function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
	function same(a, b, d) {
		if (a == b) return 1
		if (!isnum(a) || !isnum(b)) return 0
		if (a ~ /^-?[0-9]+$/ && b ~ /^-?[0-9]+$/) return a + 0 == b + 0
		d = a - b; if (d < 0) d = -d
		if (d <= 1e-12) return 1
		a = a < 0 ? -a : a; b = b < 0 ? -b : b
		return d <= 1e-9 * (a > b ? a : b)
	}
	FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; names[FILENAME] = $0; next }
	FILENAME == ARGV[1] { ref[++n] = $0; next }
	{ got[base($col[FILENAME, "file"]) SUBSEP $col[FILENAME, "name"]] = $0 }
	END {
		split(names[ARGV[1]], rc, ",")
		bad = 0
		for (r = 1; r <= n; r++) {
			split(ref[r], rv, ",")
			key = base(rv[col[ARGV[1], "file"]]) SUBSEP rv[col[ARGV[1], "name"]]
			if (!(key in got)) { print "missing row: " ref[r]; bad++; continue }
			split(got[key], gv, ",")
			for (c in rc) {
				gi = col[ARGV[2], rc[c]]
				if (!gi) { print "missing column " rc[c]; bad++; continue }
				if (rc[c] == "file" && base(rv[c]) == base(gv[gi])) continue
				if (!same(rv[c], gv[gi])) {
					print rv[2] " " rc[c] ": ref " rv[c] " got " gv[gi]; bad++
				}
			}
		}
		if (!n) { print "no reference rows"; bad++ }
		exit bad != 0
	}' "$1" "$2"
}

# speeds - spec, threads, ratio, compress MB/s, decompress MB/s per codec
# of the bench JSON $BENCH, tab-separated (specs hold commas), from jq
# (not from gtool's reader): the reference of breakeven and allreduce-model
speeds() {
	jq -r 'group_by(.spec, .threads)[] |
		[.[0].spec, .[0].threads, .[0].ratio,
		 (.[] | select(.direction == "compress") | .mbps_median),
		 (.[] | select(.direction == "decompress") | .mbps_median)] | @tsv' "$BENCH"
}

# interrupt SIG OUT FEED CMD... - run CMD in the background with FEED's
# bytes on its stdin, then a stall; once OUT's temporary file (".OUT.*")
# exists, send SIG.  $status: CMD's exit status; stderr in stderr.txt.
interrupt() {
	local sig=$1 out=$2 feed=$3 i pid pgid
	shift 3
	set -m
	{ cat "$feed"; sleep 20; } 2>/dev/null 3>&- | "$@" 2>stderr.txt 3>&- &
	pid=$!
	set +m
	pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
	for ((i = 0; i < 200; i++)); do
		compgen -G ".$out.*" > /dev/null && break
		sleep 0.05
	done
	# the file exists a moment before gtool has noted its name (after the
	# writer's threads start): a signal in between would leave it
	sleep 0.5
	kill -s "$sig" "$pid"
	# $status is read by the caller, as after run
	# shellcheck disable=SC2034
	{ status=0; wait "$pid" || status=$?; }
	kill -- "-$pgid" 2>/dev/null || true
}
