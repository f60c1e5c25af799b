/* The documents of cmax inject, cmax reboot-test and cmax audit (its
 * audit.values.json and the --dry-run plan) against their embedded schemas
 * (docs/schema/{inject,reboot-test,audit-values,audit-plan}.schema.json):
 * each writer's shape, cut down, passes doc_selfcheck silently; with a key
 * removed, a value outside its enum or the wrong type it is an internal
 * error (exit 70) whose message names the schema and the JSON Pointer.
 *
 * test_docschemas --check FILE...: one line per JSON (or YAML) file,
 * "valid FILE" or "invalid FILE: POINTER: why", with the schema its
 * "schema" field names; tests/contract/validate-docs.py uses it to show
 * that python3-jsonschema and cmax's validator agree. */
#include "tap.h"
#include "core/exitcodes.h"
#include "core/policyfile.h"
#include "core/selfcheck.h"
#include "core/yamljson.h"
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

/* stderr of one doc_selfcheck, captured through a pipe */
static int check_capturing(const json_t *doc, const char *schema, char *err, size_t n)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	fflush(stderr);
	int saved = dup(2);
	dup2(p[1], 2);
	close(p[1]);
	int rc = doc_selfcheck(doc, schema, "test");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t got = read(p[0], err, n - 1);
	err[got > 0 ? got : 0] = 0;
	if (got > 0 && err[got - 1] == '\n')
		err[got - 1] = 0;
	close(p[0]);
	return rc;
}

static json_t *load(const char *text)
{
	json_error_t je;
	json_t *d = json_loads(text, 0, &je);
	if (!d)
		printf("# cannot parse a test document: %s (line %d)\n", je.text, je.line);
	return d;
}

/* The document must fail with CE_INTERNAL (exit 70) and a message naming the schema, the
 * pointer and (when given) a word of the reason. */
static void refused(const json_t *doc, const char *schema, const char *pointer, const char *why, const char *what)
{
	char err[4096], file[128];
	snprintf(file, sizeof file, "docs/schema/%s.schema.json", schema);
	int rc = check_capturing(doc, schema, err, sizeof err);
	T_INTEQ(rc, CE_INTERNAL, "%s: %s is an internal error (CE_INTERNAL)", schema, what);
	T_OK(strstr(err, "internal error") && strstr(err, file) && strstr(err, pointer) && (!why || strstr(err, why)),
	     "%s: the message names the schema, %s and '%s': %s", schema, pointer, why ? why : "", err);
}

static void accepted(const json_t *doc, const char *schema, const char *what)
{
	char err[4096];
	T_OK(doc != NULL, "%s: the %s document parses", schema, what);
	T_INTEQ(check_capturing(doc, schema, err, sizeof err), 0, "%s: a well-formed %s document passes", schema, what);
	T_OK(err[0] == 0, "%s: and says nothing (%s)", schema, err);
}

#define ENVELOPE                                                                                                    \
	"\"schema\":\"cmax.inject/1\",\"tool_version\":\"0.1.0\",\"node\":\"node1\",\"scheduler\":\"slurm\","        \
	"\"method\":\"log\",\"platform\":\"hgx\","                                                                     \
	"\"fault\":{\"kind\":\"xid\",\"code\":79,\"action\":\"reboot\",\"isolation_expected\":true},"                 \
	"\"line\":\"NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\","   \
	"\"target\":\"/tmp/kern.log\",\"plan\":[{\"kind\":\"append\",\"path\":\"/tmp/kern.log\","                      \
	"\"text\":\"append to /tmp/kern.log: ...\",\"why\":\"append the marker and the line to the log file\"}],"       \
	"\"ownership\":{\"allowed\":true,\"why\":\"--i-own-this-node given\"},\"available\":true,"                     \
	"\"poll\":{\"command\":\"scontrol show node -o node1\",\"interval_ms\":100},"

