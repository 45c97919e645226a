/* cmds.h - the subcommands: one cmd_<name> and one argp per file */
#ifndef GT_CMDS_H
#define GT_CMDS_H

#include <argp.h>
#include <stdio.h>

/*
 * Each subcommand file defines cmd_<name>(), which returns the exit status
 * (0, 1, or 2 for usage errors) and never calls exit() itself, and its
 * option parser <name>_argp, which `gtool __complete` reads to complete
 * the options (the completions come from the tables, not hand-kept lists).
 */
#define GT_COMMANDS(X)                                                  \
	X(adapt)                                                        \
	X(allreduce)                                                    \
	X(allreduce_model)                                              \
	X(bench)                                                        \
	X(breakeven)                                                    \
	X(compare)                                                      \
	X(compress)                                                     \
	X(decompress)                                                   \
	X(error)                                                        \
	X(gain)                                                         \
	X(help)                                                         \
	X(hist)                                                         \
	X(huffman)                                                      \
	X(ls)                                                           \
	X(plot)                                                         \
	X(simulate)                                                     \
	X(stats)

/* allreduce's parser is the engine's: gtool-mpi parses the same argv */
#define allreduce_argp gt_allreduce_argp
#define X(n) int cmd_##n(int argc, char **argv); extern const struct argp n##_argp;
GT_COMMANDS(X)
#undef X

/* Run an argp parser with gtool's conventions: -h as --help, exit 2 on
 * usage errors. */
int gt_argp_parse(const struct argp *argp, int argc, char **argv, void *input);
/* hist --by's values, NULL-terminated. */
extern const char *const hist_by_values[];

/* Run command @name with --help alone: argp prints it and exits 0. */
int gt_command_help(const char *name);
/* The parser of command @name, or NULL: the table in gtool.c. */
const struct argp *gt_command_argp(const char *name);
/* "  name  summary" for each command, alphabetically, to @f. */
void gt_commands_print(FILE *f);
/* The name of command @i in the table (NULL past the end). */
const char *gt_command_name(size_t i);
/* `gtool __complete ...`: what the shell completions ask (complete.c). */
int gt_complete(int argc, char **argv);

#endif
