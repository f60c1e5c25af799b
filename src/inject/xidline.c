/* Synthetic driver log lines in the exact shape the NVIDIA driver prints
 * (reference section 1.1): a health agent that parses real lines must see
 * no difference.  The messages are the driver's own for the codes whose
 * text decides the action (94/95 RST fields, 154 transitions, 48 unit);
 * other codes carry the catalog description. */
#include "inject/inject.h"
#include "core/strbuf.h"
#include "xid/kmsg.h"

#include <ctype.h>
#include <string.h>

static const struct {
	int code;
	const char *msg;
} driver_text[] = {
	{ 13, "Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address" },
	{ 31, "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
	      "0x7f9c_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" },
	{ 48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer "
	      "at physAddr 0x7fdf0de80 partition 5, subpartition 1" },
	{ 63, "Row Remapper: New row marked for remapping, reset gpu to activate." },
	{ 79, "GPU has fallen off the bus." },
	{ 94, "Contained: CE User Channel (0x9). RST: No, D-RST: No" },
	{ 95, "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No" },
	{ 119, "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
	       "(GSP_RM_CONTROL) (0x20803032 0x58c)." },
};

/* "5a:00.0" / "PCI:0000:5A:00.0" -> "0000:5a:00.0" (the switch form keeps the function). */
static void switch_addr(const char *pci, char *out, size_t n)
{
	char key[32];
	kmsg_gpu_key(pci, key, sizeof key);
	const char *dot = pci ? strrchr(pci, '.') : NULL;
	char fn = dot && isxdigit((unsigned char)dot[1]) ? (char)tolower((unsigned char)dot[1]) : '0';
	snprintf(out, n, "%s.%c", key[0] ? key : "0000:00:00", fn);
}

char *xidline_format(int code, int sxid, const char *pci, const char *desc)
{
	if (sxid) {
		char addr[40];
		switch_addr(pci, addr, sizeof addr);
		return xasprintf("nvidia-nvswitch0: SXid (PCI:%s): %d, Fatal, Link 0 %s", addr, code,
				 desc && *desc ? desc : "injected fault");
	}
	char key[32];
	kmsg_gpu_key(pci, key, sizeof key);
	if (!key[0])
		snprintf(key, sizeof key, "0000:00:00");
	if (code == 154)
		return xasprintf("NVRM: Xid (PCI:%s): 154, GPU recovery action changed from 0x0 (None) "
				 "to 0x2 (Node Reboot Required)", key);
	const char *msg = NULL;
	for (size_t i = 0; i < sizeof driver_text / sizeof *driver_text; i++)
		if (driver_text[i].code == code)
			msg = driver_text[i].msg;
	if (!msg)
		msg = desc && *desc ? desc : "Unknown Error";
	return xasprintf("NVRM: Xid (PCI:%s): %d, pid='<unknown>', name=<unknown>, %s", key, code, msg);
}
