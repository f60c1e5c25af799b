/* The audit's sudo policy and the one way cmax runs a command with
 * privilege. A tenant who has passwordless sudo can read what root reads
 * (the extended PCI configuration space, DMI tables, the BMC), so the audit
 * reads it too, but only the read-only commands of one declared table
 * (priv_reads[]) and only through `sudo -n`, which never prompts. The policy
 * is decided once per audit: auto uses sudo when `sudo -n true` succeeds,
 * --sudo insists on it (a refusal is a SKIP reason, not an error), --no-sudo
 * never runs sudo at all, not even the probe. Root runs the reads directly. */
#ifndef CMAX_PRIVILEGE_H
#define CMAX_PRIVILEGE_H
#include <stddef.h>
#include "core/runner.h"

enum priv_policy {
	PRIV_AUTO, /* the default: sudo when `sudo -n true` succeeds */
	PRIV_ON,   /* --sudo */
	PRIV_OFF,  /* --no-sudo */
};

/* How the privileged reads run, once decided. */
enum priv_mode {
	PRIV_UNDECIDED,
	PRIV_DIRECT, /* cmax is root: no sudo */
	PRIV_SUDO,   /* through sudo -n */
	PRIV_NONE,   /* not at all: priv_why() says why */
};

/* One privileged read. argv is a template: the word "<bdf>" stands for a
 * PCI address (dddd:bb:dd.f), every other word is literal. */
#define PRIV_ARGV_MAX 10
struct priv_read {
	const char *argv[PRIV_ARGV_MAX]; /* NULL-terminated */
	const char *collector;           /* who runs it */
	const char *why;                 /* what it reads that a tenant cannot */
};

/* Every command cmax may run with privilege, the decision probe first. */
extern const struct priv_read priv_reads[];
extern const size_t priv_reads_len;

typedef int (*priv_runner_fn)(const char *const argv[], const struct run_opts *o, struct cmd_result *res);

/* Set by the command before anything runs; forgets an earlier decision. */
void priv_set_policy(enum priv_policy p);
enum priv_policy priv_get_policy(void);
const char *priv_policy_name(enum priv_policy p); /* "auto", "on", "off" */

/* Decide once (later calls return at once): is_root is what the host's
 * identity says; run is the runner to use for `sudo -n true` (NULL:
 * runner_run). */
void priv_decide(int is_root, priv_runner_fn run);
enum priv_mode priv_get_mode(void);
/* PRIV_NONE: the one-line reason a privileged read is skipped ("--no-sudo",
 * "sudo -n needs a password", "not root and no sudo", ...); NULL otherwise.
 * Borrowed until the next priv_set_policy. */
const char *priv_why(void);
/* The `sudo -n true` probe, NULL when it was not run (root, --no-sudo,
 * undecided). Borrowed until the next priv_set_policy. */
const struct cmd_result *priv_probe(void);

/* The table entry argv matches, or NULL. */
const struct priv_read *priv_match(const char *const argv[]);

/* Run argv, which must match a priv_reads[] entry, with privilege: directly
 * as root, else as `sudo -n argv...`, with the runner's limits in o. 0: it
 * ran, res says how it ended (a sudo refusal is an exit like any other);
 * -1: not run, *why (malloc'd) says why and res is untouched. Undecided
 * counts as not allowed: priv_decide comes first. */
int priv_run(priv_runner_fn run, const char *const argv[], const struct run_opts *o, struct cmd_result *res,
	     char **why);

/* For the plan: whether the reads would use sudo under the current policy,
 * without running anything ("yes (--sudo)", "no (--no-sudo)", "if sudo -n
 * true succeeds (auto)", "directly (cmax runs as root)"). */
const char *priv_plan_would(int is_root);
/* An entry's command as one line ("sudo -n lspci -xxxx -s <bdf>"), malloc'd. */
char *priv_read_cmdline(const struct priv_read *r);
#endif
