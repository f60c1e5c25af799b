/* Configuration-space decoding for the PCI collector. Offsets and field
 * layouts are those of the PCI Local Bus and PCI Express base
 * specifications; everything is read little endian, byte by byte, so the
 * code does not depend on host endianness or alignment. */
#include "collect/pci_acs.h"
#include "core/strbuf.h"
#include <string.h>

#define CFG_STD_SIZE 256
#define CFG_EXT_SIZE 4096
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAP_PTR 0x34
#define PCI_CAP_ID_EXP 0x10

static unsigned rd8(const unsigned char *b, size_t len, size_t off, int *ok)
{
	if (off + 1 > len) {
		*ok = 0;
		return 0;
	}
	return b[off];
}

static unsigned rd16(const unsigned char *b, size_t len, size_t off, int *ok)
{
	if (off + 2 > len) {
		*ok = 0;
		return 0;
	}
	return (unsigned)b[off] | (unsigned)b[off + 1] << 8;
}

static unsigned long rd32(const unsigned char *b, size_t len, size_t off, int *ok)
{
	if (off + 4 > len) {
		*ok = 0;
		return 0;
	}
	return (unsigned long)rd16(b, len, off, ok) | (unsigned long)rd16(b, len, off + 2, ok) << 16;
}

/* Offset of the PCI Express capability: >0 found, 0 absent, -1 unknown. */
static int find_pcie_cap(const unsigned char *b, size_t len)
{
	int ok = 1;
	unsigned st = rd16(b, len, PCI_STATUS, &ok);
	if (!ok)
		return -1;
	if (!(st & PCI_STATUS_CAP_LIST))
		return 0;
	unsigned p = rd8(b, len, PCI_CAP_PTR, &ok) & 0xfc;
	if (!ok)
		return -1;
	/* at most 48 capabilities fit in 192 bytes: more means a loop */
	for (int n = 0; p >= 0x40 && n < 48; n++) {
		unsigned id = rd8(b, len, p, &ok);
		unsigned next = rd8(b, len, p + 1, &ok) & 0xfc;
		if (!ok)
			return -1;
		if (id == 0xff)
			return 0;
		if (id == PCI_CAP_ID_EXP)
			return (int)p;
		p = next;
	}
	return 0;
}

void pci_cfg_decode(const unsigned char *b, size_t len, struct pci_cfg_info *o)
{
	memset(o, 0, sizeof *o);
	o->len = len;
	o->pcie = -1;
	o->port_type = -1;
	o->acs = -1;
	int ok = 1;
	unsigned vendor = rd16(b, len, 0, &ok);
	o->header_ok = ok && vendor != 0xffff && vendor != 0;
	if (!o->header_ok)
		return;

	int pcap = find_pcie_cap(b, len);
	if (pcap < 0)
		return;
	if (pcap == 0) {
		o->pcie = 0;
		o->acs = 0; /* conventional PCI has no extended space, hence no ACS */
		return;
	}
	ok = 1;
	unsigned flags = rd16(b, len, (size_t)pcap + 2, &ok);
	if (!ok)
		return;
	o->pcie = 1;
	o->port_type = (int)((flags >> 4) & 0xf);

	if (len <= CFG_STD_SIZE)
		return; /* ACS lives in extended space: unknown */
	o->ext = 1;
	o->acs = 0;
	size_t p = CFG_STD_SIZE;
	/* each extended capability takes at least 4 bytes: bound the walk */
	for (int n = 0; p >= CFG_STD_SIZE && n < (CFG_EXT_SIZE - CFG_STD_SIZE) / 4; n++) {
		ok = 1;
		unsigned long h = rd32(b, len, p, &ok);
		if (!ok || h == 0 || h == 0xffffffffUL)
			break;
		if ((h & 0xffff) == PCI_EXT_CAP_ID_ACS) {
			unsigned cap = rd16(b, len, p + 4, &ok);
			unsigned ctl = rd16(b, len, p + 6, &ok);
			if (!ok) {
				o->acs = -1;
				break;
			}
			o->acs = 1;
			o->acs_offset = (unsigned)p;
			o->acs_cap = cap;
			o->acs_ctl = ctl;
			break;
		}
		size_t next = (h >> 20) & 0xffc;
		if (next <= p) /* the list only moves forward; anything else is a loop */
			break;
		p = next;
	}
}

const char *pci_port_type_name(int t)
{
	switch (t) {
	case PCIE_TYPE_ENDPOINT: return "endpoint";
	case PCIE_TYPE_LEGACY_ENDPOINT: return "legacy_endpoint";
	case PCIE_TYPE_ROOT_PORT: return "root_port";
	case PCIE_TYPE_UPSTREAM: return "upstream";
	case PCIE_TYPE_DOWNSTREAM: return "downstream";
	case PCIE_TYPE_PCIE_TO_PCI: return "pcie_to_pci_bridge";
	case PCIE_TYPE_PCI_TO_PCIE: return "pci_to_pcie_bridge";
	case PCIE_TYPE_RC_INTEGRATED: return "rc_integrated_endpoint";
	case PCIE_TYPE_RC_EVENT_COLLECTOR: return "rc_event_collector";
	}
	return NULL;
}

static const struct {
	unsigned bit;
	const char *name;
} acs_names[] = {
	{ ACS_SV, "SrcValid" }, { ACS_TB, "TransBlk" }, { ACS_RR, "ReqRedir" },
	{ ACS_CR, "CmpltRedir" }, { ACS_UF, "UpstreamFwd" }, { ACS_EC, "EgressCtrl" },
	{ ACS_DT, "DirectTrans" },
};

char *pci_acs_flags_str(unsigned bits)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sizeof acs_names / sizeof acs_names[0]; i++)
		sb_addf(&sb, "%s%s%c", i ? " " : "", acs_names[i].name, (bits & acs_names[i].bit) ? '+' : '-');
	return sb_detach(&sb);
}

char *pci_acs_redirect_str(unsigned bits)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sizeof acs_names / sizeof acs_names[0]; i++)
		if ((bits & ACS_REDIRECT_MASK & acs_names[i].bit))
			sb_addf(&sb, "%s%s", sb.len ? " " : "", acs_names[i].name);
	char *s = sb_detach(&sb);
	return s ? s : xstrdup("");
}
