/* Kernel-log parser: every line shape from the reference (section 1.1),
 * every timestamp source, and lines that must not match. */
#include "tap.h"
#include "xid/kmsg.h"

#include <stdlib.h>
#include <string.h>

static struct kmsg_event ev;

static enum kmsg_kind P(const char *line)
{
	return kmsg_parse_line(line, strlen(line), &ev);
}

static void test_xid_forms(void)
{
	T_INTEQ(P("NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, "
		  "GPU has fallen off the bus."), KMSG_XID, "canonical 79 is an Xid");
	T_INTEQ(ev.code, 79, "79 code");
	T_STREQ(ev.pci, "0000:5a:00", "79 pci without PCI: prefix");
	T_INTEQ(ev.pid, -1, "'<unknown>' pid is -1");
	T_STREQ(ev.name, "<unknown>", "unknown name kept");
	T_STREQ(ev.msg, "GPU has fallen off the bus.", "79 message");
	T_INTEQ(ev.gpu_i, -1, "no MIG instance");
	T_OK(!ev.has_wall && !ev.has_mono, "bare message has no timestamp");

	T_INTEQ(P("NVRM: Xid (PCI:0000:5a:00): 79, GPU has fallen off the bus."), KMSG_XID,
		"short 79 form");
	T_INTEQ(ev.pid, -1, "short form: no pid");
	T_STREQ(ev.name, "", "short form: no name");
	T_STREQ(ev.msg, "GPU has fallen off the bus.", "short form message");

	T_INTEQ(P("NVRM: Xid (0000:03:00): 14, Channel 00000001"), KMSG_XID, "old form without PCI:");
	T_INTEQ(ev.code, 14, "old form code");
	T_STREQ(ev.pci, "0000:03:00", "old form pci");
	T_STREQ(ev.msg, "Channel 00000001", "old form message");

	T_INTEQ(P("NVRM: Xid (PCI:0000:3B:00 GPU-I:05): 13, pid=1234, name=python3, "
		  "Graphics SM Warp Exception"), KMSG_XID, "MIG GPU-I");
	T_INTEQ(ev.gpu_i, 5, "GPU-I parsed");
	T_INTEQ(ev.gpu_ci, -1, "no GPU-CI");
	T_STREQ(ev.pci, "0000:3b:00", "pci lowercased");
	T_INTEQ(ev.pid, 1234, "pid");
	T_STREQ(ev.name, "python3", "name");
	T_INTEQ(ev.code, 13, "13");

	T_INTEQ(P("NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 31, pid=77, name=a.out, "
		  "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS"), KMSG_XID, "MIG GPU-CI");
	T_INTEQ(ev.gpu_i, 1, "GPU-I with CI");
	T_INTEQ(ev.gpu_ci, 2, "GPU-CI");
	T_STREQ(ev.msg, "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS",
		"message keeps its commas");

	T_INTEQ(P("NVRM: Xid (PCI:0000:07:00): 94, pid=7062, Contained: CE User Channel (0x9). "
		  "RST: No, D-RST: No"), KMSG_XID, "94 contained");
	T_INTEQ(ev.pid, 7062, "94 pid without name");
	T_STREQ(ev.name, "", "94 no name");
	T_INTEQ(ev.rst, 0, "94 RST: No");
	T_INTEQ(ev.drst, 0, "94 D-RST: No");
	T_STREQ(ev.msg, "Contained: CE User Channel (0x9). RST: No, D-RST: No", "94 msg");

	T_INTEQ(P("NVRM: Xid (PCI:0000:07:00): 95, pid=7062, Uncontained: LTC TAG (0x2, 0x1). "
		  "RST: Yes, D-RST: No"), KMSG_XID, "95 uncontained");
	T_INTEQ(ev.rst, 1, "95 RST: Yes");
	T_INTEQ(ev.drst, 0, "95 D-RST: No");
	P("NVRM: Xid (PCI:0000:07:00): 95, pid=1, name=x, Uncontained: FBHUB (0x0). "
	  "physAddr: 0x1234 RST: No, D-RST: Yes");
	T_INTEQ(ev.rst, 0, "RST: No next to D-RST: Yes");
	T_INTEQ(ev.drst, 1, "D-RST: Yes");
	P("NVRM: Xid (PCI:0000:07:00): 13, pid=1, name=x, RST: Yes");
	T_INTEQ(ev.rst, -1, "RST only parsed for 94/95");

	T_INTEQ(P("NVRM: Xid (PCI:0000:5a:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable "
		  "double bit error (DBE) has been detected on GPU in the framebuffer at physAddr "
		  "0x7fdf0de80 partition 5, subpartition 1"), KMSG_XID, "48 DBE");
	T_INTEQ(ev.code, 48, "48 code");
	T_OK(strstr(ev.msg, "partition 5, subpartition 1") != NULL, "48 message whole");

	T_INTEQ(P("NVRM: Xid (PCI:0000:5a:00): 63, pid=1896, Row Remapper: New row marked for "
		  "remapping, reset gpu to activate."), KMSG_XID, "63 row remap");
	T_INTEQ(ev.code, 63, "63");
	T_INTEQ(P("NVRM: Xid (PCI:0000:5a:00): 64, pid='<unknown>', name=<unknown>, Dynamic Page "
		  "Retirement: Fatal error, unable to retire page (0x1234)"), KMSG_XID, "64");
	T_INTEQ(ev.code, 64, "64 code");

	T_INTEQ(P("NVRM: Xid (PCI:0000:1b:00): 119, pid=1240590, name=gpud, Timeout after 6s of "
		  "waiting for RPC response from GPU4 GSP! Expected function 76 (GSP_RM_CONTROL) "
		  "(0x20803032 0x58c)."), KMSG_XID, "119");
	T_INTEQ(ev.pid, 1240590, "119 pid is the current process");
	T_STREQ(ev.name, "gpud", "119 name");
	T_INTEQ(ev.nwords, 0, "119 words not parsed");

	T_INTEQ(P("NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed from 0x0 (None) "
		  "to 0x2 (Node Reboot Required)"), KMSG_XID, "154");
	T_INTEQ(ev.rec_from, 0, "154 from");
	T_INTEQ(ev.rec_to, 2, "154 to");
	P("NVRM: Xid (PCI:0000:1b:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action "
	  "changed from 0x1 (GPU Reset Required) to 0x4 (Drain and Reset)");
	T_INTEQ(ev.rec_from, 1, "154 with pid: from");
	T_INTEQ(ev.rec_to, 4, "154 with pid: to");
	P("NVRM: Xid (PCI:0000:1b:00): 154, GPU recovery action changed from");
	T_INTEQ(ev.rec_to, -1, "truncated 154 has no target");

	T_INTEQ(P("NVRM: Xid (PCI:0000:9b:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 08 "
		  "(0x004505c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)"),
		KMSG_XID, "149 NVLink5");
	T_STREQ(ev.subcomp, "NETIR_LINK_EVT", "149 sub component");
	T_INTEQ(ev.fatal, 1, "149 Fatal");
	T_INTEQ(ev.link, 8, "149 link 08");
	T_INTEQ(ev.nwords, 6, "149 six words");
	T_OK(ev.words[0] == 0x004505c6ULL, "149 IntrInfo");
	T_OK(ev.words[1] == 0, "149 ErrorStatus");
	P("NVRM: Xid (PCI:0000:9b:00): 145, pid=1, name=x, RLW_REMAP Nonfatal XC1 i1 Link 17 "
	  "(0x1 0x80000000 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9)");
	T_STREQ(ev.subcomp, "RLW_REMAP", "145 sub component");
	T_INTEQ(ev.fatal, 0, "145 Nonfatal");
	T_INTEQ(ev.link, 17, "145 link");
	T_INTEQ(ev.nwords, KMSG_MAX_WORDS, "words capped");
	T_OK(ev.words[1] == 0x80000000ULL, "145 ErrorStatus");

	T_INTEQ(P("NVRM: Xid (PCI:0000:0c:00): 74, pid=1, name=x, NVLink: fatal error detected "
		  "on link 4(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"), KMSG_XID, "74");
	T_INTEQ(ev.fatal, 1, "74 fatal");
	T_INTEQ(ev.link, 4, "74 link");
	T_INTEQ(ev.nwords, 7, "74 seven registers");
	T_OK(ev.words[2] == 0x10000, "74 reg2");
	P("NVRM: Xid (PCI:0000:0c:00): 74, pid=1, name=x, NVLink: non-fatal error detected on link 2(0x1, 0x0)");
	T_INTEQ(ev.fatal, 0, "74 non-fatal");
}

