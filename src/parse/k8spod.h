/* Pure helpers for the Kubernetes fan-out (src/fleet/k8s_fanout.c): how far
 * one collector pod of `kubectl get pods -o json` has come, and the
 * tolerations that let a pod onto a node with these taints. Inputs may be
 * hostile or truncated; the answer is then "waiting" with a reason, never a
 * crash. */
#ifndef CMAX_PARSE_K8SPOD_H
#define CMAX_PARSE_K8SPOD_H
#include <jansson.h>

enum k8s_pod_verdict {
	POD_WAITING,    /* Pending or Running: give it time */
	POD_SUCCEEDED,  /* phase Succeeded: its logs hold the document */
	POD_FAILED,     /* phase Failed: terminal */
	POD_STUCK,      /* will not start by itself (image pull, bad config): stop waiting */
};

/* {name, node, phase, verdict ("waiting"|"succeeded"|"failed"|"stuck"),
 * reason (one line or null)} of one Pod object; *v gets the verdict. */
json_t *k8s_pod_progress(const json_t *pod, enum k8s_pod_verdict *v);

/* Tolerations ([{key, operator, value?, effect?}]) that tolerate exactly
 * the given taints ([{key, value, effect}] as k8s_node_facts keeps them). */
json_t *k8s_tolerations_for(const json_t *taints);
#endif
