/* NUMA layout from /sys/devices/system/node: which nodes have CPUs and how
 * much memory each holds. A node with memory and no CPUs is how GPU HBM
 * shows up when a Grace system onlines it as system RAM (and how CXL or
 * PMEM expanders show up on x86).
 *
 * Facts: {nodes: [{node, cpulist, cpus, mem_total_kb|null, memory_only}],
 * count, with_cpus, memory_only: [node ids]}. cpus and memory_only are null
 * where the node's cpulist is malformed or contradicts has_cpu, and then
 * with_cpus is null too (unknown, not one fewer). */
#include "collect/collectors.h"
#include "core/strbuf.h"
#include "core/sysroot.h"
#include "parse/rangelist.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "/sys/devices/system/node"

struct id_in { long id; int in; };

static void find_id(long first, long last, void *arg)
{
	struct id_in *q = arg;
	q->in |= q->id >= first && q->id <= last;
}

/* Is node id in a kernel nodelist ("0-1,3")? 1 yes, 0 no, -1 malformed. */
static int nodelist_has(const char *s, long id)
{
	struct id_in q = { id, 0 };
	return range_list_each(s, find_id, &q) < 0 ? -1 : q.in;
}

/* "Node 3 MemTotal:  192937984 kB" */
static int node_memtotal(const char *text, long long *kb)
{
	const char *p = strstr(text, "MemTotal:");
	if (!p)
		return -1;
	p += strlen("MemTotal:");
	char *end;
	errno = 0;
	long long v = strtoll(p, &end, 10);
	if (end == p || errno || v < 0)
		return -1;
	*kb = v;
	return 0;
}

/* A node's CPUs from its cpulist, -1 when unread or when has_cpu disagrees. */
static long numa_node_cpus(struct col_run *c, const char *e, long id, const char *has_cpu, json_t *nd)
{
	char *p = xasprintf(NODE_DIR "/%s/cpulist", e);
	char *cl = col_read(c, p);
	free(p);
	long cpus = cl ? range_list_count(cl) : -1;
	int listed = has_cpu ? nodelist_has(has_cpu, id) : -1;
	if (cpus >= 0 && listed >= 0 && (cpus > 0) != listed) {
		col_evidence_note(c, "node%ld: cpulist '%s' and has_cpu '%s' disagree: CPUs unknown", id, cl,
				  has_cpu);
		cpus = -1;
	}
	fact_set_str(nd, "cpulist", cl);
	if (cpus >= 0)
		fact_set_int(nd, "cpus", cpus);
	else
		fact_set_null(nd, "cpus");
	free(cl);
	return cpus;
}

/* A node's MemTotal; returns whether it was read. */
static int numa_node_mem(struct col_run *c, const char *e, json_t *nd, long long *kb)
{
	char *p = xasprintf(NODE_DIR "/%s/meminfo", e);
	char *mi = col_read_quiet(p);
	*kb = 0;
	int mem_ok = mi && node_memtotal(mi, kb) == 0;
	if (mem_ok) {
		fact_set_int(nd, "mem_total_kb", *kb);
		char *line = xasprintf("MemTotal %lld kB", *kb);
		col_evidence_file(c, p, line);
		free(line);
	} else {
		fact_set_null(nd, "mem_total_kb");
	}
	free(mi);
	free(p);
	return mem_ok;
}

void collect_numa(struct audit_ctx *ctx, struct col_run *c)
{
	(void)ctx;
	char **names = NULL;
	size_t n = 0;
	int rc = sr_list(NODE_DIR, &names, &n);
	if (rc != 0) {
		col_set_state(c, COL_ABSENT, "%s: %s (kernel without NUMA support, or /sys not visible)",
			      NODE_DIR, strerror(-rc));
		return;
	}
	json_t *f = c->facts, *nodes = json_array(), *memonly = json_array();
	long with_cpus = 0, unknown_cpus = 0;
	/* The kernel's own list of nodes with CPUs, a second witness: a node's
	 * cpulist that disagrees with it was not read right (an empty cpulist
	 * is how a memory-only node looks, so emptiness alone proves nothing). */
	char *has_cpu = col_read(c, NODE_DIR "/has_cpu");
	if (has_cpu && nodelist_has(has_cpu, 0) < 0) {
		col_evidence_note(c, NODE_DIR "/has_cpu is not a node list: not used");
		free(has_cpu);
		has_cpu = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char *e = names[i];
		if (strncmp(e, "node", 4) != 0 || !e[4] || strspn(e + 4, "0123456789") != strlen(e + 4))
			continue;
		long id = strtol(e + 4, NULL, 10);
		json_t *nd = json_object();
		fact_set_int(nd, "node", id);
		long cpus = numa_node_cpus(c, e, id, has_cpu, nd);
		long long kb;
		int mem_ok = numa_node_mem(c, e, nd, &kb);
		if (cpus > 0)
			with_cpus++;
		else if (cpus < 0)
			unknown_cpus++;
		if (cpus == 0 && mem_ok && kb > 0) {
			fact_set_bool(nd, "memory_only", 1);
			json_array_append_new(memonly, json_integer(id));
		} else if (cpus < 0 || !mem_ok) {
			fact_set_null(nd, "memory_only");
		} else {
			fact_set_bool(nd, "memory_only", 0);
		}
		json_array_append_new(nodes, nd);
	}
	sr_list_free(names, n);
	free(has_cpu);
	if (json_array_size(nodes) == 0) {
		json_decref(nodes);
		json_decref(memonly);
		col_set_state(c, COL_ABSENT, "%s lists no node directories", NODE_DIR);
		return;
	}
	fact_set_int(f, "count", (long long)json_array_size(nodes));
	/* a node whose CPUs are unknown may be one more with CPUs: no count then */
	if (unknown_cpus)
		fact_set_null(f, "with_cpus");
	else
		fact_set_int(f, "with_cpus", with_cpus);
	json_object_set_new(f, "nodes", nodes);
	json_object_set_new(f, "memory_only", memonly);
}
