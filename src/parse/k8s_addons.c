#include "parse/k8s_addons.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include "core/yamljson.h"
#include "parse/k8s.h"
#include <stdlib.h>
#include <string.h>

static json_t *count_or_null(const json_t *st, const char *key)
{
	const json_t *v = json_object_get(st, key);
	return json_is_integer(v) ? json_integer(json_integer_value(v)) : json_null();
}

json_t *k8s_workload_facts(const json_t *obj)
{
	json_t *o = json_object(), *md = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
	json_t *st = json_object_get(obj, "status");
	json_object_set_new(o, "kind", k8s_jstr(jget_str(obj, "kind")));
	json_object_set_new(o, "namespace", k8s_jstr(jget_str(md, "namespace")));
	json_object_set_new(o, "name", k8s_jstr(jget_str(md, "name")));
	json_t *images = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(json_object_get(json_object_get(spec, "template"), "spec"), "containers"), i, c)
		if (jget_str(c, "image"))
			json_array_append_new(images, k8s_jstr(jget_str(c, "image")));
	json_object_set_new(o, "images", images);
	/* spec.replicas defaults to 1; a scaled-to-zero controller says 0 */
	const json_t *want = json_object_get(spec, "replicas");
	json_object_set_new(o, "replicas", json_is_integer(want) ? json_integer(json_integer_value(want)) : json_integer(1));
	json_t *ready = count_or_null(st, "readyReplicas");
	if (json_is_null(ready) && json_is_object(st)) { /* kubectl omits a zero readyReplicas */
		json_decref(ready);
		ready = json_integer(0);
	}
	json_object_set_new(o, "ready", ready);
	return o;
}

json_t *k8s_lb_service_facts(const json_t *svc)
{
	json_t *spec = json_object_get(svc, "spec");
	const char *type = jget_str(spec, "type");
	if (!type || strcmp(type, "LoadBalancer"))
		return NULL;
	json_t *o = json_object(), *md = json_object_get(svc, "metadata"), *ing = json_array();
	json_object_set_new(o, "namespace", k8s_jstr(jget_str(md, "namespace")));
	json_object_set_new(o, "name", k8s_jstr(jget_str(md, "name")));
	json_object_set_new(o, "class", k8s_jstr(jget_str(spec, "loadBalancerClass")));
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(json_object_get(svc, "status"), "loadBalancer"), "ingress"), i, e) {
		const char *a = jget_str(e, "ip") ? jget_str(e, "ip") : jget_str(e, "hostname");
		if (a && *a)
			json_array_append_new(ing, k8s_jstr(a));
	}
	json_object_set_new(o, "ingress", ing);
	return o;
}

json_t *k8s_ingressclass_facts(const json_t *ic)
{
	json_t *o = json_object(), *md = json_object_get(ic, "metadata");
	const char *d = jget_str(json_object_get(md, "annotations"), "ingressclass.kubernetes.io/is-default-class");
	json_object_set_new(o, "name", k8s_jstr(jget_str(md, "name")));
	json_object_set_new(o, "controller", k8s_jstr(jget_str(json_object_get(ic, "spec"), "controller")));
	json_object_set_new(o, "default", json_boolean(d && !strcmp(d, "true")));
	return o;
}

/* Does a list of {name: ...} objects (scoring resources) name nvidia.com/gpu? */
static int names_gpu(const json_t *arr)
{
	size_t i;
	json_t *r;
	json_array_foreach(arr, i, r)
		if (jget_str(r, "name") && !strcmp(jget_str(r, "name"), "nvidia.com/gpu"))
			return 1;
	return 0;
}

static json_t *kube_scheduler_config(const json_t *doc)
{
	json_t *c = json_object(), *profiles = json_array();
	json_object_set_new(c, "type", json_string("kube-scheduler"));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(doc, "profiles"), i, p) {
		const char *scoring = "LeastAllocated"; /* NodeResourcesFit's default strategy */
		int gpu = 0;
		size_t j;
		json_t *pc;
		json_array_foreach(json_object_get(p, "pluginConfig"), j, pc) {
			if (!jget_str(pc, "name") || strcmp(jget_str(pc, "name"), "NodeResourcesFit"))
				continue;
			json_t *ss = json_object_get(json_object_get(pc, "args"), "scoringStrategy");
			if (jget_str(ss, "type"))
				scoring = jget_str(ss, "type");
			gpu = names_gpu(json_object_get(ss, "resources"));
		}
		json_t *e = json_object();
		json_object_set_new(e, "scheduler", k8s_jstr(jget_str_or(p, "schedulerName", "default-scheduler")));
		json_object_set_new(e, "scoring", k8s_jstr(scoring));
		json_object_set_new(e, "gpu_weighted", json_boolean(gpu));
		json_array_append_new(profiles, e);
	}
	json_object_set_new(c, "profiles", profiles);
	return c;
}

/* volcano-scheduler.conf: actions and tiers of plugins; binpack counts for
 * GPUs when its binpack.resources argument names nvidia.com/gpu. */
