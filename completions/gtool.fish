# fish completion for gtool and its gtool-SUBCOMMAND links
# What to offer comes from the program itself (`gtool __complete --line
# WORD...`, read from its option tables, codec registry and name tables),
# the same source as the bash and zsh completions: commands, options,
# option values, and "@files"/"@dirs" where a path is expected.

function __gtool_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $words[1]
    set -l base (string replace -r '.*/' '' -- $prog)
    set -e words[1]
    if string match -q 'gtool-*' -- $base
        set -l cmd (string replace 'gtool-' '' -- $base)
        set words $cmd $words
        set prog (string replace -r -- "-$cmd\$" '' $prog)
    end
    command -q $prog; or set prog gtool
    set -l cands (command $prog __complete --line $words "$cur" 2>/dev/null)
    switch "$cands[1]"
        case @files @dirs
            # a path, also after --option=
            set -l pre (string match -r -- '^--[^=]*=' $cur; or echo '')
            set -l path (string replace -r -- '^--[^=]*=' '' $cur)
            if test "$cands[1]" = @dirs
                printf '%s\n' $pre(__fish_complete_directories $path | string replace -r '\t.*' '')
            else
                printf '%s\n' $pre(__fish_complete_path $path)
            end
        case '*'
            printf '%s\n' $cands
    end
end

complete -c gtool -f -a '(__gtool_complete)'
for c in (gtool --list-commands 2>/dev/null)
    complete -c gtool-$c -f -a '(__gtool_complete)'
end
