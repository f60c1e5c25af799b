/* Fuzz the fabric parsers (parse/fabric.h): the first byte picks the
 * parser, the rest is the text. 'a' P_Key, 'b' /proc/net/tcp, 'c'
 * /proc/net/tcp6, 'd' nvidia-smi fabric query, 'e' sminfo, 'f' opensm.conf,
 * 'g' nodes_config.cfg, 'h' mlxconfig q, 'i' Prometheus query answer; other bytes wrap around. JSON results must never be
 * NULL and must serialise; a listener must carry a port in 0..65535. */
#include "parse/fabric.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void must_dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	if (!s)
		abort();
	free(s);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % 9;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct parse_count pc;
	unsigned long long key;
	long v;
	json_t *a;
	size_t i;
	json_t *e;

	switch (sel) {
	case 0:
		v = fab_parse_pkey(text, len);
		if (v < -1 || v > 0xffff)
			abort();
		break;
	case 1:
	case 2:
		a = fab_parse_proc_net_tcp(text, len, sel == 2, &pc);
		if (pc.recognised > pc.lines || json_array_size(a) > pc.recognised)
			abort();
		json_array_foreach(a, i, e) {
			json_int_t p = json_integer_value(json_object_get(e, "port"));
			if (p < 0 || p > 65535 || !json_string_value(json_object_get(e, "scope")))
				abort();
		}
		must_dump(a);
		break;
	case 3:
		must_dump(fab_parse_smi_fabric(text, len));
		break;
	case 4:
		must_dump(fab_parse_sminfo(text, len));
		break;
	case 5:
		fab_parse_opensm_smkey(text, len, &key);
		break;
	case 6:
		must_dump(fab_parse_imex_nodes(text, len));
		break;
	case 7: {
		char *val = fab_parse_mlxconfig_value(text, len, "INTERNAL_CPU_RSHIM");
		if (val && (!*val || strchr(val, ' ')))
			abort();
		free(val);
		break;
	}
	case 8:
		must_dump(fab_parse_prom_query(text, len));
		break;
	}
	return 0;
}