static json_t *volcano_config(const json_t *doc)
{
	json_t *c = json_object(), *plugins = json_array();
	int gang = 0, binpack_gpu = 0;
	size_t i, j;
	json_t *t, *p;
	json_array_foreach(json_object_get(doc, "tiers"), i, t) {
		json_array_foreach(json_object_get(t, "plugins"), j, p) {
			const char *n = jget_str(p, "name");
			if (!n)
				continue;
			json_array_append_new(plugins, k8s_jstr(n));
			gang |= !strcmp(n, "gang");
			const char *res = jget_str(json_object_get(p, "arguments"), "binpack.resources");
			if (!strcmp(n, "binpack") && res && strstr(res, "nvidia.com/gpu"))
				binpack_gpu = 1;
		}
	}
	json_object_set_new(c, "type", json_string("volcano"));
	json_object_set_new(c, "plugins", plugins);
	json_object_set_new(c, "gang", json_boolean(gang));
	json_object_set_new(c, "binpack_gpu", json_boolean(binpack_gpu));
	return c;
}

/* One ConfigMap value as a scheduler configuration, or NULL. The cheap
 * substring tests keep YAML parsing to the few values that can match. */
static json_t *sched_config_of(const char *key, const char *text)
{
	int kube = strstr(text, "KubeSchedulerConfiguration") != NULL;
	int kueue = strstr(text, "config.kueue.x-k8s.io") != NULL;
	int volcano = !strcmp(key, "volcano-scheduler.conf") || (strstr(text, "tiers:") && strstr(text, "actions:"));
	if (!kube && !kueue && !volcano)
		return NULL;
	char *err = NULL;
	json_t *doc = yamljson_loadb(text, strlen(text), &err), *c = NULL;
	free(err);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return NULL;
	}
	const char *kind = jget_str(doc, "kind");
	if (kube && kind && !strcmp(kind, "KubeSchedulerConfiguration")) {
		c = kube_scheduler_config(doc);
	} else if (kueue && kind && !strcmp(kind, "Configuration")) {
		c = json_object();
		json_object_set_new(c, "type", json_string("kueue"));
		json_object_set_new(c, "wait_for_pods_ready",
				    json_boolean(json_is_true(json_object_get(json_object_get(doc, "waitForPodsReady"), "enable"))));
	} else if (volcano && json_is_array(json_object_get(doc, "tiers"))) {
		c = volcano_config(doc);
	}
	json_decref(doc);
	return c;
}

json_t *k8s_sched_config_facts(const json_t *cm)
{
	json_t *configs = json_array();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)json_object_get(cm, "data"), key, v) {
		json_t *c = json_is_string(v) ? sched_config_of(key, json_string_value(v)) : NULL;
		if (c)
			json_array_append_new(configs, c);
	}
	if (!json_array_size(configs)) {
		json_decref(configs);
		return NULL;
	}
	json_t *o = json_object(), *md = json_object_get(cm, "metadata");
	json_object_set_new(o, "namespace", k8s_jstr(jget_str(md, "namespace")));
	json_object_set_new(o, "name", k8s_jstr(jget_str(md, "name")));
	json_object_set_new(o, "configs", configs);
	return o;
}

/* "[a b c]" at *p into arr (words), *p moved past the closing bracket;
 * -1 when there is no bracket group. */
static int bracket_words(const char **p, const char *end, json_t *arr)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || *s != '[')
		return -1;
	const char *close = memchr(s, ']', (size_t)(end - s));
	if (!close)
		return -1;
	char *inner = xstrndup(s + 1, (size_t)(close - s - 1));
	char *save = NULL;
	for (char *w = strtok_r(inner, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		json_array_append_new(arr, k8s_jstr(w));
	free(inner);
	*p = close + 1;
	return 0;
}

json_t *k8s_cani_list_parse(const char *text, size_t len)
{
	json_t *rows = json_array();
	const char *p = text, *end = text ? text + len : NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *br = memchr(p, '[', (size_t)(le - p));
		if (br) {
			char *res = xstrndup(p, (size_t)(br - p));
			char *r = str_trim(res);
			json_t *urls = json_array(), *names = json_array(), *verbs = json_array();
			const char *q = br;
			if (*r && !strchr(r, ' ') && bracket_words(&q, le, urls) == 0 && bracket_words(&q, le, names) == 0 &&
			    bracket_words(&q, le, verbs) == 0) {
				json_t *row = json_object();
				json_object_set_new(row, "resource", k8s_jstr(r));
				json_object_set_new(row, "names", names);
				json_object_set_new(row, "verbs", verbs);
				json_array_append_new(rows, row);
				names = verbs = NULL;
			}
			json_decref(urls);
			json_decref(names);
			json_decref(verbs);
			free(res);
		}
		p = nl ? nl + 1 : end;
	}
	return rows;
}

int k8s_cani_grants(const json_t *rows, const char *resource, const char *group, const char *verb)
{
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *r = jget_str(row, "resource");
		if (!r || json_array_size(json_object_get(row, "names")) ||
		    !k8s_list_has(json_object_get(row, "verbs"), verb, "*"))
			continue;
		/* kubectl prints resource.group, the core group as a bare resource */
		const char *dot = strchr(r, '.');
		size_t rl = dot ? (size_t)(dot - r) : strlen(r);
		const char *g = dot ? dot + 1 : "";
		int res_ok = (rl == 1 && r[0] == '*') || (rl == strlen(resource) && !strncmp(r, resource, rl));
		int grp_ok = !strcmp(g, "*") || !strcmp(g, group);
		if (res_ok && grp_ok)
			return 1;
	}
	return 0;
}
