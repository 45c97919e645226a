# bash completion for gtool and its gtool-SUBCOMMAND links
# What to offer comes from the program itself (`gtool __complete --line
# WORD...`, read from its option tables, codec registry and name tables):
# commands, options, option values (formats, codecs and their option keys,
# dtypes, optimizers, ...), and "@files"/"@dirs" where the shell is to
# complete a path.  Nothing here is a hand-kept list.
# shellcheck shell=bash

_gtool()
{
	local prog=${COMP_WORDS[0]} base words=() cands=() i w cur pre
	base=${prog##*/}

	COMPREPLY=()
	if [[ $base == gtool-* ]]; then
		words=("${base#gtool-}")
		prog=${prog%-"${base#gtool-}"}
	fi
	# bash splits "--format=json" and "zstd:level=3" at = and :
	# (COMP_WORDBREAKS); gtool wants the words whole
	for ((i = 1; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((i > 1)) && [[ $w == [=:]* || ${COMP_WORDS[i - 1]} == *[=:] ]]; then
			words[${#words[@]} - 1]+=$w
		else
			words+=("$w")
		fi
	done
	((${#words[@]})) || words=('')
	cur=${words[${#words[@]} - 1]}
	command -v "$prog" > /dev/null 2>&1 || prog=gtool
	mapfile -t cands < <("$prog" __complete --line "${words[@]}" 2> /dev/null)

	# bash replaces only the text after the last = or : of the word
	pre=${cur%"${cur##*[=:]}"}
	if [[ ${cands[0]-} == @files || ${cands[0]-} == @dirs ]]; then
		local opt=-f
		[[ ${cands[0]} == @dirs ]] && opt=-d
		mapfile -t COMPREPLY < <(compgen "$opt" -- "${cur#"$pre"}")
		compopt -o filenames 2> /dev/null || true
		return 0
	fi
	for w in "${cands[@]}"; do
		COMPREPLY+=("${w#"$pre"}")
	done
	# a word that wants more after it (--format=, zstd:level=): no space
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[=:] ]]; then
		compopt -o nospace 2> /dev/null || true
	fi
	return 0
}

_gtool_register()
{
	local c
	complete -F _gtool gtool
	for c in $(gtool --list-commands 2> /dev/null); do
		complete -F _gtool "gtool-$c"
	done
}
_gtool_register
unset -f _gtool_register
