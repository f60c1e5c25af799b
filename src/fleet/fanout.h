/* Fleet audits: run the single-host collector (`cmax node-collect`) on every
 * node of a Slurm allocation or every GPU node of a Kubernetes cluster, in
 * parallel, each with its own timeout, and bring back one cmax.node/1
 * document per node. A node that does not answer is named, never dropped. */
#ifndef CMAX_FANOUT_H
#define CMAX_FANOUT_H
#include <jansson.h>

struct audit_ctx;

struct fanout_opts {
	const char *node_cmd;      /* cmax binary (or wrapper) to run on the nodes; default: this binary */
	const char *nodes;         /* --nodes LIST (Slurm hostlist), NULL = the current allocation */
	const char *partition;     /* --partition P (takes a short allocation itself) */
	long per_node_timeout_s;   /* each node's own budget */
	const char *profile;       /* NULL = full */
	int active;
	const char *sudo_flag;     /* "--sudo", "--no-sudo" or NULL (auto): the nodes' sudo policy */
	const char *kubeconfig;    /* --kubeconfig / --context (Kubernetes), NULL = kubectl's default */
	const char *context;
	const char *node_image;    /* --node-image (Kubernetes): an image holding cmax; no default */
	const char *run_dir;       /* the audit's run directory: the Kubernetes pod manifests are kept
				    * there; NULL (no run directory) = create nothing */
};

struct node_doc {
	char *host;
	int answered;              /* a complete cmax.node/1 document came back */
	char *error;               /* why not, one line (with the launcher's evidence) */
	json_t *doc;               /* cmax.node/1, NULL when not answered */
	json_t *evidence;          /* array: the launcher command(s) that ran */
};

struct fanout_backend {
	const char *name;          /* "slurm", "k8s" */
	int (*collect)(struct audit_ctx *ctx, const struct fanout_opts *o, struct node_doc **docs, size_t *n,
		       char **err);
	/* Optional, for --dry-run: the objects collect would create (a List),
	 * from read-only calls; NULL with *err. */
	json_t *(*plan)(struct audit_ctx *ctx, const struct fanout_opts *o, char **err);
};

extern const struct fanout_backend fanout_slurm;
extern const struct fanout_backend fanout_k8s;
void node_docs_free(struct node_doc *docs, size_t n);
/* {host, answered, error, doc, evidence} array for ctx->fleet (steals docs' JSON). */
json_t *node_docs_to_fleet(struct node_doc *docs, size_t n);
#endif
