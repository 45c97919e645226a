/* sigclean.c - the temporary outputs to remove when a signal stops gtool */
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "sigclean.h"
#include "../lib/banned.h"

/*
 * The handler may run in any thread at any moment, so it reads only
 * fixed storage: a slot's name is written while its flag is 0 and the
 * flag is set after it.  The handler calls unlink() (async-signal-safe)
 * and nothing else that could block or allocate.
 */
#define SLOTS 8

static char names[SLOTS][PATH_MAX];
static volatile sig_atomic_t used[SLOTS];
static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	for (int i = 0; i < SLOTS; i++)
		if (used[i])
			unlink(names[i]);
	/* SA_RESETHAND restored the default action: stop with 128 + sig */
	raise(sig);
}

static void install(void)
{
	static int done;
	struct sigaction sa;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaddset(&sa.sa_mask, signals[i]); /* one handler at a time */
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old;

		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(signals[i], &sa, NULL);
	}
}

int gt_sigclean_add(const char *path)
{
	const size_t n = path ? strlen(path) : 0;

	if (!path || n >= PATH_MAX)
		return -1;
	install();
	for (int i = 0; i < SLOTS; i++) {
		if (used[i])
			continue;
		memcpy(names[i], path, n + 1);
		atomic_signal_fence(memory_order_seq_cst); /* the name, then the flag */
		used[i] = 1;
		return i;
	}
	return -1;
}

void gt_sigclean_remove(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		used[slot] = 0;
}
