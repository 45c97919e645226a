#!/usr/bin/env bats
# adapt.bats - `gtool adapt`: GraVAC's Algorithm 1 over a trace: the
# scaling policies' candidates, the choices at the epsilon extremes, the
# ring model against awk, the summary's sums, agreement with gtool gain,
# and errors

bats_require_minimum_version 1.5.0

load helpers

LSTM=$SAMPLES/lstm_adamw.h5

# column CSV NAME - the column NAME of every data row, one a line
column() {
	printf '%s\n' "$1" | awk -F, -v k="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } { print $h[k] }'
}

@test "adapt: exponential and geometric policies evaluate the paper's candidate CFs" {
	run -0 --separate-stderr gtool adapt -c topk --epsilon 0 --omega 0 --window 1 --format csv "$LSTM"
	[ "${lines[0]}" = "step,theta_min,candidate,cf,choice,gain_min,gain_c,bytes,t_compress_ms,t_sync_ms,t_iter_ms,t_sys,t_compression" ]
	[ "$(column "$output" candidate | tr '\n' ' ')" = "20 40 160 1000 " ]
	[ "$(column "$output" choice | sort -u)" = candidate ]
	[ "$(column "$output" step | tr '\n' ' ')" = "1 25 150 500 " ]
	run -0 --separate-stderr gtool adapt -c topk --epsilon 0 --omega 0 --window 1 \
		--policy geometric --format csv "$LSTM"
	[ "$(column "$output" candidate | tr '\n' ' ')" = "20 40 80 160 " ]
}

@test "adapt: epsilon 1 sends dense every step, and the sync time is the ring model (awk)" {
	run -0 --separate-stderr gtool adapt -c dgc --epsilon 1 --workers 8 --latency 1e-5 \
		--bandwidth 2.5G --format csv "$LSTM"
	[ "$(column "$output" choice | sort -u)" = dense ]
	[ "$(column "$output" cf | sort -u)" = 1 ]
	[ "$(column "$output" bytes | sort -u)" = 129840 ]
	want=$(awk 'BEGIN { n = 8; m = 129840; printf "%.12g", 1e3 * (2 * (n - 1) * 1e-5 + 2 * m * 8 / 2.5e9 * (n - 1) / n) }')
	for got in $(column "$output" t_sync_ms); do
		awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'
	done
	# no compression time counts when dense is sent
	[ "$(column "$output" t_compress_ms | sort -u)" = 0 ]
}

@test "adapt: the summary's shares add up to 1 and its bytes to the steps'" {
	run -0 --separate-stderr gtool adapt -c topk --epsilon 0.5 --window 1 --format csv "$LSTM"
	sent=$(column "$output" bytes | awk '{ s += $1 } END { print s }')
	run -0 --separate-stderr gtool adapt -c topk --epsilon 0.5 --window 1 --summary --format csv "$LSTM"
	[ "${lines[0]}" = "cf,steps,share,bytes,reduction" ]
	all=$(printf '%s\n' "$output" | awk -F, '$1 == "all" { print $4 }')
	[ "$all" = "$sent" ]
	printf '%s\n' "$output" | awk -F, 'NR > 1 && $1 != "all" { s += $3; n += $2 }
		$1 == "all" { want = $2; red = $5 }
		END { exit !(s > 0.999999 && s < 1.000001 && n == want && red > 1) }'
}

@test "adapt: the first step's candidate costs the bytes gtool gain finds for topk at that CF" {
	run -0 --separate-stderr gtool adapt -c topk --epsilon 0 --format csv "$LSTM"
	adapt=$(column "$output" bytes | head -n 1)
	run -0 --separate-stderr gtool gain -c topk --cf 20 --total --format csv "$LSTM"
	gain=$(printf '%s\n' "$output" | awk -F, '$1 == "1" && $2 == "total" { print $5 }')
	echo "adapt $adapt, gain $gain"
	[ "$adapt" = "$gain" ]
}

@test "adapt: the table states the time model" {
	run -0 --separate-stderr gtool adapt -c topk --workers 4 "$LSTM"
	[[ ${lines[0]} == "# t_iter = 0.25 s compute + measured compression + ring allreduce"*"N = 4"* ]]
}

@test "adapt: usage errors exit 2, unreadable input 1" {
	run -2 --separate-stderr gtool adapt -c zstd "$LSTM"
	[[ $stderr == "gtool adapt: codec zstd cannot be set to a compression factor"* ]]
	run -2 --separate-stderr gtool adapt "$LSTM"
	[[ $stderr == *"no codec"* ]]
	run -2 --separate-stderr gtool adapt -c topk --theta-min 100 --theta-max 10 "$LSTM"
	[[ $stderr == *"theta-max 10 is below theta-min 100"* ]]
	run -2 --separate-stderr gtool adapt -c topk --policy linear "$LSTM"
	[[ $stderr == *"invalid policy 'linear'"* ]]
	run -2 --separate-stderr gtool adapt -c topk --bandwidth fast "$LSTM"
	[[ $stderr == *"invalid bandwidth 'fast'"* ]]
	run -1 --separate-stderr gtool adapt -c topk missing.h5
	[[ $stderr == "gtool adapt: missing.h5: "* ]]
	[ -z "$output" ]
}
