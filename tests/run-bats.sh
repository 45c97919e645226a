#!/bin/sh
# run-bats.sh RESULT FILE... - run the Bats suites (TAP), count ok / not ok
# The files run $BATS_JOBS at a time (default: the number of cores, at most
# 2; each file's tests stay in order), their reports printed in the order
# given.  Each file gets $BATS_FILE_TIMEOUT seconds (default 600): a file
# that hangs is killed and counted as a failure by its name, with the tests
# it did not reach.
limit=${BATS_FILE_TIMEOUT:-600}

# run-bats.sh --one FILE DIR: one file; its report into DIR/FILE's base
# name .msg and "passed failed" into .res
if [ "$1" = --one ]; then
	f=$2; base=$3/$(basename "$f" .bats)
	log=$base.log
	PATH="$GTOOL_BUILD:$PATH" timeout -k 10 "$limit" bats --tap "$f" > "$log" 2>&1
	rc=$?
	{
		grep -v '^ok ' "$log" | grep -v '^#' | grep -v '^1\.\.'
		grep -A 20 '^not ok' "$log" | grep '^#' | head -100
	} > "$base.msg"
	p=$(grep -c '^ok ' "$log")
	n=$(grep -c '^not ok ' "$log")
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "$f: timed out after ${limit}s" >> "$base.msg"; n=$((n + 1))
	elif [ -z "$planned" ] || [ "$((p + n))" -lt "$planned" ]; then
		{ tail -n 20 "$log"; echo "$f: stopped early (exit $rc)"; } >> "$base.msg"
		n=$((n + 1))
	fi
	echo "$p $n" > "$base.res"
	exit 0
fi

out=$1; shift
# shellcheck source=tests/par.sh
. "$(dirname "$0")/par.sh"
dir=$(mktemp -d)
par_run "$0" "$BATS_JOBS" .bats "$dir" "$@"
rm -rf "$dir"
echo "cli (Bats): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
