/* huffman.c - placeholder while the subcommand is being written */
#include <argp.h>
#include "cmds.h"
#include "msg.h"

const struct argp huffman_argp = { 0 };

int cmd_huffman(int argc, char **argv)
{
	(void)argc; (void)argv;
	return gt_error("not built yet") ? 1 : 1;
}
