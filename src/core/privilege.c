#include "core/privilege.h"
#include "core/argv.h"
#include "core/strbuf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Every entry reads and prints; none takes an argument that could make it
 * write (no setpci, no ipmitool raw/chassis, no dmidecode --dump-bin).
 * tests/cli/t-sudo.sh asserts that the sudo invocations of a fixture run
 * are exactly these. */
const struct priv_read priv_reads[] = {
	{ { "true", NULL }, "access",
	  "the policy's probe: does sudo -n work without a password (runs nothing else)" },
	{ { "lspci", "-xxxx", "-s", "<bdf>", NULL }, "pci",
	  "the 4096-byte configuration space of a PCIe bridge between a GPU and a NIC, where the ACS "
	  "control register lives (a tenant reads only the first 64 bytes)" },
	{ { "dmidecode", "-t", "system", "-t", "baseboard", "-t", "bios", NULL }, "dmi",
	  "SMBIOS system, baseboard and BIOS records (/dev/mem or the SMBIOS tables, root only)" },
	{ { "ipmitool", "mc", "info", NULL }, "access",
	  "the BMC's identity and firmware through the in-band interface (/dev/ipmi0 is root only)" },
	{ { "mlxconfig", "-d", "<bdf>", "q", "INTERNAL_CPU_RSHIM", NULL }, "fabric",
	  "whether a BlueField gives the host an RShim function (its non-volatile configuration, read through "
	  "the PCI configuration space only root may access)" },
};
const size_t priv_reads_len = sizeof priv_reads / sizeof priv_reads[0];

/* `sudo -n true` gets the runner's limits like any tool; 5 s is ample for
 * a sudo that does not prompt and short against the audit's budget. */
#define PRIV_PROBE_TIMEOUT_MS 5000

static enum priv_policy g_policy = PRIV_AUTO;
static enum priv_mode g_mode = PRIV_UNDECIDED;
static char *g_why;
static struct cmd_result g_probe;
static int g_probed;

void priv_set_policy(enum priv_policy p)
{
	g_policy = p;
	g_mode = PRIV_UNDECIDED;
	free(g_why);
	g_why = NULL;
	if (g_probed)
		cmd_result_free(&g_probe);
	g_probed = 0;
}

enum priv_policy priv_get_policy(void)
{
	return g_policy;
}

const char *priv_policy_name(enum priv_policy p)
{
	return p == PRIV_ON ? "on" : p == PRIV_OFF ? "off" : "auto";
}

static char *first_line(const struct cmd_result *r)
{
	const char *s = r->err && *r->err ? r->err : r->out ? r->out : "";
	size_t n = strcspn(s, "\n");
	return str_sanitize(s, n > 200 ? 200 : n);
}

/* Why `sudo -n true` did not open the door, in the words the plan and the
 * SKIP rows use. */
static char *probe_refusal(const struct cmd_result *r)
{
	if (r->outcome == RUN_NOT_FOUND)
		return xstrdup("not root and no sudo");
	if (r->outcome == RUN_TIMEOUT)
		return xasprintf("sudo -n true did not answer within %d ms", r->timeout_ms);
	char *l = first_line(r);
	char *why;
	if (r->outcome == RUN_EXITED && strstr(l, "password is required"))
		why = xstrdup("sudo -n needs a password");
	else if (r->outcome == RUN_EXITED && *l)
		why = xasprintf("sudo -n refused: %s", l);
	else {
		char *d = cmd_describe(r);
		why = xasprintf("sudo -n true: %s", d);
		free(d);
	}
	free(l);
	return why;
}

void priv_decide(int is_root, priv_runner_fn run)
{
	if (g_mode != PRIV_UNDECIDED)
		return;
	if (is_root) {
		g_mode = PRIV_DIRECT;
		return;
	}
	if (g_policy == PRIV_OFF) {
		g_mode = PRIV_NONE;
		g_why = xstrdup("--no-sudo");
		return;
	}
	const char *argv[] = { "sudo", "-n", "true", NULL };
	struct run_opts o = { .timeout_ms = PRIV_PROBE_TIMEOUT_MS };
	(run ? run : runner_run)(argv, &o, &g_probe);
	g_probed = 1;
	if (cmd_ok(&g_probe)) {
		g_mode = PRIV_SUDO;
		return;
	}
	g_mode = PRIV_NONE;
	char *why = probe_refusal(&g_probe);
	if (g_policy == PRIV_ON) {
		g_why = xasprintf("--sudo given, but sudo refused (%s)", why);
		free(why);
	} else {
		g_why = why;
	}
}

enum priv_mode priv_get_mode(void)
{
	return g_mode;
}

const char *priv_why(void)
{
	return g_mode == PRIV_NONE ? g_why : NULL;
}

const struct cmd_result *priv_probe(void)
{
	return g_probed ? &g_probe : NULL;
}

/* dddd:bb:dd.f, hex digits */
static int is_bdf(const char *s)
{
	static const char pat[] = "xxxx:xx:xx.x";
	if (strlen(s) != sizeof pat - 1)
		return 0;
	for (size_t i = 0; pat[i]; i++)
		if (pat[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pat[i])
			return 0;
	return 1;
}

const struct priv_read *priv_match(const char *const argv[])
{
	for (size_t i = 0; i < priv_reads_len; i++) {
		const char *const *t = priv_reads[i].argv;
		size_t k = 0;
		for (; t[k] && argv[k]; k++)
			if (strcmp(t[k], "<bdf>") == 0 ? !is_bdf(argv[k]) : strcmp(t[k], argv[k]) != 0)
				break;
		if (!t[k] && !argv[k])
			return &priv_reads[i];
	}
	return NULL;
}

int priv_run(priv_runner_fn run, const char *const argv[], const struct run_opts *o, struct cmd_result *res,
	     char **why)
{
	if (!priv_match(argv)) {
		char *c = argv_join_quoted(argv);
		*why = xasprintf("internal: '%s' is not in the table of privileged reads", c);
		free(c);
		return -1;
	}
	if (g_mode == PRIV_UNDECIDED || g_mode == PRIV_NONE) {
		*why = xstrdup(g_mode == PRIV_NONE && g_why ? g_why : "the sudo policy was not decided");
		return -1;
	}
	if (!run)
		run = runner_run;
	if (g_mode == PRIV_DIRECT) {
		run(argv, o, res);
		return 0;
	}
	const char *full[PRIV_ARGV_MAX + 2] = { "sudo", "-n" };
	for (size_t k = 0; argv[k]; k++)
		full[k + 2] = argv[k];
	run(full, o, res);
	return 0;
}

const char *priv_plan_would(int is_root)
{
	if (is_root)
		return "directly (cmax runs as root)";
	switch (g_policy) {
	case PRIV_ON:
		return "yes (--sudo)";
	case PRIV_OFF:
		return "no (--no-sudo)";
	default:
		return "if sudo -n true succeeds (auto)";
	}
}

char *priv_read_cmdline(const struct priv_read *r)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "sudo -n");
	for (size_t k = 0; r->argv[k]; k++)
		sb_addf(&sb, " %s", r->argv[k]);
	return sb_detach(&sb);
}
