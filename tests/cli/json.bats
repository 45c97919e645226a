#!/usr/bin/env bats
# json.bats - every command's --format json: shapes are arrays of integers,
# flags are booleans, numbers are numbers (never strings), no value is null

load helpers

BENCH=$FIXTURES/bench.json

# jq_all FILE FILTER... - every filter holds on the JSON in FILE
jq_all() {
	local f=$1 q
	shift
	for q in "$@"; do
		jq -e "$q" "$f" > /dev/null || { echo "jq '$q' failed on: $(head -c 600 "$f")"; return 1; }
	done
}

@test "json: ls gives shapes as arrays of integers, counts as numbers" {
	gtool ls --format json "$SAMPLES/mlp_sgd.h5" > out.json
	jq_all out.json '.[0].shape|type=="array"' 'all(.[]; (.shape|all(type=="number")))' \
		'.[0].shape==[128]' '.[1].shape==[128,64]' 'all(.[]; (.values|type=="number") and (.bytes|type=="number"))'
	gtool ls --format json - < "$SAMPLES/grads.npy" > pipe.json
	jq_all pipe.json '.[0].shape==[128,64]'
}

@test "json: ls --steps gives absent hyper-parameters as null, not empty strings" {
	gtool ls --steps --format json "$SAMPLES/mlp_sgd.h5" > out.json
	jq_all out.json '.[0].step|type=="number"' '.[0].lr|type=="number"' '.[0].beta1==null' \
		'all(.[]; all(.[]; . != ""))'
}

@test "json: ls --records gives block as a number or null" {
	gtool ls --records --format json "$FIXTURES/mlp_sgd_bias.gtz" > out.json
	jq_all out.json 'all(.[]; (.block|type=="number" or .==null))' 'any(.[]; .block==null)' \
		'all(.[]; .offset|type=="number")'
}

@test "json: stats gives numbers" {
	gtool stats --total --format json "$SAMPLES/mlp_sgd.h5" > out.json
	jq_all out.json 'all(.[]; (.values|type=="number") and (.mean|type=="number") and (.entropy|type=="number"))'
}

@test "json: hist gives numbers" {
	gtool hist --format json "$SAMPLES/grads.npy" > out.json
	jq_all out.json 'all(.[]; (.field|type=="number") and (.count|type=="number") and (.pct|type=="number"))'
}

@test "json: error gives numbers, and null where a metric has no value" {
	gtool error --format json "$SAMPLES/grads.npy" "$SAMPLES/grads.npy" > out.json
	jq_all out.json '.[0].values==8192' '.[0].rmse==0' '.[0].psnr==null' '.[0].cosine|type=="number"'
}

@test "json: compare gives lossless as a boolean" {
	gtool compare --repeat 1 -c huffexp,gcomp:mode=single-quant --format json "$SAMPLES/grads.npy" > out.json
	jq_all out.json '.[0].lossless==true' '.[1].lossless==false' 'all(.[]; .bytes|type=="number")'
}

@test "json: bench, gain and adapt give numbers, and steps as numbers" {
	gtool bench -c huffexp --repeat 1 --format json "$SAMPLES/grads.f32" > bench.json
	jq_all bench.json 'all(.[]; (.threads|type=="number") and (.mbps_median|type=="number"))'
	gtool gain -c qsgd --levels 3,15 --format json "$SAMPLES/mlp_sgd.h5" > gain.json
	jq_all gain.json '.[0].step==1' '.[0].levels==3' 'all(.[]; .step|type=="number" or .==null)' \
		'any(.[]; .step==null and .tensor=="total")'
	gtool adapt -c topk --format json "$SAMPLES/mlp_sgd.h5" > adapt.json
	jq_all adapt.json '.[0].step==1' 'all(.[]; .cf|type=="number")'
	gtool adapt -c topk --summary --format json "$SAMPLES/mlp_sgd.h5" > sum.json
	jq_all sum.json '.[0].cf|type=="number"' '.[-1].cf==null'
}

@test "json: breakeven, allreduce-model and simulate give numbers" {
	gtool breakeven --from "$BENCH" --bandwidth 10G --format json > be.json
	jq_all be.json 'all(.[]; (.link_bps|type=="number") and (.ratio|type=="number"))'
	gtool allreduce-model --from "$BENCH" --bytes 1M --workers 4 --format json > ar.json
	jq_all ar.json 'all(.[]; (.workers|type=="number") and (.normalized|type=="number"))'
	gtool simulate --duration 10 --format json > sim.json
	jq_all sim.json 'all(.[]; (.rounds|type=="number") and (.workers|type=="number"))'
}

@test "json: huffman show gives escaped as a boolean, replay gives steps as numbers" {
	gtool huffman show --format json "$FIXTURES/mlp_sgd.ght" > show.json
	jq_all show.json 'all(.[]; .escaped|type=="boolean")' 'all(.[]; .length|type=="number")'
	gtool huffman replay --format json "$SAMPLES/lstm_adamw.h5" > replay.json
	jq_all replay.json '.[0].step==1' '.[-1].step==null' 'all(.[]; .values|type=="number")'
}

@test "json: compress --list-codecs --format json lists every codec with typed fields" {
	gtool compress --list-codecs --format json > codecs.json
	jq_all codecs.json 'length > 5' 'all(.[]; (.id|type=="number") and (.lossless|type=="boolean"))' \
		'.[] | select(.codec=="zstd") | .lossless==true and .options=="level"' \
		'.[] | select(.codec=="gcomp") | .needs_optimizer==true'
	[ "$(jq -r '.[].codec' codecs.json)" = "$(gtool __complete --codecs)" ]
}