static void inject(void)
{
	/* a dry run, as cmd_inject prints it */
	json_t *dry = load("{" ENVELOPE "\"dry_run\":true}");
	accepted(dry, "inject", "dry-run");
	json_object_del(dry, "poll");
	refused(dry, "inject", "top level", "poll", "a dry run without its poll");
	json_decref(dry);

	/* a measured run: baseline, evidence, timeline, rows, verdict */
	json_t *run = load(
		"{" ENVELOPE "\"dry_run\":false,"
		"\"baseline\":{\"found\":true,\"state\":\"IDLE\",\"reason\":null},"
		"\"evidence\":[{\"kind\":\"write\",\"text\":\"append to /tmp/kern.log: ...\",\"ok\":true}],"
		"\"timeline\":{\"events\":[{\"event\":\"injected\",\"at\":\"2026-11-30T06:00:00.000Z\",\"offset_s\":0.0,"
		"\"detail\":\"line -> /tmp/kern.log\"},{\"event\":\"detected\",\"at\":\"2026-11-30T06:01:07.000Z\","
		"\"offset_s\":67.0,\"detail\":\"IDLE+DRAIN reason=xid 79\"}],"
		"\"times\":{\"detect_s\":67.0,\"drain_s\":67.0,\"drained_for_s\":null,\"return_s\":null,\"usable_s\":null,"
		"\"observed_s\":300.0},\"polls\":300,\"poll_errors\":0},"
		"\"results\":[{\"id\":\"inject.detect\",\"profile\":\"reliability\",\"title\":\"Fault detected\","
		"\"status\":\"PASS\",\"summary\":\"Xid 79 detected in 1 min 07 s\",\"observed\":\"1 min 07 s\","
		"\"expected\":\"detected within 120 s\",\"evidence\":[],\"remediation\":null,\"references\":[],"
		"\"reproduce\":null,\"host\":\"node1\"}],"
		"\"verdict\":{\"status\":\"PASS\",\"summary\":\"detected in 1 min 07 s\"},\"interrupted\":false}");
	accepted(run, "inject", "measured-run");

	/* jansson drops a non-finite number without a word: the key goes missing */
	json_t *times = json_object_get(json_object_get(run, "timeline"), "times");
	json_object_del(times, "detect_s");
	refused(run, "inject", "/timeline/times", "detect_s", "a time jansson dropped");
	json_object_set_new(times, "detect_s", json_real(67.0));

	json_t *ev1 = json_array_get(json_object_get(json_object_get(run, "timeline"), "events"), 1);
	json_object_set_new(ev1, "event", json_string("noticed"));
	refused(run, "inject", "/timeline/events/1/event", NULL, "an event outside the timeline's");
	json_object_set_new(ev1, "event", json_string("detected"));

	json_object_set_new(ev1, "offset_s", json_real(-1.0));
	refused(run, "inject", "/timeline/events/1/offset_s", NULL, "a negative offset");
	json_object_set_new(ev1, "offset_s", json_real(67.0));

	json_object_set_new(json_object_get(run, "verdict"), "status", json_string("OK"));
	refused(run, "inject", "/verdict/status", NULL, "a verdict outside the status model");
	json_object_set_new(json_object_get(run, "verdict"), "status", json_string("PASS"));

	json_object_set_new(run, "platform", json_string("dgx"));
	refused(run, "inject", "/platform", NULL, "a platform cmax does not know");
	json_object_set_new(run, "platform", json_string("hgx"));

	/* a real run always has its owner's consent */
	json_object_set_new(json_object_get(run, "ownership"), "allowed", json_false());
	refused(run, "inject", "/ownership/allowed", NULL, "a real run on a node not owned");
	json_object_set_new(json_object_get(run, "ownership"), "allowed", json_true());

	/* closed objects: a misspelt key is refused, not carried along */
	json_object_set_new(run, "tset_replay", json_object());
	refused(run, "inject", "/tset_replay", "did you mean 'test_replay'", "an unknown top-level key");
	json_object_del(run, "tset_replay");

	json_object_del(run, "verdict");
	refused(run, "inject", "top level", "verdict", "rows without a verdict");
	json_decref(run);
}

