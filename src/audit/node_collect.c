/* `cmax node-collect`: the node side of a fleet audit. Runs the host-scope
 * checks of the plan here, with the target detected as for --local, and
 * prints one cmax.node/1 document in the wire format. It never prompts and
 * writes nothing to disk: it runs unattended on every node at once. */
#include "fleet/fleet.h"
#include "audit/cli.h"
#include "engine/engine.h"
#include "checks/registry.h"
#include "collect/collector.h"
#include "engine/target.h"
#include "core/clock.h"
#include "core/datafile.h"
#include "core/exitcodes.h"
#include "core/options.h"
#include "core/privilege.h"
#include "core/usage.h"
#include "core/runner.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/nodewire.h"
#include "config.h"
#include <stddef.h>
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

struct nc_opts {
	const char *sysroot, *profile, *node, *hcprog;
	long timeout_s;
	int active;
	int sudo, no_sudo;          /* the audit's sudo policy, forwarded (core/privilege.h) */
};

#define NO(f) offsetof(struct nc_opts, f)
const struct opt_def node_collect_options[] = {
	OPTION_SYSROOT(struct nc_opts, sysroot),
	{ "profile", 0, OPT_STRING, NO(profile), "P", "run this profile's host checks", "all of them", 0, 0, NULL, NULL, 0 },
	{ "timeout", 0, OPT_SECONDS, NO(timeout_s), "SECONDS", "this node's budget", "120", 1, 86400, "s", NULL, 0 },
	{ "active", 0, OPT_FLAG, NO(active), NULL, "allow probes that change state or make traffic", NULL, 0, 0, NULL,
	  NULL, 0 },
	{ "sudo", 0, OPT_FLAG, NO(sudo), NULL, "run the privileged reads through sudo -n", "when sudo -n true succeeds",
	  0, 0, NULL, NULL, 0 },
	{ "no-sudo", 0, OPT_FLAG, NO(no_sudo), NULL, "never run sudo", NULL, 0, 0, NULL, NULL, 0 },
	/* empty: the launcher had no name (SLURMD_NODENAME, then the host name) */
	{ "node-name", 0, OPT_STRING, NO(node), "N", "the launcher's name for this node", NULL, 0, 0, NULL, NULL,
	  OPTF_EMPTY_OK },
	{ "healthcheck-program", 0, OPT_STRING, NO(hcprog), "PATH", "Slurm's HealthCheckProgram, as the controller names it",
	  NULL, 0, 0, NULL, NULL, OPTF_EMPTY_OK | OPTF_PATH },
	OPTION_END,
};
#undef NO

static const char nc_help_head[] =
	"usage: cmax node-collect [options]\n"
	"Internal: run by `cmax audit --slurm/--k8s` on every node; prints one cmax.node/1\n"
	"document as CMAXNODE lines and writes nothing.\n"
	"\n"
	"Options:\n";

/* Parse: 0, -1 after --help, or an exit code. */
static int nc_parse(int argc, char **argv, struct nc_opts *o)
{
	o->sysroot = getenv("CMAX_SYSROOT");
	o->timeout_s = 120;
	struct opt_parser p = { .cmd = "node-collect", .defs = node_collect_options, .dst = o, .max_positional = 0,
				.help_head = nc_help_head };
	int rc = opt_parse_result(opt_parse(&p, argc, argv));
	opt_parser_release(&p);
	if (rc)
		return rc;
	if (o->profile && audit_profile_check("node-collect", o->profile))
		return EXIT_USAGE;
	if (o->sudo && o->no_sudo)
		return usage_fail("node-collect", "%s: give --sudo or --no-sudo, not both", "--sudo");
	return 0;
}

/* One node's collection: what its phases share, released once. */
struct nc_cmd {
	struct nc_opts o;
	struct audit_ctx ctx;
	const char *node;           /* the launcher's name for this node */
	struct audit_plan plan;
	struct audit_report rep;
};

static void nc_release(struct nc_cmd *nc)
{
	audit_report_release(&nc->rep);
	audit_plan_release(&nc->plan);
	audit_free_policy(&nc->ctx);
	audit_ctx_release(&nc->ctx);
}

/* Prepare: the sysroot, the policy files, this host as --local sees it. */
static int nc_prepare(struct nc_cmd *nc)
{
	const struct nc_opts *o = &nc->o;
	if (o->sysroot && *o->sysroot) {
		int rc = sysroot_set(o->sysroot);
		if (rc != 0) {
			fprintf(stderr, "cmax node-collect: --sysroot %s: %s\n", o->sysroot, strerror(-rc));
			return EXIT_NOINPUT;
		}
	}
	runner_set_budget_ms(o->timeout_s * 1000);
	priv_set_policy(o->sudo ? PRIV_ON : o->no_sudo ? PRIV_OFF : PRIV_AUTO);
	struct audit_ctx *ctx = &nc->ctx;
	audit_ctx_init(ctx, builtin_registry());
	ctx->now = clock_now();
	ctx->active = o->active;
	ctx->healthcheck_program = o->hcprog && *o->hcprog ? xstrdup(o->hcprog) : NULL;
	char *mp = datafile_path("minimum-versions.json"), *err = NULL;
	enum cmax_err pe = audit_load_policy(ctx, mp, &err);
	free(mp);
	if (pe) {
		fprintf(stderr, "cmax node-collect: %s\n", err);
		free(err);
		return exit_code_for(pe);
	}
	target_resolve(ctx, TF_LOCAL, &err);
	free(err);
	audit_host_identity(ctx);
	/* The launcher's name for this node keys the document: several Slurm
	 * nodes may share one host name (MULTIPLE_SLURMD, containers). */
	nc->node = o->node;
	if (!nc->node || !*nc->node)
		nc->node = getenv("SLURMD_NODENAME");
	if (!nc->node || !*nc->node)
		nc->node = ctx->hostname;
	if (!nodewire_name_ok(nc->node)) {
		fprintf(stderr, "cmax node-collect: node name '%s' is not usable on the wire\n", nc->node);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* Execute the host-scope checks, then write the document as CMAXNODE lines. */
static int nc_execute_write(struct nc_cmd *nc)
{
	struct audit_ctx *ctx = &nc->ctx;
	char started[32];
	clock_iso(ctx->now, started, sizeof started);
	audit_plan_build(&nc->plan, builtin_registry(), nc->o.profile);
	audit_plan_scope(&nc->plan, SCOPE_HOST, 0);
	audit_run(ctx, &nc->plan, &nc->rep);
	/* no host check asks for it: the launcher's cluster check reads it */
	if (ctx->healthcheck_program)
		facts_run(ctx, "slurm-node");
	json_t *doc = node_doc(ctx, nc->node, started, &nc->rep, nc->o.profile);
	char *js = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	char *wire = js ? nodewire_encode(nc->node, js, NODEWIRE_LINE_MAX) : NULL;
	int rc = EXIT_OK;
	if (!wire) {
		fprintf(stderr, "cmax node-collect: could not encode the node document\n");
		rc = EXIT_SOFTWARE;
	} else if (fputs(wire, stdout) == EOF || fflush(stdout) != 0) {
		rc = EXIT_OSERR;
	}
	free(wire);
	free(js);
	json_decref(doc);
	return rc;
}

int cmd_node_collect(int argc, char **argv)
{
	struct nc_cmd nc;
	memset(&nc, 0, sizeof nc);
	int rc = nc_parse(argc, argv, &nc.o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc; /* < 0: --help */
	rc = nc_prepare(&nc);
	if (!rc)
		rc = nc_execute_write(&nc);
	nc_release(&nc);
	return rc;
}
