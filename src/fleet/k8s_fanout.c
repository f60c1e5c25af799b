/* Kubernetes per-node collection: placeholder until the privileged-pod
 * fan-out lands. Saying so is better than pretending the nodes were read. */
#include <stdlib.h>
#include <string.h>
#include "fanout.h"

static int k8s_collect(struct audit_ctx *ctx, const struct fanout_opts *o, struct node_doc **docs, size_t *n,
		       char **err)
{
	(void)ctx;
	(void)o;
	*docs = NULL;
	*n = 0;
	*err = strdup("per-node collection on Kubernetes is not implemented yet");
	return -1;
}

const struct fanout_backend fanout_k8s = {
	.name = "k8s",
	.collect = k8s_collect,
};
