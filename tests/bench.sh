#!/bin/sh
# bench.sh BUILD - what `make bench` measures, each against zstd in the same
# run (the machines are shared and noisy: medians, and ratios to a peer).
set -e
build=${1:-build}
PATH="$(cd "$build" && pwd):$PATH"
work="$build/bench"
mkdir -p "$work"
reps=${BENCH_REPEAT:-11}
traces="samples/mlp_sgd.h5 samples/cnn_adam.h5 samples/lstm_adamw.h5"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# seconds of one run of "$@", output discarded
seconds() {
	t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
runs() { n=$1; shift; i=0; while [ $i -lt "$n" ]; do seconds "$@"; i=$((i + 1)); done | median; }
# in_turn N PREFIX: the command lines on standard input, one after the
# other in each of N rounds (so that a slow spell of the machine slows
# them alike); line k's seconds go to PREFIXk.s
in_turn() {
	n=$1 pre=$2 cmds=$(cat) i=0
	rm -f "$pre"?.s
	while [ $i -lt "$n" ]; do
		k=0
		echo "$cmds" | while IFS= read -r cmd; do
			seconds sh -c "$cmd" >> "$pre$k.s"
			k=$((k + 1))
		done
		i=$((i + 1))
	done
}
mbps() { echo "scale=0; $1 / $2 / 1000000" | bc -l; }

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "== date: $(date -u +%Y-%m-%dT%H:%MZ), gtool $(gtool --version | cut -d' ' -f2), $(zstd --version | cut -d, -f1)"

"$build/dump_grads" 16 $traces > "$work/grads16.f32"
"$build/dump_grads" 64 $traces > "$work/grads64.f32"
"$build/dump_grads" 256 $traces > "$work/grads256.f32"
size256=$(stat -c %s "$work/grads256.f32")

echo
echo "== 1. codecs on memory, one thread (tests/bench/bench_codec, $reps runs)"
"$build/bench_codec" --repeat "$reps" --codec huffexp --codec zstd:level=1 \
	--codec zstd:level=19 --codec zlib:level=6 "$work/grads16.f32"
"$build/bench_codec" --repeat "$reps" --codec huffexp --synthetic
echo
echo "== 1'. huffexp per core on 64 MiB of real gradients, zstd -1 beside it ($reps runs; with"
echo "   AVX-512, floor 2200 MB/s compress and 3000 decompress, goal 3000 and 4000)"
"$build/bench_codec" --repeat "$reps" --codec huffexp --codec zstd:level=1 "$work/grads64.f32"

echo
echo "== 1b. gcomp with the optimizer context of a real trace, one thread ($reps runs)"
"$build/bench_codec" --repeat "$reps" --codec gcomp --codec gcomp:mode=exact --codec huffexp \
	--trace samples/lstm_adamw.h5
"$build/bench_codec" --repeat "$reps" --codec gcomp --codec gcomp:mode=exact --codec huffexp \
	--synthetic --values 4194304 --optim adam
if grep -q '^flags.* avx2' /proc/cpuinfo; then
	echo
	echo "== 1b'. the same with the AVX2 loops (what CPUs without AVX-512 run; targets: gcomp"
	echo "   >= 800 MB/s compress, >= 1500 decompress, mode=exact >= 500 compress; huffexp >= 1300 / 2000)"
	avx2="--isa avx2 --codec gcomp:isa=avx2 --codec gcomp:mode=exact,isa=avx2 --codec huffexp"
	# shellcheck disable=SC2086 # $avx2 is a list of options
	"$build/bench_codec" --repeat "$reps" $avx2 --trace samples/lstm_adamw.h5
	# shellcheck disable=SC2086
	"$build/bench_codec" --repeat "$reps" $avx2 --synthetic --values 4194304 --optim adam
fi
echo
echo "== 1b''. the other traces of small tensors, a block per tensor (mlp_sgd: 10 to 8192 values,"
echo "   cnn_adam: 8 to 2560), zstd -1 beside them ($reps runs)"
for t in mlp_sgd cnn_adam; do
	"$build/bench_codec" --repeat "$reps" --codec huffexp --codec gcomp --codec zstd:level=1 \
		--trace "samples/$t.h5"
done

echo
echo "== 1c. lossy codecs, one thread ($reps runs): tfp and rangeq (target >= 2000 MB/s"
echo "   each way), fft (target >= 200 MB/s); best loops the CPU has, then the portable ones"
lossy="--codec tfp:bits=4 --codec tfp:bits=8 --codec tfp:bits=12 --codec tfp:bits=16
	--codec tfp:bits=24 --codec tfp:bits=4,round=stochastic --codec tfp:bits=8,round=stochastic
	--codec rangeq:bits=10 --codec rangeq:bits=16 --codec fft:drop=0.85,bits=10 --codec zstd:level=1"
# shellcheck disable=SC2086 # $lossy is a list of options
"$build/bench_codec" --repeat "$reps" $lossy "$work/grads16.f32"
# shellcheck disable=SC2086
"$build/bench_codec" --repeat "$reps" --isa portable $lossy "$work/grads16.f32" | sed 1d

echo
echo "== 1d. the sparsifiers, qsgd and terngrad on one 2^24-value block of real gradients, one thread"
echo "   (target: topk at cf=100 under 100 ms)"
"$build/bench_sparse" --repeat "$reps" "$work/grads16.f32"

echo
echo "== 2. gtool stats on $(mbps "$size256" 1) MB of real f32 gradients (median of 5, one thread)"
s=$(runs 5 gtool stats --total "$work/grads256.f32")
z=$(runs 5 zstd -q -3 -T1 -c "$work/grads256.f32")
echo "gtool stats: $(mbps "$size256" "$s") MB/s; zstd -3 -T1 over the same file: $(mbps "$size256" "$z") MB/s"

echo
echo "== 3. threads: gtool compress/decompress -c huffexp, input in the page cache, output to /dev/null"
echo "   (median of $reps, the four command lines run in turn each round)"
gtool compress -q -f -c huffexp "$work/grads256.f32" -o "$work/t.gtz"
in_turn "$reps" "$work/thr" <<EOF
gtool compress -q -T 1 -c huffexp $work/grads256.f32 -o /dev/null
gtool compress -q -T 2 -c huffexp $work/grads256.f32 -o /dev/null
gtool decompress -q -T 1 --out-format raw $work/t.gtz -o /dev/null
gtool decompress -q -T 2 --out-format raw $work/t.gtz -o /dev/null
EOF
t1=$(median < "$work/thr0.s"); t2=$(median < "$work/thr1.s")
d1=$(median < "$work/thr2.s"); d2=$(median < "$work/thr3.s")
rm -f "$work"/thr?.s
gtool decompress -q -f "$work/t.gtz" -o "$work/back.f32"
cmp "$work/back.f32" "$work/grads256.f32"
echo "compress   -T 1: $(mbps "$size256" "$t1") MB/s  -T 2: $(mbps "$size256" "$t2") MB/s  speed-up $(echo "scale=2; $t1 / $t2" | bc -l)"
echo "decompress -T 1: $(mbps "$size256" "$d1") MB/s  -T 2: $(mbps "$size256" "$d2") MB/s  speed-up $(echo "scale=2; $d1 / $d2" | bc -l)"

echo
echo "== 3'. threads on the coding alone: gtool bench -T 1,2 (a file's .gtz blocks and chunks, in"
echo "   memory; median of $reps; target: 2 threads >= 1.85x one), zstd -1 beside it"
gtool bench -q -c huffexp,zstd:level=1 -T 1,2 --repeat "$reps" --dtype f32 --format csv \
	"$work/grads64.f32" | awk -F, 'NR > 1 {
	k = $3 " " $5; v[k, $4] = $9
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
}
END {
	for (i = 1; i <= n; i++)
		printf "%-28s -T 1: %6.0f MB/s  -T 2: %6.0f MB/s  speed-up %.2f\n", order[i],
			v[order[i], 1], v[order[i], 2], v[order[i], 2] / v[order[i], 1]
}'

