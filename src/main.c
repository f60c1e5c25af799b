/* cmax: rate managed GPU clusters the way a demanding buyer would.
 * A command table (git-style); each command owns its options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "audit/cli.h"
#include "bench/bench.h"
#include "fleet/fleet.h"
#include "health/health.h"
#include "inject/inject.h"
#include "rate/rate.h"
#include "sla/sla.h"
#include "accept/accept.h"
#include "core/exitcodes.h"
#include "core/readfile.h"
#include "config.h"

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("cmax %s\n", CMAX_VERSION);
	return EXIT_OK;
}

static void usage(FILE *out)
{
	fputs("usage: cmax [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "Commands:\n"
	      "  audit [PROFILE]   read-only audit of this machine (see cmax audit --help)\n"
	      "  audit review      reopen a finished audit run\n"
	      "  bench NAME        benchmarks: storage, metadata, s3, net, gpu, lifecycle (see cmax bench --help)\n"
	      "  health check      one pass of the XID-aware health agent (a Slurm HealthCheckProgram)\n"
	      "  health watch      the health agent, event-driven (see cmax health --help)\n"
	      "  inject            inject a fault and time detection, drain and return (see cmax inject --help)\n"
	      "  reboot-test       reboot nodes through the scheduler and time their return\n"
	      "  rate              category scores, tier and goodput from result files (see cmax rate --help)\n"
	      "  sla               downtime, availability and credits from node-state history (see cmax sla --help)\n"
	      "  accept            run or evaluate an acceptance plan (see cmax accept --help)\n"
	      "  version           print the version\n"
	      "  help              this help\n"
	      "\n"
	      "Exit status: 0 ok; 1 health check found a problem or acted; 2 security FAIL or plan not accepted; 64 usage; 65 bad input data; 66 missing input;\n"
	      "69 service unavailable; 70 internal error; 71 OS error; 73 cannot write output;\n"
	      "75 --timeout budget spent; 77 credentials refused;\n"
	      "130 declined at the confirmation prompt, or interrupted (SIGINT; SIGTERM and SIGHUP: 128 + the signal;\nthe report so far is written, marked partial).\n",
	      out);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_OK;
}

static int cmd_audit_dispatch(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "review") == 0)
		return cmd_review(argc - 1, argv + 1);
	return cmd_audit(argc, argv);
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "audit", cmd_audit_dispatch },
	{ "bench", cmd_bench },
	{ "health", cmd_health },
	{ "inject", cmd_inject },
	{ "reboot-test", cmd_reboot_test },
	{ "rate", cmd_rate },
	{ "sla", cmd_sla },
	{ "accept", cmd_accept },
	{ "version", cmd_version },
	{ "help", cmd_help },
	/* hidden: the node side of `cmax audit --slurm / --k8s` */
	{ "node-collect", cmd_node_collect },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return cmd_version(0, NULL);
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(0, NULL);
	/* the input caps' override variables (docs/inputs.md): a typo is a
	 * usage error here, not a silent default in the middle of a command */
	char *bad = input_limits_check();
	if (bad) {
		fprintf(stderr, "cmax: %s\n", bad);
		free(bad);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "cmax: unknown command '%s' (see cmax --help)\n", name);
	return EXIT_USAGE;
}
