#!/bin/sh
# gen-compress.sh GTOOL - print the golden digests of `gtool compress`:
# every sample trace x every codec (default options), gcomp's modes and
# huffexp --table-refresh, one line each: "SHA256 SAMPLE ARGS...".
# Combinations that exit non-zero are left out.  tests/cli/golden.bats
# recomputes every line of tests/golden/compress.sha256.
# Regenerate (only when the format is meant to change):
#   sh tests/golden/gen-compress.sh build/gtool > tests/golden/compress.sha256
set -u
gtool=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # SAMPLE ARGS...
	s=$1
	shift
	case $s in *.f32) set -- --dtype=f32 "$@" ;; esac
	rm -f "$tmp/x.gtz"
	if "$gtool" compress -q -T1 "$@" -o "$tmp/x.gtz" "$root/samples/$s" \
		>/dev/null 2>&1; then
		echo "$(sha256sum < "$tmp/x.gtz" | cut -d' ' -f1) $s $*"
	fi
}

codecs=$("$gtool" compress --list-codecs | sed -n 's/^\([a-z0-9]*\) *id .*/\1/p')
for path in "$root"/samples/*.h5 "$root/samples/grads.f32" "$root/samples/grads.npy"; do
	s=$(basename "$path")
	for c in $codecs gcomp:margin=1 gcomp:mode=exact gcomp:mode=single-quant \
		gcomp:mode=multi-quant gcomp:mode=zero-prune; do
		one "$s" -c "$c"
	done
done
one lstm_adamw.h5 -c huffexp --table-refresh=2