static void reboot(void)
{
	const char *row = "\"profile\":\"reliability\",\"evidence\":[],\"remediation\":null,\"references\":[],"
			  "\"reproduce\":null,\"host\":\"gpu-1\"";
	char text[4096];
	snprintf(text, sizeof text,
		 "{\"schema\":\"cmax.reboot-test/1\",\"tool_version\":\"0.1.0\",\"node\":\"gpu-1\",\"scheduler\":\"k8s\","
		 "\"boot_id_before\":\"11111111-2222-3333-4444-555555555555\","
		 "\"boot_id_after\":\"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\","
		 "\"events\":[{\"event\":\"boot_id_before\",\"offset_s\":0.01,\"epoch_s\":1796018400.01,\"detail\":\"1111\"},"
		 "{\"event\":\"back\",\"offset_s\":112.0,\"epoch_s\":1796018512.0,\"detail\":\"Ready\"}],"
		 "\"commands\":[{\"kind\":\"command\",\"command\":\"kubectl cordon gpu-1\",\"outcome\":\"exited\","
		 "\"exit_code\":0,\"duration_ms\":4,\"stdout\":\"node/gpu-1 cordoned\",\"stdout_bytes\":20}],"
		 "\"results\":[{\"id\":\"reboot.boot_id\",\"title\":\"A new boot ID\",\"status\":\"PASS\","
		 "\"summary\":\"new boot ID\",\"observed\":\"aaaa\",\"expected\":\"not 1111\",%s},"
		 "{\"id\":\"reboot.return\",\"title\":\"Back in service\",\"status\":\"PASS\",\"summary\":\"back after 112 s\","
		 "\"observed\":\"112.0 s\",\"expected\":\"within 300 s\",%s}],"
		 "\"interrupted\":false,\"cleanup\":null,\"verdict\":{\"status\":\"PASS\",\"summary\":\"back after 112 s\"}}",
		 row, row);
	json_t *doc = load(text);
	accepted(doc, "reboot-test", "k8s");

	json_t *ev = json_array_get(json_object_get(doc, "events"), 1);
	json_object_set_new(ev, "event", json_string("rebooted"));
	refused(doc, "reboot-test", "/events/1/event", NULL, "an event reboot-test never marks");
	json_object_set_new(ev, "event", json_string("back"));

	json_t *cmd = json_array_get(json_object_get(doc, "commands"), 0);
	json_object_del(cmd, "exit_code");
	refused(doc, "reboot-test", "/commands/0", "exit_code", "a command that exited without its exit code");
	json_object_set_new(cmd, "exit_code", json_integer(0));

	json_object_set_new(json_array_get(json_object_get(doc, "results"), 1), "id", json_string("reboot.boot_id"));
	refused(doc, "reboot-test", "/results/1/id", NULL, "the rows out of place");
	json_object_set_new(json_array_get(json_object_get(doc, "results"), 1), "id", json_string("reboot.return"));

	json_t *second = json_incref(json_array_get(json_object_get(doc, "results"), 1));
	json_array_remove(json_object_get(doc, "results"), 1);
	refused(doc, "reboot-test", "/results", NULL, "one row instead of two");
	json_array_append_new(json_object_get(doc, "results"), second);

	json_object_set_new(doc, "cleanup", json_integer(1));
	refused(doc, "reboot-test", "/cleanup", NULL, "a clean-up that is not words");
	json_decref(doc);
}

