/* The one network read of the audit's fabric collector: when the site names
 * its Prometheus in PROMETHEUS_URL, one GET of /api/v1/query?query=up
 * without credentials tells whether any tenant can read every node's
 * metrics. Nothing is sent but that GET: no userinfo, no cookies, no
 * redirect followed, 3 s to connect and 5 s in all. */
#ifndef CMAX_PROM_PROBE_H
#define CMAX_PROM_PROBE_H
#include <jansson.h>
#include "engine/collector.h"

/* Sets f.prometheus: {url (redacted) | null, probe: "not_configured" |
 * "not_http" | "answered" | "denied" | "http_error" | "unreachable" |
 * "not_api", http_status, series, instances, jobs, message}. */
void prom_probe(struct col_run *c, json_t *f);
#endif
