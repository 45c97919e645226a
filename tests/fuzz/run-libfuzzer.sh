#!/bin/sh
# run-libfuzzer.sh SECONDS RESULT WORKDIR BIN... - fuzz each libFuzzer binary
# (built by make fuzz-build: clang, ASan, UBSan) for SECONDS, starting from
# tests/fuzz/corpus/<name>/.  The fuzzer writes new inputs to a copy of the
# corpus, never to the committed one: WORKDIR/<name> when WORKDIR is given
# (make fuzz keeps it), else a scratch directory removed at the end (make
# check).  A crash, leak or timeout fails that target; its input is kept as
# $(dirname BIN)/crashes/<name>-crash-<sha1> and its path printed: add it to
# tests/fuzz/corpus/<name>/ so the ASan replay in make check keeps it.
# Writes "passed failed" (one per target) to RESULT.
secs=$1; out=$2; keep=$3; shift 3
passed=0; failed=0
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
for bin in "$@"; do
	name=$(basename "$bin")
	short=${name#fuzz_}
	crashes=$(dirname "$bin")/crashes
	if [ ! -x "$bin" ]; then
		echo "$name: no libFuzzer binary $bin"
		failed=$((failed + 1)); continue
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
		echo "$name: ok, ${execs:-?} runs in ${secs} s"
		passed=$((passed + 1))
	else
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)|^    #[0-9] ' "$log" | head -n 25
		echo "$name: FAILED (exit $rc) after ${execs:-?} runs"
		for f in $found; do echo "$name: crash input $f"; done
		[ -z "$found" ] && tail -n 5 "$log"
		failed=$((failed + 1))
	fi
done
echo "fuzz run (libFuzzer, ${secs} s each): $passed passed, $failed failed"
echo "$passed $failed" > "$out"
[ "$failed" -eq 0 ]
