/* `cmax node-collect`: the node side of a fleet audit. Runs the host-scope
 * checks of the plan here, with the target detected as for --local, and
 * prints one cmax.node/1 document in the wire format. It never prompts and
 * writes nothing to disk: it runs unattended on every node at once. */
#include "fleet.h"
#include "../audit/cli.h"
#include "../audit/engine.h"
#include "../audit/target.h"
#include "../core/clock.h"
#include "../core/datafile.h"
#include "../core/exitcodes.h"
#include "../core/runner.h"
#include "../core/strbuf.h"
#include "../core/sysroot.h"
#include "../parse/nodewire.h"
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const col_states[] = { "ok", "absent", "denied", "failed" };

/* Facts without evidence: the evidence stays on the node's rows, and the
 * document has to cross the launcher line by line. */
static json_t *node_facts(struct audit_ctx *ctx)
{
	json_t *o = json_object();
	for (size_t i = 0; i < collector_table_len; i++) {
		struct col_run *c = &ctx->cols[i];
		if (!c->done)
			continue;
		json_t *f = json_object();
		json_object_set_new(f, "state", json_string(col_states[c->state]));
		json_object_set_new(f, "reason", c->reason ? json_string(c->reason) : json_null());
		json_object_set_new(f, "duration_ms", json_integer(c->duration_ms));
		json_object_set_new(f, "facts", json_incref(c->facts));
		json_object_set_new(o, c->name, f);
	}
	return o;
}

static json_t *node_doc(struct audit_ctx *ctx, const char *node, const char *started, const struct audit_report *rep,
			const char *profile)
{
	json_t *d = json_object();
	json_object_set_new(d, "schema", json_string(NODEWIRE_SCHEMA));
	json_object_set_new(d, "tool_version", json_string(CMAX_VERSION));
	json_object_set_new(d, "node", json_string(node));
	json_object_set_new(d, "host", json_string(ctx->hostname));
	json_object_set_new(d, "started_at", json_string(started));
	json_object_set_new(d, "duration_ms", json_integer(rep->duration_ms));
	json_object_set_new(d, "profile", json_string(profile ? profile : "full"));
	json_t *t = json_object();
	json_object_set_new(t, "harness", json_string(ctx->target.harness));
	json_object_set_new(t, "environment", json_string(ctx->target.environment));
	json_object_set_new(t, "selection", json_string(ctx->target.selection));
	json_object_set_new(t, "detection", ctx->target.why ? json_string(ctx->target.why) : json_null());
	json_object_set_new(t, "sysroot", json_string(sysroot_get()));
	json_object_set_new(d, "target", t);
	json_t *rows = json_array();
	for (size_t i = 0; i < rep->n; i++)
		json_array_append_new(rows, result_to_json(rep->results[i]));
	json_object_set_new(d, "results", rows);
	json_t *c = json_object();
	for (int s = 0; s < ST__COUNT; s++)
		json_object_set_new(c, status_name((enum status)s), json_integer(rep->counts[s]));
	json_object_set_new(c, "total", json_integer((json_int_t)rep->n));
	json_object_set_new(d, "counts", c);
	json_object_set_new(d, "budget_exhausted", json_boolean(rep->budget_exhausted));
	json_object_set_new(d, "facts", node_facts(ctx));
	return d;
}

static int nc_usage(FILE *out, int rc)
{
	fputs("usage: cmax node-collect [--sysroot DIR] [--profile P] [--timeout S] [--active] [--node-name N]\n"
	      "                         [--healthcheck-program PATH]\n"
	      "Internal: run by `cmax audit --slurm/--k8s` on every node; prints one cmax.node/1\n"
	      "document as CMAXNODE lines and writes nothing.\n",
	      out);
	return rc;
}