static void values(void)
{
	json_t *doc = load(
		"{\"schema\":\"cmax.audit.values/1\",\"tool_version\":\"0.1.0\",\"started_at\":\"2026-12-01T10:00:00Z\","
		"\"host\":\"h100-node\",\"sysroot\":\"/\",\"facts\":{"
		"\"os\":{\"state\":\"ok\",\"reason\":null,\"duration_ms\":1,\"facts\":{\"hostname\":\"h100-node\"},"
		"\"evidence\":[{\"kind\":\"file\",\"path\":\"/etc/os-release\",\"excerpt\":\"ID=ubuntu\"}]},"
		"\"nvidia\":{\"state\":\"absent\",\"reason\":\"nvidia-smi not found\",\"duration_ms\":0,\"facts\":{},"
		"\"evidence\":[{\"kind\":\"command\",\"command\":\"nvidia-smi -q -x\",\"outcome\":\"not_found\"},"
		"{\"kind\":\"file\",\"path\":\"/proc/driver/nvidia/version\",\"excerpt\":null,\"readable\":false},"
		"{\"kind\":\"note\",\"text\":\"no driver\"}]}}}");
	accepted(doc, "audit-values", "host");

	json_t *nv = json_object_get(json_object_get(doc, "facts"), "nvidia");
	json_object_set_new(nv, "state", json_string("missing"));
	refused(doc, "audit-values", "/facts/nvidia/state", NULL, "a collector state outside ok/absent/denied/failed");
	json_object_set_new(nv, "state", json_string("failed"));

	json_object_set_new(nv, "reason", json_null());
	refused(doc, "audit-values", "/facts/nvidia/reason", NULL, "a failed collector without a reason");
	json_object_set_new(nv, "reason", json_string("nvidia-smi timed out"));

	json_t *ev = json_array_get(json_object_get(nv, "evidence"), 0);
	json_object_set_new(ev, "kind", json_string("blob"));
	refused(doc, "audit-values", "/facts/nvidia/evidence/0/kind", NULL, "evidence of an unknown kind");
	json_object_set_new(ev, "kind", json_string("command"));

	json_object_set_new(nv, "facts", json_array());
	refused(doc, "audit-values", "/facts/nvidia/facts", NULL, "facts that are not an object");
	json_object_set_new(nv, "facts", json_object());

	/* a fleet audit: the nodes' facts (without evidence), the cluster's name */
	json_t *nodes = load("{\"node1\":{\"os\":{\"state\":\"ok\",\"reason\":null,\"duration_ms\":2,\"facts\":{}}},"
			     "\"node2\":null}");
	json_object_set_new(doc, "nodes", nodes);
	refused(doc, "audit-values", "top level", "cluster", "nodes without the cluster");
	json_object_set_new(doc, "cluster", json_string("cluster"));
	json_object_set_new(doc, "fleet_error", json_null());
	accepted(doc, "audit-values", "fleet");
	json_object_set_new(json_object_get(json_object_get(nodes, "node1"), "os"), "state", json_string("up"));
	refused(doc, "audit-values", "/nodes/node1/os/state", NULL, "a node collector's state outside the model");
	json_object_set_new(json_object_get(json_object_get(nodes, "node1"), "os"), "state", json_string("ok"));

	json_object_del(doc, "facts");
	refused(doc, "audit-values", "top level", "facts", "a document without facts");
	json_decref(doc);
}

