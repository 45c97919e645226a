#!/bin/sh
# lint.sh - `make lint`: the scripts through shellcheck, every function of
# the program 60 lines at most and every file 1500 (STYLE.md; tests and
# benchmarks aside), includes that follow the layers, no trailing blanks
# in what git tracks.
# Exit status 1 when any check finds something; each finding on a line.
set -u
rc=0

if command -v shellcheck >/dev/null 2>&1; then
	shellcheck -x -S warning tests/*.sh tools/*.sh .ci/run completions/gtool.bash || rc=1
else
	echo "lint: shellcheck is not installed: scripts not checked" >&2
fi

# a function body runs from a "{" to a "}" alone at column 0
# shellcheck disable=SC2046 # one argument per file
long=$(awk 'FNR == 1 { start = 0 }
	/^\{/ { start = FNR }
	/^\}/ && start { if (FNR - start - 1 > 60) print FILENAME ":" start ": " FNR - start - 1 " lines"; start = 0 }' \
	$(git ls-files 'lib/*.[ch]' 'formats/*.[ch]' 'analysis/*.[ch]' 'engine/*.[ch]' 'api/*.[ch]' 'cmd/*.[ch]' 'front/*.[ch]' 'mpi/*.[ch]' '*.cu'))
if [ -n "$long" ]; then
	echo "lint: functions over 60 lines:"
	echo "$long"
	rc=1
fi

# files of the program 1500 lines at most (STYLE.md)
# shellcheck disable=SC2046
big=$(wc -l $(git ls-files 'lib/*.[ch]' 'formats/*.[ch]' 'analysis/*.[ch]' 'engine/*.[ch]' 'api/*.[ch]' 'cmd/*.[ch]' 'front/*.[ch]' 'mpi/*.[ch]') |
	awk '$2 != "total" && $1 > 1500 { print $2 ": " $1 " lines" }')
if [ -n "$big" ]; then
	echo "lint: files over 1500 lines:"
	echo "$big"
	rc=1
fi

# dependencies point one way (docs/ARCHITECTURE.md):
# {cmd, mpi} -> engine -> {analysis, formats} -> lib; formats and analysis
# never include each other; engine never includes a front end or api/;
# cmd and mpi never include each other (what both need, printing, is in
# front/, which includes the engine and below only); cmd and engine only public headers
# of lib.  api/ (libgtool's public API) sits on top of the library layers
# and never uses cmd/ or mpi/; the examples use only the installed gtool.h
layer=$( (git grep -n -E '#include "[^"]*(formats|analysis|engine|api|front|cmd|mpi)/' -- 'lib/*' || true
	git grep -n -E '#include "[^"]*(analysis|engine|api|front|cmd|mpi)/' -- 'formats/*' || true
	git grep -n -E '#include "[^"]*(formats|engine|api|front|cmd|mpi)/' -- 'analysis/*' || true
	git grep -n -E '#include "[^"]*(api|front|cmd|mpi)/' -- 'engine/*' || true
	git grep -n -E '#include "[^"]*(front|cmd|mpi)/' -- 'api/*' || true
	git grep -n -E '#include "[^"]*(api|cmd|mpi)/' -- 'front/*' || true
	git grep -n -E '#include "[^"]*mpi/' -- 'cmd/*' || true
	git grep -n -E '#include "[^"]*cmd/' -- 'mpi/*' || true
	git grep -n -E '#include "' -- 'examples/*.c' || true
	git grep -n -E '#include [<"]' -- api/gtool.h | grep -v -E '<std(def|int)\.h>' || true
	git grep -n -E '#include "\.\./[^"]*(_impl|_simd)\.h"' -- 'cmd/*' 'engine/*' || true) )
if [ -n "$layer" ]; then
	echo "lint: includes against the layers:"
	echo "$layer"
	rc=1
fi

blank=$(git grep -n -I -E '[[:blank:]]+$' -- '*.c' '*.h' '*.sh' '*.bats' '*.md' Makefile 'man/*' || true)
if [ -n "$blank" ]; then
	echo "lint: trailing blanks:"
	echo "$blank"
	rc=1
fi
exit $rc
