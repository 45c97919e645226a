#!/usr/bin/env bats
# allreduce.bats - gtool allreduce under mpirun on loopback: the ring against
# MPI_Allreduce and the f64 sum, lossless codecs against none, failures

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# what Open MPI needs to run as root in a container, on shared memory,
	# with more ranks than cores, and without banners about unused networks
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
	export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_base_warn_component_unused=0
	# an ASan build of gtool-mpi: leave out what Open MPI itself leaks
	export LSAN_OPTIONS=suppressions=$ROOT/tests/cli/lsan-mpi.supp
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0
}

# The tests below run ranks; make deps installs Open MPI, so a missing
# mpirun or gtool-mpi is a skip only where that could not happen.
need_mpi() {
	command -v mpirun > /dev/null || skip "mpirun not found (make deps installs openmpi-bin)"
	[ -x "$(dirname "$(command -v gtool)")/gtool-mpi" ] ||
		skip "gtool built without Open MPI (make deps, then make)"
}

# ranks N ARGS... - gtool allreduce on N ranks; a hang fails after 60 s
ranks() {
	local n=$1
	shift
	timeout 60 mpirun --oversubscribe -n "$n" gtool allreduce "$@"
}

# f32_text FILE - one exact decimal value per line from raw f32 bits
f32_text() {
	od -An -v -t u4 -w4 "$1" | awk '{
		u = $1; s = 1
		if (u >= 2^31) { s = -1; u -= 2^31 }
		e = int(u / 2^23); m = u - e * 2^23
		if (e == 0) printf "%.17g\n", s * m * 2^-149
		else printf "%.17g\n", s * (1 + m / 2^23) * 2^(e - 127)
	}'
}

# f64_text FILE - one value per line (17 digits: exact)
f64_text() {
	od -An -v -t f8 -w8 "$1" | awk '{ printf "%.17g\n", $1 }'
}

# column CSV NAME ROW - the value of column NAME in the row whose codec is ROW
column() {
	awk -F, -v c="$2" -v r="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == r { print $k }' "$1"
}

@test "allreduce: --help needs no MPI" {
	run -0 --separate-stderr gtool allreduce --help
	[[ $output == "Usage: gtool allreduce "* ]]
	[[ $output == *"--per-rank=PATTERN"* ]]
	[ -z "$stderr" ]
}

@test "allreduce: bad options are usage errors, found before any rank starts" {
	run -2 --separate-stderr gtool allreduce --rate 10X "$SAMPLES/mlp_sgd.h5"
	[[ ${stderr%%$'\n'*} == "gtool allreduce: invalid rate '10X': expected bits per second, 1k to 1000T, as 10G, 2.5G or 100M" ]]
	run -2 --separate-stderr gtool allreduce --per-rank 'g.h5'
	[[ ${stderr%%$'\n'*} == "gtool allreduce: invalid pattern 'g.h5': expected one %d (or %03d) for the rank" ]]
	run -2 --separate-stderr gtool allreduce -c zstd,nope "$SAMPLES/mlp_sgd.h5"
	[[ ${stderr%%$'\n'*} == "gtool allreduce: unknown codec 'nope'; see 'gtool compress --list-codecs'" ]]
	run -2 --separate-stderr gtool allreduce -c zstd:level=99 "$SAMPLES/mlp_sgd.h5"
	[[ ${stderr%%$'\n'*} == "gtool allreduce: "*"level"*"; see 'gtool compress --list-codecs'" ]]
	run -2 --separate-stderr gtool allreduce
	[[ ${stderr%%$'\n'*} == "gtool allreduce: expected a trace, or --per-rank PATTERN" ]]
}

@test "allreduce: without gtool-mpi next to it, one line and exit 1" {
	cp "$(command -v gtool)" ./gtool
	run -1 --separate-stderr ./gtool allreduce "$SAMPLES/mlp_sgd.h5"
	[ "$stderr" = "gtool allreduce: built without Open MPI (make deps, then make)" ]
	[ -z "$output" ]
}

