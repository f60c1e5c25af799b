/* Reading a collector pod's progress and building its tolerations. */
#include "parse/k8spod.h"
#include "core/jsonget.h"
#include "core/strbuf.h"
#include <stdlib.h>
#include <string.h>

/* Container waiting reasons kubelet keeps retrying without hope: an image
 * that cannot be pulled, a spec it cannot run. Waiting longer only spends
 * the operator's time. */
static const char *const stuck_reasons[] = {
	"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError",
	"CreateContainerError", "RunContainerError", "CrashLoopBackOff", NULL,
};

static int is_stuck(const char *reason)
{
	for (int i = 0; reason && stuck_reasons[i]; i++)
		if (!strcmp(reason, stuck_reasons[i]))
			return 1;
	return 0;
}

/* "what: message", cut to one sanitized line of at most 300 bytes. */
static char *line_of(const char *what, const char *msg)
{
	char *s = msg && *msg ? xasprintf("%s: %s", what, msg) : xstrdup(what);
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	size_t n = strlen(s);
	char *clean = str_sanitize(s, n > 300 ? 300 : n);
	free(s);
	return clean;
}

/* The first container's state, the part of a pod status that says why. */
static char *container_reason(const json_t *status, int *stuck)
{
	json_t *cs = json_array_get(json_object_get(status, "containerStatuses"), 0);
	json_t *state = json_object_get(cs, "state");
	json_t *w = json_object_get(state, "waiting");
	json_t *t = json_object_get(state, "terminated");
	if (json_is_object(w) && jget_str(w, "reason")) {
		*stuck = is_stuck(jget_str(w, "reason"));
		return line_of(jget_str(w, "reason"), jget_str(w, "message"));
	}
	if (json_is_object(t)) {
		json_t *ec = json_object_get(t, "exitCode");
		char *what = xasprintf("%s (exit %lld)", jget_str(t, "reason") ? jget_str(t, "reason") : "terminated",
				       json_is_integer(ec) ? (long long)json_integer_value(ec) : -1LL);
		char *s = line_of(what, jget_str(t, "message"));
		free(what);
		return s;
	}
	return NULL;
}

/* A condition that is False says why a pod without containers waits
 * (PodScheduled False: Unschedulable, ...). */
static char *condition_reason(const json_t *status)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(status, "conditions"), i, c) {
		if (!jget_str(c, "type") || !jget_str(c, "status") || strcmp(jget_str(c, "status"), "False") != 0)
			continue;
		char *what = xasprintf("%s False%s%s", jget_str(c, "type"), jget_str(c, "reason") ? " " : "",
				       jget_str(c, "reason") ? jget_str(c, "reason") : "");
		char *s = line_of(what, jget_str(c, "message"));
		free(what);
		return s;
	}
	return NULL;
}

json_t *k8s_pod_progress(const json_t *pod, enum k8s_pod_verdict *v)
{
	json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
	json_t *status = json_object_get(pod, "status");
	const char *phase = jget_str(status, "phase");
	enum k8s_pod_verdict verdict = POD_WAITING;
	int stuck = 0;
	char *reason = container_reason(status, &stuck);
	if (phase && !strcmp(phase, "Succeeded")) {
		verdict = POD_SUCCEEDED;
	} else if (phase && !strcmp(phase, "Failed")) {
		verdict = POD_FAILED;
		if (jget_str(status, "reason")) {
			/* the pod's own reason (DeadlineExceeded, Evicted) says more */
			free(reason);
			reason = line_of(jget_str(status, "reason"), jget_str(status, "message"));
		}
	} else if (stuck) {
		verdict = POD_STUCK;
	}
	if (!reason && verdict != POD_SUCCEEDED)
		reason = condition_reason(status);
	json_t *o = json_object();
	json_object_set_new(o, "name", jget_str(meta, "name") ? json_string(jget_str(meta, "name")) : json_null());
	json_object_set_new(o, "node", jget_str(spec, "nodeName") ? json_string(jget_str(spec, "nodeName")) : json_null());
	json_object_set_new(o, "phase", phase ? json_string(phase) : json_null());
	static const char *const names[] = { "waiting", "succeeded", "failed", "stuck" };
	json_object_set_new(o, "verdict", json_string(names[verdict]));
	json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
	free(reason);
	if (v)
		*v = verdict;
	return o;
}

json_t *k8s_tolerations_for(const json_t *taints)
{
	json_t *a = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(taints, i, t) {
		const char *key = jget_str(t, "key"), *value = jget_str(t, "value"), *effect = jget_str(t, "effect");
		if (!key || !*key)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "key", json_string(key));
		if (value && *value) {
			json_object_set_new(o, "operator", json_string("Equal"));
			json_object_set_new(o, "value", json_string(value));
		} else {
			json_object_set_new(o, "operator", json_string("Exists"));
		}
		if (effect && *effect)
			json_object_set_new(o, "effect", json_string(effect));
		json_array_append_new(a, o);
	}
	return a;
}
