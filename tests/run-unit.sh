#!/bin/sh
# run-unit.sh RESULT BIN... - run unit-test binaries, add up their counts
# The binaries run $UNIT_JOBS at a time (default: the number of cores, at
# most 2), their reports printed in the order given.  Each gets
# $UNIT_TIMEOUT seconds (default 300, room for ASan): a test that hangs is
# killed and counted as a failure by its name.
limit=${UNIT_TIMEOUT:-300}

# run-unit.sh --one BIN DIR: one binary; its report into DIR/BIN's base
# name .msg and "passed failed" into .res
if [ "$1" = --one ]; then
	t=$2; base=$3/$(basename "$t")
	log=$(timeout -k 10 "$limit" "$t" 2>&1); rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		{ printf '%s\n' "$log" | tail -n 20; echo "$t: timed out after ${limit}s"; } > "$base.msg"
		echo "0 1" > "$base.res"; exit 0
	fi
	msg=$(printf '%s\n' "$log" | grep -E 'FAIL|failed$|CHECK|ERROR|runtime error' |
		grep -v ' 0 failed$')
	# a failure names the seed it ran with, so that it can be run again
	if [ -n "$msg" ]; then
		printf '%s\n' "$log" | grep -E ': seed = [0-9]+$'
		printf '%s\n' "$msg"
	fi > "$base.msg"
	line=$(printf '%s\n' "$log" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ -z "$line" ]; then
		{ printf '%s\n' "$log" | tail -n 20; echo "$t: crashed or printed no count (exit $rc)"; } >> "$base.msg"
		echo "0 1" > "$base.res"; exit 0
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
	f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { echo "$t: exit $rc" >> "$base.msg"; f=1; }
	echo "$p $f" > "$base.res"
	exit 0
fi

out=$1; shift
# shellcheck source=tests/par.sh
. "$(dirname "$0")/par.sh"
dir=$(mktemp -d)
par_run "$0" "$UNIT_JOBS" "" "$dir" "$@"
rm -rf "$dir"
echo "unit$(case $out in *asan*) echo ' (ASan+UBSan)';; esac): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