int cmd_node_collect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysroot", required_argument, NULL, 'r' },
		{ "profile", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "active", no_argument, NULL, 'a' },
		{ "node-name", required_argument, NULL, 'n' },
		{ "healthcheck-program", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sysroot = getenv("CMAX_SYSROOT"), *profile = NULL, *node = NULL, *hcprog = NULL;
	long timeout_s = 120;
	int active = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': sysroot = optarg; break;
		case 'p': profile = optarg; break;
		case 'a': active = 1; break;
		case 'n': node = optarg; break;
		case 'H': hcprog = optarg; break;
		case 't': {
			char *end;
			errno = 0;
			timeout_s = strtol(optarg, &end, 10);
			if (errno || *end || timeout_s <= 0 || timeout_s > 86400) {
				fprintf(stderr, "cmax node-collect: --timeout wants whole seconds, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'h': return nc_usage(stdout, EXIT_OK);
		default:
			fprintf(stderr, "cmax node-collect: unknown or incomplete option '%s'\n", argv[optind - 1]);
			return nc_usage(stderr, EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cmax node-collect: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (profile && !plan_profile_valid(profile)) {
		fprintf(stderr, "cmax node-collect: unknown profile '%s'\n", profile);
		return EXIT_USAGE;
	}
	if (sysroot && *sysroot) {
		int rc = sysroot_set(sysroot);
		if (rc != 0) {
			fprintf(stderr, "cmax node-collect: --sysroot %s: %s\n", sysroot, strerror(-rc));
			return EXIT_NOINPUT;
		}
	}
	runner_set_budget_ms(timeout_s * 1000);

	struct audit_ctx ctx = { 0 };
	audit_ctx_init(&ctx);
	ctx.now = clock_now();
	ctx.active = active;
	ctx.healthcheck_program = hcprog && *hcprog ? xstrdup(hcprog) : NULL;
	char *mp = datafile_path("minimum-versions.json"), *perr = NULL;
	int prc = audit_load_policy(&ctx, mp, &perr);
	free(mp);
	if (prc) {
		fprintf(stderr, "cmax node-collect: %s\n", perr);
		free(perr);
		audit_ctx_free(&ctx);
		return prc;
	}
	char *err = NULL;
	target_resolve(&ctx, TF_LOCAL, &err);
	free(err);
	json_t *os = facts_get(&ctx, "os", NULL);
	ctx.hostname = xstrdup(fact_str(os, "hostname") ? fact_str(os, "hostname") : "unknown-host");
	int root = 0;
	ctx.is_root = fact_bool(os, "is_root", &root) == 0 && root;
	/* The launcher's name for this node keys the document: several Slurm
	 * nodes may share one host name (MULTIPLE_SLURMD, containers). */
	if (!node || !*node)
		node = getenv("SLURMD_NODENAME");
	if (!node || !*node)
		node = ctx.hostname;
	int rc = EXIT_OK;
	if (!nodewire_name_ok(node)) {
		fprintf(stderr, "cmax node-collect: node name '%s' is not usable on the wire\n", node);
		rc = EXIT_USAGE;
		goto out;
	}

	char started[32];
	clock_iso(ctx.now, started, sizeof started);
	struct audit_plan plan;
	audit_plan_build(&plan, profile);
	audit_plan_scope(&plan, SCOPE_HOST, 0);
	struct audit_report rep;
	audit_run(&ctx, &plan, &rep);
	/* no host check asks for it: the launcher's cluster check reads it */
	if (ctx.healthcheck_program)
		facts_run(&ctx, "slurm-node");
	json_t *doc = node_doc(&ctx, node, started, &rep, profile);
	char *js = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	char *wire = js ? nodewire_encode(node, js, NODEWIRE_LINE_MAX) : NULL;
	if (!wire) {
		fprintf(stderr, "cmax node-collect: could not encode the node document\n");
		rc = EXIT_SOFTWARE;
	} else if (fputs(wire, stdout) == EOF || fflush(stdout) != 0) {
		rc = EXIT_OSERR;
	}
	free(wire);
	free(js);
	json_decref(doc);
	audit_report_free(&rep);
	audit_plan_free(&plan);
out:
	audit_free_policy(&ctx);
	audit_ctx_free(&ctx);
	return rc;
}
