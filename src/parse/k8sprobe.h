/* Pure readers for the --active Kubernetes probes (src/collect/k8s_probe.c):
 * the PersistentVolumeClaims of a `kubectl get -o json` List, the events
 * about one object of an Event List, and the marker line a probe pod prints
 * in its log. Inputs may be hostile or truncated: the answer is then
 * "unknown" (NULL, an empty array), never a crash. Every string kept is one
 * sanitized line of at most 300 bytes. */
#ifndef CMAX_PARSE_K8SPROBE_H
#define CMAX_PARSE_K8SPROBE_H
#include <jansson.h>
#include <stddef.h>

/* The PersistentVolumeClaim named name among items: {phase, volume,
 * storageclass} (each string or null), or NULL when it is not there. */
json_t *k8sprobe_pvc(const json_t *items, const char *name);

/* The Events (core/v1 Event objects) among items whose involvedObject has
 * this kind and name, in list order, at most max: [{type, reason, message,
 * count}]. New array, never NULL. */
json_t *k8sprobe_events(const json_t *items, const char *kind, const char *name, size_t max);

/* Does one of these events (k8sprobe_events) have this reason? */
int k8sprobe_has_reason(const json_t *events, const char *reason);

/* The rest of the first log line that starts with prefix ("CMAX-PVC-OK
 * cmax-1a2b" with prefix "CMAX-PVC-" gives "OK cmax-1a2b"), or NULL when
 * none does. Malloc'd, sanitized, at most 300 bytes. */
char *k8sprobe_marker(const char *log, size_t len, const char *prefix);
#endif
