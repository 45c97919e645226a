#!/usr/bin/env bats
# completion.bats - bash, zsh and fish completions, all fed by
# `gtool __complete`: commands, options, option values and files

load helpers

# bash_complete WORD... - COMPREPLY of the bash completion for the line
# WORD... (the last word is the one being completed), one per line
bash_complete() {
	# shellcheck disable=SC1091
	source "$ROOT/completions/gtool.bash"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_gtool
	printf '%s\n' "${COMPREPLY[@]}"
}

# zsh_complete WORD... - what the zsh completion hands compadd or _files
zsh_complete() {
	command -v zsh > /dev/null || skip "zsh is not installed (make deps)"
	zsh -f -c 'compadd() { print -r -- "compadd $*"; }
		_files() { print -r -- "_files $*"; }
		compdef() { :; }
		source "$1/completions/_gtool"
		shift
		words=("$@"); CURRENT=$#words
		_gtool' zsh "$ROOT" "$@"
}

# fish_complete LINE - fish's completions of LINE, one per line
fish_complete() {
	command -v fish > /dev/null || skip "fish is not installed (make deps)"
	fish --no-config -c "source '$ROOT/completions/gtool.fish'; complete -C '$1'"
}

@test "completion: __complete --line offers commands, options and their values" {
	run -0 --separate-stderr gtool __complete --line st
	[ "$output" = "stats" ]
	run -0 --separate-stderr gtool __complete --line stats --form
	[ "$output" = "--format=" ]
	run -0 --separate-stderr gtool __complete --line stats --format ''
	[ "$output" = $'table\ncsv\ntsv\njson' ]
	run -0 --separate-stderr gtool __complete --line compare --format=m
	[ "$output" = "--format=markdown" ]
	run -0 --separate-stderr gtool __complete --line decompress --out-format ''
	[ "$output" = $'hdf5\nnpy\nraw' ]
	run -0 --separate-stderr gtool __complete --line compress --dtype b
	[ "$output" = "bf16" ]
}

@test "completion: codec names and their option keys come from the registry" {
	run -0 --separate-stderr gtool __complete --line compress -c ''
	[ "$output" = "$(gtool __complete --codecs)" ]
	[[ $'\n'$output$'\n' == *$'\nzstd\n'* && $'\n'$output$'\n' == *$'\ngcomp\n'* ]]
	run -0 --separate-stderr gtool __complete --line compress -c zstd:
	[ "$output" = "zstd:level=" ]
	run -0 --separate-stderr gtool __complete --line compress --codec=huffexp:m
	[ "$output" = $'--codec=huffexp:maxlen=\n--codec=huffexp:method=' ]
	run -0 --separate-stderr gtool __complete --line compress -c gcomp:mode=full,ma
	[ "$output" = $'gcomp:mode=full,margin=\ngcomp:mode=full,maxlen=' ]
	# a list of codecs goes on with a codec name after the comma
	run -0 --separate-stderr gtool __complete --line compare -c huffexp,z
	[ "$output" = $'huffexp,zlib\nhuffexp,zstd' ]
}

@test "completion: hist --by, huffman actions, optimizers, help's commands" {
	run -0 --separate-stderr gtool __complete --line hist --by ''
	[ "$output" = $'step\ntensor' ]
	run -0 --separate-stderr gtool __complete --line huffman ''
	[ "$output" = $'build\nshow\napply\nreplay' ]
	run -0 --separate-stderr gtool __complete --line compress --optimizer=ada
	[ "$output" = $'--optimizer=adagrad\n--optimizer=adam\n--optimizer=adamw' ]
	run -0 --separate-stderr gtool __complete --line help ''
	[ "$output" = "$(gtool --list-commands)" ]
}

@test "completion: files only where a file is expected" {
	run -0 --separate-stderr gtool __complete --line stats ''
	[ "$output" = "@files" ]
	run -0 --separate-stderr gtool __complete --line compress -qo ''
	[ "$output" = "@files" ]
	run -0 --separate-stderr gtool __complete --line huffman build ''
	[ "$output" = "@files" ]
	run -0 --separate-stderr gtool __complete --line allreduce --dump ''
	[ "$output" = "@dirs" ]
	# no file: simulate takes none, -T takes a number, -c a codec
	run -0 --separate-stderr gtool __complete --line simulate ''
	[ -z "$output" ]
	run -0 --separate-stderr gtool __complete --line compress -T ''
	[ -z "$output" ]
	# an option's value is not taken for a file: -o's is, -c's is not
	run -0 --separate-stderr gtool __complete --line compress -c zstd ''
	[ "$output" = "@files" ]
}

@test "completion: bash completes values, codec keys and files" {
	run -0 bash_complete gtool stats --format = j
	[ "$output" = "json" ]
	run -0 bash_complete gtool compress -c zstd :
	[ "$output" = "level=" ]
	run -0 bash_complete gtool-hist --by ''
	[ "$output" = $'step\ntensor' ]
	run -0 bash_complete gtool huffman ''
	[ "$output" = $'build\nshow\napply\nreplay' ]
	touch grads.npy notes.txt
	run -0 bash_complete gtool stats gr
	[ "$output" = "grads.npy" ]
	run -0 bash_complete gtool compress --output = no
	[ "$output" = "notes.txt" ]
	run -0 bash_complete gtool simulate ''
	[ -z "$output" ]
}

@test "completion: zsh completes from the same source" {
	run -0 zsh_complete gtool stats --for
	[ "$output" = "compadd -Q -S  -- --format=" ]
	run -0 zsh_complete gtool compress -c zstd:
	[ "$output" = "compadd -Q -S  -- zstd:level=" ]
	run -0 zsh_complete gtool-hist --by ''
	[ "$output" = "compadd -Q -- step tensor" ]
	run -0 zsh_complete gtool stats ''
	[ "$output" = "_files " ]
	run -0 zsh_complete gtool simulate ''
	[ -z "$output" ]
}

@test "completion: fish completes from the same source" {
	run -0 fish_complete 'gtool stats --format='
	[ "$output" = $'--format=csv\n--format=json\n--format=table\n--format=tsv' ]
	run -0 fish_complete 'gtool compress -c zstd:'
	[ "$output" = "zstd:level=" ]
	run -0 fish_complete 'gtool huffman '
	[ "$output" = $'apply\nbuild\nreplay\nshow' ]
	touch grads.npy notes.txt
	run -0 fish_complete 'gtool compress --output=gr'
	[ "$output" = "--output=grads.npy" ]
	run -0 fish_complete 'gtool-hist --by '
	[ "$output" = $'step\ntensor' ]
}

@test "completion: make install puts the bash, zsh and fish scripts in their places" {
	run -0 make -s -C "$ROOT" -n install PREFIX=/usr DESTDIR=/tmp/x
	[[ $output == *"completions/_gtool /tmp/x/usr/share/zsh/vendor-completions/_gtool"* ]]
	[[ $output == *"completions/gtool.fish /tmp/x/usr/share/fish/vendor_completions.d/gtool.fish"* ]]
	run -0 make -s -C "$ROOT" -n uninstall PREFIX=/usr DESTDIR=/tmp/x
	[[ $output == *"rm -f /tmp/x/usr/share/zsh/vendor-completions/_gtool /tmp/x/usr/share/fish/vendor_completions.d/gtool.fish"* ]]
}
