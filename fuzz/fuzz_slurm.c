/* Fuzz the Slurm parsers: the first byte picks one ('a' scontrol config,
 * 'b' node/partition records, node summaries and the one-node reader, 'c' slurm.conf-style files,
 * 'd' topology.yaml, 'e' plugstack.conf, 'f' srun --mpi=list, 'g' pipe rows,
 * 'h' GRES count and reason split); the rest is the text. */
#include "parse/slurm.h"
#include "core/strbuf.h"
#include "core/termsafe.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	if (!s)
		abort();
	free(s);
	json_decref(j);
}

/* Every string of a node line is terminated and terminal-safe (valid
 * UTF-8, no control: escaping it again changes nothing). */
static void check_line(const struct slurm_node_line *n)
{
	const char *f[] = { n->name, n->state, n->reason, n->reason_user, n->reason_time, n->boot_time };
	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
		if (!ts_is_safe(f[i], strlen(f[i]), 0))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % 8;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	static const char *const f[] = { "a", "b", "c" };
	switch (sel) {
	case 0: dump(parse_scontrol_config(text, len)); break;
	case 1: {
		json_t *a = parse_scontrol_records(text, len), *r;
		size_t i;
		json_array_foreach(a, i, r)
			dump(slurm_node_summary(r));
		dump(a);
		struct slurm_node_line n;
		if (slurm_node_line(text, len, NULL, &n) == 0)
			check_line(&n);
		if (slurm_node_line(text, len, "node1", &n) == 0)
			check_line(&n);
		break;
	}
	case 2: {
		json_t *c = parse_slurm_conf(text, len);
		slurm_conf_get(c, "NodeName");
		dump(c);
		break;
	}
	case 3: dump(parse_topology_yaml(text, len)); break;
	case 4: dump(parse_plugstack(text, len)); break;
	case 5: dump(parse_srun_mpi_list(text, len)); break;
	case 6: dump(parse_pipe_rows(text, len, f, 3)); break;
	default: {
		char *s = str_sanitize(text, len);
		slurm_gres_gpus(s);
		dump(slurm_reason_split(s));
		free(s);
		break;
	}
	}
	return 0;
}