echo
echo "== 3b. pipes: gtool -T 1 against zstd through '| cat > /dev/null' (wall time, median of $reps,"
echo "   the four command lines run in turn each round; target: ratio to zstd <= 1.00)"
size64=$(stat -c %s "$work/grads64.f32")
gtool compress -q -f -T 1 --dtype f32 "$work/grads64.f32" -o "$work/p.gtz"
zstd -q -f -1 "$work/grads64.f32" -o "$work/p.zst"
pipes="cat $work/grads64.f32 | gtool compress -q -T 1 --dtype f32 - -o - | cat > /dev/null
cat $work/grads64.f32 | zstd -q -1 -T1 -c | cat > /dev/null
gtool decompress -q -T 1 -o - $work/p.gtz | cat > /dev/null
zstd -q -d -c $work/p.zst | cat > /dev/null"
echo "$pipes" | in_turn "$reps" "$work/pipe"
ms() { echo "scale=0; $1 * 1000 / 1" | bc -l; }
pc=$(median < "$work/pipe0.s"); zc=$(median < "$work/pipe1.s")
pd=$(median < "$work/pipe2.s"); zd=$(median < "$work/pipe3.s")
echo "$pipes" | sed -n 1p
echo "   $(ms "$pc") ms ($(mbps "$size64" "$pc") MB/s); zstd -1: $(ms "$zc") ms; ratio $(echo "scale=2; $pc / $zc" | bc -l)"
echo "$pipes" | sed -n 3p
echo "   $(ms "$pd") ms ($(mbps "$size64" "$pd") MB/s); zstd -d: $(ms "$zd") ms; ratio $(echo "scale=2; $pd / $zd" | bc -l)"
rm -f "$work"/pipe?.s "$work/p.gtz" "$work/p.zst" "$work/grads64.f32"

