/* Fuzz the procfs parsers: the first byte picks the parser, the rest is the
 * text. Object/array parsers must never return NULL and must serialise.
 * Selector letters, so that seeds stay readable: 'a' os-release, 'b' meminfo,
 * 'c' cpuinfo, 'd' mounts, 'e' modules, 'f' kv_conf, 'g' modprobe, 'h' colon_kv,
 * 'i' nvidia version, 'j' df, 'k' cmdline, 'l' nvcc, 'm' version.json,
 * 'n' version.txt, 'o' first_version; other bytes wrap around. */
#include "parse/procfs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef json_t *(*json_parser)(const char *, size_t);
typedef char *(*str_parser)(const char *, size_t);

static const json_parser jp[] = {
	parse_os_release, parse_meminfo, parse_cpuinfo, parse_mounts,
	parse_modules, parse_kv_conf, parse_modprobe_conf, parse_colon_kv,
	parse_nvidia_version, parse_df_posix, parse_cmdline, parse_nvcc_version,
};
static const str_parser sp[] = {
	parse_cuda_version_json, parse_cuda_version_txt, parse_first_version,
};
#define NJP (sizeof jp / sizeof *jp)
#define NSP (sizeof sp / sizeof *sp)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % (NJP + NSP);
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	if (sel < NJP) {
		json_t *j = jp[sel](text, len);
		char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
		if (!s)
			abort();
		free(s);
		json_decref(j);
	} else {
		char *v = sp[sel - NJP](text, len);
		/* Results end up in JSON: must be a valid string. */
		if (v) {
			json_t *j = json_string(v);
			if (!j)
				abort();
			json_decref(j);
		}
		free(v);
	}
	return 0;
}
