/* cmax health internals: the `scontrol show node -o` parser and the
 * marker-skipping scanner (it must find exactly what kmsg_parse_buffer
 * finds, and leave an unterminated last line for the next pass). */
#include "tap.h"
#include "health/health.h"

#include <stdlib.h>
#include <string.h>

static void test_node_parse(void)
{
	struct slurm_node n;
	const char *drained =
		"NodeName=node1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 State=IDLE+DRAIN "
		"ThreadsPerCore=1 Partitions=gpu BootTime=2026-11-30T03:00:00 "
		"Reason=cmax: Xid 79 on 0000:5a:00 at 2026-11-30T03:35:00Z (reboot) [root@2026-11-30T03:35:00]\n";
	T_INTEQ(slurm_node_parse(drained, strlen(drained), "node1", &n), 0, "drained node parses");
	T_STREQ(n.state, "IDLE+DRAIN", "state");
	T_OK(n.drain && !n.down, "drain flag");
	T_STREQ(n.reason, "cmax: Xid 79 on 0000:5a:00 at 2026-11-30T03:35:00Z (reboot)",
		"reason without the [user@time] stamp");

	const char *idle = "NodeName=node2 Arch=x86_64 State=IDLE ThreadsPerCore=1 Reason=none\n";
	T_INTEQ(slurm_node_parse(idle, strlen(idle), "node2", &n), 0, "idle node parses");
	T_OK(!n.drain && !n.down && !n.fail, "idle: no flags");
	T_STREQ(n.reason, "", "no reason");

	const char *two = "NodeName=node1 State=IDLE\nNodeName=node2 State=DOWN+NOT_RESPONDING "
			  "Reason=Not responding [slurm@2026-11-30T03:35:00]\n";
	T_INTEQ(slurm_node_parse(two, strlen(two), "node2", &n), 0, "second of two lines");
	T_OK(n.down, "down flag");
	T_STREQ(n.reason, "Not responding", "foreign reason");

	T_INTEQ(slurm_node_parse(two, strlen(two), "node9", &n), -1, "unknown node");
	T_INTEQ(slurm_node_parse("Node node1 not found\n", 20, "node1", &n), -1, "error text");
	T_INTEQ(slurm_node_parse("", 0, NULL, &n), -1, "empty");
	const char *odd = "NodeName=n State=MIXED+DRAIN Reason=[weird [x@y]\n";
	T_INTEQ(slurm_node_parse(odd, strlen(odd), "n", &n), 0, "odd reason parses");
	T_STREQ(n.reason, "[weird", "bracket inside the reason is kept");
}

struct counter {
	size_t n;
};

static int count_cb(const struct kmsg_event *ev, void *arg)
{
	(void)ev;
	((struct counter *)arg)->n++;
	return 0;
}

static void test_scan(void)
{
	const char *log =
		"[    1.000000] Linux version 6.1\n"
		"[   12.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"
		"[   13.000000] NVRM: GPU at PCI:0000:5a:00: GPU-11111111-2222-3333-4444-555555555555\n"
		"[   14.000000] eth0: link up\n"
		"[   15.000000] NVRM: Xid (PCI:0000:5a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
		"[   16.000000] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 48 LTSSM Fault Up\n"
		"[   16.000001] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 5 Engine instance 48\n"
		"[   17.000000] NVRM: The NVIDIA GPU 0000:3b:00.0\n"
		"[   17.000001] NVRM: (PCI ID: 10de:2330) installed in this system has\n"
		"[   17.000002] NVRM: fallen off the bus and is not responding to commands.\n"
		"[   18.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a, Graphics";	/* no newline */
	size_t len = strlen(log), ev = 0;
	struct counter ref = { 0 };
	struct kmsg_ctx ctx = KMSG_CTX_INIT;

	kmsg_parse_buffer(log, len, count_cb, &ref);
	struct xid_classifier *c = xid_classifier_new(NULL, NULL);
	size_t used = health_scan(c, &ctx, log, len, 1, 0, &ev);
	struct xid_assessment *a = xid_classifier_finish(c);
	T_INTEQ(used, len, "final scan consumes everything");
	T_INTEQ(ev, ref.n, "scan finds what kmsg_parse_buffer finds (%zu)", ref.n);
	T_INTEQ(a->events, 4, "79, SXid, fallen-off-bus, 13");
	T_INTEQ(a->companions, 1, "one SXid companion");
	xid_assessment_free(a);

	/* not final: the unterminated Xid 13 line stays for the next pass */
	ev = 0;
	struct kmsg_ctx ctx2 = KMSG_CTX_INIT;
	c = xid_classifier_new(NULL, NULL);
	used = health_scan(c, &ctx2, log, len, 0, 0, &ev);
	a = xid_classifier_finish(c);
	T_INTEQ(len - used, strlen("[   18.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=a, Graphics"),
		"partial last line left unconsumed");
	T_INTEQ(a->events, 3, "three complete events");
	xid_assessment_free(a);

	/* noise only: consumed up to the last newline */
	const char *noise = "a\nb\nc";
	ev = 0;
	struct kmsg_ctx ctx3 = KMSG_CTX_INIT;
	c = xid_classifier_new(NULL, NULL);
	used = health_scan(c, &ctx3, noise, 5, 0, 0, &ev);
	xid_assessment_free(xid_classifier_finish(c));
	T_INTEQ(used, 4, "noise: up to the last newline");
	T_INTEQ(ev, 0, "noise: no events");
}

int main(void)
{
	test_node_parse();
	test_scan();
	return t_done();
}
