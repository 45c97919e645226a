#!/bin/sh
# run-libfuzzer.sh SECONDS RESULT WORKDIR BIN... - fuzz each libFuzzer binary
# (built by make fuzz-build: clang, ASan, UBSan) for SECONDS, starting from
# tests/fuzz/corpus/<name>/.  The fuzzer writes new inputs to a copy of the
# corpus, never to the committed one: WORKDIR/<name> when WORKDIR is given
# (make fuzz keeps it), else a scratch directory removed at the end (make
# check).  A crash, leak or timeout fails that target; its input is kept as
# $(dirname BIN)/crashes/<name>-crash-<sha1> and its path printed: add it to
# tests/fuzz/corpus/<name>/ so the ASan replay in make check keeps it.
# The targets run $FUZZ_JOBS at a time (default: the number of cores, at
# most 2; each still fuzzes SECONDS on one core), their reports printed in
# the order given.  Writes "passed failed" (one per target) to RESULT.

# run-libfuzzer.sh --one BIN SCRATCH: one target, for $FUZZ_SECS from
# $FUZZ_KEEP (WORKDIR); its report into SCRATCH/<name>.msg and "passed
# failed" into .res
if [ "$1" = --one ]; then
	bin=$2; scratch=$3; secs=$FUZZ_SECS; keep=$FUZZ_KEEP
	name=$(basename "$bin")
	short=${name#fuzz_}
	crashes=$(dirname "$bin")/crashes
	msg=$scratch/$name.msg
	if [ ! -x "$bin" ]; then
		echo "$name: no libFuzzer binary $bin" > "$msg"
		echo "0 1" > "$scratch/$name.res"; exit 0
	fi
	work=${keep:+$keep/$short}
	work=${work:-$scratch/$short}
	mkdir -p "$work" "$scratch/art-$short" "$crashes"
	[ -d "tests/fuzz/corpus/$short" ] && cp -p tests/fuzz/corpus/"$short"/* "$work"/ 2>/dev/null
	log=$scratch/$short.log
	# make check (no WORKDIR) fuzzes from a fixed seed, so that two runs of
	# the same tree try the same inputs; make fuzz explores afresh
	seed=-seed=1
	[ -n "$keep" ] && seed=-seed=0
	"$bin" "$seed" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$scratch/art-$short/" "$work" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	found=""
	for a in "$scratch/art-$short"/*; do
		[ -f "$a" ] || continue
		dst=$crashes/$short-$(basename "$a")
		cp "$a" "$dst"
		found="$found $dst"
	done
	if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
		echo "$name: ok, ${execs:-?} runs in ${secs} s" > "$msg"
		echo "1 0" > "$scratch/$name.res"
	else
		{
			grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)|^    #[0-9] ' "$log" | head -n 25
			echo "$name: FAILED (exit $rc) after ${execs:-?} runs"
			for f in $found; do echo "$name: crash input $f"; done
			[ -z "$found" ] && tail -n 5 "$log"
		} > "$msg"
		echo "0 1" > "$scratch/$name.res"
	fi
	exit 0
fi

secs=$1; out=$2; keep=$3; shift 3
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
# shellcheck source=tests/par.sh
. "$(dirname "$0")/../par.sh"
FUZZ_SECS=$secs FUZZ_KEEP=$keep
export FUZZ_SECS FUZZ_KEEP
par_run "$0" "$FUZZ_JOBS" "" "$scratch" "$@"
echo "fuzz run (libFuzzer, ${secs} s each): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
[ "$failed" -eq 0 ]
