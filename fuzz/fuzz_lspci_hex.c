/* Fuzz the lspci -xxxx hex-dump parser: it must stay inside the buffer,
 * return whole rows, fail with a one-line error, and hand the decoder
 * bytes it can take. */
#include "parse/lspci_hex.h"
#include "collect/pci_acs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char cfg[4096];
	size_t n = 12345;
	char *err = NULL;
	if (lspci_hex_parse((const char *)data, size, cfg, sizeof cfg, &n, &err) == 0) {
		if (err || n == 0 || n > sizeof cfg || n % 16)
			abort();
		struct pci_cfg_info ci;
		pci_cfg_decode(cfg, n, &ci);
		if (ci.len != n)
			abort();
	} else if (!err || strchr(err, '\n') || n != 0) {
		abort();
	}
	free(err);
	return 0;
}
