/* Fuzz the configuration-space decoder with arbitrary bytes of arbitrary
 * length (sysfs `config` as read by root, by a tenant, or corrupt). The
 * decoder must stay in bounds and report a consistent view. */
#include "collect/pci_acs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pci_cfg_info ci;
	pci_cfg_decode(data, size, &ci);
	if (ci.len != size)
		abort();
	if (ci.acs == 1 && (ci.acs_offset < 256 || ci.acs_offset + 8 > size))
		abort();
	if (ci.pcie != 1 && ci.port_type != -1)
		abort();
	char *a = pci_acs_flags_str(ci.acs_ctl), *b = pci_acs_redirect_str(ci.acs_ctl);
	if (!a || !b)
		abort();
	free(a);
	free(b);
	pci_port_type_name(ci.port_type);
	return 0;
}
