/* Decoding a PCI function's configuration space as sysfs `config` returns
 * it: the PCI Express port type and the ACS extended capability. The bytes
 * may be short: the kernel hands only the first 64 bytes to a reader
 * without CAP_SYS_ADMIN, and 256 when extended space is not reachable.
 * Nothing here trusts the bytes: capability lists are bounded and
 * loop-proof, so a corrupt dump yields "unknown", never a crash. */
#ifndef CMAX_PCI_ACS_H
#define CMAX_PCI_ACS_H
#include <stddef.h>
#include <jansson.h>

/* PCIe Capabilities register, device/port type */
enum {
	PCIE_TYPE_ENDPOINT = 0,
	PCIE_TYPE_LEGACY_ENDPOINT = 1,
	PCIE_TYPE_ROOT_PORT = 4,
	PCIE_TYPE_UPSTREAM = 5,
	PCIE_TYPE_DOWNSTREAM = 6,
	PCIE_TYPE_PCIE_TO_PCI = 7,
	PCIE_TYPE_PCI_TO_PCIE = 8,
	PCIE_TYPE_RC_INTEGRATED = 9,
	PCIE_TYPE_RC_EVENT_COLLECTOR = 10,
};

#define PCI_EXT_CAP_ID_ACS 0x000d

/* ACS Capability / Control register bits (PCIe base spec, ACS capability) */
enum {
	ACS_SV = 1 << 0,  /* Source Validation */
	ACS_TB = 1 << 1,  /* Translation Blocking */
	ACS_RR = 1 << 2,  /* P2P Request Redirect */
	ACS_CR = 1 << 3,  /* P2P Completion Redirect */
	ACS_UF = 1 << 4,  /* Upstream Forwarding */
	ACS_EC = 1 << 5,  /* P2P Egress Control */
	ACS_DT = 1 << 6,  /* Direct Translated P2P */
};
/* The bits that send peer-to-peer traffic up to the root complex instead of
 * across the switch: the same set the kernel's disable_acs_redir clears. */
#define ACS_REDIRECT_MASK (ACS_RR | ACS_CR | ACS_EC)

struct pci_cfg_info {
	size_t len;          /* bytes available */
	int header_ok;       /* vendor id readable and not 0xffff */
	int pcie;            /* 1 PCIe capability found, 0 none, -1 unknown (bytes too short) */
	int port_type;       /* PCIE_TYPE_*, -1 unknown or not PCIe */
	int ext;             /* 1 extended space present in the bytes, 0 not */
	int acs;             /* 1 ACS capability found, 0 absent, -1 unknown */
	unsigned acs_offset;
	unsigned acs_cap, acs_ctl;
};

void pci_cfg_decode(const unsigned char *cfg, size_t len, struct pci_cfg_info *out);

/* "root_port", "downstream", ... or NULL for -1/unknown values. */
const char *pci_port_type_name(int port_type);

/* lspci -vvv style: "SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd+
 * EgressCtrl- DirectTrans-" (malloc'd). */
char *pci_acs_flags_str(unsigned bits);

/* Names of the set bits among ACS_REDIRECT_MASK, space-separated, malloc'd
 * ("" when none). */
char *pci_acs_redirect_str(unsigned bits);
#endif
