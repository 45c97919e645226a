#!/bin/sh
# run-fuzz.sh RESULT BIN... - replay each fuzz target's corpus under ASan+UBSan
out=$1; shift
passed=0; failed=0
for t in "$@"; do
	name=$(basename "$t")
	dir=tests/fuzz/corpus/${name#fuzz_}
	[ -d "$dir" ] || { echo "$name: no corpus in $dir"; failed=$((failed + 1)); continue; }
	if log=$("$t" "$dir"/* 2>&1); then
		n=$(printf '%s\n' "$log" | sed -n 's/^replayed \([0-9]*\) inputs$/\1/p')
		passed=$((passed + ${n:-0}))
	else
		printf '%s\n' "$log" | tail -n 30
		echo "$name: crashed on its corpus"
		failed=$((failed + 1))
	fi
done
echo "fuzz replay: $passed passed, $failed failed"
echo "$passed $failed" > "$out"
