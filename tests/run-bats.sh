#!/bin/sh
# run-bats.sh RESULT FILE... - run the Bats suites (TAP), count ok / not ok
# Each file gets $BATS_FILE_TIMEOUT seconds (default 600): a file that
# hangs is killed and counted as a failure by its name, with the tests it
# did not reach.
out=$1; shift
limit=${BATS_FILE_TIMEOUT:-600}
log=$(mktemp)
passed=0; failed=0
for f in "$@"; do
	PATH="$GTOOL_BUILD:$PATH" timeout -k 10 "$limit" bats --tap "$f" > "$log" 2>&1
	rc=$?
	grep -v '^ok ' "$log" | grep -v '^#' | grep -v '^1\.\.'
	grep -A 20 '^not ok' "$log" | grep '^#' | head -100
	p=$(grep -c '^ok ' "$log")
	n=$(grep -c '^not ok ' "$log")
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "$f: timed out after ${limit}s"; n=$((n + 1))
	elif [ -z "$planned" ] || [ "$((p + n))" -lt "$planned" ]; then
		tail -n 20 "$log"; echo "$f: stopped early (exit $rc)"; n=$((n + 1))
	fi
	passed=$((passed + p)); failed=$((failed + n))
done
rm -f "$log"
echo "cli (Bats): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
