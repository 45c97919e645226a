#!/usr/bin/env bats
# help.bats - gtool help [CMD], and -h as --help everywhere

load helpers

# A stand-in for man(1) that records its arguments: `man -w PAGE` finds
# only the pages listed in $FAKE_MAN_PAGES.
fake_man() {
	mkdir -p bin
	cat > bin/man <<'SH'
#!/bin/sh
echo "$*" >> "$FAKE_MAN_LOG"
if [ "$1" = -w ]; then
	case " $FAKE_MAN_PAGES " in *" $2 "*) echo "/usr/share/man/man1/$2.1"; exit 0 ;; esac
	exit 16
fi
echo "MANUAL OF $1"
SH
	chmod +x bin/man
	export FAKE_MAN_LOG=$PWD/man.log
	PATH=$PWD/bin:$PATH
}

@test "help: with no command, lists every command" {
	run -0 --separate-stderr gtool help
	[ "${lines[0]}" = "Commands:" ]
	local c
	for c in $(gtool --list-commands); do
		[[ $output == *$'\n'"  $c "* ]] || { echo "missing $c"; return 1; }
	done
	[ -z "$stderr" ]
}

@test "help: CMD shows the manual page when man finds it" {
	fake_man
	export FAKE_MAN_PAGES=gtool-stats
	run -0 --separate-stderr gtool help stats
	[ "$output" = "MANUAL OF gtool-stats" ]
	[ "$(cat man.log)" = $'-w gtool-stats\ngtool-stats' ]
}

@test "help: CMD prints --help when man does not find the page" {
	fake_man
	export FAKE_MAN_PAGES=
	run -0 --separate-stderr gtool help stats
	[ "$output" = "$(gtool stats --help)" ]
	[ "$(cat man.log)" = "-w gtool-stats" ]
}

@test "help: CMD prints --help when there is no man at all" {
	mkdir -p bin
	ln -s "$(command -v gtool)" bin/gtool
	run -0 --separate-stderr env PATH="$PWD/bin" gtool help ls
	[ "$output" = "$(gtool ls --help)" ]
	[ -z "$stderr" ]
}

@test "help: --no-man prints --help even where the page is found" {
	fake_man
	export FAKE_MAN_PAGES=gtool-hist
	run -0 --separate-stderr gtool help --no-man hist
	[ "$output" = "$(gtool hist --help)" ]
	[ ! -e man.log ]
}

@test "help: an unknown command is a usage error" {
	run -2 --separate-stderr gtool help nope
	[ "${stderr_lines[0]}" = "gtool help: 'nope' is not a gtool command; see 'gtool help'" ]
	[ -z "$output" ]
}

@test "help: -h is --help at the top level and for every command" {
	run -0 --separate-stderr gtool -h
	[ "$output" = "$(gtool --help)" ]
	local c
	for c in $(gtool --list-commands); do
		run -0 --separate-stderr gtool "$c" -h
		[ "$output" = "$(gtool "$c" --help)" ] || { echo "$c"; return 1; }
		[ -z "$stderr" ]
	done
	ln -s "$(command -v gtool)" gtool-ls
	run -0 --separate-stderr ./gtool-ls -h
	[[ $output == "Usage: gtool ls "* ]]
}

@test "help: no --help ends with a bug-report line" {
	local c
	for c in "" $(gtool --list-commands); do
		# shellcheck disable=SC2086 # "" stands for no command
		run -0 --separate-stderr gtool $c --help
		[[ $output != *"Report bugs"* ]] || { echo "$c"; return 1; }
	done
}
