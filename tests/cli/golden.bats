#!/usr/bin/env bats
# golden.bats - `gtool compress -T1` still writes the bytes it wrote when
# tests/golden/compress.sha256 was recorded: every sample x every codec,
# gcomp's modes and huffexp --table-refresh (gen-compress.sh makes the list),
# and every block's payload is the one the gtool before the library and
# format 1.1 work wrote (payloads.sha256), but for the lines rewritten
# with format 1.2 where huffexp codes a tensor (huffexp itself, and the
# tensors other than gradients that every lossy codec leaves to it) whose
# all-zero columns (the digits' blank pixels) it now codes as a bitmap,
# where that costs fewer bits; with format 1.3 where huffexp codes an f32
# block of 8192 values or more in split chunks (grads.f32, lstm_adamw.h5
# and mlp_sgd.h5), and the gcomp lines where gcomp codes a block as
# huffexp (fewer bytes than its own coding); every file digest changed
# with 1.3's header, and again with 1.4's (huffexp's palettes, which no
# payload of this list takes: their bytes did not change), and with 1.5's,
# where the gcomp lines that code an f32 block of 8192 values or more
# (lstm_adamw.h5, mlp_sgd.h5, grads.f32, grads.npy, dtypes.h5) split its
# chunks' code streams (the values decoded are the same)

bats_require_minimum_version 1.5.0

load helpers

# check_digests LIST payloads|file: recompute every line of LIST
check_digests() {
	local sum sample bad=0 n=0 got
	local -a args
	while read -r sum sample rest; do
		read -r -a args <<< "$rest"
		rm -f x.gtz
		run gtool compress -q -T1 "${args[@]}" -o x.gtz "$SAMPLES/$sample"
		if [ "$status" -ne 0 ]; then
			echo "exit $status: $sample ${args[*]}: $output"
			bad=$((bad + 1))
			continue
		fi
		if [ "$2" = payloads ]; then
			got=$(/usr/bin/python3 "$ROOT/tests/golden/payloads.py" gtool x.gtz)
		else
			got=$(sha256sum < x.gtz)
		fi
		got=${got%% *}
		if [ "$got" != "$sum" ]; then
			echo "digest differs: $sample ${args[*]}"
			bad=$((bad + 1))
		fi
		n=$((n + 1))
	done < "$1"
	echo "$n digests checked, $bad differ"
	[ "$n" -gt 150 ]
	[ "$bad" -eq 0 ]
}

@test "golden: compress -T1 digests of every sample and codec are unchanged" {
	check_digests "$ROOT/tests/golden/compress.sha256" file
}

@test "golden: the coded blocks are the bytes gtool wrote before format 1.1" {
	check_digests "$ROOT/tests/golden/payloads.sha256" payloads
}

@test "golden: the list covers every codec and gcomp mode" {
	local c
	run -0 gtool compress --list-codecs
	for c in $(sed -n 's/^\([a-z0-9]*\) *id .*/\1/p' <<< "$output"); do
		grep -q " -c $c\$" "$ROOT/tests/golden/compress.sha256" || { echo "no $c"; return 1; }
	done
	for c in margin=1 mode=exact mode=single-quant mode=multi-quant mode=zero-prune; do
		grep -q " -c gcomp:$c\$" "$ROOT/tests/golden/compress.sha256" || { echo "no $c"; return 1; }
	done
	grep -q -- "--table-refresh=2\$" "$ROOT/tests/golden/compress.sha256"
}
