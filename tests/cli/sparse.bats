#!/usr/bin/env bats
# sparse.bats - `gtool compress -c topk|randk|dgc|redsync|qsgd|terngrad`:
# round trips of the samples, `gtool error` on the result, kept counts
# checked with `gtool stats`, blocks sparsified on their own, NaN/Inf/-0,
# seeds, -T 1 against -T 2, and option errors

bats_require_minimum_version 1.5.0

load helpers

CODECS="topk randk dgc redsync qsgd terngrad"

# csv_col CSV ROW COLUMN - the value in COLUMN of the row whose name is ROW
csv_col() {
	printf '%s\n' "$1" | awk -F, -v r="$2" -v k="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$2 == r || $1 == r { print $c[k]; exit }'
}

# roundtrip CODEC FILE - compress samples/FILE, decompress, run gtool error
roundtrip() {
	run -0 --separate-stderr gtool compress -q -f -c "$1" "$SAMPLES/$2" -o c.gtz
	[ -z "$stderr" ] || { echo "$1 $2: $stderr"; return 1; }
	run -0 --separate-stderr gtool decompress -q -f c.gtz -o "back_$2"
	[ -z "$stderr" ] || { echo "$1 $2: $stderr"; return 1; }
	run -0 --separate-stderr gtool error --format csv "$SAMPLES/$2" "back_$2"
	[ -n "$(csv_col "$output" total values)" ] || { echo "$1 $2: no total"; return 1; }
}

@test "sparse: every codec round-trips the samples and gtool error reads the result" {
	local c f
	for c in $CODECS; do
		for f in cnn_adam.h5 lstm_adamw.h5 dtypes.h5 grads.npy; do
			roundtrip "$c" "$f"
		done
	done
}

@test "sparse: topk keeps k = ceil(n/cf) values, bit-exactly, zeros elsewhere" {
	local zeros
	run -0 --separate-stderr gtool stats --format csv "$SAMPLES/grads.f32"
	zeros=$(csv_col "$output" total zeros)
	[ "$zeros" = 2723 ]
	run -0 gtool compress -q -c topk:cf=100 "$SAMPLES/grads.f32" -o k.gtz
	run -0 gtool decompress -q k.gtz -o k.f32
	# 8192 values: 82 kept (none of them zero), the rest 0
	run -0 --separate-stderr gtool stats --format csv k.f32
	[ "$(csv_col "$output" total zeros)" = $((8192 - 82)) ]
	# identical: the 82 kept and the original zeros
	run -0 --separate-stderr gtool error --format csv "$SAMPLES/grads.f32" k.f32
	[ "$(csv_col "$output" total identical)" = $((82 + zeros)) ]
}

@test "sparse: a tensor larger than the block is sparsified block by block" {
	run -0 gtool compress -q -c topk:k=10 "$SAMPLES/grads.f32" -o one.gtz
	run -0 gtool compress -q -c topk:k=10 --block-size 4096 "$SAMPLES/grads.f32" -o two.gtz
	run -0 gtool decompress -q one.gtz -o one.f32
	run -0 gtool decompress -q two.gtz -o two.f32
	run -0 --separate-stderr gtool stats --format csv one.f32
	[ "$(csv_col "$output" total zeros)" = $((8192 - 10)) ]
	run -0 --separate-stderr gtool stats --format csv two.f32
	[ "$(csv_col "$output" total zeros)" = $((8192 - 20)) ]
}

@test "sparse: randk keeps k values, the same for a seed, others for another seed" {
	run -0 gtool compress -q -c randk:k=100,seed=1 "$SAMPLES/grads.f32" -o a.gtz
	run -0 gtool compress -q -f -c randk:k=100,seed=1 "$SAMPLES/grads.f32" -o b.gtz
	run -0 gtool compress -q -c randk:k=100,seed=2 "$SAMPLES/grads.f32" -o c.gtz
	cmp a.gtz b.gtz
	run -1 cmp -s a.gtz c.gtz
	run -0 gtool decompress -q a.gtz -o a.f32
	# at least 8192 - 100 zeros: more when a kept value was 0
	run -0 --separate-stderr gtool stats --format csv a.f32
	[ "$(csv_col "$output" total zeros)" -ge $((8192 - 100)) ]
	[ "$(csv_col "$output" total zeros)" -lt 8192 ]
}

@test "sparse: NaN and Inf: kept first by topk, escaped bit-exactly by qsgd and terngrad; -0 and subnormals" {
	make_raw in.f32 1 nan -2 inf 0.5 -inf -0 sub
	run -0 gtool compress -q -c topk:k=3 in.f32 -o t.gtz
	run -0 gtool decompress -q t.gtz -o t.f32
	make_raw want.f32 0 nan 0 inf 0 -inf 0 0
	cmp t.f32 want.f32
	# keeping all: every bit pattern back, -0 and the subnormal included
	run -0 gtool compress -q -c topk:keep=1 in.f32 -o all.gtz
	run -0 gtool decompress -q all.gtz -o all.f32
	cmp all.f32 in.f32
	for c in qsgd terngrad; do
		run -0 gtool compress -q -f -c "$c" in.f32 -o q.gtz
		run -0 gtool decompress -q -f q.gtz -o q.f32
		# values 1, 3, 5 (NaN, Inf, -Inf) exact; -0 and the subnormal +0
		cmp <(od -An -tx4 -v q.f32 | tr -s ' ' '\n' | sed -n '3p;5p;7p;8p;9p') \
			<(printf '%s\n' 7fc00000 7f800000 ff800000 00000000 00000000)
	done
}

@test "sparse: -T 1 and -T 2 write the same bytes" {
	local c f
	for c in $CODECS; do
		for f in mlp_sgd.h5 lstm_adamw.h5 grads.f32 dtypes.h5; do
			run -0 gtool compress -q -f -c "$c" -T 1 --block-size 4096 --chunk-size 256 \
				"$SAMPLES/$f" -o t1.gtz
			run -0 gtool compress -q -f -c "$c" -T 2 --block-size 4096 --chunk-size 256 \
				"$SAMPLES/$f" -o t2.gtz
			cmp t1.gtz t2.gtz || { echo "$c $f"; return 1; }
		done
	done
}

@test "sparse: option errors name the codec and the option, exit 2" {
	local msg
	for msg in \
		"topk:cf=0.5|codec topk: invalid cf '0.5': expected 1-1e+12" \
		"topk:keep=0|codec topk: invalid keep '0': expected 0 < keep <= 1" \
		"randk:cf=10,keep=0.5|codec randk: give only one of cf=, keep= and k=" \
		"topk:seed=1|unknown option 'seed' for codec topk" \
		"dgc:sample=0.5x|codec dgc: invalid sample '0.5x': expected 0.001-1" \
		"redsync:k=0|codec redsync: invalid k '0': expected 1-9223372036854775807" \
		"qsgd:levels=40000|codec qsgd: invalid levels '40000': expected 1-32767" \
		"terngrad:levels=3|unknown option 'levels' for codec terngrad"; do
		run -2 --separate-stderr gtool compress -c "${msg%%|*}" "$SAMPLES/grads.f32" -o x.gtz
		[ "$stderr" = "gtool compress: ${msg#*|}; see 'gtool compress --list-codecs'" ] ||
			{ echo "$stderr"; return 1; }
		[ ! -e x.gtz ]
	done
}
