/* The wire format of a fleet audit: how one node's cmax.node/1 document
 * travels back through a launcher (srun, kubectl logs) that forwards output
 * line by line and may interleave the lines of several nodes. The compact
 * JSON is cut into numbered lines
 *
 *   CMAXNODE <node> <seq>/<total> <chunk>
 *
 * short enough that no launcher splits them, and reassembled per node with
 * a completeness check. Anything else on the stream is ignored. */
#ifndef CMAX_PARSE_NODEWIRE_H
#define CMAX_PARSE_NODEWIRE_H
#include <stddef.h>
#include <jansson.h>

#define NODEWIRE_TAG "CMAXNODE"
#define NODEWIRE_SCHEMA "cmax.node/1"
#define NODEWIRE_LINE_MAX 1000   /* bytes per line, header and newline included */

/* A node name the wire accepts: 1..255 of [A-Za-z0-9._-]. */
int nodewire_name_ok(const char *name);

/* The lines for one document (malloc'd, each ending in '\n' and at most
 * line_max bytes long), or NULL when the name is not acceptable or line_max
 * leaves no room for the payload. */
char *nodewire_encode(const char *node, const char *json, size_t line_max);

/* Every node seen on the stream: {node: {"doc": object|null, "error":
 * string|null}}. A node's entry has a doc only when every chunk 1..total
 * came, no two chunks disagree, the text parses as a JSON object and its
 * "schema" is cmax.node/1; otherwise error says which of these failed. */
json_t *nodewire_decode(const char *text, size_t len);

/* Is line (n bytes, no newline) the last chunk of a node's document? 1 and
 * the node's name in node; for a reader that watches the stream as it
 * comes (the fleet audit's progress), not a check that the document is
 * whole: that is nodewire_decode's. */
int nodewire_line_last(const char *line, size_t n, char node[256]);

/* `scontrol show hostnames` output: one name per line, blanks skipped,
 * duplicates dropped, order kept. Names the wire would refuse are dropped
 * too (they could not be matched with a document anyway). */
json_t *parse_hostnames(const char *text, size_t len);
#endif
