/* Configuration-space decoding: port types, the ACS extended capability,
 * short (unprivileged) reads, conventional PCI, and corrupt capability
 * lists that must not loop or read out of bounds. */
#include "tap.h"
#include "collect/pci_acs.h"

#include <stdlib.h>
#include <string.h>

static unsigned char cfg[4096];

static void put16(size_t off, unsigned v)
{
	cfg[off] = v & 0xff;
	cfg[off + 1] = (v >> 8) & 0xff;
}

static void put32(size_t off, unsigned long v)
{
	put16(off, v & 0xffff);
	put16(off + 2, (v >> 16) & 0xffff);
}

/* A Broadcom switch downstream port: PM cap at 0x40, PCIe at 0x60, AER at
 * 0x100, ACS at 0x148 with the given control bits. */
static void make_port(int type, unsigned acs_ctl, int with_acs)
{
	memset(cfg, 0, sizeof cfg);
	put16(0x00, 0x1000);
	put16(0x02, 0xc030);
	put16(0x06, 0x0010);
	cfg[0x0b] = 0x06;
	cfg[0x0a] = 0x04;
	cfg[0x0e] = 0x01;
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01;
	cfg[0x41] = 0x60;
	cfg[0x60] = 0x10;
	put16(0x62, 0x0002 | (type << 4));
	put32(0x100, 0x0001 | (2UL << 16) | ((with_acs ? 0x148UL : 0) << 20));
	if (with_acs) {
		put32(0x148, 0x000d | (1UL << 16));
		put16(0x14c, 0x005f);
		put16(0x14e, acs_ctl);
	}
}

static void test_downstream_port(void)
{
	struct pci_cfg_info ci;
	make_port(PCIE_TYPE_DOWNSTREAM, ACS_SV | ACS_RR | ACS_CR | ACS_UF, 1);
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_INTEQ(ci.pcie, 1, "PCIe capability found");
	T_INTEQ(ci.port_type, PCIE_TYPE_DOWNSTREAM, "downstream port");
	T_STREQ(pci_port_type_name(ci.port_type), "downstream", "port type name");
	T_INTEQ(ci.acs, 1, "ACS found");
	T_INTEQ(ci.acs_offset, 0x148, "ACS offset");
	T_INTEQ(ci.acs_cap, 0x5f, "ACS capability bits");
	T_INTEQ(ci.acs_ctl, 0x1d, "ACS control bits");
	char *s = pci_acs_flags_str(ci.acs_ctl);
	T_STREQ(s, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-",
		"lspci-style ACSCtl");
	free(s);
	s = pci_acs_redirect_str(ci.acs_ctl);
	T_STREQ(s, "ReqRedir CmpltRedir", "redirect bits named");
	free(s);

	make_port(PCIE_TYPE_DOWNSTREAM, ACS_SV | ACS_UF, 1);
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_OK(!(ci.acs_ctl & ACS_REDIRECT_MASK), "SV+UF only is not a redirect");
	s = pci_acs_redirect_str(ci.acs_ctl);
	T_STREQ(s, "", "no redirect names");
	free(s);

	make_port(PCIE_TYPE_UPSTREAM, 0, 0);
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_INTEQ(ci.port_type, PCIE_TYPE_UPSTREAM, "upstream port");
	T_INTEQ(ci.acs, 0, "no ACS capability: known absent");
}

static void test_short_reads(void)
{
	struct pci_cfg_info ci;
	make_port(PCIE_TYPE_DOWNSTREAM, ACS_RR, 1);
	pci_cfg_decode(cfg, 64, &ci);
	T_OK(ci.header_ok, "64 bytes: header readable");
	T_INTEQ(ci.pcie, -1, "64 bytes: PCIe capability unknown");
	T_INTEQ(ci.port_type, -1, "64 bytes: port type unknown");
	T_INTEQ(ci.acs, -1, "64 bytes: ACS unknown, never 'absent'");

	pci_cfg_decode(cfg, 256, &ci);
	T_INTEQ(ci.port_type, PCIE_TYPE_DOWNSTREAM, "256 bytes: port type known");
	T_INTEQ(ci.acs, -1, "256 bytes: ACS unknown (no extended space)");

	pci_cfg_decode(cfg, 0x14d, &ci);
	T_INTEQ(ci.acs, -1, "ACS header present but control register cut off: unknown");

	pci_cfg_decode(cfg, 0, &ci);
	T_OK(!ci.header_ok, "empty read: nothing known");
	T_INTEQ(ci.acs, -1, "empty read: ACS unknown");
}

static void test_conventional_and_corrupt(void)
{
	struct pci_cfg_info ci;
	make_port(PCIE_TYPE_DOWNSTREAM, 0, 1);
	cfg[0x41] = 0x00; /* PM is the only capability: conventional PCI */
	pci_cfg_decode(cfg, 256, &ci);
	T_INTEQ(ci.pcie, 0, "conventional PCI: no PCIe capability");
	T_INTEQ(ci.acs, 0, "conventional PCI: no ACS");

	make_port(PCIE_TYPE_DOWNSTREAM, 0, 1);
	cfg[0x41] = 0x40; /* capability pointing at itself */
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_INTEQ(ci.pcie, 0, "looping standard capability list terminates");

	make_port(PCIE_TYPE_DOWNSTREAM, 0, 0);
	put32(0x100, 0x0001 | (1UL << 16) | (0x100UL << 20)); /* next = itself */
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_INTEQ(ci.acs, 0, "looping extended list terminates without ACS");

	make_port(PCIE_TYPE_DOWNSTREAM, 0, 1);
	put16(0x00, 0xffff);
	pci_cfg_decode(cfg, sizeof cfg, &ci);
	T_OK(!ci.header_ok, "vendor 0xffff (device gone) is not decoded");
	T_INTEQ(ci.acs, -1, "device gone: ACS unknown");
}

int main(void)
{
	test_downstream_port();
	test_short_reads();
	test_conventional_and_corrupt();
	return t_done();
}
