#!/bin/sh
# run-bats.sh RESULT FILE... - run the Bats suites (TAP), count ok / not ok
out=$1; shift
log=$(mktemp)
PATH="$GTOOL_BUILD:$PATH" bats --tap "$@" > "$log" 2>&1
grep -v '^ok ' "$log" | grep -v '^#' | grep -v '^1\.\.'
grep -A 20 '^not ok' "$log" | grep '^#' | head -100
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
if [ -z "$planned" ] || [ "$((passed + failed))" -lt "$planned" ]; then
	tail -n 20 "$log"; failed=$((failed + 1))
fi
rm -f "$log"
echo "cli (Bats): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
