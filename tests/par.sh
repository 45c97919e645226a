# shellcheck shell=sh
# par.sh - what the suite runners share (sourced by tests/run-unit.sh,
# tests/run-bats.sh and tests/fuzz/run-libfuzzer.sh): each runs its items
# a few at a time through "RUNNER --one ITEM ...", which leaves ITEM's
# report in DIR/KEY.msg and "passed failed" in DIR/KEY.res (KEY: ITEM's
# base name less SUFFIX); par_collect prints the reports in the order
# given and adds up the counts; par_run does both.

# par_run RUNNER JOBS SUFFIX DIR ITEM... - "sh RUNNER --one ITEM DIR" for
# each item, par_jobs JOBS at a time, then par_collect DIR SUFFIX ITEM...
par_run() {
	_runner=$1 _jobs=$2 _sfx=$3 _pdir=$4
	shift 4
	printf '%s\n' "$@" | xargs -P "$(par_jobs "$_jobs")" -I{} sh "$_runner" --one {} "$_pdir"
	par_collect "$_pdir" "$_sfx" "$@"
}

# par_jobs [N] - N, or the number of cores, at most 2
par_jobs() {
	_j=${1:-$(nproc 2>/dev/null || echo 1)}
	[ "$_j" -gt 2 ] && _j=2
	echo "$_j"
}

# par_collect DIR SUFFIX ITEM... - sets $passed and $failed; an item
# without a result counts as one failure
par_collect() {
	_dir=$1 _suf=$2
	shift 2
	passed=0; failed=0
	for _it in "$@"; do
		_base=$_dir/$(basename "$_it" "$_suf")
		cat "$_base.msg" 2>/dev/null
		if [ -f "$_base.res" ]; then
			read -r _p _f < "$_base.res"
		else
			echo "$_it: no result"; _p=0; _f=1
		fi
		passed=$((passed + _p)); failed=$((failed + _f))
	done
}
