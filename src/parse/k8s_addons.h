/* The cluster add-ons a GPU tenant relies on, as `kubectl` prints them:
 * controller Deployments, LoadBalancer Services, IngressClasses, scheduler
 * configurations carried in ConfigMaps (kube-scheduler, Volcano, Kueue) and
 * the `kubectl auth can-i --list` table. Pure helpers like parse/k8s.h:
 * hostile input yields NULL or an empty result, never a crash, and the
 * facts keep named fields only (no ConfigMap data, no env values). */
#ifndef CMAX_PARSE_K8S_ADDONS_H
#define CMAX_PARSE_K8S_ADDONS_H
#include <stddef.h>
#include <jansson.h>

/* One Deployment or StatefulSet: {kind, namespace, name, images[],
 * replicas, ready} (counts null when the status has none). */
json_t *k8s_workload_facts(const json_t *obj);
/* One Service of type LoadBalancer: {namespace, name, class, ingress[]}
 * (the addresses or host names of status.loadBalancer.ingress); NULL for
 * any other Service. */
json_t *k8s_lb_service_facts(const json_t *svc);
/* One IngressClass: {name, controller, default (bool)}. */
json_t *k8s_ingressclass_facts(const json_t *ic);

/* The scheduler settings a ConfigMap carries, or NULL when it carries none:
 * {namespace, name, configs: [...]}, each config one of
 *   {type "kube-scheduler", profiles: [{scheduler, scoring, gpu_weighted}]}
 *     scoring is NodeResourcesFit's scoringStrategy.type (LeastAllocated when
 *     unset, the default); gpu_weighted when its resources name nvidia.com/gpu
 *   {type "volcano", plugins: [names], gang (bool), binpack_gpu (bool)}
 *   {type "kueue", wait_for_pods_ready (bool)}. */
json_t *k8s_sched_config_facts(const json_t *cm);

/* The rows of `kubectl auth can-i --list` (with or without headers) that
 * name resources: [{resource, names[], verbs[]}]; non-resource URL rows are
 * left out. New array, never NULL. */
json_t *k8s_cani_list_parse(const char *text, size_t len);
/* Does one of those rows allow verb on resource in API group (""
 * for the core group), for any object name? */
int k8s_cani_grants(const json_t *rows, const char *resource, const char *group, const char *verb);
#endif
