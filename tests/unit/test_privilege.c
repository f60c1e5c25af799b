/* The sudo policy: decided once, root runs directly, --no-sudo never runs
 * sudo (not even the probe), the probe's refusals become reasons, and
 * nothing outside the table of read-only commands ever gets privilege. */
#include "tap.h"
#include "core/privilege.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* A runner that records the argv it got and answers like sudo would. */
static char last[256];
static int calls;

static const char *last_p(void)
{
	return last;
}
static int sudo_exit;         /* exit of `sudo -n true` */
static const char *sudo_err;  /* its stderr */
static int sudo_missing;

static int fake_run(const char *const argv[], const struct run_opts *o, struct cmd_result *res)
{
	(void)o;
	calls++;
	last[0] = 0;
	for (size_t k = 0; argv[k]; k++) {
		strncat(last, k ? " " : "", sizeof last - strlen(last) - 1);
		strncat(last, argv[k], sizeof last - strlen(last) - 1);
	}
	memset(res, 0, sizeof *res);
	res->cmdline = xstrdup(last);
	res->out = xstrdup("");
	res->err = xstrdup(sudo_err ? sudo_err : "");
	res->err_len = strlen(res->err);
	if (sudo_missing && strcmp(argv[0], "sudo") == 0) {
		res->outcome = RUN_NOT_FOUND;
		return -1;
	}
	res->outcome = RUN_EXITED;
	res->exit_code = strcmp(argv[0], "sudo") == 0 && strcmp(argv[2], "true") == 0 ? sudo_exit : 0;
	return 0;
}

static void reset(enum priv_policy p, int ex, const char *err, int missing)
{
	priv_set_policy(p);
	calls = 0;
	last[0] = 0;
	sudo_exit = ex;
	sudo_err = err;
	sudo_missing = missing;
}

static const char *const lspci[] = { "lspci", "-xxxx", "-s", "0000:17:00.0", NULL };

static void test_auto_sudo(void)
{
	reset(PRIV_AUTO, 0, NULL, 0);
	priv_decide(0, fake_run);
	T_INTEQ(priv_get_mode(), PRIV_SUDO, "auto: sudo -n true succeeds, reads go through sudo");
	T_STREQ((const char *)last_p(), "sudo -n true", "the probe is sudo -n true");
	priv_decide(0, fake_run);
	T_INTEQ(calls, 1, "decided once: the probe runs one time");
	struct cmd_result r;
	char *why = NULL;
	T_INTEQ(priv_run(fake_run, lspci, NULL, &r, &why), 0, "a table read runs");
	T_STREQ((const char *)last_p(), "sudo -n lspci -xxxx -s 0000:17:00.0", "prefixed with sudo -n");
	cmd_result_free(&r);
	T_OK(priv_probe() != NULL, "the probe's result is kept for the access collector");

	const char *const setpci[] = { "setpci", "-s", "0000:17:00.0", "ECAP_ACS+6.w=0", NULL };
	T_INTEQ(priv_run(fake_run, setpci, NULL, &r, &why), -1, "setpci (a write) is refused");
	T_OK(why && strstr(why, "not in the table"), "with the reason: %s", why ? why : "");
	free(why);
	why = NULL;
	const char *const badbdf[] = { "lspci", "-xxxx", "-s", "17:00.0;reboot", NULL };
	T_INTEQ(priv_run(fake_run, badbdf, NULL, &r, &why), -1, "a placeholder that is not a PCI address is refused");
	free(why);
	why = NULL;
	const char *const more[] = { "ipmitool", "mc", "info", "extra", NULL };
	T_INTEQ(priv_run(fake_run, more, NULL, &r, &why), -1, "an extra argument is refused");
	free(why);
	why = NULL;
	const char *const raw[] = { "ipmitool", "raw", "0x06", "0x01", NULL };
	T_INTEQ(priv_run(fake_run, raw, NULL, &r, &why), -1, "ipmitool raw is refused");
	free(why);
	T_INTEQ(calls, 2, "nothing refused reached the runner");
}

static void test_refusals(void)
{
	struct cmd_result r;
	char *why = NULL;
	reset(PRIV_AUTO, 1, "sudo: a password is required\n", 0);
	priv_decide(0, fake_run);
	T_INTEQ(priv_get_mode(), PRIV_NONE, "a password prompt means no privileged reads");
	T_STREQ(priv_why(), "sudo -n needs a password", "reason");
	T_INTEQ(priv_run(fake_run, lspci, NULL, &r, &why), -1, "the read does not run");
	T_STREQ(why, "sudo -n needs a password", "and says why");
	free(why);

	reset(PRIV_AUTO, 0, NULL, 1);
	priv_decide(0, fake_run);
	T_STREQ(priv_why(), "not root and no sudo", "no sudo binary");

	reset(PRIV_ON, 1, "sudo: a password is required\n", 0);
	priv_decide(0, fake_run);
	T_STREQ(priv_why(), "--sudo given, but sudo refused (sudo -n needs a password)", "--sudo names the refusal");

	reset(PRIV_AUTO, 1, "user is not in the sudoers file.  This incident will be reported.\n", 0);
	priv_decide(0, fake_run);
	T_OK(strstr(priv_why(), "sudo -n refused: user is not in the sudoers file") != NULL, "other refusal: %s",
	     priv_why());

	reset(PRIV_OFF, 0, NULL, 0);
	priv_decide(0, fake_run);
	T_STREQ(priv_why(), "--no-sudo", "--no-sudo");
	T_INTEQ(calls, 0, "--no-sudo does not even probe");
	T_OK(priv_probe() == NULL, "no probe result");

	reset(PRIV_OFF, 0, NULL, 0);
	priv_decide(1, fake_run);
	T_INTEQ(priv_get_mode(), PRIV_DIRECT, "root runs the reads directly");
	T_INTEQ(priv_run(fake_run, lspci, NULL, &r, &why), 0, "as root");
	T_STREQ((const char *)last_p(), "lspci -xxxx -s 0000:17:00.0", "without sudo");
	cmd_result_free(&r);

	reset(PRIV_AUTO, 0, NULL, 0);
	why = NULL;
	T_INTEQ(priv_run(fake_run, lspci, NULL, &r, &why), -1, "undecided: nothing runs");
	free(why);
}

static void test_table(void)
{
	T_OK(priv_reads_len >= 4, "the table lists the probe and the reads");
	T_STREQ(priv_reads[0].argv[0], "true", "the probe comes first");
	for (size_t i = 0; i < priv_reads_len; i++) {
		const char *a0 = priv_reads[i].argv[0];
		T_OK(strcmp(a0, "setpci") && strcmp(a0, "sh") && strcmp(a0, "bash"), "entry %zu is not a writer or shell", i);
	}
	char *c = priv_read_cmdline(&priv_reads[1]);
	T_STREQ(c, "sudo -n lspci -xxxx -s <bdf>", "the plan's form of an entry");
	free(c);
	priv_set_policy(PRIV_OFF);
	T_STREQ(priv_plan_would(0), "no (--no-sudo)", "plan under --no-sudo");
	priv_set_policy(PRIV_AUTO);
	T_STREQ(priv_policy_name(priv_get_policy()), "auto", "policy name");
}

int main(void)
{
	test_auto_sudo();
	test_refusals();
	test_table();
	priv_set_policy(PRIV_AUTO);
	return t_done();
}
