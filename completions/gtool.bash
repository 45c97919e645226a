# bash completion for gtool and its gtool-SUBCOMMAND links
# The command names and each command's long options come from the program
# itself (`gtool --list-commands`, `gtool __complete CMD`): nothing here is
# a hand-kept list.  Anything else completes as a file name.
# shellcheck shell=bash

_gtool()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} cmd='' i
	local base=${prog##*/}

	COMPREPLY=()
	if [[ $base == gtool-* ]]; then
		cmd=${base#gtool-}
		prog=${prog%-"$cmd"}
	else
		for ((i = 1; i < COMP_CWORD; i++)); do
			if [[ ${COMP_WORDS[i]} != -* ]]; then
				cmd=${COMP_WORDS[i]}
				break
			fi
		done
	fi
	command -v "$prog" > /dev/null 2>&1 || prog=gtool

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W '--help --usage --version --list-commands' -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$("$prog" --list-commands 2> /dev/null)" -- "$cur")
		fi
		return 0
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" __complete "$cmd" 2> /dev/null)" -- "$cur")
		# options taking a value end in '=': no space after them
		if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2> /dev/null || true
		fi
		return 0
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	compopt -o filenames 2> /dev/null || true
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
