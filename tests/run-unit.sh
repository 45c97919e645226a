#!/bin/sh
# run-unit.sh RESULT BIN... - run unit-test binaries, add up their counts
out=$1; shift
passed=0; failed=0
for t in "$@"; do
	log=$("$t" 2>&1); rc=$?
	printf '%s\n' "$log" | grep -E 'FAIL|failed$|CHECK|ERROR|runtime error' | grep -v ' 0 failed$'
	line=$(printf '%s\n' "$log" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ -z "$line" ]; then
		printf '%s\n' "$log" | tail -n 20
		echo "$t: crashed or printed no count (exit $rc)"
		failed=$((failed + 1)); continue
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
	f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { echo "$t: exit $rc"; f=1; }
	passed=$((passed + p)); failed=$((failed + f))
done
echo "unit$(case $out in *asan*) echo ' (ASan+UBSan)';; esac): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
