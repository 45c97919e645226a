#!/bin/sh
# run-fuzz.sh RESULT BIN... - replay each fuzz target's corpus under ASan+UBSan
# Each target gets $FUZZ_TIMEOUT seconds (default 300) for its corpus: a
# hang is killed and counted as a failure by the target's name.
out=$1; shift
limit=${FUZZ_TIMEOUT:-300}
passed=0; failed=0
for t in "$@"; do
	name=$(basename "$t")
	dir=tests/fuzz/corpus/${name#fuzz_}
	[ -d "$dir" ] || { echo "$name: no corpus in $dir"; failed=$((failed + 1)); continue; }
	log=$(timeout -k 10 "$limit" "$t" "$dir"/* 2>&1); rc=$?
	if [ "$rc" -eq 0 ]; then
		n=$(printf '%s\n' "$log" | sed -n 's/^replayed \([0-9]*\) inputs$/\1/p')
		passed=$((passed + ${n:-0}))
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf '%s\n' "$log" | tail -n 10
		echo "$name: timed out after ${limit}s on its corpus"
		failed=$((failed + 1))
	else
		printf '%s\n' "$log" | tail -n 30
		echo "$name: crashed on its corpus"
		failed=$((failed + 1))
	fi
done
echo "fuzz replay: $passed passed, $failed failed"
echo "$passed $failed" > "$out"