static void plan(void)
{
	json_t *doc = load(
		"{\"schema\":\"cmax.audit.plan/1\",\"tool_version\":\"0.1.0\",\"profile\":\"full\",\"dry_run\":true,"
		"\"target\":{\"selection\":\"explicit\",\"environment\":\"bare-metal\",\"harness\":\"standalone\","
		"\"detection\":\"--local\",\"sysroot\":\"/\"},\"active\":false,\"timeout_s\":600,"
		"\"checks\":[{\"id\":\"versions.driver\",\"profile\":\"versions\",\"title\":\"NVIDIA driver\","
		"\"applies\":true,\"requires\":\"nvidia, kernel\",\"changes_state\":false,\"needs_root\":false,"
		"\"remediation\":null,\"reproduce\":\"nvidia-smi\"}],"
		"\"collectors\":[{\"name\":\"nvidia\",\"reads\":\"nvidia-smi\"},{\"name\":\"kernel\",\"reads\":\"uname\"}],"
		"\"state_changing_probes\":[],\"active_probes_in_this_version\":0,"
		"\"active_note\":\"no active probe exists in this version\","
		"\"artifacts\":[\"audit.out\",\"audit.values.json\",\"audit.results.json\"],"
		"\"output_dir\":\"/root/.cmax/audit\",\"writes_outside_output_dir\":false,"
		"\"privileged_reads\":{\"policy\":\"auto\",\"would_use_sudo\":\"if sudo -n true succeeds (auto)\","
		"\"commands\":[{\"command\":\"sudo -n lspci -xxxx -s <bdf>\",\"collector\":\"pci\","
		"\"reads\":\"ACS\",\"changes_state\":false}]}}");
	accepted(doc, "audit-plan", "dry-run");

	json_t *pc = json_array_get(json_object_get(json_object_get(doc, "privileged_reads"), "commands"), 0);
	json_object_set_new(pc, "changes_state", json_true());
	refused(doc, "audit-plan", "/privileged_reads/commands/0/changes_state", NULL, "a privileged read that writes");
	json_object_set_new(pc, "changes_state", json_false());
	json_object_set_new(pc, "command", json_string("lspci -xxxx"));
	refused(doc, "audit-plan", "/privileged_reads/commands/0/command", NULL, "a privileged read not through sudo -n");
	json_object_set_new(pc, "command", json_string("sudo -n lspci -xxxx -s <bdf>"));

	json_object_set_new(doc, "writes_outside_output_dir", json_true());
	refused(doc, "audit-plan", "/writes_outside_output_dir", NULL, "a plan that writes elsewhere");
	json_object_set_new(doc, "writes_outside_output_dir", json_false());

	json_t *c = json_array_get(json_object_get(doc, "checks"), 0);
	json_object_del(c, "applies");
	refused(doc, "audit-plan", "/checks/0", "applies", "a check without applies");
	json_object_set_new(c, "applies", json_true());

	json_object_set_new(json_object_get(doc, "target"), "harness", json_string("pbs"));
	refused(doc, "audit-plan", "/target/harness", NULL, "a harness cmax does not have");
	json_object_set_new(json_object_get(doc, "target"), "harness", json_string("standalone"));

	json_object_set_new(doc, "timeout_s", json_string("600"));
	refused(doc, "audit-plan", "/timeout_s", NULL, "a timeout written as a string");
	json_decref(doc);
}

static int check_files(int argc, char **argv)
{
	static const struct {
		const char *tag, *schema;
	} tags[] = {
		{ "cmax.inject/1", "inject" }, { "cmax.reboot-test/1", "reboot-test" },
		{ "cmax.audit.values/1", "audit-values" }, { "cmax.audit.plan/1", "audit-plan" },
	};
	for (int i = 0; i < argc; i++) {
		char *lerr = NULL;
		json_t *d = yamljson_load_file(argv[i], &lerr);
		const char *tag = json_string_value(json_object_get(d, "schema")), *schema = NULL;
		for (size_t k = 0; tag && k < sizeof tags / sizeof tags[0]; k++)
			if (!strcmp(tag, tags[k].tag))
				schema = tags[k].schema;
		char *err = NULL;
		if (!d)
			printf("invalid %s: does not parse: %s\n", argv[i], lerr ? lerr : "?");
		else if (!schema)
			printf("invalid %s: no schema tag this checks\n", argv[i]);
		else if (policy_validate(d, schema, "", &err) == 0)
			printf("valid %s\n", argv[i]);
		else
			printf("invalid %s%s\n", argv[i], err ? err : ": ?");
		free(err);
		free(lerr);
		json_decref(d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--check"))
		return check_files(argc - 2, argv + 2);
	inject();
	reboot();
	values();
	plan();
	return t_done();
}
