#!/bin/sh
# sizes.sh GTOOL [--tensors] SAMPLE.h5... - the gradients of each trace,
# coded by huffexp and gcomp (gtool compress, bytes as `gtool ls` stores
# them) and by zstd -19 and xz -9e (each gradient's raw little-endian
# bytes, from `gtool decompress --format raw`, one file per tensor, as
# gtool codes them).  One TSV line per trace: trace, gradient bytes, then
# the four sizes in bytes; with --tensors one line per gradient as well.
set -eu
gtool=$1
shift
per=0
if [ "${1:-}" = --tensors ]; then
	per=1
	shift
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'trace\ttensor\traw\thuffexp\tgcomp\tzstd-19\txz-9e\n'
for s in "$@"; do
	t=$(basename "$s" .h5)
	"$gtool" compress -q -f -T1 -c huffexp -o "$tmp/h.gtz" "$s"
	# a file that is no trace (no optimizer for gcomp) is left out
	"$gtool" compress -q -f -T1 -c gcomp -o "$tmp/g.gtz" "$s" 2>/dev/null || continue
	"$gtool" ls --format tsv "$tmp/h.gtz" | awk -F'\t' '$2 ~ /\/grad\// { print $2, $6, $9 }' \
		> "$tmp/h.txt"
	"$gtool" ls --format tsv "$tmp/g.gtz" | awk -F'\t' '$2 ~ /\/grad\// { print $9 }' \
		> "$tmp/g.txt"
	paste -d' ' "$tmp/h.txt" "$tmp/g.txt" | while read -r name raw hx gc; do
		rm -f "$tmp/x.raw"
		"$gtool" decompress -q -f --format raw -d "$name" -o "$tmp/x.raw" "$tmp/h.gtz"
		zs=$(zstd -q -19 -c "$tmp/x.raw" | wc -c)
		xs=$(xz -9e -c "$tmp/x.raw" | wc -c)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$name" "$raw" "$hx" "$gc" "$zs" "$xs"
	done > "$tmp/rows.tsv"
	[ "$per" = 1 ] && cat "$tmp/rows.tsv"
	awk -F'\t' -v t="$t" '{ r += $3; h += $4; g += $5; z += $6; x += $7 }
		END { printf "%s\t(all)\t%d\t%d\t%d\t%d\t%d\n", t, r, h, g, z, x }' "$tmp/rows.tsv"
done