@test "allreduce: 2 ranks: none is MPI_Allreduce bit for bit, lossless codecs are none" {
	need_mpi
	mkdir d
	run -0 --separate-stderr ranks 2 -c zstd:level=1,huffexp --repeat 1 --dump d \
		--format csv "$SAMPLES/lstm_adamw.h5"
	printf '%s\n' "$output" > out.csv
	# a + b rounds the same in either order: nothing for the order to change
	cmp d/none.f32 d/MPI_Allreduce.f32
	cmp d/zstd_level=1.f32 d/none.f32
	cmp d/huffexp.f32 d/none.f32
	[ "$(column out.csv same_on_ranks none)" = yes ]
	[ "$(column out.csv same_on_ranks huffexp)" = yes ]
	[ "$(column out.csv values none)" = 32460 ]
	# two floats add exactly in f64: none is the f64 sum rounded once to f32
	f32_text d/none.f32 > none.txt
	f64_text d/exact.f64 > exact.txt
	paste none.txt exact.txt | awk -v rep="$(column out.csv max_abs none)" '
		{ d = $1 - $2; if (d < 0) d = -d; a = $2 < 0 ? -$2 : $2
		  if (d > a * 2^-24 + 1e-45) { print NR ": " $1 " vs " $2; bad++ }
		  if (d > max) max = d }
		END { if (max != rep + 0) { print "max_abs " rep ", awk " max; bad++ }
		      print NR " values, max_abs " max; exit bad != 0 }'
}

@test "allreduce: 4 ranks: lossless codecs are none; none and MPI_Allreduce within the reduction-order bound" {
	need_mpi
	mkdir d
	run -0 --separate-stderr ranks 4 -c zstd:level=1,huffexp,gcomp,zlib:level=1 --repeat 2 \
		--chunk 1000 --dump d --format csv "$SAMPLES/mlp_sgd.h5"
	printf '%s\n' "$output" > out.csv
	cmp d/zstd_level=1.f32 d/none.f32
	cmp d/zlib_level=1.f32 d/none.f32
	cmp d/huffexp.f32 d/none.f32
	for c in none zstd:level=1 huffexp gcomp MPI_Allreduce; do
		[ "$(column out.csv same_on_ranks "$c")" = yes ] || { echo "$c differs across ranks"; return 1; }
	done
	[ "$(column out.csv ranks none)" = 4 ]
	# each float sum of 4 terms is within 3 u sum|x| of the exact sum, so two
	# orders are within 2 * 3 * 2^-24 * sum|x| of each other
	f32_text d/none.f32 > none.txt
	f32_text d/MPI_Allreduce.f32 > mpi.txt
	f64_text d/abssum.f64 > abs.txt
	paste none.txt mpi.txt abs.txt | awk '
		{ d = $1 - $2; if (d < 0) d = -d
		  if (d > 6 * 2^-24 * $3) { print NR ": " $1 " vs " $2 " (sum|x| " $3 ")"; bad++ } }
		END { exit bad != 0 }'
	# gcomp is lossy but bounded: each of the 4 codings of a partial sum keeps
	# at least 5 of 23 mantissa bits (relative error < 2^-5)
	f32_text d/gcomp.f32 > gcomp.txt
	f64_text d/exact.f64 > exact.txt
	paste gcomp.txt exact.txt abs.txt | awk '
		{ d = $1 - $2; if (d < 0) d = -d; if (d > max) max = d
		  if (d > 4 * 2^-5 * $3 + 1e-37) { print NR ": " $1 " vs " $2; bad++ } }
		END { if (!(max > 0)) { print "gcomp lossless?"; bad++ }; exit bad != 0 }'
	# compressed sizes are what was sent: lossless codecs send less than none here
	awk -v h="$(column out.csv bytes_per_rank huffexp)" -v n="$(column out.csv bytes_per_rank none)" \
		'BEGIN { exit !(h > 0 && h < n) }'
}