static void test_other_events(void)
{
	T_INTEQ(P("NVRM: GPU 0000:91:00.0: GPU has fallen off the bus."), KMSG_FALLEN_OFF_BUS,
		"single-line fallen off the bus");
	T_INTEQ(ev.code, 79, "fallen implies 79");
	T_STREQ(ev.pci, "0000:91:00.0", "fallen pci keeps function");

	T_INTEQ(P("NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330) installed in this system "
		  "has fallen off the bus and is not responding to commands."), KMSG_FALLEN_OFF_BUS,
		"one-line The NVIDIA GPU form");
	T_STREQ(ev.pci, "0000:3b:00.0", "The NVIDIA GPU pci");

	T_INTEQ(P("NVRM: GPU at PCI:0000:5a:00: GPU-1a2b3c4d-0000-1111-2222-333344445555"),
		KMSG_GPU_UUID, "uuid map line");
	T_STREQ(ev.pci, "0000:5a:00", "uuid map pci");
	T_STREQ(ev.uuid, "GPU-1a2b3c4d-0000-1111-2222-333344445555", "uuid");
	T_INTEQ(P("NVRM: GPU at PCI:0000:5a:00: something else"), KMSG_NONE, "uuid line without uuid");

	T_INTEQ(P("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 48 LTSSM Fault Up"),
		KMSG_SXID, "SXid fatal");
	T_INTEQ(ev.code, 20034, "SXid code");
	T_STREQ(ev.pci, "0000:05:00.0", "SXid pci with function");
	T_INTEQ(ev.fatal, 1, "SXid Fatal");
	T_INTEQ(ev.link, 48, "SXid link");
	T_STREQ(ev.msg, "LTSSM Fault Up", "SXid text");
	T_STREQ(ev.name, "nvidia-nvswitch3", "SXid device name");

	T_INTEQ(P("[ 99.000001] nvidia-nvswitch0: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 32 "
		  "egress non-posted PRIV error (First)"), KMSG_SXID, "SXid non-fatal");
	T_INTEQ(ev.fatal, 0, "SXid Non-fatal");
	T_INTEQ(ev.link, 32, "SXid non-fatal link");
	T_STREQ(ev.name, "nvidia-nvswitch0", "SXid device after dmesg stamp");
	T_INTEQ(ev.mono_us, 99000001, "SXid dmesg stamp");

	T_INTEQ(P("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 60 "
		  "Sub-engine instance 00"), KMSG_SXID_COMPANION, "Severity companion");
	T_STREQ(ev.subcomp, "Severity", "companion kind Severity");
	T_INTEQ(ev.code, 20034, "companion keeps code");
	T_INTEQ(P("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 20034, Data {0x00000001, 0x0000abcd, "
		  "0x00000000}"), KMSG_SXID_COMPANION, "Data companion");
	T_STREQ(ev.subcomp, "Data", "companion kind Data");
	T_INTEQ(ev.nwords, 3, "Data words");
	T_OK(ev.words[1] == 0xabcd, "Data word value");
}

