#!/bin/sh
# lint.sh - `make lint`: the scripts through shellcheck, every function of
# the program 60 lines at most (STYLE.md; tests and benchmarks aside), no
# trailing blanks in what git tracks.
# Exit status 1 when any check finds something; each finding on a line.
set -u
rc=0

if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -S warning tests/*.sh tools/*.sh .ci/run || rc=1
else
	echo "lint: shellcheck is not installed: scripts not checked" >&2
fi

# a function body runs from a "{" to a "}" alone at column 0
# shellcheck disable=SC2046 # one argument per file
long=$(awk 'FNR == 1 { start = 0 }
	/^\{/ { start = FNR }
	/^\}/ && start { if (FNR - start - 1 > 60) print FILENAME ":" start ": " FNR - start - 1 " lines"; start = 0 }' \
	$(git ls-files 'lib/*.[ch]' 'formats/*.[ch]' 'analysis/*.[ch]' 'cmd/*.[ch]' 'mpi/*.[ch]' '*.cu'))
if [ -n "$long" ]; then
	echo "lint: functions over 60 lines:"
	echo "$long"
	rc=1
fi

blank=$(git grep -n -I -E '[[:blank:]]+$' -- '*.c' '*.h' '*.sh' '*.bats' '*.md' Makefile 'man/*' || true)
if [ -n "$blank" ]; then
	echo "lint: trailing blanks:"
	echo "$blank"
	rc=1
fi
exit $rc
