/* allreduce.c - `gtool allreduce`: check the options, then run gtool-mpi */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/gt_allreduce.h"
#include "cmds.h"
#include "../front/msg.h"
#include "../lib/banned.h"

/* gtool-mpi in the folder of the running executable, or NULL. */
static char *sibling(void)
{
	char self[PATH_MAX], *slash, *path = NULL;
	const ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		return NULL;
	self[len] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&path, "%s/gtool-mpi", self) < 0)
		gt_die("out of memory");
	if (access(path, X_OK) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

int cmd_allreduce(int argc, char **argv)
{
	struct gt_allreduce_opts o = { 0 };
	int rc = gt_argp_parse(&gt_allreduce_argp, argc, argv, &o);
	char *exe;

	gt_allreduce_release(&o);
	if (rc)
		return rc;
	exe = sibling();
	if (!exe)
		return gt_error("built without Open MPI (make deps, then make)") < 0;
	fflush(NULL);
	execv(exe, argv);
	gt_error_errno("%s", exe);
	free(exe);
	return 1;
}