static void test_stamps(void)
{
	T_INTEQ(P("6,1234,5678901234,-;NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', "
		  "name=<unknown>, GPU has fallen off the bus."), KMSG_XID, "/dev/kmsg record");
	T_OK(ev.has_mono && ev.mono_us == 5678901234LL, "/dev/kmsg usec");
	T_OK(!ev.has_wall, "/dev/kmsg no wall");
	P("4,99,12,c,more;NVRM: Xid (PCI:0000:5a:00): 13, x");
	T_OK(ev.has_mono && ev.mono_us == 12 && ev.code == 13, "/dev/kmsg with flags field");

	T_INTEQ(P("[ 1234.567890] NVRM: Xid (PCI:0000:5a:00): 48, pid=1, name=x, DBE"), KMSG_XID,
		"dmesg line");
	T_OK(ev.has_mono && ev.mono_us == 1234567890LL, "dmesg stamp");
	P("[12.5] NVRM: Xid (PCI:0000:5a:00): 48, x");
	T_INTEQ(ev.mono_us, 12500000, "short fraction padded");

	T_INTEQ(P("2026-11-29T10:00:00,123456+00:00 NVRM: Xid (PCI:0000:5a:00): 94, pid=1, "
		  "Contained: x. RST: No, D-RST: No"), KMSG_XID, "dmesg iso");
	T_OK(ev.has_wall && ev.wall == 1795946400LL, "dmesg iso wall");
	T_OK(!ev.has_mono, "dmesg iso no mono");

	T_INTEQ(P("2026-11-29T10:00:00+0000 gpu-node-7 kernel: NVRM: Xid (PCI:0000:5a:00): 79, "
		  "pid='<unknown>', name=<unknown>, GPU has fallen off the bus."), KMSG_XID,
		"journalctl short-iso");
	T_INTEQ(ev.wall, 1795946400LL, "short-iso wall");
	P("2026-11-29T12:00:00+02:00 h kernel: NVRM: Xid (PCI:0000:5a:00): 79, x");
	T_INTEQ(ev.wall, 1795946400LL, "offset applied");
	P("2026-11-29T10:00:00.5Z NVRM: Xid (PCI:0000:5a:00): 79, x");
	T_INTEQ(ev.wall, 1795946400LL, "Z with fraction");
	P("2026-11-29T10:00:00+0000 h kernel[0]: [ 5.000001] NVRM: Xid (PCI:0000:5a:00): 79, x");
	T_OK(ev.has_wall && ev.has_mono && ev.mono_us == 5000001, "journal plus printk stamp");

	T_INTEQ(P("Nov 29 10:00:00 gpu-node-7 kernel: [ 77.000000] NVRM: Xid (PCI:0000:5a:00): 31, "
		  "pid=5, name=x, MMU Fault"), KMSG_XID, "syslog file line");
	T_OK(!ev.has_wall && ev.has_mono && ev.mono_us == 77000000, "syslog: printk stamp, no year");

	T_INTEQ(P("2026-13-29T10:00:00+0000 h kernel: NVRM: Xid (PCI:0000:5a:00): 79, x"), KMSG_XID,
		"bad month still parses the event");
	T_OK(!ev.has_wall, "bad month: no wall");
	P("[ 12.3 NVRM: Xid (PCI:0000:5a:00): 79, x");
	T_OK(!ev.has_mono && ev.code == 79, "unterminated bracket: no mono");
	P("{\"log\":\"NVRM: Xid (PCI:0000:5a:00): 79, x\"}");
	T_OK(ev.kind == KMSG_XID && ev.code == 79, "unknown wrapper: event found anyway");
	P("NVRM: Xid (PCI:0000:5a:00): 79, GPU has fallen off the bus.\r\n");
	T_STREQ(ev.msg, "GPU has fallen off the bus.", "CRLF stripped");
}

