/* The fleet audit around the fan-out: the node side (`cmax node-collect`)
 * and the merge on the login node (node documents -> report rows, values,
 * the fleet summary and the text report grouped by host). */
#ifndef CMAX_FLEET_H
#define CMAX_FLEET_H
#include <stdio.h>
#include <jansson.h>
#include "core/result.h"
#include "report/report.h"
#include "fleet/fanout.h"

/* Hidden command: host-scope checks on this node, one cmax.node/1 document
 * on stdout in the wire format (src/parse/nodewire.h). Writes no file. */
int cmd_node_collect(int argc, char **argv);

/* Report rows of the fleet (ctx->fleet form): every answered node's rows
 * with host = node name, and for a node that did not answer one ERROR row
 * (orchestration.fleet-coverage, host = that node) saying why. Appended to
 * *rows (grown; *n updated); the caller frees them with result_free. */
void fleet_node_rows(const json_t *fleet, struct result ***rows, size_t *n);

/* [{host, answered, error, counts}] for the report and the text summary. */
json_t *fleet_summary_json(const json_t *fleet);
/* {node: {collector: {state, reason, facts}}} for audit.values.json. */
json_t *fleet_values_json(const json_t *fleet);
/* Every node the fleet expected, answered or not. */
json_t *fleet_hosts_json(const json_t *fleet);

/* Text report of a fleet run: the summary table, then the rows grouped by
 * host (cluster rows first) and profile, then what needs attention. */
void fleet_report_text(FILE *out, const struct report_meta *m, const json_t *fleet, struct result *const *rows,
		       size_t n, int verbose, int color);
#endif
