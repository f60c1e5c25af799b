#include "core/interrupt.h"
#include "core/exitcodes.h"
#include <errno.h>
#include <signal.h>
#include <string.h>

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };
#define NCAUGHT (sizeof caught / sizeof caught[0])

static volatile sig_atomic_t g_sig;
static volatile sig_atomic_t g_count;
static struct sigaction g_old[NCAUGHT];
static int g_installed[NCAUGHT];

/* The runner has one child at a time; a few slots leave room for a
 * command that nests one (a helper started while another runs). */
#define NGROUPS 8
static volatile sig_atomic_t g_groups[NGROUPS];

static volatile sig_atomic_t g_forwarding = 1;

void interrupt_set_forwarding(int on)
{
	g_forwarding = on != 0;
}

int interrupt_forwarding(void)
{
	return g_forwarding;
}

void interrupt_forward(int sig)
{
	for (int i = 0; i < NGROUPS; i++) {
		pid_t pg = (pid_t)g_groups[i];
		if (pg > 0)
			kill(-pg, sig);
	}
}

/* Only async-signal-safe calls: kill(2) and plain stores. */
static void on_signal(int sig)
{
	int saved = errno;
	int first = g_sig == 0;
	if (first)
		g_sig = sig;
	g_count = g_count + 1;
	/* The first asks (srun cancels its step, a child cmax keeps its
	 * partial results); a second one means now. */
	if (g_forwarding)
		interrupt_forward(first ? sig : SIGKILL);
	errno = saved;
}

void interrupt_install(void)
{
	for (size_t i = 0; i < NCAUGHT; i++) {
		if (g_installed[i])
			continue;
		struct sigaction sa;
		/* A SIGHUP already ignored (nohup) stays ignored: the operator
		 * asked for the run to outlive the terminal. SIGINT is caught
		 * even when ignored: a shell script's background job starts with
		 * it ignored, and `kill -INT` is how such a script stops cmax. */
		if (sigaction(caught[i], NULL, &g_old[i]) != 0 ||
		    (caught[i] == SIGHUP && g_old[i].sa_handler == SIG_IGN))
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < NCAUGHT; k++)
			sigaddset(&sa.sa_mask, caught[k]);
		/* no SA_RESTART: poll, nanosleep and read return EINTR, so
		 * every wait notices at once */
		sa.sa_flags = 0;
		g_installed[i] = sigaction(caught[i], &sa, NULL) == 0;
	}
}

void interrupt_restore(void)
{
	for (size_t i = 0; i < NCAUGHT; i++)
		if (g_installed[i]) {
			sigaction(caught[i], &g_old[i], NULL);
			g_installed[i] = 0;
		}
}

int interrupt_pending(void)
{
	return g_sig != 0;
}

int interrupt_signal(void)
{
	return g_sig;
}

unsigned interrupt_count(void)
{
	return (unsigned)g_count;
}

int interrupt_exit_code(void)
{
	switch (g_sig) {
	case 0: return 0;
	case SIGINT: return EXIT_SIGINT;
	case SIGTERM: return EXIT_SIGTERM;
	case SIGHUP: return EXIT_SIGHUP;
	}
	return 128 + g_sig;
}

const char *interrupt_signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGKILL: return "SIGKILL";
	}
	return "signal";
}

void interrupt_reset(void)
{
	g_sig = 0;
}

void interrupt_reraise(void)
{
	int sig = g_sig;
	if (!sig)
		return;
	interrupt_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

int interrupt_watch_group(pid_t pgid)
{
	for (int i = 0; i < NGROUPS; i++)
		if (g_groups[i] == 0) {
			g_groups[i] = pgid;
			return i;
		}
	return -1;
}

void interrupt_unwatch_group(int slot)
{
	if (slot >= 0 && slot < NGROUPS)
		g_groups[slot] = 0;
}
