/* gtool.c - the multicall main: `gtool SUB ...` and `gtool-SUB ...` */
#include <argp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "../front/msg.h"
#include "util.h"
#include "../lib/gt_bitio.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

#define GT_STR_(x) #x
#define GT_STR(x) GT_STR_(x)

/* default visibility: argp in libc reads it, and every object is built
 * -fvisibility=hidden, which would keep it from libc (no --version) */
__attribute__((visibility("default")))
const char *argp_program_version = "gtool " GT_STR(GT_VERSION);

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct argp *argp;
	const char *summary;
};

/* Kept alphabetical: a unit test checks the order. */
static const struct command commands[] = {
	{ "adapt", cmd_adapt, &adapt_argp, "replay GraVAC's adaptive compression over a trace" },
	{ "allreduce", cmd_allreduce, &allreduce_argp, "compressed ring allreduce over MPI ranks (mpirun)" },
	{ "allreduce-model", cmd_allreduce_model, &allreduce_model_argp,
	  "ring allreduce with each codec against none (GComp Fig. 10)" },
	{ "bench", cmd_bench, &bench_argp, "codec throughput on data in memory: median, min, max MB/s" },
	{ "breakeven", cmd_breakeven, &breakeven_argp,
	  "which codecs pay off on which links (a break-even model)" },
	{ "compare", cmd_compare, &compare_argp, "every codec on one file: size ratio, speed, error, update fidelity" },
	{ "compress", cmd_compress, &compress_argp, "compress tensors into a .gtz file" },
	{ "decompress", cmd_decompress, &decompress_argp, "decompress a .gtz file to HDF5, .npy or raw" },
	{ "error", cmd_error, &error_argp, "reconstruction error and update fidelity of A against B" },
	{ "gain", cmd_gain, &gain_argp, "compression gain of a lossy codec, with error feedback" },
	{ "help", cmd_help, &help_argp, "a command's manual page, or its --help" },
	{ "hist", cmd_hist, &hist_argp, "exponent histogram as bars, a table or an SVG chart" },
	{ "huffman", cmd_huffman, &huffman_argp, "build, show, apply and replay exponent Huffman tables" },
	{ "ls", cmd_ls, &ls_argp, "list the tensors of an HDF5, .npy, raw or .gtz file" },
	{ "plot", cmd_plot, &plot_argp, "draw CSV columns as an SVG chart: scatter, bars or lines" },
	{ "simulate", cmd_simulate, &simulate_argp,
	  "AQGB's quantized broadcast, simulated: rounds, ROW, T_wait" },
	{ "stats", cmd_stats, &stats_argp, "statistics per tensor and in total" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* -h, as --help, for every command: a parent parser with the command's
 * argp as its only child, which gets the input unchanged. */
static const struct argp_option h_options[] = {
	{ NULL, 'h', NULL, 0, "give this help list (as --help)", -1 },
	{ 0 }
};

static error_t parse_h(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case 'h': argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP); break;
	case ARGP_KEY_INIT: state->child_inputs[0] = state->input; break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void with_h(const struct argp *argp, struct argp_child child[2], struct argp *ret)
{
	memset(child, 0, 2 * sizeof(*child));
	child[0].argp = argp;
	memset(ret, 0, sizeof(*ret));
	ret->options = h_options;
	ret->parser = parse_h;
	ret->children = child;
}

int gt_argp_parse(const struct argp *argp, int argc, char **argv, void *input)
{
	struct argp_child child[2];
	struct argp top;

	with_h(argp, child, &top);
	return argp_parse(&top, argc, argv, 0, NULL, input) ? 2 : 0;
}

const struct argp *gt_command_argp(const char *name)
{
	const struct command *c = find_command(name);

	return c ? c->argp : NULL;
}

static int run_command(const struct command *c, int argc, char **argv);

int gt_command_help(const char *name)
{
	const struct command *c = find_command(name);
	char help[] = "--help";
	char *argv[] = { NULL, help, NULL };

	if (!c)
		return 2;
	fflush(stdout);
	return run_command(c, 2, argv);
}

const char *gt_command_name(size_t i)
{
	return i < NCOMMANDS ? commands[i].name : NULL;
}

void gt_commands_print(FILE *f)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].summary);
}

static int run_command(const struct command *c, int argc, char **argv)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "gtool %s", c->name);
	gt_msg_set_prefix(prefix);
	argv[0] = prefix;
	return c->fn(argc, argv);
}

struct main_opts {
	int sub_index;
	int list;
};

static const struct argp_option main_options[] = {
	{ "list-commands", 'L', NULL, 0, "print the subcommands, one per line", 0 },
	{ NULL, 'h', NULL, 0, "give this help list (as --help)", -1 },
	{ 0 }
};

static error_t main_parse(int key, char *arg, struct argp_state *state)
{
	struct main_opts *o = state->input;

	(void)arg;
	switch (key) {
	case 'L': o->list = 1; break;
	case 'h': argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP); break;
	case ARGP_KEY_ARG:
		o->sub_index = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!o->sub_index && !o->list)
			argp_usage(state);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char *main_help(int key, const char *text, void *input)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)(uintptr_t)text; /* argp frees only a new string */
	f = open_memstream(&buf, &len);
	if (!f)
		return (char *)(uintptr_t)text; /* argp frees only a new string */
	fputs("Commands:\n", f);
	gt_commands_print(f);
	fputs("\nRun 'gtool COMMAND --help' for a command's options; each command "
	      "also runs as 'gtool-COMMAND'. Exit status: 0 success, 1 data or "
	      "I/O error, 2 usage error.", f);
	fclose(f);
	return buf;
}

static const struct argp main_argp = {
	main_options, main_parse, "COMMAND [ARG...]",
	"gtool -- study and compress the gradients of deep-learning training"
	"\vsee below", NULL, main_help, NULL
};

/* Flush stdout; a write error the command has not reported yet is one. */
static int finish(int status)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (errno != EPIPE && !status)
			fprintf(stderr, "gtool: write error on standard output\n");
		return status ? status : 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	struct main_opts o = { 0 };
	const struct command *c;

	argp_err_exit_status = 2;
	base = base ? base + 1 : argv[0];
	if (!strncmp(base, "gtool-", 6)) {
		c = find_command(base + 6);
		if (!c) {
			fprintf(stderr, "gtool: '%s' is not a gtool command\n", base + 6);
			return 127;
		}
		return finish(run_command(c, argc, argv));
	}
	if (strcmp(base, "gtool") && (c = find_command(base)) != NULL)
		return finish(run_command(c, argc, argv));

	if (argc >= 2 && !strcmp(argv[1], "__complete"))
		return finish(gt_complete(argc - 1, argv + 1));
	if (argp_parse(&main_argp, argc, argv, ARGP_IN_ORDER, NULL, &o))
		return 2;
	if (o.list) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			puts(commands[i].name);
		return finish(0);
	}
	c = find_command(argv[o.sub_index]);
	if (!c) {
		fprintf(stderr, "gtool: '%s' is not a gtool command; see 'gtool --help'\n",
			argv[o.sub_index]);
		return 2;
	}
	return finish(run_command(c, argc - o.sub_index, argv + o.sub_index));
}
