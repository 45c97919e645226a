#!/bin/sh
# gen-compress.sh GTOOL [payloads [SAMPLE...]] - print the golden digests
# of `gtool compress`: every sample trace x every codec (default options),
# gcomp's modes and huffexp --table-refresh, one line each: "SHA256 SAMPLE
# ARGS...".  Combinations that exit non-zero are left out.
# tests/cli/golden.bats recomputes every line of tests/golden/compress.sha256.
# Regenerate (only when the format is meant to change):
#   sh tests/golden/gen-compress.sh build/gtool > tests/golden/compress.sha256
# With "payloads", the digest is of the coded blocks alone (every B
# record's payload, in file order: what the codecs wrote, without the
# container's headers, attributes and index), over the SAMPLEs given (all
# by default); tests/golden/payloads.sha256 was made so by the gtool of
# before the library and format 1.1 work, and golden.bats checks that
# today's codecs still write those bytes (the lines where huffexp codes a
# tensor with all-zero columns were remade with format 1.2, which codes
# them as bitmaps, and those where it codes an f32 block of 8192 values or
# more with format 1.3, which splits its chunks, and the gcomp lines where
# format 1.3 codes a block as huffexp, which takes fewer bytes there, and
# the gcomp lines of such blocks with format 1.5, which splits gcomp's).
set -u
gtool=$1
mode=${2:-file}
[ $# -gt 2 ] && shift 2 || set --
only=$*
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
		if [ "$mode" = payloads ]; then
			echo "$(/usr/bin/python3 "$root/tests/golden/payloads.py" "$gtool" "$tmp/x.gtz") $s $*"
		else
			echo "$(sha256sum < "$tmp/x.gtz" | cut -d' ' -f1) $s $*"
		fi
	fi
}

codecs=$("$gtool" compress --list-codecs | sed -n 's/^\([a-z0-9]*\) *id .*/\1/p')
for path in "$root"/samples/*.h5 "$root/samples/grads.f32" "$root/samples/grads.npy"; do
	s=$(basename "$path")
	case " ${only:-$s} " in *" $s "*) ;; *) continue ;; esac
	for c in $codecs gcomp:margin=1 gcomp:mode=exact gcomp:mode=single-quant \
		gcomp:mode=multi-quant gcomp:mode=zero-prune; do
		one "$s" -c "$c"
	done
done
one lstm_adamw.h5 -c huffexp --table-refresh=2
