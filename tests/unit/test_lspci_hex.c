/* lspci -xxxx hex dumps: the full 4096 bytes of a switch port decode to
 * its ACS control; 64-byte (unprivileged) dumps, a second device, CRLF,
 * and malformed or out-of-order rows. */
#include "tap.h"
#include "parse/lspci_hex.h"
#include "collect/pci_acs.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

static unsigned char cfg[4096];

/* A Broadcom PEX890xx downstream port as gen-pci.py builds it: PCIe
 * capability at 0x60, AER at 0x100, ACS at 0x148. */
static void make_port(unsigned ctl)
{
	memset(cfg, 0, sizeof cfg);
	cfg[0] = 0x00, cfg[1] = 0x10, cfg[2] = 0x30, cfg[3] = 0xc0;
	cfg[6] = 0x10;
	cfg[0x0a] = 0x04, cfg[0x0b] = 0x06, cfg[0x0e] = 0x01;
	cfg[0x34] = 0x60;
	cfg[0x60] = 0x10, cfg[0x62] = 0x02 | (6 << 4);
	cfg[0x100] = 0x01, cfg[0x102] = 0x81, cfg[0x103] = 0x14; /* AER v1, next 0x148 */
	cfg[0x148] = 0x0d, cfg[0x14a] = 0x01;                     /* ACS v1, last */
	cfg[0x14c] = 0x5f, cfg[0x14e] = ctl & 0xff;
}

/* What lspci prints: the description line, then "%02x:" rows of " %02x". */
static char *dump(const char *head, size_t n, const char *eol)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s%s", head, eol);
	for (size_t i = 0; i < n; i++) {
		if (!(i & 15))
			sb_addf(&sb, "%02zx:", i);
		sb_addf(&sb, " %02x", cfg[i]);
		if ((i & 15) == 15)
			sb_adds(&sb, eol);
	}
	sb_adds(&sb, eol);
	return sb_detach(&sb);
}

static const char head[] = "17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)";

static void test_full(void)
{
	make_port(0x05); /* SV RR: redirect on */
	char *t = dump(head, 4096, "\n");
	unsigned char buf[4096];
	size_t n = 0;
	char *err = NULL;
	T_INTEQ(lspci_hex_parse(t, strlen(t), buf, sizeof buf, &n, &err), 0, "a 4096-byte dump parses");
	T_INTEQ(n, 4096, "every byte");
	T_OK(memcmp(buf, cfg, 4096) == 0, "the bytes are the config space");
	struct pci_cfg_info ci;
	pci_cfg_decode(buf, n, &ci);
	T_INTEQ(ci.acs, 1, "ACS found in the parsed bytes");
	T_INTEQ(ci.acs_offset, 0x148, "at 0x148");
	T_INTEQ(ci.acs_ctl & ACS_RR, ACS_RR, "ReqRedir+ read back");
	T_INTEQ(ci.port_type, PCIE_TYPE_DOWNSTREAM, "a downstream port");
	free(t);

	t = dump(head, 4096, "\r\n");
	T_INTEQ(lspci_hex_parse(t, strlen(t), buf, sizeof buf, &n, &err), 0, "CRLF line ends parse too");
	free(t);

	/* a second device after the blank line is not read */
	char *a = dump(head, 256, "\n"), *b = dump("18:00.0 3D controller: NVIDIA Corporation Device 3182", 64, "\n");
	char *ab = xasprintf("%s%s", a, b);
	T_INTEQ(lspci_hex_parse(ab, strlen(ab), buf, sizeof buf, &n, &err), 0, "two devices: the first");
	T_INTEQ(n, 256, "256 bytes, the first device's");
	free(a);
	free(b);
	free(ab);
}

static void test_short_and_bad(void)
{
	make_port(0);
	unsigned char buf[4096];
	size_t n = 0;
	char *err = NULL;
	char *t = dump(head, 64, "\n");
	T_INTEQ(lspci_hex_parse(t, strlen(t), buf, sizeof buf, &n, &err), 0, "64 bytes (lspci without privilege)");
	T_INTEQ(n, 64, "four rows");
	struct pci_cfg_info ci;
	pci_cfg_decode(buf, n, &ci);
	T_INTEQ(ci.acs, -1, "ACS unknown from 64 bytes");
	free(t);

	T_INTEQ(lspci_hex_parse("", 0, buf, sizeof buf, &n, &err), -1, "empty output");
	T_OK(err && strstr(err, "no hex dump"), "says no dump: %s", err ? err : "");
	free(err);
	err = NULL;

	const char *skip = "17:00.0 PCI bridge: x\n00: 00 10 30 c0 00 00 10 00 b0 00 04 06 00 00 01 00\n"
			   "20: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n";
	T_INTEQ(lspci_hex_parse(skip, strlen(skip), buf, sizeof buf, &n, &err), -1, "a skipped row");
	T_OK(err && strstr(err, "offset 0x20"), "names the offset: %s", err ? err : "");
	free(err);
	err = NULL;

	const char *shortrow = "17:00.0 PCI bridge: x\n00: 00 10 30 c0 00 00 10 00 b0 00 04 06 00 00 01\n";
	T_INTEQ(lspci_hex_parse(shortrow, strlen(shortrow), buf, sizeof buf, &n, &err), -1, "15 bytes in a row");
	free(err);
	err = NULL;

	const char *garbage = "00: 00 10 30 c0 00 00 10 00 b0 00 04 06 00 00 01 00\nzz: not hex\n";
	T_INTEQ(lspci_hex_parse(garbage, strlen(garbage), buf, sizeof buf, &n, &err), -1, "garbage inside the rows");
	T_INTEQ(n, 0, "nothing handed out on failure");
	free(err);
	err = NULL;

	make_port(0);
	t = dump(head, 4096, "\n");
	T_INTEQ(lspci_hex_parse(t, strlen(t), buf, 256, &n, &err), -1, "more rows than the buffer holds");
	free(err);
	free(t);
}

int main(void)
{
	test_full();
	test_short_and_bad();
	return t_done();
}
