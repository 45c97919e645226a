#!/bin/sh
# run-unit.sh RESULT BIN... - run unit-test binaries, add up their counts
# Each binary gets $UNIT_TIMEOUT seconds (default 300, room for ASan): a
# test that hangs is killed and counted as a failure by its name.
out=$1; shift
limit=${UNIT_TIMEOUT:-300}
passed=0; failed=0
for t in "$@"; do
	log=$(timeout -k 10 "$limit" "$t" 2>&1); rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf '%s\n' "$log" | tail -n 20
		echo "$t: timed out after ${limit}s"
		failed=$((failed + 1)); continue
	fi
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
