#!/usr/bin/env bats
# meta.bats - every command has --help, a man page, completions and a suite

load helpers

commands() {
	gtool --list-commands
}

@test "meta: --list-commands is sorted and not empty" {
	run -0 --separate-stderr gtool --list-commands
	[ "${#lines[@]}" -gt 0 ]
	[ "$output" = "$(LC_ALL=C sort <<< "$output")" ]
}

@test "meta: no --help names a place to report bugs (gtool has no address to give)" {
	local c
	run -0 --separate-stderr gtool --help
	[[ $output != *"Report bugs"* ]]
	for c in $(commands); do
		run -0 --separate-stderr gtool "$c" --help
		[[ $output != *"Report bugs"* ]] || { echo "$c: $output"; return 1; }
	done
	if [ -x "$GTOOL_BUILD/gtool-mpi" ]; then
		run -0 --separate-stderr "$GTOOL_BUILD/gtool-mpi" --help
		[[ $output == "Usage: "* ]]
		[[ $output != *"Report bugs"* ]]
	fi
}

@test "meta: gtool, every command and gtool-mpi print the version with --version" {
	local c version
	version=$(sed -n 's/^VERSION *= *//p' "$ROOT/Makefile")
	[ -n "$version" ]
	run -0 --separate-stderr gtool --version
	[ "$output" = "gtool $version" ]
	for c in $(commands); do
		run -0 --separate-stderr gtool "$c" --version
		[ "$output" = "gtool $version" ] || { echo "$c: $output"; return 1; }
	done
	if [ -x "$GTOOL_BUILD/gtool-mpi" ]; then
		run -0 --separate-stderr "$GTOOL_BUILD/gtool-mpi" --version
		[ "$output" = "gtool $version" ]
	fi
}

@test "meta: every command's --help says Usage: gtool NAME on stdout" {
	local c
	for c in $(commands); do
		run -0 --separate-stderr gtool "$c" --help
		[[ $output == "Usage: gtool $c "* ]] || { echo "$c: $output"; return 1; }
		[ -z "$stderr" ] || { echo "$c: stderr: $stderr"; return 1; }
	done
}

@test "meta: every command has a man page whose SYNOPSIS names it" {
	local c
	[ -f "$ROOT/man/gtool.1" ]
	for c in $(commands); do
		[ -f "$ROOT/man/gtool-$c.1" ] || { echo "no man/gtool-$c.1"; return 1; }
		run -0 sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$ROOT/man/gtool-$c.1"
		[[ $output == *"gtool $c"* ]] || { echo "$c: SYNOPSIS: $output"; return 1; }
	done
}

@test "meta: completions exist and every command completes --help" {
	local c
	[ -f "$ROOT/completions/gtool.bash" ]
	[ -f "$ROOT/completions/_gtool" ]
	[ -f "$ROOT/completions/gtool.fish" ]
	for c in $(commands); do
		run -0 --separate-stderr gtool __complete "$c"
		[[ $'\n'$output$'\n' == *$'\n--help\n'* ]] || { echo "$c: $output"; return 1; }
	done
}

@test "meta: every command has a Bats suite" {
	local c
	for c in $(commands); do
		[ -f "$ROOT/tests/cli/$c.bats" ] || { echo "no tests/cli/$c.bats"; return 1; }
	done
}

@test "meta: an unknown command is a usage error" {
	run -2 --separate-stderr gtool foo
	[ "$stderr" = "gtool: 'foo' is not a gtool command; see 'gtool --help'" ]
	[ -z "$output" ]
}

@test "meta: an unknown multicall link exits 127" {
	ln -s "$(command -v gtool)" gtool-nope
	run -127 --separate-stderr ./gtool-nope
	[ "$stderr" = "gtool: 'nope' is not a gtool command" ]
}

@test "meta: the completion script completes commands and options" {
	# shellcheck disable=SC1091
	source "$ROOT/completions/gtool.bash"
	COMP_WORDS=(gtool st)
	COMP_CWORD=1
	_gtool
	[ "${COMPREPLY[*]}" = "stats" ]
	COMP_WORDS=(gtool stats --for)
	COMP_CWORD=2
	_gtool
	[ "${COMPREPLY[*]}" = "--format=" ]
	COMP_WORDS=(gtool-hist --lo)
	COMP_CWORD=1
	_gtool
	[ "${COMPREPLY[*]}" = "--log" ]
}