@test "allreduce: the table names the ranks' steps and the link" {
	need_mpi
	run -0 --separate-stderr ranks 4 -c huffexp --repeat 1 "$SAMPLES/mlp_sgd.h5"
	[ "${lines[0]}" = "4 ranks x 17226 values (68.9 kB) per rank, steps 1, 20, 100, 300; link: loopback speed, not paced (--rate paces); median of 1 runs" ]
	[[ ${lines[1]} == "codec "*"time_ms"* ]]
	[[ ${lines[2]} == "none "* ]]
	[[ ${lines[3]} == "huffexp "* ]]
	[[ ${lines[4]} == "MPI_Allreduce "* ]]
	run -0 --separate-stderr ranks 2 -c huffexp --repeat 1 --step 100 "$SAMPLES/mlp_sgd.h5"
	[[ ${lines[0]} == "2 ranks x 17226 values (68.9 kB) per rank, steps 100, 300; link: loopback"* ]]
}

@test "allreduce: --rate paces: no run is faster than its bytes over the link" {
	need_mpi
	run -0 --separate-stderr ranks 2 -c huffexp --repeat 2 --rate 100M --format csv \
		--tile 2 "$SAMPLES/mlp_sgd.h5"
	printf '%s\n' "$output" > out.csv
	[ "$(column out.csv link_bps none)" = 100000000 ]
	[ "$(column out.csv values none)" = 34452 ]
	for c in none huffexp; do
		awk -v t="$(column out.csv min_ms "$c")" -v b="$(column out.csv bytes_per_rank "$c")" \
			'BEGIN { if (t < b * 8 / 1e8 * 1e3) { print t " ms for " b " bytes"; exit 1 } }'
	done
}

@test "allreduce: a bad file on one rank stops every rank with its reason" {
	need_mpi
	for r in 0 1 3; do cp "$SAMPLES/mlp_sgd.h5" "r$r.h5"; done
	echo garbage > r2.h5
	# every rank runs to its end, so that each one's status can be seen
	export OMPI_MCA_orte_abort_on_non_zero_status=0
	run --separate-stderr timeout 60 mpirun --oversubscribe -n 4 \
		sh -c 'gtool allreduce --per-rank r%d.h5 -c huffexp; echo $? > status.$OMPI_COMM_WORLD_RANK'
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	[[ $stderr == *"gtool allreduce: rank 2: r2.h5: not an HDF5 file"* ]]
	[[ $stderr == *"gtool allreduce: reading the gradient failed on 1 of 4 ranks (rank 2); no allreduce run"* ]]
	[ -z "$output" ]
	for r in 0 1 2 3; do [ "$(cat "status.$r")" = 1 ] || { echo "rank $r: $(cat "status.$r")"; return 1; }; done
}

@test "allreduce: ranks with different models, and gcomp without a trace, fail on every rank" {
	need_mpi
	cp "$SAMPLES/mlp_sgd.h5" r0.h5
	cp "$SAMPLES/cnn_adam.h5" r1.h5
	run -1 --separate-stderr ranks 2 --per-rank r%d.h5 -c huffexp
	[[ $stderr == *"gtool allreduce: the ranks hold different numbers of values (3818 to 17226): they must reduce the same model"* ]]
	cp "$SAMPLES/grads.npy" g0.npy
	cp "$SAMPLES/grads.npy" g1.npy
	run -1 --separate-stderr ranks 2 --per-rank g%d.npy -c gcomp
	[[ $stderr == *"gtool allreduce: rank 0: codec gcomp needs the optimizer context: a trace with the parameter (and state) of every gradient"* ]]
	[[ $stderr == *"gtool allreduce: setting up the codecs failed on 2 of 2 ranks (ranks 0, 1); no allreduce run"* ]]
	# codecs that need no context run on plain arrays
	run -0 --separate-stderr ranks 2 --per-rank g%d.npy -c zstd --repeat 1 --format csv
	[[ ${lines[1]} == none,2,8192,* ]]
}

@test "allreduce: JSON gives same_on_ranks as a boolean and numbers as numbers" {
	need_mpi
	run -0 --separate-stderr ranks 2 -c huffexp --repeat 1 --format json "$SAMPLES/mlp_sgd.h5"
	printf '%s\n' "$output" > out.json
	jq -e 'all(.[]; .same_on_ranks == true)' out.json
	jq -e 'all(.[]; (.ranks|type=="number") and (.values|type=="number"))' out.json
}
