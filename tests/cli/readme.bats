#!/usr/bin/env bats
# readme.bats - README.md's examples run as written and print what README
# shows (tests/readme_examples.py), and the checker fails where they do not

load helpers

CHECK=$ROOT/tests/readme_examples.py

# mini NAME - write stdin as NAME, a README of a few examples
mini() {
	cat > "$1"
}

@test "readme: every example in README.md runs and prints what README shows" {
	# README's first example puts build/ on PATH, as a reader would
	if [ -n "${GTOOL_BUILD-}" ] && ! [ "$GTOOL_BUILD" -ef "$ROOT/build" ]; then
		skip "README's examples run build/gtool, and this run tests $GTOOL_BUILD"
	fi
	run -0 --separate-stderr /usr/bin/python3 "$CHECK" "$ROOT/README.md"
	[ -z "$stderr" ]
	[[ ${lines[-1]} == "README.md: "*" commands, "*" run, "*" not run, 0 problems" ]]
}

@test "readme: a number changed in README's shown output fails, with the line and the difference" {
	# README's own stats example, as it is and with one count changed
	{
		printf '    $ PATH=%s/build:$PATH\n\n' "$ROOT"
		awk '/^    \$ gtool stats samples\/grads.npy$/ { on = 1 } on && !NF { exit } on' "$ROOT/README.md"
	} > same.md
	[ "$(wc -l < same.md)" -eq 6 ]
	run -0 --separate-stderr /usr/bin/python3 "$CHECK" -C "$ROOT" same.md
	[ "${lines[-1]}" = "same.md: 2 commands, 2 run, 0 not run, 0 problems" ]
	sed '5s/ 2723 / 2724 /' same.md > changed.md
	run -1 cmp -s same.md changed.md
	run -1 --separate-stderr /usr/bin/python3 "$CHECK" -C "$ROOT" changed.md
	[ -z "$stderr" ]
	[ "${lines[0]}" = 'changed.md:3: $ gtool stats samples/grads.npy: prints other than shown' ]
	[ "${lines[1]}" = "changed.md:5: the first shown line that does not match" ]
	[[ ${lines[6]} == "-samples/grads.npy  grads  f32      8192   2724 "* ]]
	[[ ${lines[9]} == "+samples/grads.npy  grads  f32      8192   2723 "* ]]
	[ "${lines[-1]}" = "changed.md: 2 commands, 2 run, 0 not run, 1 problems" ]
}

@test "readme: ... stands for lines or words, \$T for the temporary folder" {
	mini ok.md <<-'EOF'
	    $ T=$(mktemp -d)
	    $ printf 'a b c\nd e f\ng h i\n'
	    a ... c
	    ...
	    g h i
	    $ echo "$T/x" && echo two \
	        words
	    $T/x
	    two words
	EOF
	run -0 --separate-stderr /usr/bin/python3 "$CHECK" ok.md
	[ "${lines[-1]}" = "ok.md: 3 commands, 3 run, 0 not run, 0 problems" ]
	sed 's/^    g h i$/    g h j/' ok.md > bad.md
	run -1 --separate-stderr /usr/bin/python3 "$CHECK" bad.md
	[ "${lines[0]}" = "bad.md:2: \$ printf 'a b c\\nd e f\\ng h i\\n': prints other than shown" ]
	[ "${lines[1]}" = "bad.md:5: the first shown line that does not match" ]
	[ "${lines[-1]}" = "bad.md: 3 commands, 3 run, 0 not run, 1 problems" ]
}

@test "readme: the markers leave out varying columns, all but the header, or the whole block" {
	mini ok.md <<-'EOF'
	text

	<!-- example: columns vary: ms -->
	    $ printf 'name  ms  n\nx  1.5  3\n'
	    name  ms  n
	    x     0.7  3

	<!-- example: output varies -->
	    $ printf 'name  ms\nx  1.5\n'
	    name  ms
	    x     0.7

	<!-- example: not run -->
	    $ false
	EOF
	run -0 --separate-stderr /usr/bin/python3 "$CHECK" ok.md
	[ "${lines[-1]}" = "ok.md: 3 commands, 2 run, 1 not run, 0 problems" ]
	sed 's/^    x     0.7  3$/    x     0.7  4/' ok.md > bad.md
	run -1 --separate-stderr /usr/bin/python3 "$CHECK" bad.md
	[ "${lines[0]}" = "bad.md:4: \$ printf 'name  ms  n\\nx  1.5  3\\n': prints other than shown" ]
	sed 's/^    name  ms$/    name  us/' ok.md > bad.md
	run -1 --separate-stderr /usr/bin/python3 "$CHECK" bad.md
	[ "${lines[0]}" = "bad.md:9: \$ printf 'name  ms\\nx  1.5\\n': prints other than shown" ]
}

@test "readme: a failing command, a file in the source tree and a command without a prompt are errors" {
	mkdir tree
	mini tree/README.md <<-'EOF'
	    $ echo out; false
	    out
	    $ touch made-here

	text

	    gtool ls samples/grads.npy
	EOF
	run -1 --separate-stderr /usr/bin/python3 "$CHECK" tree/README.md
	[ -z "$stderr" ]
	[ "${lines[0]}" = "README.md:7: a command without a \"\$ \" prompt: gtool ls samples/grads.npy" ]
	[ "${lines[1]}" = 'README.md:1: $ echo out; false: exit status 1' ]
	[ "${lines[2]}" = "out" ]
	[ "${lines[3]}" = "README.md: the examples wrote made-here into $PWD/tree" ]
	[ "${lines[-1]}" = "README.md: 2 commands, 2 run, 0 not run, 3 problems" ]
}
