#!/usr/bin/env bats
# zstruct.bats - huffexp's zero structure (all-zero rows and columns of a
# block, format 1.2): the sparse samples round trip bit for bit, the
# structure is used where it pays, the bytes do not depend on -T, the
# palettes of format 1.4 take bow_adam below zstd -19 and xz -9e, and the
# files of formats 1.1 to 1.3 (tests/fixtures/*_v1_?.gtz, written by the
# gtool of each; make fixtures decodes them from their .b64) still decode
# to what that gtool decoded

bats_require_minimum_version 1.5.0

load helpers

SPARSE="embed_sgd.h5 bow_adam.h5 pruned_sgd.h5"

# same_values SAMPLE [ARG...] - every dataset of huffexp's .gtz (made with
# ARGs) decodes to the bytes of the raw codec's (stored verbatim)
same_values() {
	local name s=$1
	shift
	gtool compress -q -f -c huffexp "$@" -o h.gtz "$SAMPLES/$s"
	gtool compress -q -f -c raw -o r.gtz "$SAMPLES/$s"
	gtool ls --format tsv h.gtz | awk -F'\t' 'NR > 1 && $3 != "-" { print $2 }' > names
	[ -s names ]
	while read -r name; do
		gtool decompress -q -f --format raw -d "$name" -o a.raw h.gtz
		gtool decompress -q -f --format raw -d "$name" -o b.raw r.gtz
		cmp a.raw b.raw
	done < names
}

@test "zstruct: the sparse samples round trip bit for bit" {
	for s in $SPARSE; do
		same_values "$s"
	done
}

@test "zstruct: and with static tables (--table-refresh)" {
	for s in $SPARSE; do
		same_values "$s" --table-refresh=2
	done
}

@test "zstruct: a 2-D gradient with zero columns codes smaller than its flat copy" {
	local d=/step_000001/grad/2.weight_orig shaped flat
	run -0 gtool compress -q -c huffexp -d "$d" -o s.gtz "$SAMPLES/pruned_sgd.h5"
	run -0 gtool decompress -q --format raw -d "$d" -o flat.f32 s.gtz
	# the same values without a shape: no rows, no structure
	run -0 gtool compress -q -c huffexp --dtype=f32 -o f.gtz flat.f32
	shaped=$(gtool ls --format tsv s.gtz | awk -F'\t' 'NR == 2 { print $9 }')
	flat=$(gtool ls --format tsv f.gtz | awk -F'\t' 'NR == 2 { print $9 }')
	[ "$shaped" -lt "$flat" ]
	run -0 gtool decompress -q --format raw -o back.f32 s.gtz
	cmp back.f32 flat.f32
}

@test "zstruct: the bytes do not depend on -T" {
	for s in $SPARSE; do
		gtool compress -q -f -T1 -c huffexp -o t1.gtz "$SAMPLES/$s"
		gtool compress -q -f -T2 -c huffexp -o t2.gtz "$SAMPLES/$s"
		cmp t1.gtz t2.gtz
	done
}

@test "zstruct: files of format 1.1 decode as the gtool that wrote them decoded" {
	local d=/step_000010/grad/0.weight
	run -0 gtool decompress -q --format raw -d "$d" -o h.raw "$FIXTURES/huffexp_v1_1.gtz"
	run -0 sha256sum h.raw
	[ "${output%% *}" = 99e18861d97408b3f8168ae68c6d1a262d784925ad44ff31d4180dae1778881a ]
	run -0 gtool decompress -q --format raw -d "$d" -o g.raw "$FIXTURES/gcomp_v1_1.gtz"
	run -0 sha256sum g.raw
	[ "${output%% *}" = 24f415f594a7ba5f05464f8b780b3bd3f3249dc7c67b48e42263060c5acf8a19 ]
	# and every tensor of both decodes (block CRCs checked)
	run -0 --separate-stderr gtool decompress -q -o all.h5 "$FIXTURES/huffexp_v1_1.gtz"
	run -0 --separate-stderr gtool decompress -q -o all2.h5 "$FIXTURES/gcomp_v1_1.gtz"
}