static void test_garbage(void)
{
	static const char *bad[] = {
		"", "NVRM:", "NVRM: Xid", "NVRM: Xid (", "NVRM: Xid (PCI:0000:5a:00", "NVRM: Xid (PCI:0000:5a:00)",
		"NVRM: Xid (PCI:0000:5a:00): ", "NVRM: Xid (PCI:0000:5a:00): abc, x",
		"NVRM: Xid (PCI:0000:5a:00): 12x", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module 550.54",
		"SXid (", "nvidia-nvswitch0: SXid (PCI:0000:05:00.0)", "random text",
		"[ 1.0] usb 1-1: new high-speed USB device", "6,1,2,-;", "NVRM: Xid (PCI:0000:5a:00): 99999999999, x",
		"NVRM: GPU at PCI:", "NVRM: The NVIDIA GPU 0000:3b:00.0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		T_INTEQ(P(bad[i]), KMSG_NONE, "no event: '%s'", bad[i]);
	T_INTEQ(ev.code, -1, "no event: code -1");

	/* truncated at every length: must not crash or read past the end */
	const char *full = "2026-11-29T10:00:00+0000 h kernel: NVRM: Xid (PCI:0000:9b:00 GPU-I:1 "
			   "GPU-CI:2): 149, pid=1, name=x, NETIR_LINK_EVT Fatal XC0 i0 Link 08 "
			   "(0x004505c6 0x00000000)";
	size_t n = strlen(full), ok = 1;
	for (size_t l = 0; l <= n; l++) {
		char *cut = malloc(l ? l : 1);
		memcpy(cut, full, l);
		kmsg_parse_line(cut, l, &ev);
		if (ev.kind != KMSG_NONE && ev.kind != KMSG_XID)
			ok = 0;
		free(cut);
	}
	T_OK(ok, "every truncation parses safely");

	/* NUL bytes and high bytes inside a line */
	const char raw[] = "NVRM: Xid (PCI:0000:5a:00): 13, pid=1, name=a\0b\xff\xfe, msg\x01\x80z";
	T_INTEQ(kmsg_parse_line(raw, sizeof(raw) - 1, &ev), KMSG_XID, "NUL inside line");
	T_STREQ(ev.name, "a\\x00b\\xff\\xfe", "name escaped (core/termsafe.h)");
	T_STREQ(ev.msg, "msg\\x01\\x80z", "msg escaped");

	/* very long line: cut at KMSG_MAX_LINE, message cut to the field */
	size_t big = 100000;
	char *l = malloc(big);
	memset(l, 'A', big);
	memcpy(l, "NVRM: Xid (PCI:0000:5a:00): 13, ", 32);
	T_INTEQ(kmsg_parse_line(l, big, &ev), KMSG_XID, "long line");
	T_INTEQ(strlen(ev.msg), sizeof(ev.msg) - 1, "long message cut to fit");
	memset(l, ' ', big);
	memcpy(l + big - 40, "NVRM: Xid (PCI:0000:5a:00): 13, x", 33);
	T_INTEQ(kmsg_parse_line(l, big, &ev), KMSG_NONE, "event past the line cap is ignored");
	free(l);
	T_INTEQ(kmsg_parse_line(NULL, 5, &ev), KMSG_NONE, "NULL line");
}

struct collect {
	struct kmsg_event ev[16];
	int n;
};

static int collect_cb(const struct kmsg_event *e, void *arg)
{
	struct collect *c = arg;
	if (c->n < 16)
		c->ev[c->n++] = *e;
	return 0;
}

static int stop_cb(const struct kmsg_event *e, void *arg)
{
	(void)e;
	(*(int *)arg)++;
	return 1;
}

static void test_buffer(void)
{
	const char log[] =
		"[  10.000000] NVRM: loading NVIDIA UNIX Open Kernel Module\n"
		"[  20.000000] NVRM: GPU at PCI:0000:5a:00: GPU-aaaa-bbbb\r\n"
		"[  30.000000] NVRM: The NVIDIA GPU 0000:5a:00.0\n"
		"[  30.000001] NVRM: (PCI ID: 10de:2330) installed in this system has\n"
		"[  30.000002] NVRM: fallen off the bus and is not responding to commands.\n"
		"[  31.000000] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
		"\n"
		"garbage\0with nul\n"
		"[  40.000000] NVRM: fallen off the bus and is not responding to commands.\n"
		"nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 3 LTSSM Fault Up";
	struct collect c = { .n = 0 };
	size_t n = kmsg_parse_buffer(log, sizeof(log) - 1, collect_cb, &c);
	T_INTEQ(n, 5, "buffer: five events");
	T_INTEQ(c.ev[0].kind, KMSG_GPU_UUID, "buffer: uuid line (CRLF)");
	T_STREQ(c.ev[0].uuid, "GPU-aaaa-bbbb", "buffer: uuid");
	T_INTEQ(c.ev[1].kind, KMSG_FALLEN_OFF_BUS, "buffer: multi-line fallen");
	T_STREQ(c.ev[1].pci, "0000:5a:00.0", "buffer: multi-line fallen gets the head's pci");
	T_INTEQ(c.ev[1].mono_us, 30000002, "buffer: tail stamp");
	T_INTEQ(c.ev[2].kind, KMSG_XID, "buffer: xid");
	T_INTEQ(c.ev[3].kind, KMSG_FALLEN_OFF_BUS, "buffer: orphan tail");
	T_STREQ(c.ev[3].pci, "", "buffer: orphan tail has no pci");
	T_INTEQ(c.ev[4].kind, KMSG_SXID, "buffer: last line without newline");
	int stops = 0;
	T_INTEQ(kmsg_parse_buffer(log, sizeof(log) - 1, stop_cb, &stops), 1, "callback can stop");
	T_INTEQ(kmsg_parse_buffer(NULL, 10, collect_cb, &c), 0, "NULL buffer");
}

static void test_gpu_key(void)
{
	char kbuf[32], *k = kbuf;	/* a pointer keeps T_STREQ's NULL check meaningful */
	kmsg_gpu_key("0000:5A:00.0", k, sizeof(kbuf));
	T_STREQ(k, "0000:5a:00", "key drops function, lowercases");
	kmsg_gpu_key("PCI:0000:5a:00", k, sizeof(kbuf));
	T_STREQ(k, "0000:5a:00", "key drops PCI:");
	kmsg_gpu_key("00000000:5A:00.0", k, sizeof(kbuf));
	T_STREQ(k, "0000:5a:00", "key shortens nvidia-smi domain");
	kmsg_gpu_key("5a:00.0", k, sizeof(kbuf));
	T_STREQ(k, "0000:5a:00", "key adds domain");
	kmsg_gpu_key("", k, sizeof(kbuf));
	T_STREQ(k, "", "empty key");
	T_STREQ(kmsg_kind_name(KMSG_FALLEN_OFF_BUS), "fallen_off_bus", "kind name");
}

int main(void)
{
	test_xid_forms();
	test_other_events();
	test_stamps();
	test_garbage();
	test_buffer();
	test_gpu_key();
	return t_done();
}
