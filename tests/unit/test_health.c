/* cmax health internals: the marker-skipping scanner (it must find exactly what kmsg_parse_buffer
 * finds, and leave an unterminated last line for the next pass). */
#include "tap.h"
#include "health/health.h"

#include <stdlib.h>
#include <string.h>

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
	test_scan();
	return t_done();
}
