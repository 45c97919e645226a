#!/bin/sh
# run-pytest.sh RESULT - the Python package's tests (tests/python) with
# Debian's python3 and pytest; "passed failed" into RESULT.  No tests
# collected (pytest's exit 5) counts as 0 0.
out=$1
py=${PYTHON:-/usr/bin/python3}
log=$(mktemp)
PYTHONPATH="$(pwd)/python${PYTHONPATH:+:$PYTHONPATH}" "$py" -m pytest -q -p no:cacheprovider \
	tests/python > "$log" 2>&1
rc=$?
last=$(tail -n 1 "$log")
passed=$(echo "$last" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
failed=$(echo "$last" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' | head -n 1)
errors=$(echo "$last" | sed -n 's/.* \([0-9][0-9]*\) errors\{0,1\}.*/\1/p' | head -n 1)
passed=${passed:-0}; failed=$((${failed:-0} + ${errors:-0}))
case $rc in
0|5) ;;
1) [ "$failed" -gt 0 ] || failed=1 ;;
*) tail -n 30 "$log"; failed=$((failed + 1)) ;;
esac
[ "$failed" -gt 0 ] && grep -E '^(FAILED|ERROR) ' "$log" | head -50
rm -f "$log"
echo "pytest: $passed passed, $failed failed"
echo "$passed $failed" > "$out"
