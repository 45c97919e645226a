#!/bin/sh
# demo.sh BUILD - a tour of gtool on the bundled sample traces (make demo)
set -e
build=${1:-build}
PATH="$(cd "$build" && pwd):$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$(dirname "$0")"

say() { printf '\n$ %s\n' "$*"; }
run() { say "$*"; "$@"; }

run gtool ls dtypes.h5
run gtool ls --steps cnn_adam.h5
run gtool stats --total mlp_sgd.h5 cnn_adam.h5 lstm_adamw.h5
run gtool stats -d '/step_000100/grad/*' mlp_sgd.h5
run gtool hist -d /step_000600/grad/0.weight mlp_sgd.h5
run gtool hist --by step --svg "$out/drift.svg" mlp_sgd.h5
run gtool compress -c huffexp mlp_sgd.h5 -o "$out/mlp.gtz"
run gtool compress -c zstd -l 19 mlp_sgd.h5 -o "$out/mlp.zstd.gtz"
run gtool compress -c huffexp -d '/step_000600/grad/*' mlp_sgd.h5 -o "$out/step600.gtz"
run gtool ls "$out/step600.gtz"
run gtool decompress "$out/mlp.gtz" -o "$out/back.h5"
say "h5diff mlp_sgd.h5 back.h5 (values) and gtool ls (tree)"
h5diff mlp_sgd.h5 "$out/back.h5" && echo "identical values"
run gtool huffman build -v cnn_adam.h5 -o "$out/prior.ght"
run gtool huffman apply --table "$out/prior.ght" -d '/step_000500/grad/*' cnn_adam.h5
say "cat grads.f32 | gtool compress --dtype f32 - | gtool decompress - | cmp - grads.f32"
gtool compress --dtype f32 - < grads.f32 | gtool decompress - | cmp - grads.f32 && echo "round trip through a pipe: identical bytes"