@test "zstruct: files of format 1.2 decode as the gtool that wrote them decoded" {
	# zero-structure blocks (grad/*.weight) and a dense block of 8192
	# values in one chunk of one stream (param/2.weight), which format 1.3
	# would split
	local f="$FIXTURES/huffexp_v1_2.gtz" d sum
	run -0 od -A n -t u1 -j 6 -N 1 "$f"
	[ "${output// /}" = 2 ]
	while read -r d sum; do
		run -0 gtool decompress -q -f --format raw -d "/step_000001/$d" -o x.raw "$f"
		run -0 sha256sum x.raw
		[ "${output%% *}" = "$sum" ] || { echo "$d: ${output%% *}"; return 1; }
	done <<'EOF'
grad/0.weight f9ddd8515beb57eefed2f7addb38b15c0c56c4fe94aa6f4d2dd2071a1a07d5de
grad/2.weight 273c2a2ce4159a391ca6ba60cbe6fe8cbc2d448c1babc8a27c2fedce8d6db448
param/2.weight 1d4564877f12df74caa74f35a4d3a921ab253faf5a27f750ae0e097363ef30db
EOF
	# and every tensor (block CRCs checked)
	run -0 --separate-stderr gtool decompress -q -o all.h5 "$f"
}

@test "zstruct: files of format 1.3 decode as the gtool that wrote them decoded" {
	# bow_adam's gradients, whose weights format 1.4 codes with palettes
	local f="$FIXTURES/huffexp_v1_3.gtz" d sum
	run -0 od -A n -t u1 -j 6 -N 1 "$f"
	[ "${output// /}" = 3 ]
	while read -r d sum; do
		run -0 gtool decompress -q -f --format raw -d "$d" -o x.raw "$f"
		run -0 sha256sum x.raw
		[ "${output%% *}" = "$sum" ] || { echo "$d: ${output%% *}"; return 1; }
	done <<'EOF'
/step_000001/grad/weight 9cbc1f5ef65470e8bc7e13bed6599dfa2d62792d0bc5548b2f7d6f5ab70f4ddf
/step_000001/grad/bias 69c6e1f4d47dd766fcfbf47dcb33aca3b0321cb171bdf10a3a07e5806d3fae95
/step_000200/grad/weight ba991c19052da784897411ed9c7a4d5ce676ae56bba9e9d5fc030ee23ad6414f
EOF
	run -0 --separate-stderr gtool decompress -q -o all.h5 "$f"
}

@test "zstruct: gcomp files of format 1.4 decode as the gtool that wrote them decoded" {
	# a gcomp block of 8192 values, whose chunk format 1.5 splits
	local f="$FIXTURES/gcomp_v1_4.gtz" d=/step_000500/grad/lstm.weight_ih_l0
	run -0 od -A n -t u1 -j 6 -N 1 "$f"
	[ "${output// /}" = 4 ]
	run -0 gtool decompress -q -f --format raw -d "$d" -o x.raw "$f"
	run -0 sha256sum x.raw
	[ "${output%% *}" = 7d0a26899dc664a7fdc0316c5a3a48fdb1bf8634843880c93dd49afef86f42da ]
	# today's file of the same tensor: split, 13 bytes more, the same values
	run -0 gtool compress -q -f -T1 -c gcomp --grads-only -d "$d" -o n.gtz \
		"$SAMPLES/lstm_adamw.h5"
	run -0 od -A n -t u1 -j 6 -N 1 n.gtz
	[ "${output// /}" = 5 ]
	run -0 gtool decompress -q -f --format raw -d "$d" -o y.raw n.gtz
	cmp x.raw y.raw
}

@test "zstruct: bow_adam's weight gradients take palettes, fewer bytes than zstd -19 and xz -9e" {
	local d hx zs xs
	run -0 gtool compress -q -T1 -c huffexp --grads-only -o b.gtz "$SAMPLES/bow_adam.h5"
	for d in /step_000001/grad/weight /step_000200/grad/weight; do
		run -0 gtool decompress -q -f --format raw -d "$d" -o x.raw b.gtz
		run -0 gtool ls --format tsv b.gtz
		hx=$(awk -F'\t' -v d="$d" '$2 == d { print $9 }' <<< "$output")
		zs=$(zstd -q -19 -c x.raw | wc -c)
		xs=$(xz -9e -c x.raw | wc -c)
		[ "$hx" -lt "$zs" ] && [ "$hx" -lt "$xs" ] ||
			{ echo "$d: huffexp $hx, zstd $zs, xz $xs"; return 1; }
	done
	# the file of format 1.3 holds the same values in more bytes
	run -0 gtool ls --format tsv "$FIXTURES/huffexp_v1_3.gtz"
	local old=$output
	run -0 gtool ls --format tsv b.gtz
	[ "$(awk -F'\t' 'NR > 1 { s += $9 } END { print s }' <<< "$output")" -lt \
	  "$(awk -F'\t' 'NR > 1 { s += $9 } END { print s }' <<< "$old")" ]
}
