/* help.c - `gtool help [CMD]`: CMD's manual page when man finds it, else its --help */
#include <argp.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "../front/msg.h"
#include "../lib/banned.h"

extern char **environ;

struct help_opts {
	const char *command;  /* NULL: list the commands */
	int no_man;
};

enum { OPT_NO_MAN = 0x100 };

static const struct argp_option options[] = {
	{ "no-man", OPT_NO_MAN, NULL, 0, "print the command's --help even where its manual page is found", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct help_opts *o = state->input;

	switch (key) {
	case OPT_NO_MAN: o->no_man = 1; break;
	case ARGP_KEY_ARG:
		if (o->command)
			argp_error(state, "one command at a time");
		if (!gt_command_argp(arg))
			argp_error(state, "'%s' is not a gtool command; see 'gtool help'", arg);
		o->command = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp help_argp = {
	options, parse_opt, "[COMMAND]",
	"Show the manual page of COMMAND (gtool-COMMAND(1)) with man(1) when "
	"man is installed and finds the page, else the same text as 'gtool "
	"COMMAND --help'. With no COMMAND, list the commands.",
	NULL, NULL, NULL
};

/* Run man with @args (NULL-terminated); its exit status, or -1 when it
 * cannot run.  @quiet: its stdout and stderr go to /dev/null. */
static int run_man(char *const args[], int quiet)
{
	posix_spawn_file_actions_t fa;
	int status = 0;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	rc = posix_spawnp(&pid, "man", &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int show(const struct help_opts *o)
{
	char man[] = "man", w[] = "-w", page[64];
	char *where[] = { man, w, page, NULL };
	char *view[] = { man, page, NULL };

	snprintf(page, sizeof(page), "gtool-%s", o->command);
	if (!o->no_man && run_man(where, 1) == 0) {
		fflush(stdout);
		return run_man(view, 0) == 0 ? 0 : 1;
	}
	return gt_command_help(o->command);
}

int cmd_help(int argc, char **argv)
{
	struct help_opts o = { 0 };
	const int rc = gt_argp_parse(&help_argp, argc, argv, &o);

	if (rc)
		return rc;
	if (o.command)
		return show(&o);
	puts("Commands:");
	gt_commands_print(stdout);
	puts("\nRun 'gtool help COMMAND' for a command's manual page.");
	return 0;
}
