/* The jobs a GPU fault affected: what ran on the node when a pass decided
 * to take it out (or, report-only, found the event that would).  Read-only,
 * through the one runner: Slurm's `squeue -h -w NODE -t RUNNING -o
 * '%i|%u|%j'`, Kubernetes' running pods on the node.  A listing that
 * failed is recorded as unknown with its one-line reason, never as zero
 * jobs: "no job was hit" is a claim only a listing that worked can make. */
#include "health/health.h"
#include "core/runner.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kubectl's pod list is the whole pod objects (5 to 20 KiB each); a node
 * runs at most a few hundred pods (kubelet's max-pods is 110 by default),
 * so 16 MiB holds the largest node with room.  Past it the listing is
 * unknown, never a partial count.  squeue's rows are the runner's 1 MiB
 * default (over 10000 jobs on one node). */
#define HJOBS_K8S_CAP (16u << 20)

static json_t *job(const char *id, size_t idn, const char *user, size_t un, const char *name, size_t nn)
{
	char *i = str_sanitize(id, idn), *u = str_sanitize(user, un), *n = str_sanitize(name, nn);
	json_t *j = json_pack("{s:s,s:s,s:s}", "id", i, "user", u, "name", n);
	free(i);
	free(u);
	free(n);
	return j;
}

/* A job name may hold '|' (it is the user's text): it is the last field,
 * so the first two '|' split the row and the rest is the name. */
json_t *hjobs_parse_squeue(const char *buf, size_t len, char **err)
{
	json_t *jobs = json_array();
	size_t lineno = 0;
	*err = NULL;
	for (size_t at = 0; at < len;) {
		const char *l = buf + at, *nl = memchr(l, '\n', len - at);
		size_t n = nl ? (size_t)(nl - l) : len - at;
		at += n + (nl ? 1 : 0);
		lineno++;
		if (n && l[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		const char *p1 = memchr(l, '|', n);
		const char *p2 = p1 ? memchr(p1 + 1, '|', n - (size_t)(p1 + 1 - l)) : NULL;
		if (!p2 || p1 == l || p2 == p1 + 1) {
			*err = xasprintf("squeue: line %zu is not JOBID|USER|NAME", lineno);
			json_decref(jobs);
			return NULL;
		}
		json_array_append_new(jobs, job(l, (size_t)(p1 - l), p1 + 1, (size_t)(p2 - p1 - 1), p2 + 1,
						n - (size_t)(p2 + 1 - l)));
	}
	return jobs;
}

/* `kubectl get pods -o json`: a List whose items carry metadata.namespace
 * and .name.  A pod has no user; its namespace (the tenant) stands in. */
json_t *hjobs_parse_pods(const char *buf, size_t len, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je), *items, *it;
	size_t i;
	*err = NULL;
	items = json_object_get(doc, "items");
	if (!json_is_array(items)) {
		*err = xstrdup("kubectl get pods: not a JSON list with items");
		json_decref(doc);
		return NULL;
	}
	json_t *jobs = json_array();
	json_array_foreach(items, i, it) {
		json_t *md = json_object_get(it, "metadata");
		const char *ns = json_string_value(json_object_get(md, "namespace"));
		const char *nm = json_string_value(json_object_get(md, "name"));
		if (!ns || !nm || !*ns || !*nm) {
			*err = xasprintf("kubectl get pods: item %zu has no metadata.namespace and .name", i);
			json_decref(jobs);
			json_decref(doc);
			return NULL;
		}
		char *id = xasprintf("%s/%s", ns, nm);
		json_array_append_new(jobs, job(id, strlen(id), ns, strlen(ns), nm, strlen(nm)));
		free(id);
	}
	json_decref(doc);
	return jobs;
}

/* The command, how it ended, the last line of its stderr. */
static char *fail_line(const struct cmd_result *res)
{
	char *d = cmd_describe(res);
	char *e = res->err_len ? str_sanitize(res->err, res->err_len) : NULL, *t = e ? str_trim(e) : NULL, *nl;
	if (t && (nl = strrchr(t, '\n')))
		t = nl + 1;
	char *s = xasprintf("%s: %s%s%.200s", res->cmdline ? res->cmdline : "?", d, t && *t ? ": " : "",
			    t ? t : "");
	free(d);
	free(e);
	return s;
}

json_t *hjobs_list(const struct sched_opts *o, const char *now_iso)
{
	char *sel = xasprintf("spec.nodeName=%s,status.phase=Running", o->node);
	const char *sq[] = { "squeue", "-h", "-w", o->node, "-t", "RUNNING", "-o", "%i|%u|%j", NULL };
	const char *kc[] = { "kubectl", "get", "pods", "-A", "--field-selector", sel, "-o", "json", NULL };
	struct run_opts ro = { .timeout_ms = o->timeout_ms, .cap_out = o->k8s ? HJOBS_K8S_CAP : 0 };
	struct cmd_result res;
	json_t *rec = json_pack("{s:s,s:s}", "at", now_iso, "source", o->k8s ? "kubectl" : "squeue");
	json_t *jobs = NULL;
	char *err = NULL;

	runner_run(o->k8s ? kc : sq, &ro, &res);
	if (!cmd_ok(&res))
		err = fail_line(&res);
	else if (res.out_truncated)
		err = xasprintf("%s: more than %zu bytes of output", res.cmdline ? res.cmdline : "?",
				o->k8s ? (size_t)HJOBS_K8S_CAP : (size_t)(1u << 20));
	else
		jobs = o->k8s ? hjobs_parse_pods(res.out, res.out_len, &err)
			      : hjobs_parse_squeue(res.out, res.out_len, &err);
	cmd_result_free(&res);
	free(sel);
	if (!jobs) {
		json_object_set_new(rec, "count", json_null());
		json_object_set_new(rec, "error", json_string(err ? err : "?"));
		free(err);
		return rec;
	}
	size_t n = json_array_size(jobs);
	while (json_array_size(jobs) > HJOBS_MAX)
		json_array_remove(jobs, json_array_size(jobs) - 1);
	json_object_set_new(rec, "count", json_integer((json_int_t)n));
	json_object_set_new(rec, "jobs", jobs);
	json_object_set_new(rec, "truncated", json_boolean(n > HJOBS_MAX));
	return rec;
}