echo
echo "== 4. sizes: every sample trace, huffexp .gtz against zstd -19 of the same file"
printf '%-26s %10s %10s %10s %8s\n' trace bytes huffexp zstd-19 ratio
for f in samples/*.h5; do
	gtool compress -q -f -c huffexp "$f" -o "$work/s.gtz"
	h=$(stat -c %s "$work/s.gtz"); o=$(stat -c %s "$f"); z=$(zstd -q -19 -c "$f" | wc -c)
	printf '%-26s %10d %10d %10d %8s\n' "$(basename "$f")" "$o" "$h" "$z" "$(echo "scale=3; $h / $z" | bc -l)"
done

echo
echo "== 4b. the HDF5 filter (plugins/, filter 400) against HDF5's and Debian's filters, through h5py,"
echo "   one thread, medians of $((reps < 5 ? reps : 5)) (tools/h5filter-bench.py; README: HDF5 filter plugin)"
HDF5_PLUGIN_PATH="$(cd "$build" && pwd)/plugins:/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins" \
	BLOSC_NTHREADS=1 /usr/bin/python3 tools/h5filter-bench.py --repeat $((reps < 5 ? reps : 5)) \
	--work "$work" samples/*.h5
echo
echo "   the filter on $(mbps "$size256" 1) MB of f32 in 1 MiB chunks against the codec in memory"
echo "   (target: the filter costs at most 15 % over the codec); gtool bench on the same file:"
"$build/h5filter-bench" "$work/grads256.f32" "$work/h5filter-big.h5" 5
gtool bench -q -c huffexp --dtype f32 --repeat 5 "$work/grads256.f32"
rm -f "$work/h5filter-big.h5" "$work/bench.h5"

echo
echo "== 5. bounded memory: 4 GiB of gradients through pipes (peak resident set, limit 256 MiB)"
# the 256 MiB file 16 times into compress, its output straight into
# decompress: no 4 GiB file is written, and neither may hold it
limit=$((256 * 1024))
rss() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
i=0
while [ $i -lt 16 ]; do cat "$work/grads256.f32"; i=$((i + 1)); done |
	/usr/bin/time -v -o "$work/c.time" gtool compress -q --dtype f32 - -o - |
	/usr/bin/time -v -o "$work/d.time" gtool decompress -q - -o - | wc -c > "$work/d.bytes"
want=$((size256 * 16))
got=$(tr -d ' ' < "$work/d.bytes")
bench_rc=0
for step in c:compress d:decompress; do
	kb=$(rss "$work/${step%%:*}.time")
	verdict=PASS
	[ -n "$kb" ] && [ "$kb" -lt "$limit" ] || { verdict=FAIL; bench_rc=1; }
	echo "${step#*:}: ${kb:-?} KiB ($((${kb:-0} / 1024)) MiB) peak RSS: $verdict (< 256 MiB)"
done
if [ "$got" = "$want" ]; then
	echo "decompressed $((got >> 20)) MiB of $((want >> 20)) MiB: PASS"
else
	echo "decompressed $got bytes of $want: FAIL"; bench_rc=1
fi
rm -f "$work/c.time" "$work/d.time" "$work/d.bytes" "$work/t.gtz" "$work/grads256.f32"
exit $bench_rc
