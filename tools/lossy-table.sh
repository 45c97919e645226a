#!/bin/sh
# lossy-table.sh [GTOOL] TRACE... - the README's table of the lossy codecs
# at the settings their papers used: `gtool compare --grads-only` on each
# trace (so sizes and errors are those of the gradients alone), one row a
# codec setting: size ratio, RMSE, cosine, compression gain and the share
# of parameters an optimizer step leaves bit-identical.
set -eu
gtool=${GTOOL:-build/gtool}
specs="tfp:bits=4,tfp:bits=8,rangeq:bits=10,fft:drop=0.85,bits=10,topk:cf=10,topk:cf=1000"
specs="$specs,dgc:cf=10,dgc:cf=1000,randk:cf=100,redsync:cf=100,qsgd:levels=3,terngrad"

echo "| trace | codec | ratio | RMSE | cosine | gain | update bit-identical |"
echo "|---|---|---:|---:|---:|---:|---:|"
for t in "$@"; do
	"$gtool" compare -q --grads-only -T1 --repeat 1 -c "$specs" --format tsv "$t" |
	awk -F'\t' -v t="$(basename "$t" .h5)" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf "| %s | %s | %.4f | %.3g | %.4f | %.4f | %.2f %% |\n", t, $c["spec"],
			$c["ratio"], $c["rmse"], $c["cosine"], $c["gain"], $c["update_identical_pct"] }'
done
