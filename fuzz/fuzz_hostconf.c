/* Fuzz the host configuration parsers: the first byte picks the parser
 * ('a' fstab, 'b' netplan, 'c' ifupdown, 'd' ifcfg, 'e' NetworkManager
 * keyfile, 'f' networkd, 'g' ld.so.conf; other bytes wrap around), the
 * rest is the text. Each must return a value that serialises. */
#include "parse/hostconf.h"
#include <stdint.h>
#include <stdlib.h>

static json_t *ifcfg(const char *t, size_t n)
{
	return parse_ifcfg(t, n, "eth0");
}

typedef json_t *(*parser)(const char *, size_t);
static const parser ps[] = {
	parse_fstab, parse_netplan, parse_ifupdown, ifcfg, parse_nm_keyfile, parse_networkd, parse_ldso_conf,
};
#define NP (sizeof ps / sizeof *ps)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned sel = ((unsigned)data[0] + 256 - 'a') % NP;
	json_t *j = ps[sel]((const char *)data + 1, size - 1);
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	if (!s)
		abort();
	free(s);
	json_decref(j);
	return 0;
}
