#!/bin/sh
# run-libfuzzer.sh SECONDS TARGET.c... - build each target with clang's
# libFuzzer, ASan and UBSan, and fuzz it for SECONDS from its corpus.
# New inputs go to build/fuzz-work/<name>; a crash is saved as
# tests/fuzz/crash-<name>-*: add it to tests/fuzz/corpus/<name>/ once fixed.
set -e
secs=$1; shift
out=build/libfuzzer
mkdir -p "$out"
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(pkg-config --cflags hdf5 libzstd zlib)"
libs="$(pkg-config --libs hdf5 libzstd zlib) -lm -pthread"
srcs=$(ls lib/*.c lib/codecs/*.c formats/*.c)
status=0
for t in "$@"; do
	name=$(basename "$t" .c)
	short=${name#fuzz_}
	echo "== $name ($secs s)"
	clang $flags -o "$out/$name" "$t" $srcs $libs
	mkdir -p "build/fuzz-work/$short"
	if ! "$out/$name" -max_total_time="$secs" -artifact_prefix="tests/fuzz/crash-$short-" \
		-print_final_stats=1 "build/fuzz-work/$short" "tests/fuzz/corpus/$short" 2>&1 |
		grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|crash'; then
		:
	fi
	ls tests/fuzz/crash-"$short"-* >/dev/null 2>&1 && status=1
done
exit $status
