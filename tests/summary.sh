#!/bin/sh
# summary.sh DIR - the one closing line over every suite: N passed, N failed
dir=$1
passed=0; failed=0
for s in unit unit-asan cli fuzz fuzz-run examples pytest; do
	if [ -f "$dir/$s.txt" ]; then
		read -r p f < "$dir/$s.txt"
		passed=$((passed + p)); failed=$((failed + f))
	else
		echo "suite $s did not run"; failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
